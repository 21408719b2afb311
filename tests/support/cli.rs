//! The `lodge` binary as a user runs it: with a database, a config folder of its own and no
//! keyring, fed on standard input, and what it printed on both streams.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::Lab;

/// Retry flags that make a command-line deposit give up in milliseconds, not minutes.
pub const FAST: [&str; 6] = [
    "--retry-base",
    "5ms",
    "--retry-cap",
    "50ms",
    "--retry-after-cap",
    "50ms",
];

/// The `lodge` binary with a database.
pub fn lodge(db: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lodge"));
    cmd.env("LODGE_DB", db)
        .env_remove("LODGE_TARGET")
        .env_remove("LODGE_TOKEN")
        .env_remove("LODGE_DB_WAIT");
    cmd
}

/// `lodge` with the lab's database (`lodge.db`), its own config file and the private secrets
/// file instead of the keyring.
pub fn lodge_in(lab: &Lab) -> Command {
    let mut cmd = lodge(&lab.path("lodge.db"));
    cmd.env("LODGE_CONFIG", lab.path("config/config.toml"))
        .env("LODGE_NO_KEYRING", "1");
    cmd
}

/// Standard output then standard error.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Assert that a command's output holds every one of `parts`, showing the whole output when
/// one is missing.
pub fn assert_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "expected {part:?} in:\n{text}");
    }
}

/// Run a command to its end off the async threads (a sandbox in this process keeps serving).
pub async fn run(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("run lodge"))
        .await
        .unwrap()
}

/// `lodge ARGS...` with a database, run to its end ([`run`]). The future owns the command,
/// so it borrows neither argument.
pub fn lodge_with(db: &Path, args: &[&str]) -> impl Future<Output = Output> + use<> {
    let mut cmd = lodge(db);
    cmd.args(args);
    run(cmd)
}

/// Run a command with `input` on its standard input.
pub fn run_with_stdin(mut cmd: Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `lodge add` of `folder` in the lab, with complete metadata titled `title`, and `flags`.
pub fn add_titled_with(lab: &Lab, folder: &Path, title: &str, flags: &[&str]) -> Output {
    let mut cmd = lodge_in(lab);
    cmd.args(add_titled(folder, title)).args(flags);
    cmd.output().unwrap()
}

/// `lodge ARGS` in the lab: whether it succeeded, and what it printed.
pub fn lodge_said(lab: &Lab, args: &[&str]) -> (bool, String) {
    let out = lodge_in(lab).args(args).output().unwrap();
    (out.status.success(), text(&out))
}

/// `lodge add` of `folder` as [`add_titled_with`], asserted to succeed: what it printed.
pub fn added_titled_with(lab: &Lab, folder: &Path, title: &str, flags: &[&str]) -> String {
    let out = add_titled_with(lab, folder, title, flags);
    assert!(out.status.success(), "{}", text(&out));
    text(&out)
}

/// The full content key in what `lodge add` printed.
pub fn key_in(said: &str) -> String {
    said.split_whitespace()
        .find(|w| w.len() == 64 && w.chars().all(|c| c.is_ascii_hexdigit()))
        .unwrap_or_else(|| panic!("no key in: {said}"))
        .to_string()
}

/// `lodge deposit --all` in the lab to `sandbox`, asserted to fail having sent the sandbox
/// nothing (metadata with a problem is refused before anything is queued).
pub async fn deposit_all_refused_unsent(lab: &Lab, sandbox: &lodge::sandbox::RunningSandbox) {
    let mut cmd = lodge_in(lab);
    cmd.args(["deposit", "--all", "--target", &sandbox.target_url()]);
    let out = run(cmd).await;
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().requests, 0, "nothing sent");
}

/// A folder `name` of one CSV file and a `.zenodo.json` of complete metadata (title Cores,
/// Curie, Marie, 2026, Lab) with the JSON members `fields` (`"dates": [...]`) too, added in
/// the lab as the first dataset: what `lodge add` printed, and what `lodge show 1` prints.
pub fn added_with_zenodo_json(lab: &Lab, name: &str, fields: &str) -> (String, String) {
    let zenodo = format!(
        r#"{{"title": "Cores", "creators": [{{"name": "Curie, Marie"}}],
            "publication_date": "2026-01-05", "publisher": "Lab", {fields}}}"#
    );
    let folder = lab.folder(
        name,
        &[
            ("cores.csv", b"depth,c\n1,2\n"),
            (".zenodo.json", zenodo.as_bytes()),
        ],
    );
    let (added, said) = lodge_said(lab, &["add", folder.to_str().unwrap()]);
    assert!(added, "{said}");
    let (_, shown) = lodge_said(lab, &["show", "1"]);
    (said, shown)
}

/// What the InvenioRDM and DataCite emulations hold of a dataset deposited to both.
pub struct DepositedToBoth {
    /// The InvenioRDM record (`GET /api/records/ID`).
    pub record: serde_json::Value,
    /// The DOI's attributes.
    pub attributes: serde_json::Value,
    /// What the two deposits printed.
    pub said: String,
}

/// `lodge deposit --all` in the lab to the InvenioRDM emulation of `sandbox`, then to its
/// DataCite emulation, each asserted to succeed, and what each holds of dataset `id`.
pub async fn deposited_to_invenio_and_datacite(
    lab: &Lab,
    sandbox: &lodge::sandbox::RunningSandbox,
    id: i64,
) -> DepositedToBoth {
    let (mut identifiers, mut said) = (Vec::new(), String::new());
    for (url, token, kind) in [
        (
            sandbox.invenio_target_url(),
            sandbox.invenio_account().token,
            "invenio+",
        ),
        (
            sandbox.datacite_target_url(),
            sandbox.datacite_account().password,
            "datacite+",
        ),
    ] {
        let mut cmd = lodge_in(lab);
        cmd.args(["deposit", "--all", "--token", &token])
            .args(["--target", &url]);
        let out = run(cmd).await;
        assert!(out.status.success(), "{}", text(&out));
        said.push_str(&text(&out));
        let store = lodge::store::Store::open(&lab.path("lodge.db")).unwrap();
        let identifier = store
            .jobs_of_dataset(id)
            .unwrap()
            .into_iter()
            .find(|j| j.target.starts_with(kind))
            .and_then(|j| j.identifier)
            .unwrap_or_else(|| panic!("dataset {id} has no {kind} identifier"));
        identifiers.push(identifier);
    }
    let record = super::invenio_json(sandbox, &format!("/api/records/{}", identifiers[0])).await;
    let doi = super::get_doi_json(sandbox, &identifiers[1]).await;
    DepositedToBoth {
        record,
        attributes: doi["data"]["attributes"].clone(),
        said,
    }
}

/// `lodge add` of `folder` with complete metadata, titled `title`: the arguments, for a
/// test that adds a dataset as another process (a terminal, another machine) would.
pub fn add_titled<'a>(folder: &'a Path, title: &'a str) -> [&'a str; 10] {
    [
        "add",
        folder.to_str().expect("a UTF-8 test folder"),
        "--title",
        title,
        "--creator",
        "Curie, Marie",
        "--publisher",
        "Lab",
        "--year",
        "2026",
    ]
}
