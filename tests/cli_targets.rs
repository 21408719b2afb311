//! `lodge target add|list|test` and `deposit --target NAME` as a user runs them, against real
//! WebDAV and S3 servers on loopback: the config file, secrets that never show up in output,
//! logs or the store, plain http refused for remote hosts, and a server that ignores
//! `If-None-Match` refused by `target test`.

mod support;

use lodge::targets::open_target;
use support::proxy::{Action, Proxy, Rule};
use support::servers::{self, DAV_PASSWORD, DAV_USER, dav_folder};
use support::*;

/// `lodge target add lab-dav` of a new folder on the test WebDAV server, its password on
/// standard input: the command's output, and the folder on the server's disk.
fn add_dav_target(lab: &Lab) -> (std::process::Output, std::path::PathBuf) {
    add_dav_target_with(lab, "")
}

/// A WebDAV target `lab-dav` saved with `query` after its URL ([`add_dav_target_with`]),
/// and dataset 1 deposited there by `lodge deposit`: the store, and the folder on the
/// server's disk.
fn deposited_to_dav(
    lab: &Lab,
    query: &str,
) -> (std::sync::Arc<lodge::store::Store>, std::path::PathBuf) {
    let (out, folder) = add_dav_target_with(lab, query);
    assert!(out.status.success(), "{}", text(&out));
    let store = lab.store("lodge.db");
    add_dataset(&store, lab);
    let out = lodge_in(lab)
        .args(["deposit", "--target", "lab-dav", "--all"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    (store, folder)
}

/// [`add_dav_target`] with `query` after the folder's URL (`?layout=folders`).
fn add_dav_target_with(lab: &Lab, query: &str) -> (std::process::Output, std::path::PathBuf) {
    let (dav, root) = servers::webdav().clone();
    let folder = dav_folder(&root);
    let url = format!("webdav+{dav}/{folder}{query}");
    (save_dav_target(lab, &url, DAV_PASSWORD), root.join(folder))
}

/// Save `url` as the WebDAV target `lab-dav`, with the test server's user and `password`.
fn save_dav_target(lab: &Lab, url: &str, password: &str) -> std::process::Output {
    let mut add = lodge_in(lab);
    add.args(["target", "add", "lab-dav", url, "--user", DAV_USER])
        .arg("--secret-stdin");
    run_with_stdin(add, &format!("{password}\n"))
}

/// The URL of the test WebDAV server's folder `folder` (its path on the server's disk).
fn dav_url_of(folder: &std::path::Path) -> String {
    let name = folder.file_name().unwrap().to_str().unwrap();
    format!("webdav+{}/{name}", servers::webdav().0)
}

/// A saved WebDAV target's URL given to `--target` (copied from `target list`, say) is the
/// same place: its saved user and password are sent, a note says so, and the deposit lands
/// (without them the server refused it, and the saved target, sharing the place, was
/// paused with advice to save a target that `target add` then refused as a duplicate).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_saved_webdav_targets_url_deposits_with_its_saved_credentials() {
    let lab = Lab::new();
    let (out, folder) = add_dav_target(&lab);
    assert!(out.status.success(), "{}", text(&out));
    let url = dav_url_of(&folder);
    let out = lodge_in(&lab)
        .args(["target", "test", &url])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[&format!(
            "note: {url} is where target 'lab-dav' deposits: its saved credentials and \
             settings are used"
        )],
    );

    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = lodge_in(&lab)
        .args(["deposit", "--target", &url, "--all"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(!t.contains("paused"), "{t}");
    assert_eq!(
        std::fs::read_dir(folder.join("records")).unwrap().count(),
        1
    );
}

/// A saved target paused for a refused password is said to resume by the name it is saved
/// under, as its pause is, not by its identity.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_saved_target_paused_then_resumed_is_named_by_its_name() {
    let lab = Lab::new();
    let (out, folder) = add_dav_target(&lab);
    assert!(out.status.success(), "{}", text(&out));
    let url = dav_url_of(&folder);
    let save = |password: &str| {
        let out = save_dav_target(&lab, &url, password);
        assert!(out.status.success(), "{}", text(&out));
    };
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let deposit = || {
        lodge_in(&lab)
            .args(["deposit", "--target", "lab-dav", "--all"])
            .output()
            .unwrap()
    };
    save("not the password");
    let out = deposit();
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("lab-dav is paused"), "{}", text(&out));
    save(DAV_PASSWORD);
    let out = deposit();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.lines().any(|l| l == "lab-dav resumed"), "{t}");
    assert!(!t.contains(&format!("{url} resumed")), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn webdav_target_by_name_deposits_and_the_secret_never_shows() {
    let lab = Lab::new();
    let (out, _) = add_dav_target(&lab);
    let mut outputs = text(&out);
    assert!(out.status.success(), "{outputs}");
    let secrets = lab.path("config/secrets.toml");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&secrets).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the secrets file is private");
    }
    let config = std::fs::read_to_string(lab.path("config/config.toml")).unwrap();
    assert!(config.contains("[targets.lab-dav]"), "{config}");
    assert!(
        !config.contains(DAV_PASSWORD),
        "no secret in the config file"
    );

    for args in [vec!["target", "list"], vec!["target", "test", "lab-dav"]] {
        let out = lodge_in(&lab).args(&args).output().unwrap();
        outputs.push_str(&text(&out));
        assert!(out.status.success(), "{args:?}: {}", text(&out));
    }
    assert!(outputs.contains("is ready"), "{outputs}");

    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = lodge_in(&lab)
        .args(["deposit", "--target", "lab-dav", "--all", "-v"])
        .output()
        .unwrap();
    outputs.push_str(&text(&out));
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("deposited"), "{}", text(&out));
    // `show` names the record once: on WebDAV its identifier is its address.
    let record = store.job(1).unwrap().identifier.unwrap();
    let out = lodge_in(&lab).args(["show", "1"]).output().unwrap();
    let job_line = text(&out)
        .lines()
        .find(|l| l.trim_start().starts_with("job 1 "))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no line for job 1: {}", text(&out)));
    assert_eq!(job_line.matches(&record).count(), 1, "{job_line}");
    // So does `history`.
    let out = lodge_in(&lab).arg("history").output().unwrap();
    assert_eq!(text(&out).matches(&record).count(), 1, "{}", text(&out));
    // `show`, `history` and `status` call the target by the name it was saved under, what
    // `--target` was given, not by its identity in the store.
    let identity = store.job(1).unwrap().target;
    assert!(identity.starts_with("webdav+"), "{identity}");
    for args in [vec!["show", "1"], vec!["history"], vec!["status"]] {
        let out = lodge_in(&lab).args(&args).output().unwrap();
        let t = text(&out);
        let line = t
            .lines()
            .find(|l| l.contains(" job 1 "))
            .unwrap_or_else(|| panic!("{args:?}: no line for job 1: {t}"));
        assert!(line.contains(" lab-dav "), "{args:?}: {line}");
        assert!(!line.contains(&identity), "{args:?}: {line}");
    }
    // For scripts, `history --json` gives both: the identity and the saved name.
    let out = lodge_in(&lab).args(["history", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["target"], identity.as_str(), "{json:#}");
    assert_eq!(json[0]["target_name"], "lab-dav", "{json:#}");

    // New metadata since: the command `status` suggests names the target as saved (its
    // identity is no URL that --target would take).
    let (id, _) = support::add(
        &store,
        &lab.numbered_folder(1),
        &metadata("By name, revised"),
    );
    let out = lodge_in(&lab).arg("status").output().unwrap();
    assert_all(
        &text(&out),
        &[&format!("`lodge deposit --target lab-dav {id}`")],
    );
    for args in [vec!["log"], vec!["status"], vec!["history", "--json"]] {
        let out = lodge_in(&lab).args(&args).output().unwrap();
        outputs.push_str(&text(&out));
    }
    assert!(
        !outputs.contains(DAV_PASSWORD),
        "the secret was printed:\n{outputs}"
    );
    drop(store);
    for file in ["lodge.db", "lodge.db-wal"] {
        if let Ok(bytes) = std::fs::read(lab.path(file)) {
            let found = bytes
                .windows(DAV_PASSWORD.len())
                .any(|w| w == DAV_PASSWORD.as_bytes());
            assert!(!found, "the secret is in {file}");
        }
    }
}

/// `lodge show` names the folder a deposit's files went to on a target that keeps a folder
/// per dataset, under the deposit, beside its citation.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn show_names_the_folder_of_a_deposit_to_a_folder_per_dataset_target() {
    let lab = Lab::new();
    let (store, folder) = deposited_to_dav(&lab, "/?layout=folders");
    let key = store.dataset(1).unwrap().unwrap().key.unwrap();
    let name = format!("By-name-{}", &key.to_hex()[..12]);
    assert!(folder.join("datasets").join(&name).is_dir());

    let out = lodge_in(&lab).args(["show", "1"]).output().unwrap();
    let t = text(&out);
    let dav = &servers::webdav().0;
    let share = folder.file_name().unwrap().to_string_lossy();
    let expected = format!("{dav}/{share}/datasets/{name}/");
    assert!(t.contains(&format!("files in: {expected}")), "{t}");
    let out = lodge_in(&lab)
        .args(["show", "1", "--json"])
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["deposits"][0]["files_in"], expected.as_str());
}

/// A share the user may not write (HTTP 403 with the right password) pauses the target
/// saying the user needs write access there, not that the password is wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_read_only_webdav_share_is_said_to_need_write_access_not_another_password() {
    let lab = Lab::new();
    let dav = &servers::webdav().0;
    let url = format!("webdav+{dav}/read-only/lodge");
    let mut add = lodge_in(&lab);
    add.args(["target", "add", "ro-dav", &url, "--user", DAV_USER])
        .arg("--secret-stdin");
    let out = run_with_stdin(add, &format!("{DAV_PASSWORD}\n"));
    assert!(out.status.success(), "{}", text(&out));
    add_dataset(&lab.store("lodge.db"), &lab);
    let out = lodge_in(&lab)
        .args(["deposit", "--target", "ro-dav", "--all"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_ne!(out.status.code(), Some(0), "{t}");
    assert!(
        t.contains(&format!(
            "the server refused user '{DAV_USER}' (HTTP 403 Forbidden): the user needs write \
             access to {dav}/read-only/lodge"
        )),
        "{t}"
    );
    assert!(!t.contains("refused the user name or password"), "{t}");
}

/// On WebDAV, which replaces a file of the wrong size, verify counts a file left short
/// among what `--repair` sends again, with a command that runs as printed, instead of
/// telling the researcher to remove it on the server by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_on_webdav_offers_the_repair_for_a_file_left_short() {
    let lab = Lab::new();
    let (store, folder) = deposited_to_dav(&lab, "");

    let key = store.dataset(1).unwrap().unwrap().key.unwrap();
    let entry = store.document(&key).unwrap().unwrap().manifest[0].clone();
    let held = folder.join(format!("blobs/sha256/{}", entry.sha256));
    std::fs::write(&held, b"cut").unwrap();
    let out = lodge_in(&lab).args(["verify", "1"]).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("Lost files: `lodge verify 1 --repair` sends them again"),
        "{t}"
    );
    // The file is named by where it is on the server, for a person to look.
    let share = folder.file_name().unwrap().to_string_lossy();
    let at = format!(
        "{}/{share}/blobs/sha256/{}",
        servers::webdav().0,
        entry.sha256
    );
    assert!(
        t.contains(&format!(
            "{} is 3 bytes on the server, {} when deposited\n             at {at}\n",
            entry.path,
            lodge::wording::count_of(entry.size, "byte", "bytes")
        )),
        "{t}"
    );
    assert!(!t.contains("remove that file on the server"), "{t}");
    let out = lodge_in(&lab)
        .args(["verify", "1", "--repair"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::metadata(&held).unwrap().len(), entry.size);
}

/// The server lost a file and the folder's copy has changed since (same size, other
/// bytes): the repair refuses before sending anything, so a WebDAV server that writes a
/// file as it arrives is left no empty or partial file under its name, and the next check
/// still finds it missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_repair_refused_for_a_changed_file_leaves_nothing_on_webdav() {
    let lab = Lab::new();
    let (store, folder) = deposited_to_dav(&lab, "");
    let dataset = store.dataset(1).unwrap().unwrap();
    let entry = store
        .document(&dataset.key.unwrap())
        .unwrap()
        .unwrap()
        .manifest[0]
        .clone();
    let held = folder.join(format!("blobs/sha256/{}", entry.sha256));
    std::fs::remove_file(&held).unwrap();
    let local = std::path::Path::new(&dataset.path).join(&entry.path);
    let mut changed = std::fs::read(&local).unwrap();
    changed[0] ^= 1;
    std::fs::write(&local, &changed).unwrap();

    let out = lodge_in(&lab)
        .args(["verify", "1", "--repair"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "changed since scan",
            "it is not the file deposited",
            "put the deposited file back in the folder",
        ],
    );
    assert!(!held.exists(), "nothing was left under the file's name");
    let out = lodge_in(&lab).args(["verify", "1"]).output().unwrap();
    assert!(text(&out).contains("is missing"), "{}", text(&out));
}

/// A WebDAV URL's `#` part names no folder, nor does a `?` part other than the layout's:
/// refused, not dropped (the deposits went to the folder before it); written as %3F or %23
/// it is part of the folder's name. `?layout=folders` is taken, and the target's identity
/// says so (another layout is another target).
#[test]
fn a_webdav_url_with_a_query_or_fragment_is_refused_not_cut_short() {
    let lab = Lab::new();
    for (url, said) in [
        (
            "webdav+http://127.0.0.1:9/a#b",
            "has a '#' part, which names no WebDAV folder",
        ),
        (
            "webdav+http://127.0.0.1:9/a?x=1",
            "'x' is not an option of this kind of target URL: it takes 'layout'",
        ),
    ] {
        let t = target_add_refused(&lab, url, &["--user", "u", "--secret-env", "P"]);
        assert!(t.contains(said), "{t}");
    }
    for (name, url) in [
        ("w", "webdav+http://127.0.0.1:9/a%23b"),
        ("f", "webdav+http://127.0.0.1:9/a?layout=folders"),
    ] {
        let out = lodge_in(&lab)
            .args(["target", "add", name, url])
            .args(["--user", "u", "--secret-env", "P"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    let out = lodge_in(&lab).args(["target", "list"]).output().unwrap();
    let t = text(&out);
    assert!(
        t.contains("webdav+http://127.0.0.1:9/a?layout=folders"),
        "{t}"
    );
}

/// `lodge target add t URL ARGS`, which must be refused as a usage error (exit status 2):
/// what it says.
fn target_add_refused(lab: &Lab, url: &str, args: &[&str]) -> String {
    let out = lodge_in(lab)
        .args(["target", "add", "t", url])
        .args(args)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{url}: {t}");
    t
}

/// `lodge ARGS`, with `--token TOKEN` when one is given (and never one from the
/// environment: `lodge` leaves `LODGE_TOKEN` out).
fn with_token(lab: &Lab, args: &[&str], token: Option<&str>) -> std::process::Output {
    let mut cmd = lodge_in(lab);
    cmd.args(args);
    if let Some(t) = token {
        cmd.args(["--token", t]);
    }
    cmd.output().unwrap()
}

fn add_dataset(store: &lodge::store::Store, lab: &Lab) {
    add(store, &lab.numbered_folder(1), &metadata("By name"));
}

/// A misspelt option in a target URL is refused, naming the options that kind takes, and
/// nothing is saved: dropped without a word, `?stat=draft` would have Zenodo publish what
/// was meant to stay a draft, for good. The same for an option given twice, and for any
/// option on a sandbox URL, which takes none.
#[test]
fn a_misspelt_or_repeated_target_url_option_is_refused_not_dropped() {
    let lab = Lab::new();
    for (url, said) in [
        (
            "zenodo+https://zenodo.org?stat=draft",
            "'stat' is not an option of this kind of target URL: it takes 'state'",
        ),
        (
            "invenio+https://data.example.org?state=draft&state=publish",
            "the option 'state' is given twice",
        ),
        (
            "datacite+https://api.datacite.org?prefix=10.5072&repository=LAB.X&sate=register",
            "'sate' is not an option of this kind of target URL: it takes 'prefix', \
             'repository', 'state', 'url', 'landing_from'",
        ),
        (
            "sandbox+http://127.0.0.1:9?layout=folders",
            "'layout' is not an option of this kind of target URL: it takes none",
        ),
    ] {
        // A sandbox keeps no secret: it would be refused for that first.
        let secret: &[&str] = match url.starts_with("sandbox+") {
            true => &[],
            false => &["--secret-env", "T"],
        };
        let t = target_add_refused(&lab, url, secret);
        assert!(t.contains(said), "{url}: {t}");
    }
    let config = std::fs::read_to_string(lab.path("config/config.toml")).unwrap_or_default();
    assert!(!config.contains("[targets.t]"), "nothing saved: {config}");
}

/// A password in a target URL would be saved in the config and printed in messages, the
/// store and the log: such a URL is refused, the refusal says what to do instead, and the
/// password shows nowhere.
#[test]
fn a_target_url_with_a_password_is_refused_and_the_password_shows_nowhere() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    for url in [
        "webdav+http://alice:hunter2@127.0.0.1:9/lab",
        "sandbox+http://alice:hunter2@127.0.0.1:9",
    ] {
        let add = lodge_in(&lab)
            .args(["target", "add", "lab", url])
            .output()
            .unwrap();
        let deposit = lodge_in(&lab)
            .args(["deposit", "--all", "--target", url])
            .output()
            .unwrap();
        for out in [add, deposit] {
            let t = text(&out);
            assert_eq!(out.status.code(), Some(2), "{url}: {t}");
            assert_all(
                &t,
                &[
                    "holds a user name and password before the host",
                    "--user",
                    "--secret-stdin",
                ],
            );
            assert!(!t.contains("hunter2"), "{t}");
        }
    }
    assert!(
        !lab.path("config/config.toml").exists(),
        "nothing was saved"
    );
    assert!(
        store.jobs_of_dataset(1).unwrap().is_empty(),
        "nothing queued"
    );
}

/// S3's own settings given for a WebDAV (or any other non-S3) target are refused, naming
/// them, and nothing is saved: listed with the target, they read as if they applied.
#[test]
fn s3_settings_for_a_webdav_target_are_refused_naming_them() {
    let lab = Lab::new();
    let out = lodge_in(&lab)
        .args(["target", "add", "y", "webdav+http://127.0.0.1:9/share"])
        .args([
            "--endpoint",
            "http://10.0.0.1:9000",
            "--region",
            "eu-west-1",
        ])
        .args(["--part-size", "6000000", "--user", "alice"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert_all(
        &t,
        &[
            "--endpoint, --region, --part-size are for S3 targets (s3://BUCKET/PREFIX) only, \
           and 'webdav+http://127.0.0.1:9/share' is not one: leave them out",
        ],
    );
    assert!(!lab.path("config/config.toml").exists(), "nothing saved");
    let out = lodge_in(&lab)
        .args([
            "target",
            "add",
            "s",
            "s3://labdata/x",
            "--endpoint",
            "http://127.0.0.1:9",
        ])
        .args([
            "--region",
            "eu-west-1",
            "--part-size",
            "6000000",
            "--user",
            "AKIA",
        ])
        .args(["--secret-env", "SK"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// Credentials where a target's settings would save them in the config file are refused
/// without being repeated: in the endpoint, and a secret given where the name of its
/// variable goes (`--secret-env $LAB_SECRET`, the shell having put the secret there).
#[test]
fn a_secret_in_the_endpoint_or_in_place_of_a_variable_name_is_refused_and_shown_nowhere() {
    let lab = Lab::new();
    let s3 = "s3://labdata/x";
    let refused: [(&[&str], &str); 3] = [
        (
            &["--endpoint", "http://AKIA:hunter2@127.0.0.1:9"],
            "its endpoint is refused: it holds a user name and password before the host",
        ),
        (
            &[
                "--access-key-env",
                "AK",
                "--secret-env",
                "Tr0ub4dor&3!hunter2",
            ],
            "secret_env (--secret-env) takes the name of an environment variable",
        ),
        (
            &["--access-key-env", "hunter2 AKIA", "--secret-env", "SK"],
            "user_env (--access-key-env) takes the name of an environment variable",
        ),
    ];
    for (flags, said) in refused {
        let out = lodge_in(&lab)
            .args(["target", "add", "lab", s3])
            .args(flags)
            .output()
            .unwrap();
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {t}");
        assert!(t.contains(said), "{flags:?}: {t}");
        assert!(!t.contains("hunter2"), "{t}");
    }
    assert!(
        !lab.path("config/config.toml").exists(),
        "nothing was saved"
    );
}

/// A key the config file does not know is refused with its line, not ignored (a misspelt
/// `endpoint` would send the data to AWS), and a password written there is not printed:
/// `target list` lists the entry as not valid, and using it is refused.
#[test]
fn a_config_entry_with_an_unknown_key_is_refused_naming_its_line_and_not_its_value() {
    let lab = Lab::new();
    let config = lab.path("config/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    for (entry, said) in [
        (
            "endpont = \"http://127.0.0.1:9\"\n",
            "line 3: unknown field `endpont`, expected one of `url`, `endpoint`",
        ),
        (
            "password = \"hunter2\"\n",
            "line 3: unknown field `password`",
        ),
    ] {
        std::fs::write(
            &config,
            format!("[targets.typo]\nurl = \"s3://labdata/x\"\n{entry}"),
        )
        .unwrap();
        let list = lodge_in(&lab).args(["target", "list"]).output().unwrap();
        let listed = text(&list);
        assert!(list.status.success(), "{listed}");
        assert!(listed.starts_with("typo             (invalid) s3://labdata/x\n"));
        let test = lodge_in(&lab)
            .args(["target", "test", "typo"])
            .output()
            .unwrap();
        let tested = text(&test);
        assert_eq!(test.status.code(), Some(2), "{tested}");
        for t in [listed, tested] {
            assert!(t.contains(said), "{t}");
            assert!(!t.contains("hunter2"), "{t}");
            if entry.starts_with("password") {
                assert!(t.contains("no secret goes in this file"), "{t}");
            }
        }
    }
}

/// One entry of the config file that is not valid (a lab member's typo) takes no other
/// target away: a deposit to another saved target goes, and writing the config file (a
/// target added, then the broken one removed) keeps the entry as written until it is
/// removed by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_entry_not_valid_leaves_the_other_saved_targets_working_and_is_kept_until_removed() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let config = lab.path("config/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let broken =
        "[targets.typo]\n# the lab's store\nurl = \"s3://labdata/x\"\nfiles_at_once = \"4\"\n";
    std::fs::write(
        &config,
        format!(
            "{broken}\n[targets.lab]\nurl = \"{}\"\n",
            sandbox.target_url()
        ),
    )
    .unwrap();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);

    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", "lab"]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 1);
    // `status --json` names the saved target as the text does.
    let status = lodge_in(&lab).args(["status", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(json["items"][0]["target_name"], "lab", "{json:#}");
    assert_eq!(json["items"][0]["target"], sandbox.target_url().as_str());

    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", "typo"]);
        cmd
    })
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("target 'typo' in the config file")
            && t.contains("is not valid: line 4: invalid type: string \"4\", expected usize"),
        "{t}"
    );

    let add = lodge_in(&lab)
        .args(["target", "add", "other", "sandbox+http://127.0.0.1:9"])
        .output()
        .unwrap();
    assert!(add.status.success(), "{}", text(&add));
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.starts_with(broken), "{written}");
    assert!(written.contains("[targets.other]"), "{written}");

    let remove = lodge_in(&lab)
        .args(["target", "remove", "typo"])
        .output()
        .unwrap();
    assert!(remove.status.success(), "{}", text(&remove));
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(!written.contains("typo"), "{written}");
    assert!(
        written.contains("[targets.lab]") && written.contains("[targets.other]"),
        "{written}"
    );
}

/// S3 part settings outside S3's limits are refused when the target is added, naming the
/// setting, not on the first large file with the server's EntityTooSmall.
#[test]
fn s3_part_settings_outside_s3_limits_are_refused_when_the_target_is_added() {
    let lab = Lab::new();
    for (flag, value, said) in [
        (
            "--part-size",
            "1000",
            "part_size (--part-size) is 1000 bytes: S3 takes parts of 5 MiB",
        ),
        ("--part-size", "0", "part_size (--part-size) is 0 bytes"),
        (
            "--multipart-threshold",
            "0",
            "multipart_threshold (--multipart-threshold) is 0 bytes: it must be at least 5 MiB",
        ),
    ] {
        let out = lodge_in(&lab)
            .args(["target", "add", "mp", "s3://labdata/mp", "--endpoint"])
            .args([
                "http://127.0.0.1:9",
                "--access-key-env",
                "AK",
                "--secret-env",
                "SK",
            ])
            .args([flag, value])
            .output()
            .unwrap();
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(t.contains(said), "{t}");
    }
    let out = lodge_in(&lab)
        .args(["target", "add", "mp", "s3://labdata/mp", "--endpoint"])
        .args([
            "http://127.0.0.1:9",
            "--access-key-env",
            "AK",
            "--secret-env",
            "SK",
        ])
        .args(["--part-size", "5242880", "--multipart-threshold", "8388608"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// A saved target's `files_at_once` (`target add --files-at-once N`) is kept in the config
/// file, listed and put in the commands Lodge suggests, and bounds how many of a deposit's
/// files go at once; out of range, or on a target whose files go one at a time by design,
/// it is refused when the target is added, naming the setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn files_at_once_of_a_saved_target_bounds_its_uploads_and_a_bad_value_is_refused() {
    let lab = Lab::new();
    for (url, value, said) in [
        (
            "sandbox+http://127.0.0.1:9",
            "0",
            "files_at_once (--files-at-once) is 0: give 1 (one file after another) to 32",
        ),
        (
            "webdav+http://127.0.0.1:9/dav",
            "33",
            "files_at_once (--files-at-once) is 33: give 1",
        ),
        (
            "invenio+https://data.example.org",
            "2",
            "InvenioRDM and Zenodo are sent a draft's files one at a time",
        ),
    ] {
        let t = target_add_refused(&lab, url, &["--files-at-once", value]);
        assert!(t.contains(said), "{url} {value}: {t}");
    }
    assert!(
        !lab.path("config/config.toml").exists(),
        "nothing refused is saved"
    );

    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let proxy = Proxy::start(&sandbox.base_url()).await;
    let url = format!("sandbox+{}", proxy.url());
    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "add", "two", &url, "--files-at-once", "2"]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let config = std::fs::read_to_string(lab.path("config/config.toml")).unwrap();
    assert!(config.contains("files_at_once = 2"), "{config}");
    let list = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "list"]);
        cmd
    })
    .await;
    assert!(text(&list).contains("2 files at once"), "{}", text(&list));

    let files: Vec<(String, Vec<u8>)> = (0..8)
        .map(|i| (format!("run-{i}.csv"), format!("run,{i}\n").into_bytes()))
        .collect();
    let listed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let store = lab.store("lodge.db");
    add(
        &store,
        &lab.folder("eight", &listed),
        &metadata("Eight runs"),
    );
    // Each file's answer held 300 ms: every file let out at once is on its way together.
    proxy.add_rule(Rule {
        method: "PUT",
        path_contains: "/blobs/".into(),
        action: Action::Delay(std::time::Duration::from_millis(300)),
        times: files.len(),
    });
    let deposit = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", "two"]);
        cmd
    })
    .await;
    assert!(deposit.status.success(), "{}", text(&deposit));
    assert_eq!(proxy.peak_in_flight(), 2, "{:?}", proxy.log());
    assert_eq!(sandbox.stats().blobs, 8);
}

/// The command an S3 target without credentials is told to run keeps its endpoint and
/// region (`target add` replaces the whole entry), and runs as printed; a target given by
/// URL is told to save one under a NAME. A secret stored before, replaced by a variable,
/// does not linger in the secrets file.
#[test]
fn the_add_command_suggested_for_missing_s3_credentials_keeps_the_endpoint() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = lodge_in(&lab)
        .args(["target", "add", "lab-s3", "s3://labdata/x"])
        .args(["--endpoint", "http://127.0.0.1:9", "--region", "eu-west-1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let suggested = "lodge target add lab-s3 s3://labdata/x --endpoint http://127.0.0.1:9 \
                     --region eu-west-1 --access-key-env VAR --secret-env VAR";
    // Saved with no access key at all: said at once, with the command that gives them.
    assert!(
        text(&out).contains("note: 'lab-s3' has no access key id, so the server will refuse it")
            && text(&out).contains(&format!("`{suggested}`")),
        "{}",
        text(&out)
    );
    let out = lodge_in(&lab)
        .args(["deposit", "--all", "--target", "lab-s3"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(t.contains(&format!("`{suggested}`")), "{t}");
    let words: Vec<&str> = suggested.split(' ').skip(1).collect();
    let out = lodge_in(&lab).args(&words).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let config = std::fs::read_to_string(lab.path("config/config.toml")).unwrap();
    assert!(
        config.contains("endpoint = \"http://127.0.0.1:9\""),
        "{config}"
    );
    assert!(config.contains("region = \"eu-west-1\""), "{config}");
    // `target list` shows the settings a deposit goes by, not only the URL.
    let out = lodge_in(&lab).args(["target", "list"]).output().unwrap();
    assert!(
        text(&out).contains("endpoint http://127.0.0.1:9; region eu-west-1"),
        "{}",
        text(&out)
    );

    let out = lodge_in(&lab)
        .args(["deposit", "--all", "--target", "s3://labdata/y"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(t.contains("`lodge target add NAME s3://labdata/y"), "{t}");

    // Spaces alone are no secret: refused, and nothing is saved.
    let mut blank = lodge_in(&lab);
    blank
        .args(["target", "add", "blank", "webdav+http://127.0.0.1:9/x"])
        .args(["--user", "u", "--secret-stdin"]);
    let out = run_with_stdin(blank, "  \n");
    assert!(!out.status.success());
    assert!(
        text(&out).contains("the secret on standard input is only spaces"),
        "{}",
        text(&out)
    );
    let listed = text(&lodge_in(&lab).args(["target", "list"]).output().unwrap());
    assert!(!listed.contains("blank"), "{listed}");

    let mut add = lodge_in(&lab);
    add.args(["target", "add", "dav", "webdav+http://127.0.0.1:9/x"])
        .args(["--user", "u", "--secret-stdin"]);
    let out = run_with_stdin(add, "stored-password\n");
    assert!(out.status.success(), "{}", text(&out));
    let secrets = lab.path("config/secrets.toml");
    assert!(
        std::fs::read_to_string(&secrets)
            .unwrap()
            .contains("stored-password")
    );
    let out = lodge_in(&lab)
        .args(["target", "add", "dav", "webdav+http://127.0.0.1:9/x"])
        .args(["--user", "u", "--secret-env", "DAV_PASSWORD"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let left = std::fs::read_to_string(&secrets).unwrap();
    assert!(!left.contains("stored-password"), "{left}");
}

/// A saved S3 target whose bucket is in another region: `target test` says so under
/// "access" (the keys were not what was wrong), and the command it gives sets the region and
/// keeps the endpoint, the prefix and where the keys come from; run as printed, the target
/// reaches the bucket's region and nothing else changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bucket_in_another_region_is_given_the_command_that_changes_the_region_alone() {
    use support::fake::{Answer, FakeServer};
    // What AWS answers a request signed for the wrong region.
    let elsewhere = FakeServer::start(|_, _| Answer {
        status: 400,
        headers: vec![("x-amz-bucket-region", "eu-west-1".into())],
        body: "<Error><Code>AuthorizationHeaderMalformed</Code><Region>eu-west-1</Region>\
               </Error>"
            .into(),
    })
    .await;
    let lab = Lab::new();
    let endpoint = format!("http://{}", elsewhere.addr);
    let out = lodge_in(&lab)
        .args(["target", "add", "far", "s3://eu-data/deposits"])
        .args(["--endpoint", &endpoint, "--user", "AKIAEXAMPLE"])
        .args(["--secret-env", "FAR_SK", "--files-at-once", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let tested = {
        let lab = &lab;
        move || {
            lodge_in(lab)
                .env("FAR_SK", "s3cret")
                .args(["target", "test", "far"])
                .output()
                .unwrap()
        }
    };
    let out = tokio::task::block_in_place(tested);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("FAILED  access: target 'far': bucket 'eu-data' is in region eu-west-1"),
        "{t}"
    );
    assert!(!t.contains("FAILED  credentials"), "{t}");
    let suggested = format!(
        "lodge target add far s3://eu-data/deposits --endpoint {endpoint} --region eu-west-1 \
         --files-at-once 2 --user AKIAEXAMPLE --secret-env FAR_SK"
    );
    assert!(t.contains(&format!("`{suggested}`")), "{t}");

    let before = std::fs::read_to_string(lab.path("config/config.toml")).unwrap();
    let words: Vec<&str> = suggested.split(' ').skip(1).collect();
    let out = lodge_in(&lab).args(&words).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let after = std::fs::read_to_string(lab.path("config/config.toml")).unwrap();
    assert_eq!(
        after.replace("region = \"eu-west-1\"\n", ""),
        before,
        "only the region was added"
    );
    assert!(after.contains("region = \"eu-west-1\""), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_that_ignores_if_none_match_is_refused_by_target_test() {
    let lab = Lab::new();
    let (dav, root) = servers::webdav().clone();
    let folder = dav_folder(&root);
    // The proxy strips If-None-Match, as nginx's dav module ignores it.
    let proxy = Proxy::start(&dav).await;
    proxy.add_rule(Rule {
        method: "PUT",
        path_contains: "lodge-probe".into(),
        action: Action::StripHeader("if-none-match"),
        times: 10,
    });
    let url = format!("webdav+{}/{folder}", proxy.url());
    let mut add = lodge_in(&lab);
    add.args([
        "target",
        "add",
        "careless",
        &url,
        "--user",
        DAV_USER,
        "--secret-stdin",
    ]);
    assert!(run_with_stdin(add, DAV_PASSWORD).status.success());
    let out = tokio::task::spawn_blocking(move || {
        lodge_in(&lab)
            .args(["target", "test", "careless"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("FAILED  conditional write"), "{t}");
    assert!(t.contains("overwrote an existing file"), "{t}");
}

/// A saved target replaced under its name by one of another place leaves the old one's
/// secret behind no more: it is not sent to the new place, and a sandbox (which takes none)
/// given the name works at once; a secret left by an older Lodge is passed over there too.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_target_replaced_by_another_place_drops_the_secret_stored_for_the_old_one() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let mut add = lodge_in(&lab);
    add.args(["target", "add", "inv", "invenio+https://rdm.example.org"])
        .arg("--secret-stdin");
    assert!(run_with_stdin(add, "tok3n\n").status.success());
    let secrets = lab.path("config/secrets.toml");
    assert!(std::fs::read_to_string(&secrets).unwrap().contains("inv"));

    let out = lodge_in(&lab)
        .args(["target", "add", "inv", &sandbox.target_url()])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains(
            "it replaces 'inv' at invenio+https://rdm.example.org:443; the secret stored for \
             that one is removed"
        ),
        "{t}"
    );
    assert!(!std::fs::read_to_string(&secrets).unwrap().contains("inv"));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let deposit = || {
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--target", "inv", "--all"]);
        tokio::task::spawn_blocking(move || cmd.output().unwrap())
    };
    let out = deposit().await.unwrap();
    assert!(out.status.success(), "{}", text(&out));

    // A secret an older Lodge left under the name is passed over by the sandbox.
    std::fs::write(&secrets, "[secrets]\ninv = \"tok3n\"\n").unwrap();
    let out = deposit().await.unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn s3_target_test_names_a_missing_bucket_and_a_missing_variable() {
    let lab = Lab::new();
    let moto = servers::moto();
    let add = |name: &str, bucket: &str| {
        let out = lodge_in(&lab)
            .args(["target", "add", name, &format!("s3://{bucket}/p")])
            .args([
                "--endpoint",
                moto,
                "--access-key-env",
                "T_AK",
                "--secret-env",
                "T_SK",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    add("missing", "no-such-bucket-here");
    let out = lodge_in(&lab)
        .env("T_AK", "AKIALODGETESTKEY0001")
        .env("T_SK", "lodge-test-secret")
        .args(["target", "test", "missing"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("bucket 'no-such-bucket-here' does not exist") && t.contains("create it"),
        "{t}"
    );
    let out = lodge_in(&lab)
        .args(["target", "test", "missing"])
        .output()
        .unwrap();
    assert!(
        text(&out).contains("T_AK"),
        "names the missing variable: {}",
        text(&out)
    );
}

#[test]
fn plain_http_to_a_remote_host_is_refused_unless_allowed() {
    let lab = Lab::new();
    let out = lodge_in(&lab)
        .args(["target", "add", "far", "webdav+http://dav.example.org/x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("allow_insecure"), "{}", text(&out));
    let out = lodge_in(&lab)
        .args([
            "target",
            "add",
            "far",
            "webdav+http://dav.example.org/x",
            "--allow-insecure",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_url_that_cannot_be_a_named_target_is_refused_saying_what_to_do_instead() {
    let lab = Lab::new();
    let refused = [
        (
            "dc",
            "datacite+https://api.test.datacite.org?repository=ORG.REPO",
            &["it needs the DOI prefix: add ?prefix=10.xxxx"][..],
        ),
        (
            "h",
            "http://127.0.0.1:8080",
            &[
                "it needs its kind in front",
                "sandbox+http://127.0.0.1:8080",
                "webdav+http://127.0.0.1:8080",
            ][..],
        ),
        (
            "f",
            "ftp://files.example.org/x",
            &[
                "is not a target URL",
                "s3://bucket/prefix",
                "webdav+https://",
                "zenodo+https://",
            ][..],
        ),
    ];
    for (name, url, said) in refused {
        let out = lodge_in(&lab)
            .args(["target", "add", name, url])
            .output()
            .unwrap();
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{url}: {t}");
        assert_all(&t, said);
    }
    assert!(
        !lab.path("config/config.toml").exists(),
        "nothing was saved"
    );
}

#[test]
fn a_sandbox_target_with_a_user_or_secret_is_refused_saying_the_token_goes_with_each_deposit() {
    let lab = Lab::new();
    let url = "sandbox+http://127.0.0.1:18303";
    for (flags, stdin) in [
        (&["--user", "me"][..], None),
        (&["--secret-env", "LODGE_TEST_SANDBOX_SECRET"][..], None),
        (&["--secret-stdin"][..], Some("s3cret\n")),
    ] {
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "add", "sb", url]).args(flags);
        let out = match stdin {
            Some(input) => run_with_stdin(cmd, input),
            None => cmd.output().unwrap(),
        };
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {t}");
        assert_all(
            &t,
            &[
                "a sandbox keeps no user or secret",
                "--token T or LODGE_TOKEN",
            ],
        );
    }
    assert!(
        !lab.path("config/config.toml").exists(),
        "nothing was saved"
    );
    assert!(
        !lab.path("config/secrets.toml").exists(),
        "no secret was stored"
    );
    // Without them, it is saved.
    let out = lodge_in(&lab)
        .args(["target", "add", "sb", url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_mistyped_target_name_is_refused_naming_the_one_meant_and_nothing_is_queued() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = lodge_in(&lab)
        .args([
            "target",
            "add",
            "lab-dav",
            "webdav+https://dav.example.org/x",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));

    for args in [
        &["deposit", "--all", "--target", "lab-dva"][..],
        &["target", "test", "lab-dva"][..],
        &["target", "remove", "lab-dva"][..],
    ] {
        let out = lodge_in(&lab).args(args).output().unwrap();
        let t = text(&out);
        assert!(!out.status.success(), "{args:?}: {t}");
        assert!(
            t.contains(
                "there is no target named 'lab-dva' (did you mean 'lab-dav'? known: lab-dav)"
            ),
            "{args:?}: {t}"
        );
    }
    assert!(store.history().unwrap().is_empty(), "nothing was queued");
    // Nothing alike: the known names, and no guess.
    let out = lodge_in(&lab)
        .args(["target", "test", "zenodo"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(
        t.contains("there is no target named 'zenodo' (known: lab-dav)"),
        "{t}"
    );
    // A repository's kind typed as a name: how to save it under that name with its token,
    // or its URL to give with a token for the run.
    assert!(
        t.contains(
            "save it with its token, `lodge target add zenodo zenodo+https://zenodo.org \
             --secret-stdin` (zenodo+https://sandbox.zenodo.org to try it), or give its URL \
             with the token in --token or LODGE_TOKEN, `--target zenodo+https://zenodo.org`"
        ),
        "{t}"
    );
    // Any other name: how to save it, and the URL forms.
    let out = lodge_in(&lab)
        .args(["deposit", "--all", "--target", "lab-dav-2"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(
        t.contains(
            "add it with `lodge target add lab-dav-2 URL`, or give a URL: sandbox+http://HOST:PORT"
        ),
        "{t}"
    );
}

/// A deposit to a saved target names it by its name where it fails, as `status` does,
/// not by its address.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deposit_that_fails_on_a_saved_target_names_the_target_by_its_name() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let down = lab.failing_sandbox("down").await;
    let url = down.target_url();
    let saved = lodge_in(&lab)
        .args(["target", "add", "lab-store", &url])
        .output()
        .unwrap();
    assert!(saved.status.success(), "{}", text(&saved));

    let mut deposit = lodge_in(&lab);
    deposit.args([
        "deposit",
        "--all",
        "--target",
        "lab-store",
        "--max-attempts",
        "1",
    ]);
    let out = tokio::task::spawn_blocking(move || deposit.output().unwrap())
        .await
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(" (job 1) at lab-store: gave up after 1 attempt"),
        "{t}"
    );
    assert!(!t.contains(&url), "{t}");
    let status = text(&lodge_in(&lab).arg("status").output().unwrap());
    assert!(status.contains(" failed     lab-store "), "{status}");
}

/// Removing a saved target that still has deposits queued says so, and how to take them
/// off the queue, as the window does; with no database yet, it starts none to look.
#[test]
fn removing_a_target_with_deposits_queued_says_they_wait_and_how_to_cancel_them() {
    let lab = Lab::new();
    let url = "sandbox+http://127.0.0.1:9";
    let save = || {
        let out = lodge_in(&lab)
            .args(["target", "add", "lab-store", url])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    let remove = || {
        let out = lodge_in(&lab)
            .args(["target", "remove", "lab-store"])
            .output()
            .unwrap();
        let t = text(&out);
        assert!(out.status.success(), "{t}");
        t
    };
    save();
    let t = remove();
    assert!(!t.contains("still queued"), "{t}");
    assert!(
        !lab.path("lodge.db").exists(),
        "no database was started to look"
    );

    save();
    let store = lab.store("lodge.db");
    let (id, key) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    store.upsert_target(url, url, "a sandbox").unwrap();
    store
        .enqueue_deposits(url, &[(id, key)], std::time::Duration::from_secs(3600))
        .unwrap();
    let t = remove();
    assert_all(
        &t,
        &[
            "target 'lab-store' removed; its deposit history stays",
            &format!(
                "note: 1 deposit for it is still queued: `lodge target add lab-store URL` \
                 again sends it on its next deposit, or `lodge cancel --target {url}` takes it \
                 off the queue"
            ),
        ],
    );
}

/// Saving a target's name at another URL (a mistyped port put right) leaves the deposits
/// queued or failed at the old one there: said, with the commands that end them and the one
/// that sends their datasets to the new place.
#[test]
fn saving_a_target_at_another_url_names_the_deposits_left_at_the_old_one() {
    let lab = Lab::new();
    let old = "sandbox+http://127.0.0.1:9";
    let save = |url: &str| {
        let out = lodge_in(&lab)
            .args(["target", "add", "lab-store", url])
            .output()
            .unwrap();
        let t = text(&out);
        assert!(out.status.success(), "{t}");
        t
    };
    save(old);
    let store = lab.store("lodge.db");
    let (one, key) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    let (two, _) = add(&store, &lab.numbered_folder(2), &metadata("Two"));
    // Nothing listens at the old port: the deposit fails after its one attempt.
    let out = lodge_in(&lab)
        .args([
            "deposit",
            "--target",
            "lab-store",
            &two.to_string(),
            "--max-attempts",
            "1",
        ])
        .args(FAST)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let failed = store.failed_job_ids(Some(old)).unwrap();
    assert_eq!(failed.len(), 1);
    let (queued, _) = store
        .enqueue_deposits(old, &[(one, key)], std::time::Duration::from_secs(3600))
        .unwrap()[0];

    let t = save("sandbox+http://127.0.0.1:10");
    assert_all(
        &t,
        &[
            &format!("it replaces 'lab-store' at {old}"),
            &format!(
                "note: at {old}, 1 deposit is still queued (job {}): a deposit to 'lab-store' \
                 now goes to the new place and does not send it; `lodge cancel --target {old}` \
                 takes it off the queue; `lodge deposit --target lab-store {one}` sends its \
                 dataset to the new place",
                queued.job_id()
            ),
            &format!(
                "note: at {old}, 1 deposit failed (job {}): a deposit to 'lab-store' now goes \
                 to the new place and does not send it; `lodge dismiss --target {old}` gives \
                 it up; `lodge deposit --target lab-store {two}` sends its dataset to the new \
                 place",
                failed[0]
            ),
        ],
    );
    // Saved again at the same place: nothing moved, nothing to say.
    let t = save("sandbox+http://127.0.0.1:10");
    assert!(!t.contains("note: at"), "{t}");
}

#[test]
fn saving_a_target_whose_credential_variable_is_unset_notes_the_variable() {
    let lab = Lab::new();
    let out = lodge_in(&lab)
        .env_remove("LODGE_TEST_UNSET_SECRET")
        .env("LODGE_TEST_SET_USER", "alice")
        .args([
            "target",
            "add",
            "dav",
            "webdav+https://dav.example.org/x",
            "--access-key-env",
            "LODGE_TEST_SET_USER",
            "--secret-env",
            "LODGE_TEST_UNSET_SECRET",
        ])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("target 'dav' saved"), "{t}");
    assert!(
        t.contains("note: $LODGE_TEST_UNSET_SECRET is not set here"),
        "{t}"
    );
    assert!(!t.contains("$LODGE_TEST_SET_USER"), "{t}");
}

/// A secrets file that is not valid TOML does not hide the targets: `target list` lists
/// each one, naming the file and the fix, and `target add` saves the target all the same.
#[test]
fn a_broken_secrets_file_is_named_and_the_targets_are_still_listed_and_saved() {
    let lab = Lab::new();
    std::fs::create_dir_all(lab.path("config")).unwrap();
    std::fs::write(lab.path("config/secrets.toml"), "this is = = not toml").unwrap();
    let add = lodge_in(&lab)
        .args([
            "target",
            "add",
            "lab-dav",
            "webdav+https://dav.example.org/x",
        ])
        .args(["--user", "alice"])
        .output()
        .unwrap();
    let t = text(&add);
    assert!(add.status.success(), "{t}");
    assert!(t.contains("target 'lab-dav' saved"), "{t}");
    assert!(t.contains("secrets.toml is not valid TOML"), "{t}");
    let list = lodge_in(&lab).args(["target", "list"]).output().unwrap();
    let t = text(&list);
    assert!(list.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "lab-dav",
            "user alice",
            "secrets.toml is not valid TOML",
            "fix or delete it",
        ],
    );
}

/// The `lodge target add ... --secret-stdin` that `said` gives (between backticks), run as
/// printed with the test WebDAV server's password on standard input; it must succeed.
fn run_suggested_secret_command(lab: &Lab, said: &str) -> std::process::Output {
    let suggested = said
        .split('`')
        .find(|part| part.ends_with("--secret-stdin"))
        .unwrap_or_else(|| panic!("no --secret-stdin command in: {said}"));
    let words = shlex::split(suggested).unwrap();
    assert_eq!(words[..3], ["lodge", "target", "add"], "{suggested}");
    let mut add = lodge_in(lab);
    add.args(&words[1..]);
    let out = run_with_stdin(add, &format!("{DAV_PASSWORD}\n"));
    assert!(out.status.success(), "{suggested}: {}", text(&out));
    out
}

/// `target add` with a user and no secret saves the target and says, as a command that runs
/// as printed, how to store the secret; `target list` says none is stored until then.
#[test]
fn a_target_saved_without_its_secret_says_how_to_store_it_and_that_command_works() {
    let lab = Lab::new();
    let (dav, root) = servers::webdav().clone();
    let url = format!("webdav+{dav}/{}", dav_folder(&root));
    let out = lodge_in(&lab)
        .args(["target", "add", "lab-dav", &url, "--user", DAV_USER])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("note: 'lab-dav' has a user but no secret yet"),
        "{t}"
    );
    let listed = text(&lodge_in(&lab).args(["target", "list"]).output().unwrap());
    assert!(
        listed.contains(&format!("user {DAV_USER}, no secret stored yet")),
        "{listed}"
    );

    // The command the note gives, run as printed with the password on standard input.
    let out = run_suggested_secret_command(&lab, &t);
    assert!(!text(&out).contains("no secret yet"), "{}", text(&out));

    let listed = text(&lodge_in(&lab).args(["target", "list"]).output().unwrap());
    assert!(
        listed.contains(&format!(
            "user {DAV_USER}, secret from the keyring or secrets file"
        )),
        "{listed}"
    );
    let out = lodge_in(&lab)
        .args(["target", "test", "lab-dav"])
        .output()
        .unwrap();
    assert!(text(&out).contains("is ready"), "{}", text(&out));
}

/// A config file edited by hand with a bucket name S3 refuses, and the target's secret not
/// stored yet: the bucket is named first. The command that would store the secret keeps
/// the bucket, so it would only be refused in turn.
#[test]
fn a_hand_edited_target_with_a_bad_bucket_and_no_secret_names_the_bucket_first() {
    let lab = Lab::new();
    std::fs::create_dir_all(lab.path("config")).unwrap();
    std::fs::write(
        lab.path("config/config.toml"),
        "[targets.lab]\nurl = \"s3://Bad_Bucket/x\"\nuser = \"AKIAEXAMPLE\"\n\
         endpoint = \"http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    for args in [
        &["target", "test", "lab"][..],
        &["deposit", "--target", "lab", "--all"],
    ] {
        let out = lodge_in(&lab).args(args).output().unwrap();
        let t = text(&out);
        assert!(!out.status.success(), "{args:?}: {t}");
        assert!(
            t.contains("'Bad_Bucket' is not a bucket name"),
            "{args:?}: {t}"
        );
        assert!(!t.contains("--secret-stdin"), "{args:?}: {t}");
    }
    assert!(store.history().unwrap().is_empty(), "nothing was queued");
}

/// A failed S3 deposit whose target was saved again at another endpoint (a mistyped one put
/// right): `retry` of its job cannot reach the old place, and says where the saved target
/// keeps that bucket and prefix now, with the deposit that sends the dataset there and the
/// dismiss that gives up on the job, before the way back to the old endpoint.
#[test]
fn retry_of_a_job_whose_s3_target_moved_names_the_deposit_to_where_it_is_now() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let add = |endpoint: &str| {
        let out = lodge_in(&lab)
            .args(["target", "add", "typo", "s3://lab-data/deposits"])
            .args(["--endpoint", endpoint])
            .args(["--access-key-env", "T_AK", "--secret-env", "T_SK"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    // Nothing listens on port 9: the one attempt fails.
    add("http://127.0.0.1:9");
    let out = lodge_in(&lab)
        .env("T_AK", "AKIALODGETESTKEY0001")
        .env("T_SK", "lodge-test-secret")
        .args([
            "deposit",
            "--all",
            "--target",
            "typo",
            "--max-attempts",
            "1",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);

    add("http://127.0.0.1:10");
    let out = lodge_in(&lab).args(["retry", "1"]).output().unwrap();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    let name = store.datasets().unwrap()[0].name.clone();
    assert_all(
        &t,
        &[
            "Target 'typo' now keeps s3://lab-data/deposits at http://127.0.0.1:10",
            &format!("`lodge deposit --target typo {name}`"),
            "`lodge dismiss --target s3:http://127.0.0.1:9/lab-data/deposits`",
            "To send them to s3:http://127.0.0.1:9/lab-data/deposits as before, add it again",
        ],
    );
    assert_eq!(
        store.job(1).unwrap().state,
        lodge::store::JobState::Failed,
        "left as it was"
    );
}

/// A lab whose one dataset was deposited to its sandbox by a mistyped URL (https to a
/// server that speaks plain http): the target pauses, and the job waits on it. The lab, the
/// sandbox, the mistyped URL and the store.
async fn deposited_to_a_mistyped_target() -> (
    Lab,
    lodge::sandbox::RunningSandbox,
    String,
    std::sync::Arc<lodge::store::Store>,
) {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let wrong = sandbox
        .target_url()
        .replacen("sandbox+http://", "sandbox+https://", 1);
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = with_token(&lab, &["deposit", "--all", "--target", &wrong], None);
    assert!(!out.status.success(), "{}", text(&out));
    (lab, sandbox, wrong, store)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_left_waiting_on_a_mistyped_target_is_cancelled_and_retry_can_bring_it_back() {
    let (lab, sandbox, wrong, store) = deposited_to_a_mistyped_target().await;
    let pending = |lab: &Lab| {
        let status = with_token(lab, &["status", "--json"], None);
        let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        json["totals"]["pending"].as_u64().unwrap()
    };
    assert_eq!(pending(&lab), 1);
    let status = text(&with_token(&lab, &["status"], None));
    assert!(status.contains("lodge cancel --target"), "{status}");
    assert!(
        status.contains("takes it off the queue, then `lodge dismiss --target"),
        "{status}"
    );
    // Run again as the pause says, the job is tried again, and pauses again, unfixed.
    let retry = with_token(&lab, &["retry", "1"], None);
    assert_eq!(retry.status.code(), Some(1), "{}", text(&retry));
    assert_all(
        &text(&retry),
        &[
            "job 1 waited on the queue while",
            "is paused: the secure (TLS) connection",
        ],
    );

    let out = with_token(&lab, &["cancel", "--target", &wrong], None);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "cancelled job 1: now failed; `lodge retry 1` queues it again",
            "1 job cancelled",
        ],
    );
    assert_eq!(pending(&lab), 0);
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);
    let again = text(&with_token(&lab, &["cancel", "1"], None));
    assert!(
        again.contains("job 1 has ended (failed): nothing to cancel"),
        "{again}"
    );
    let none = text(&with_token(&lab, &["cancel", "--target", &wrong], None));
    assert!(none.contains("nothing to cancel"), "{none}");
    let bare = with_token(&lab, &["cancel"], None);
    assert_eq!(bare.status.code(), Some(2));
    assert!(
        text(&bare).contains("<JOBS|--target <TARGET>>"),
        "the usage names both forms: {}",
        text(&bare)
    );

    // The right address deposits the dataset; nothing went to the wrong one.
    let out = with_token(
        &lab,
        &["deposit", "--all", "--target", &sandbox.target_url()],
        None,
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 1);
}

/// A deposit to a mistyped target, cancelled and so failed, stays in `status` and its
/// totals until given up on: `lodge dismiss --target` takes it out of both (and out of
/// `retry --all-failed`), the history and the log keep it, and `lodge retry JOB` can still
/// bring it back with the same key.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_deposit_to_a_mistyped_target_is_dismissed_from_the_status_but_kept_in_the_history()
 {
    let (lab, sandbox, wrong, store) = deposited_to_a_mistyped_target().await;
    let status_json = |lab: &Lab| -> serde_json::Value {
        let status = with_token(lab, &["status", "--json"], None);
        serde_json::from_slice(&status.stdout).unwrap()
    };

    // Still on the queue, it is not given up on: the answer says to cancel it first.
    let early = with_token(&lab, &["dismiss", "--target", &wrong], None);
    assert_eq!(early.status.code(), Some(1), "{}", text(&early));
    assert_all(
        &text(&early),
        &[
            "nothing failed or refused for",
            "1 job is still to do there: left alone; `lodge cancel --target",
        ],
    );
    let out = with_token(&lab, &["cancel", "--target", &wrong], None);
    assert!(out.status.success(), "{}", text(&out));
    let json = status_json(&lab);
    assert_eq!(json["totals"]["failed"], 1);
    assert_eq!(json["items"][0]["state"], "failed");
    let status = text(&with_token(&lab, &["status"], None));
    assert!(
        status.contains(
            "to give up on it instead (its target gone for good, or mistyped): `lodge dismiss 1`"
        ),
        "{status}"
    );

    let out = with_token(&lab, &["dismiss", "--target", &wrong], None);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "dismissed job 1 (failed): it leaves `lodge status`; `lodge retry 1` queues it \
             again with the same key",
            "1 job dismissed",
        ],
    );
    let json = status_json(&lab);
    assert_eq!(json["totals"]["failed"], 0, "{json}");
    assert_eq!(json["items"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json["items"][0]["state"], "new", "{json}");
    assert_eq!(json["items"][0]["target"], serde_json::Value::Null);
    let retry = with_token(&lab, &["retry", "--all-failed"], None);
    assert!(retry.status.success(), "{}", text(&retry));
    assert!(text(&retry).contains("no failed jobs"), "{}", text(&retry));
    let history = text(&with_token(&lab, &["history"], None));
    assert!(history.contains("(dismissed: given up on)"), "{history}");
    // `--state dismissed` lists it, as the window's filter does; `--state failed` lists the
    // failed still to retry, which it no longer is.
    let dismissed = text(&with_token(
        &lab,
        &["history", "--state", "dismissed"],
        None,
    ));
    assert!(
        dismissed.contains("(dismissed: given up on)"),
        "{dismissed}"
    );
    let failed = text(&with_token(&lab, &["history", "--state", "failed"], None));
    assert!(failed.contains("no jobs match (of 1)"), "{failed}");
    // Asked of `status`, which they leave, the answer says where they are.
    let status = with_token(&lab, &["status", "--state", "dismissed"], None);
    assert_eq!(status.status.code(), Some(2), "{}", text(&status));
    assert!(
        text(&status).contains("`lodge history --state dismissed` lists them"),
        "{}",
        text(&status)
    );
    // Taken, but not offered: `status --help` does not list what it refuses.
    let help = text(&with_token(&lab, &["status", "--help"], None));
    assert!(
        help.contains("[possible values: new,") && !help.contains("dismissed"),
        "{help}"
    );
    let history = with_token(&lab, &["history", "--json"], None);
    let history: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    assert!(history[0]["dismissed"].is_string(), "{history}");
    assert!(history[0]["dismissed_at"].is_i64(), "{history}");
    // `show --json` names the time given up on as `history --json` does: text in
    // `dismissed` (`dismissed_at` is milliseconds there).
    let shown = with_token(&lab, &["show", "1", "--json"], None);
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let deposit = &shown["deposits"][0];
    assert_eq!(deposit["dismissed"], history[0]["dismissed"], "{shown}");
    assert!(deposit.get("dismissed_at").is_none(), "{shown}");
    assert!(shown["scanned"].as_str().unwrap().ends_with('Z'), "{shown}");
    let show = text(&with_token(&lab, &["show", "1"], None));
    assert!(
        show.contains("dismissed (given up on) ")
            && show.contains(": out of `lodge status`; `lodge retry 1` queues it again"),
        "{show}"
    );
    let log = text(&with_token(&lab, &["log", "--job", "1"], None));
    assert!(
        log.contains(&format!("dismissed by {} (`lodge dismiss`)", store.actor())),
        "{log}"
    );
    let again = text(&with_token(&lab, &["dismiss", "1"], None));
    assert!(
        again.contains("job 1 was dismissed before: nothing to do"),
        "{again}"
    );

    // Retried by its number, it is back on the queue with its key.
    let out = with_token(&lab, &["retry", "1", "--queue-only"], None);
    assert!(out.status.success(), "{}", text(&out));
    let json = status_json(&lab);
    assert_eq!(json["items"][0]["state"], "queued", "{json}");
    assert_eq!(json["items"][0]["job"], 1);

    // With one job failed there and another still to do, the failed one is given up on
    // and the other named, left alone, with what ends it.
    add(&store, &lab.numbered_folder(2), &metadata("Second"));
    let out = with_token(&lab, &["deposit", "2", "--target", &wrong], None);
    assert!(!out.status.success(), "{}", text(&out));
    let out = with_token(&lab, &["cancel", "2"], None);
    assert!(out.status.success(), "{}", text(&out));
    let out = with_token(&lab, &["dismiss", "--target", &wrong], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "dismissed job 2 (failed)",
            "1 job is still to do there: left alone; `lodge cancel --target",
            "takes it off the queue (it ends failed;",
            "1 job dismissed",
        ],
    );
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Queued);
    assert_eq!(sandbox.stats().records, 0, "nothing reached the server");
}

/// A saved target removed since its deposit failed is no longer a name `--target` takes:
/// `dismiss` (like `cancel`) says which identities the database knows that are not saved,
/// as `status` shows them, and given one it gives the deposit up.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_removed_targets_failed_deposit_is_dismissed_by_the_identity_status_shows() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let wrong = sandbox
        .target_url()
        .replacen("sandbox+http://", "sandbox+https://", 1);
    let saved = lodge_in(&lab)
        .args(["target", "add", "typo", &wrong])
        .output()
        .unwrap();
    assert!(saved.status.success(), "{}", text(&saved));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = with_token(&lab, &["deposit", "--all", "--target", "typo"], None);
    assert!(!out.status.success(), "{}", text(&out));
    let out = with_token(&lab, &["cancel", "--target", "typo"], None);
    assert!(out.status.success(), "{}", text(&out));
    let out = lodge_in(&lab)
        .args(["target", "remove", "typo"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));

    let out = with_token(&lab, &["dismiss", "--target", "typo"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "there is no target named 'typo'",
            &format!(
                "A target removed since is given by its identity, as `lodge status` shows it; \
                 this database's targets not saved now: {wrong}"
            ),
        ],
    );
    let out = with_token(&lab, &["dismiss", "--target", &wrong], None);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("1 job dismissed"), "{}", text(&out));
}

/// A password refused when it comes from an environment variable is to be fixed there: the
/// variable wins over a stored one, so "store the right one" would change nothing.
#[test]
fn a_refused_password_from_a_variable_says_to_fix_the_variable() {
    let lab = Lab::new();
    let (dav, root) = servers::webdav().clone();
    let url = format!("webdav+{dav}/{}", dav_folder(&root));
    let out = lodge_in(&lab)
        .args(["target", "add", "env-dav", &url, "--user", DAV_USER])
        .args(["--secret-env", "T_DAV_PASS"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = lodge_in(&lab)
        .env("T_DAV_PASS", "not-the-password")
        .args(["deposit", "--all", "--target", "env-dav"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("put the right password in $T_DAV_PASS"), "{t}");
    assert!(!t.contains("--secret-stdin"), "{t}");
}

/// A sandbox saved as a named target is called by its name where Lodge reports on it, not
/// "Local sandbox" (the built-in one).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_saved_sandbox_target_is_reported_by_its_name() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "add", "old", &sandbox.target_url()]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let deposit = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", "old"]);
        cmd
    })
    .await;
    assert!(deposit.status.success(), "{}", text(&deposit));
    let verify = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["verify", "--all"]);
        cmd
    })
    .await;
    let t = text(&verify);
    assert!(verify.status.success(), "{t}");
    assert!(t.contains("on sandbox target 'old' at 127.0.0.1:"), "{t}");
    assert!(!t.contains("Local sandbox"), "{t}");
}

/// A target URL's kind and scheme mean the same in any case (RFC 3986 schemes): typed in
/// capitals, by URL or saved, it is the same target, so its deposits replay; it was
/// refused as "not a target URL". So is one pasted with spaces around it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_url_in_capitals_or_with_spaces_around_it_is_the_same_target() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let url = sandbox.target_url();
    let shouted = url.replacen("sandbox+http", "SANDBOX+HTTP", 1);
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let deposit = |target: String| {
        run({
            let mut cmd = lodge_in(&lab);
            cmd.args(["deposit", "--all", "--target", &target]);
            cmd
        })
    };
    let first = deposit(shouted.clone()).await;
    assert!(first.status.success(), "{}", text(&first));
    let again = deposit(url.clone()).await;
    let t = text(&again);
    assert!(again.status.success(), "{t}");
    assert!(
        t.contains("no request sent"),
        "a replay, the same target: {t}"
    );

    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "add", "loud", &shouted]);
        cmd
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let by_name = deposit("loud".into()).await;
    let t = text(&by_name);
    assert!(
        by_name.status.success() && t.contains("no request sent"),
        "{t}"
    );
    // Pasted with spaces around it, the same target; nothing but spaces, an error.
    let padded = deposit(format!("  {url} ")).await;
    let t = text(&padded);
    assert!(
        padded.status.success() && t.contains("no request sent"),
        "{t}"
    );
    let blank = deposit("  ".into()).await;
    assert_eq!(blank.status.code(), Some(2));
    assert!(
        text(&blank).contains("the target is empty"),
        "{}",
        text(&blank)
    );
    let removed = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "remove", " loud "]);
        cmd
    })
    .await;
    assert!(removed.status.success(), "{}", text(&removed));
    assert_eq!(sandbox.stats().records, 1);
    assert_eq!(sandbox.stats().creates, 1);
}

/// An S3 target's identity (`s3:ENDPOINT/BUCKET/PREFIX`, as `status` prints it) is no URL:
/// the command `status` suggests for a paused saved target names it by its name, and
/// `--target` takes the identity too, the target removed since as well.
#[test]
fn the_command_status_suggests_for_a_paused_s3_target_runs_as_printed() {
    let lab = Lab::new();
    // A moto that checks keys and knows none: every request is refused.
    let moto = servers::start_moto(true);
    let out = lodge_in(&lab)
        .args([
            "target",
            "add",
            "locked",
            "s3://lodge-locked/dep",
            "--endpoint",
            &moto,
        ])
        .args(["--access-key-env", "T_AK", "--secret-env", "T_SK"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let keyed = |args: &[&str]| {
        lodge_in(&lab)
            .env("T_AK", "AKIALODGETESTKEY0001")
            .env("T_SK", "lodge-test-secret")
            .args(args)
            .output()
            .unwrap()
    };
    let out = keyed(&["deposit", "--all", "--target", "locked"]);
    assert!(!out.status.success(), "{}", text(&out));

    let status = text(&keyed(&["status"]));
    assert!(
        status.contains("`lodge cancel --target locked`"),
        "{status}"
    );
    let identity = store.status_rows().unwrap()[0].target.clone().unwrap();
    assert!(identity.starts_with("s3:"), "{identity}");
    let by_identity = keyed(&["status", "--target", &identity]);
    assert!(by_identity.status.success(), "{}", text(&by_identity));
    assert!(
        text(&by_identity).contains("is paused"),
        "{}",
        text(&by_identity)
    );

    // The target removed since, its identity still takes its jobs off the queue (and lists
    // them), as `status` printed it.
    let out = keyed(&["target", "remove", "locked"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = keyed(&["history", "--target", &identity]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("job 1"), "{}", text(&out));
    let out = keyed(&["cancel", "--target", &identity]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("1 job cancelled"), "{}", text(&out));
}

/// `target test` of an S3 target whose keys are refused says which key is wrong and where
/// to fix it. The bucket's HEAD answer has no body; the S3 error code is in a list's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn s3_target_test_says_which_key_was_refused_and_where_its_secret_comes_from() {
    let lab = Lab::new();
    let add = |name: &str, bucket: &str, endpoint: &str| {
        let out = lodge_in(&lab)
            .args(["target", "add", name, &format!("s3://{bucket}/p")])
            .args(["--endpoint", endpoint])
            .args(["--access-key-env", "T_AK", "--secret-env", "T_SK"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    let test = |name: &str| {
        lodge_in(&lab)
            .env("T_AK", "AKIALODGETESTKEY0001")
            .env("T_SK", "not-the-secret")
            .args(["target", "test", name])
            .output()
            .unwrap()
    };

    // A moto that checks keys and knows none: the access key is what is wrong.
    let locked = servers::start_moto(true);
    add("unknown-key", "lodge-locked", &locked);
    let out = test("unknown-key");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "FAILED  credentials",
            "the access key is not known to the server (HTTP 403 InvalidAccessKeyId)",
            // It comes from $T_AK: that is what to fix.
            "put the right access key id in $T_AK",
        ],
    );

    // A server that knows the key but not this secret (a proxy answers as AWS does): the
    // secret comes from $T_SK, so that is what to fix.
    let proxy = Proxy::start(servers::moto()).await;
    for method in ["HEAD", "GET"] {
        proxy.add_rule(Rule {
            method,
            path_contains: "/lodge-signed".into(),
            action: Action::Answer {
                status: 403,
                content_type: "application/xml",
                body: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\
                       <Code>SignatureDoesNotMatch</Code><Message>The request signature we \
                       calculated does not match the signature you provided.</Message></Error>"
                    .into(),
            },
            times: 1,
        });
    }
    add("wrong-secret", "lodge-signed", &proxy.url());
    let out = test("wrong-secret");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "the secret key does not match the access key",
            "put the right secret in $T_SK",
        ],
    );
    assert!(!t.contains("--secret-stdin"), "{t}");

    // Keys saved with the target: the command that saves them again, whole. (Another
    // prefix: one place takes one name.)
    let mut saved = lodge_in(&lab);
    saved
        .args(["target", "add", "saved-key", "s3://lodge-locked/q"])
        .args(["--endpoint", &locked, "--user", "AKIALODGETESTKEY0002"])
        .arg("--secret-stdin");
    let out = run_with_stdin(saved, "some-secret\n");
    assert!(out.status.success(), "{}", text(&out));
    let out = lodge_in(&lab)
        .args(["target", "test", "saved-key"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(
        t.contains(&format!(
            "save the right access key id (after --user) with `lodge target add saved-key \
             s3://lodge-locked/q --endpoint {locked} --user AKIALODGETESTKEY0002 \
             --secret-stdin`"
        )),
        "{t}"
    );
}

/// A WebDAV password the server refuses: `target test` gives the whole command that
/// stores the right one, and that command, run as printed, fixes it.
#[test]
fn a_refused_webdav_password_names_the_command_that_stores_the_right_one_and_it_works() {
    let lab = Lab::new();
    let (dav, root) = servers::webdav().clone();
    let url = format!("webdav+{dav}/{}", dav_folder(&root));
    let mut add = lodge_in(&lab);
    add.args(["target", "add", "lab-dav", &url, "--user", DAV_USER])
        .arg("--secret-stdin");
    assert!(run_with_stdin(add, "not-the-password\n").status.success());
    let out = lodge_in(&lab)
        .args(["target", "test", "lab-dav"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!("{url} --user {DAV_USER} --secret-stdin`")),
        "{t}"
    );
    run_suggested_secret_command(&lab, &t);
    let out = lodge_in(&lab)
        .args(["target", "test", "lab-dav"])
        .output()
        .unwrap();
    assert!(text(&out).contains("is ready"), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn zenodo_and_invenio_urls_deposit_with_a_token_and_a_missing_token_names_the_flag() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let token = sandbox.invenio_account().token;
    let invenio = sandbox.invenio_target_url();
    let zenodo = invenio.replacen("invenio+", "zenodo+", 1);
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let deposit = |url: &str, token: Option<&str>| {
        with_token(&lab, &["deposit", "--all", "--target", url], token)
    };

    let unauthorised = deposit(&invenio, None);
    let t = text(&unauthorised);
    assert_eq!(unauthorised.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "paused    ds001",
            "not authorised (HTTP 401)",
            "give the right token with --token (or LODGE_TOKEN), then run the command again",
        ],
    );
    assert!(
        t.lines().any(|l| l == "1 paused"),
        "the totals count it as paused, not queued: {t}"
    );
    assert_eq!(sandbox.invenio_uploads(), 0, "nothing was uploaded");

    // `status` says the item waits on the user, and what to do.
    let status = with_token(&lab, &["status"], None);
    assert_all(
        &text(&status),
        &[
            "is paused: not authorised (HTTP 401)",
            "give the right token with --token (or LODGE_TOKEN), then deposit it again",
        ],
    );
    // So does `show`, with the command that sends it once the token is right.
    let show = with_token(&lab, &["show", "1"], None);
    assert_all(
        &text(&show),
        &[
            &format!("{invenio} is paused: not authorised (HTTP 401)"),
            &format!(
                "give the right token with --token (or LODGE_TOKEN), then deposit it again \
                 (`lodge deposit --target {invenio} 1 --token TOKEN`)"
            ),
        ],
    );
    let show = with_token(&lab, &["show", "1", "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert!(
        json["deposits"][0]["paused"]
            .as_str()
            .is_some_and(|p| p.starts_with("not authorised (HTTP 401)")),
        "{json:#}"
    );
    let status = with_token(&lab, &["status", "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let item = &json["items"][0];
    assert_eq!(item["state"], "queued", "{json:#}");
    assert!(
        item["paused"]
            .as_str()
            .is_some_and(|p| p.starts_with("not authorised (HTTP 401)")),
        "{json:#}"
    );

    let out = deposit(&invenio, Some(&token));
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["resumed", "deposited ds001 -> "]);
    let identifier = store.job(1).unwrap().identifier.expect("deposited");
    let status = with_token(&lab, &["status", "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(json["items"][0]["paused"].is_null(), "{json:#}");

    // The same repository as Zenodo's URL kind is another scope: its server says the
    // record exists, and names it.
    let out = deposit(&zenodo, Some(&token));
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &[&format!("existing  ds001 -> {identifier}")]);

    // `forget --target` takes such a URL too, and forgets that scope's result alone.
    let out = lodge_in(&lab)
        .args(["forget", "--older-than", "0s", "--target", &zenodo])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    // Zenodo finds a forgotten deposit by a search, which can lag: said before.
    assert_all(
        &t,
        &[
            "would forget 1 recorded result:",
            "note: a forgotten deposit to ",
            "is found again by a search of the repository's records",
            " --yes`",
        ],
    );
    let out = lodge_in(&lab)
        .args(["forget", "--older-than", "0s", "--target", &zenodo, "--yes"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["forgot 1 recorded result;"]);
    let invenio_scope = open_target(&invenio, None).unwrap().scope_id().to_string();
    let key = store.job(1).unwrap().key;
    assert!(store.lookup_result(&invenio_scope, &key).unwrap().is_some());
}

#[test]
fn retry_that_cannot_open_a_target_re_queues_nothing_and_queue_only_needs_no_target() {
    let lab = Lab::new();
    // A WebDAV server that is not running: every attempt is refused before anything is sent.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("webdav+http://{}/lodge", closed.local_addr().unwrap());
    drop(closed);
    let add = lodge_in(&lab)
        .args(["target", "add", "dav", &url, "--user", "alice"])
        .args(["--secret-env", "LODGE_TEST_DAV_SECRET"])
        .output()
        .unwrap();
    assert!(add.status.success(), "{}", text(&add));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = lodge_in(&lab)
        .env("LODGE_TEST_DAV_SECRET", "s3cret")
        .args(["deposit", "--all", "--target", "dav", "--max-attempts", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("refused the connection"),
        "{}",
        text(&out)
    );

    // Without the secret's variable the target cannot open: said, and the job stays failed.
    let out = lodge_in(&lab)
        .env_remove("LODGE_TEST_DAV_SECRET")
        .args(["retry", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(&text(&out), &["LODGE_TEST_DAV_SECRET"]);
    assert!(!text(&out).contains("re-queued"), "{}", text(&out));
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);
    // All failed jobs asked for: that target's are left as they were, said with why.
    let out = lodge_in(&lab)
        .env_remove("LODGE_TEST_DAV_SECRET")
        .args(["retry", "--all-failed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "job 1 left as it was: ",
            "LODGE_TEST_DAV_SECRET",
            "is gone for good: `lodge dismiss --target dav` gives up on it",
        ],
    );
    assert!(!text(&out).contains("re-queued"), "{}", text(&out));
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);

    // Only re-queueing opens nothing.
    let out = lodge_in(&lab)
        .env_remove("LODGE_TEST_DAV_SECRET")
        .args(["retry", "--all-failed", "--queue-only"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_all(&text(&out), &["re-queued 1 job with the same key"]);
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Queued);
    // Named again, it is on its way already: the command that sends it, as it can be run.
    let out = lodge_in(&lab).args(["retry", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &["job 1 is queued, still to be done: `lodge deposit --target dav 1` runs it"],
    );

    // Nothing sends it until a deposit works on that target: `status` says which one.
    let data = lab.path("data");
    let status = || {
        lodge_in(&lab)
            .env("XDG_DATA_HOME", &data)
            .args(["status"])
            .output()
            .unwrap()
    };
    assert_all(
        &text(&status()),
        &[
            "on the queue: the window sends it while it works on dav, or `lodge deposit \
             --target dav 1` sends it now",
        ],
    );
    // This machine's window paused by its Pause button holds it back: said so.
    std::fs::create_dir_all(data.join("lodge")).unwrap();
    std::fs::write(data.join("lodge/window-paused"), "paused\n").unwrap();
    assert_all(
        &text(&status()),
        &[
            "on the queue: this machine's window holds its deposits paused (its Resume \
             sends it), or `lodge deposit --target dav 1` sends it now",
        ],
    );
}

/// A weekly `retry --all-failed`: a target that cannot be opened any more (here its
/// secret's variable unset) leaves its own failed jobs as they were and says why, and the
/// other targets' failed jobs are retried in the same run. A failed job the store would not
/// re-queue anyway (its dataset rescanned since) needs no target: a target removed since
/// does not stop the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retry_all_failed_goes_on_past_a_target_it_cannot_open() {
    let lab = Lab::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dav = format!("webdav+http://{}/lodge", closed.local_addr().unwrap());
    drop(closed);
    let add_dav = lodge_in(&lab)
        .args(["target", "add", "dav", &dav, "--user", "alice"])
        .args(["--secret-env", "LODGE_TEST_DAV_SECRET"])
        .output()
        .unwrap();
    assert!(add_dav.status.success(), "{}", text(&add_dav));
    let failing = lodge::sandbox::FaultConfig {
        fail_before_commit: 1.0,
        ..Default::default()
    };
    let sandbox = lab.sandbox("sbx", failing).await;
    let store = lab.store("lodge.db");
    add(
        &store,
        &lab.numbered_folder(1),
        &metadata("To the WebDAV store"),
    );
    add(&store, &lab.numbered_folder(2), &metadata("To the sandbox"));
    let deposit = |target: &str, dataset: &str| {
        lodge_in(&lab)
            .env("LODGE_TEST_DAV_SECRET", "s3cret")
            .args([
                "deposit",
                "--target",
                target,
                dataset,
                "--max-attempts",
                "1",
            ])
            .output()
            .unwrap()
    };
    for (target, dataset) in [("dav", "1"), (&*sandbox.target_url(), "2")] {
        let out = deposit(target, dataset);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    }
    sandbox.set_faults(lodge::sandbox::FaultConfig::default());

    let out = lodge_in(&lab)
        .env_remove("LODGE_TEST_DAV_SECRET")
        .args(["retry", "--all-failed"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "not all landed: {t}");
    assert_all(
        &t,
        &[
            "job 1 left as it was: ",
            "LODGE_TEST_DAV_SECRET",
            "re-queued 1 job with the same key",
            "deposited ds002 -> ",
        ],
    );
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);
    assert_eq!(
        store.job(2).unwrap().state,
        lodge::store::JobState::Deposited
    );

    // Its dataset changed and scanned again, job 1 is not re-queued whatever its target:
    // with the target removed, the run says so and opens nothing.
    std::fs::write(lab.numbered_folder(1).join("extra.csv"), "more\n").unwrap();
    let scan = lodge_in(&lab).args(["scan", "1"]).output().unwrap();
    assert!(scan.status.success(), "{}", text(&scan));
    let remove = lodge_in(&lab)
        .args(["target", "remove", "dav"])
        .output()
        .unwrap();
    assert!(remove.status.success(), "{}", text(&remove));
    let out = lodge_in(&lab)
        .args(["retry", "--all-failed"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(&t, &["job 1 failed, but ds001 was scanned again since"]);
    assert!(!t.contains("cannot open"), "{t}");
}

/// A deposit held on the queue by a target paused for a refused token is sent by running
/// the retry again with the right token, as the pause says ("then run the command
/// again"), whether all failed jobs or the job itself are asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_held_by_a_paused_target_is_sent_by_retry_with_the_right_token() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let token = sandbox.invenio_account().token;
    let invenio = sandbox.invenio_target_url();
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let out = with_token(&lab, &["deposit", "--all", "--target", &invenio], None);
    assert_all(
        &text(&out),
        &["not authorised (HTTP 401)", "then run the command again"],
    );

    let out = with_token(&lab, &["retry", "--all-failed"], Some(&token));
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "job 1 waited on the queue while",
            "was paused: sending it now",
            "deposited ds001 -> ",
            "deposited ds002 -> ",
        ],
    );

    add(&store, &lab.numbered_folder(3), &metadata("Three"));
    let out = with_token(&lab, &["deposit", "--target", &invenio, "3"], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let out = with_token(&lab, &["retry", "3"], Some(&token));
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["job 3 waited on the queue", "deposited ds003 -> "]);
    assert_eq!(sandbox.invenio_counts(), (3, 0), "each once");
}

/// A server that is only busy (429 or 503) has nothing to fix: `target test` says to try
/// again in a moment, not to fix a check.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn target_test_of_a_busy_server_says_to_test_again_not_to_fix_anything() {
    let lab = Lab::new();
    let busy = lodge::sandbox::FaultConfig {
        rate_limit: 1.0,
        retry_after_secs: 1,
        ..Default::default()
    };
    let sandbox = lab.sandbox("sbx", busy).await;
    let out = with_token(&lab, &["target", "test", &sandbox.target_url()], None);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "server busy (HTTP 429)",
            "is busy now (it asked to wait): nothing to fix",
        ],
    );
    assert!(!t.contains("cannot be used"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_target_used_by_url_is_tested_with_its_token_and_says_how_it_prevents_duplicates() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let test = |url: &str, token: Option<&str>| with_token(&lab, &["target", "test", url], token);
    let zenodo = sandbox
        .invenio_target_url()
        .replacen("invenio+", "zenodo+", 1);
    let token = sandbox.invenio_account().token;

    let out = test(&zenodo, None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "FAILED  credentials: not authorised (HTTP 401)",
            "cannot be used",
        ],
    );
    let out = test(&zenodo, Some(&token));
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &["ok      credentials", "subject lodge:KEY", "is ready"],
    );

    let datacite = sandbox.datacite_target_url();
    let out = test(&datacite, Some(&sandbox.datacite_account().password));
    assert!(out.status.success(), "{}", text(&out));
    assert_all(&text(&out), &["derived from the content key", "is ready"]);
    let out = test(&datacite, Some("wrong"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// `lodge ARGS` with moto's access key in `T_AK` and `T_SK`, where the S3 targets these
/// tests save read it.
fn with_s3_keys(lab: &Lab, args: &[&str]) -> std::process::Command {
    let mut cmd = lodge_in(lab);
    cmd.env("T_AK", support::s3::ACCESS_KEY)
        .env("T_SK", support::s3::SECRET_KEY)
        .args(args);
    cmd
}

/// A new bucket on moto saved as the S3 target `name` (prefix `p`), and dataset 1 deposited
/// to it; the lab's store.
async fn deposited_to_a_saved_s3_target(
    lab: &Lab,
    name: &str,
    bucket: &str,
) -> std::sync::Arc<lodge::store::Store> {
    let moto = servers::moto();
    support::s3::create_bucket(moto, bucket).await;
    let out = lodge_in(lab)
        .args(["target", "add", name, &format!("s3://{bucket}/p")])
        .args(["--endpoint", moto])
        .args(["--access-key-env", "T_AK", "--secret-env", "T_SK"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let store = lab.store("lodge.db");
    add_dataset(&store, lab);
    let out = run(with_s3_keys(lab, &["deposit", "--all", "--target", name])).await;
    assert!(out.status.success(), "{}", text(&out));
    store
}

/// `verify` of a deposit whose saved S3 target was removed from the config says to add the
/// target again: it advised depositing the datasets elsewhere, which checks nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_of_a_removed_s3_target_says_to_add_it_again_not_to_deposit_elsewhere() {
    let lab = Lab::new();
    let moto = servers::moto();
    deposited_to_a_saved_s3_target(&lab, "gone-s3", "verify-removed").await;
    let with_keys = |args: &[&str]| with_s3_keys(&lab, args);
    let out = run(with_keys(&["target", "remove", "gone-s3"])).await;
    assert!(out.status.success(), "{}", text(&out));

    let out = run(with_keys(&["verify", "--all"])).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        !t.contains("1 intact") && t.contains("could not be checked"),
        "{t}"
    );
    let add_again = format!(
        "Add it again (`lodge target add NAME s3://verify-removed/p --endpoint {moto} \
         --access-key-env VAR --secret-env VAR`), then verify"
    );
    assert!(t.contains(&add_again), "{t}");
    assert!(!t.contains("lodge deposit --target"), "{t}");
    assert!(!t.contains("is not a target URL"), "{t}");
}

/// A researcher's own bucket emptied by hand (a lifecycle rule, a mistaken `aws s3 rm`):
/// verify finds the record and the files gone and names the repair, which sends the files
/// again and writes the record again under its name, so the deposit is whole and still the
/// one record, at the identifier Lodge recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_emptied_bucket_is_repaired_files_and_record_under_the_same_identifier() {
    let lab = Lab::new();
    let moto = servers::moto();
    let store = deposited_to_a_saved_s3_target(&lab, "lab-s3", "emptied-by-hand").await;
    let with_keys = |args: &[&str]| with_s3_keys(&lab, args);
    let identifier = store.job(1).unwrap().identifier.unwrap();
    let held = support::s3::list_objects(moto, "emptied-by-hand", "p/").await;
    assert!(held.len() >= 2, "files and record: {held:?}");
    let location =
        lodge::targets::s3::S3Location::parse("s3://emptied-by-hand", Some(moto), None).unwrap();
    for object in &held {
        let (status, _) =
            support::s3::request(reqwest::Method::DELETE, location.object_url(&object.key)).await;
        assert!(status.is_success(), "delete {}: {status}", object.key);
    }

    let out = run(with_keys(&["verify", "1"])).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "is gone: the server has no record of this key",
            "Lost files or records: `lodge verify 1 --repair` sends them again",
        ],
    );
    assert!(!t.contains("ask the repository's operators"), "{t}");

    let out = run(with_keys(&["verify", "1", "--repair"])).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["sent again ", ", the record", "intact ", "1 intact"]);
    let after = support::s3::list_objects(moto, "emptied-by-hand", "p/").await;
    assert_eq!(
        after.len(),
        held.len(),
        "the same objects, no second record"
    );
    assert_eq!(store.job(1).unwrap().identifier.unwrap(), identifier);
    let log = text(&run(with_keys(&["log", "--job", "1"])).await);
    assert!(log.contains("the record"), "{log}");
}

/// A config file Lodge cannot read stops what needs it (a saved target), not a deposit to a
/// target given by URL, which needs nothing from it: that goes ahead with a note naming
/// the file's problem. It stopped every deposit, the built-in sandbox's included.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_malformed_config_file_does_not_stop_a_deposit_by_url() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let config = lab.path("config/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "[targets.typo]\nurl = \"s3://labdata/x\"\nendpoint = \"x\n",
    )
    .unwrap();
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);

    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", &sandbox.target_url()]);
        cmd
    })
    .await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("is not valid: line 3: "), "{t}");
    assert!(t.contains("fix the file there"), "{t}");
    assert!(t.contains("going by the URL alone"), "{t}");
    assert_eq!(sandbox.stats().records, 1);

    // A saved target's name still needs the file: the error stands.
    let out = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", "typo"]);
        cmd
    })
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("fix the file there"), "{}", text(&out));
}

/// `target test` of a sandbox started with `--token` says what to do when the token is
/// missing or refused, not only that the credentials check failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn target_test_of_a_sandbox_with_a_token_says_to_give_the_token() {
    let lab = Lab::new();
    let sandbox = lab.sandbox_with_token("sbx", "right").await;
    let added = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "add", "lab", &sandbox.target_url()]);
        cmd
    })
    .await;
    assert!(added.status.success(), "{}", text(&added));

    for (token, what_to_do) in [
        (None, "give its token with --token (or LODGE_TOKEN)"),
        (
            Some("wrong"),
            "give the right token with --token (or LODGE_TOKEN)",
        ),
        (Some("right"), ""),
    ] {
        let tested = run({
            let mut cmd = lodge_in(&lab);
            cmd.args(["target", "test", "lab"]);
            if let Some(t) = token {
                cmd.args(["--token", t]);
            }
            cmd
        })
        .await;
        let t = text(&tested);
        if what_to_do.is_empty() {
            assert!(tested.status.success(), "{t}");
            assert!(t.contains("target 'lab' is ready"), "{t}");
        } else {
            assert!(!tested.status.success(), "{token:?}: {t}");
            let said =
                format!("target 'lab' cannot be used: the credentials check failed: {what_to_do}");
            assert!(t.contains(&said), "{token:?}: {t}");
        }
    }
    sandbox.shutdown().await;
}

/// `lodge target add NAME URL --secret-stdin` of a token target, the token on standard input.
fn add_token_target(lab: &Lab, name: &str, url: &str, token: &str) -> std::process::Output {
    let mut add = lodge_in(lab);
    add.args(["target", "add", name, url, "--secret-stdin"]);
    run_with_stdin(add, &format!("{token}\n"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_invenio_target_saved_with_its_token_deposits_by_name_and_a_refused_token_names_the_command_that_stores_it()
 {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let token = sandbox.invenio_account().token;
    let url = sandbox.invenio_target_url();
    let out = add_token_target(&lab, "zen", &url, &token);
    assert!(out.status.success(), "{}", text(&out));
    let config = std::fs::read_to_string(lab.path("config/config.toml")).unwrap();
    assert!(config.contains("[targets.zen]"), "{config}");
    assert!(
        !config.contains(&token),
        "no token in the config file: {config}"
    );
    let secrets = std::fs::read_to_string(lab.path("config/secrets.toml")).unwrap();
    assert!(secrets.contains(&token), "the token is in the secrets file");
    let list = lodge_in(&lab).args(["target", "list"]).output().unwrap();
    assert_all(
        &text(&list),
        &[
            "zen ",
            "invenio",
            "credentials: token from the keyring or secrets file",
        ],
    );
    assert!(!text(&list).contains(&token), "{}", text(&list));

    // The saved token is the one sent: a --token for the run (wrong, here) is not used,
    // and a note says so.
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    let out = with_token(
        &lab,
        &["deposit", "--all", "--target", "zen"],
        Some("wrong"),
    );
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "deposited ds001 -> ",
            "note: target 'zen' sends the token saved with it",
        ],
    );
    let uploaded = sandbox.invenio_uploads();
    assert!(uploaded > 0, "its files were uploaded");
    let status = lodge_in(&lab).args(["status"]).output().unwrap();
    assert!(
        text(&status).contains(" deposited  zen "),
        "{}",
        text(&status)
    );

    // A wrong token stored: the target pauses, and the way out is the command that stores
    // the right one, in `deposit`, `status` and `target test`.
    let out = add_token_target(&lab, "zen", &url, "expired-token");
    assert!(out.status.success(), "{}", text(&out));
    add(&store, &lab.numbered_folder(2), &metadata("Second"));
    let store_again =
        format!("store the right token with `lodge target add zen {url} --secret-stdin`");
    let out = lodge_in(&lab)
        .args(["deposit", "--all", "--target", "zen"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            // By its name, as `status` calls it.
            "paused    ds002 (job 3): zen is paused",
            "not authorised (HTTP 401)",
            &store_again,
        ],
    );
    assert!(
        !t.contains("--token"),
        "the run's token is no fix here: {t}"
    );
    let status = lodge_in(&lab).args(["status"]).output().unwrap();
    assert_all(&text(&status), &["zen is paused", &store_again]);
    let show = lodge_in(&lab).args(["show", "2"]).output().unwrap();
    assert_all(
        &text(&show),
        &[
            "zen is paused",
            &store_again,
            "(`lodge deposit --target zen 2`)",
        ],
    );
    let test = lodge_in(&lab)
        .args(["target", "test", "zen"])
        .output()
        .unwrap();
    assert_all(
        &text(&test),
        &["the credentials check failed: ", &store_again],
    );

    // Storing the right one and running the deposit again sends what waited.
    let out = add_token_target(&lab, "zen", &url, &token);
    assert!(out.status.success(), "{}", text(&out));
    let out = lodge_in(&lab)
        .args(["deposit", "--all", "--target", "zen"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["deposited ds002 -> ", "existing  ds001 -> "]);
    assert!(
        sandbox.invenio_uploads() > uploaded,
        "the second one's files went too"
    );

    // Its URL given without --token is the same place: the saved token goes with it,
    // rather than none (a refusal, and a pause whose fix is already done).
    add(&store, &lab.numbered_folder(3), &metadata("Third"));
    let out = with_token(&lab, &["deposit", "--all", "--target", &url], None);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            &format!("note: {url} is where target 'zen' deposits: the token saved with it is sent"),
            "deposited ds003 -> ",
        ],
    );
}

#[test]
fn a_token_target_takes_no_user_and_one_saved_without_its_token_says_how_to_store_it() {
    let lab = Lab::new();
    let out = lodge_in(&lab)
        .args(["target", "add", "zen", "zenodo+https://sandbox.zenodo.org"])
        .args(["--user", "alice", "--secret-env", "ZENODO_TOKEN"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "a DataCite, Zenodo or InvenioRDM target has no user",
            "leave out the user",
        ],
    );
    let url = "datacite+https://api.test.datacite.org?prefix=10.1234&repository=ORG.REPO";
    let out = lodge_in(&lab)
        .args(["target", "add", "dc", url])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "saved all the same: {t}");
    let store_it = "store one with `lodge target add dc \
                    'datacite+https://api.test.datacite.org?prefix=10.1234&repository=ORG.REPO' \
                    --secret-stdin`";
    assert_all(&t, &["note: 'dc' has no token yet", store_it]);
    let list = lodge_in(&lab).args(["target", "list"]).output().unwrap();
    assert!(
        text(&list).contains("no token stored yet"),
        "{}",
        text(&list)
    );
    // Nothing is sent without it, and the error says how to store it.
    let out = lodge_in(&lab)
        .args(["target", "test", "dc"])
        .output()
        .unwrap();
    assert_all(
        &text(&out),
        &["target 'dc' has no token stored: ", store_it],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_saved_datacite_target_mints_by_name_with_landing_pages_from_a_saved_target() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox("sbx", lodge::sandbox::FaultConfig::default())
        .await;
    let out = add_token_target(
        &lab,
        "zen",
        &sandbox.invenio_target_url(),
        &sandbox.invenio_account().token,
    );
    assert!(out.status.success(), "{}", text(&out));
    // The landing pages come from the records deposited to the target saved as "zen".
    let url = format!(
        "{}&state=publish&landing_from=zen",
        sandbox.datacite_target_url()
    );
    let out = add_token_target(&lab, "dois", &url, &sandbox.datacite_account().password);
    assert!(out.status.success(), "{}", text(&out));
    let store = lab.store("lodge.db");
    add_dataset(&store, &lab);
    for target in ["zen", "dois"] {
        let out = lodge_in(&lab)
            .args(["deposit", "--all", "--target", target])
            .output()
            .unwrap();
        assert!(out.status.success(), "{target}: {}", text(&out));
    }
    let key = store.job(1).unwrap().key;
    let zen = open_target(&sandbox.invenio_target_url(), None).unwrap();
    let record = store
        .lookup_result(zen.scope_id(), &key)
        .unwrap()
        .expect("deposited to zen");
    let doi = lodge::targets::datacite::doi::doi_for("10.80000", &key);
    let body = get_doi_json(&sandbox, &doi).await;
    assert_eq!(body["data"]["attributes"]["state"], "findable", "{body:#}");
    assert_eq!(
        body["data"]["attributes"]["url"],
        record.url.unwrap().as_str(),
        "{body:#}"
    );
    assert_eq!(sandbox.doi_count(), 1);
    let status = lodge_in(&lab).args(["status"]).output().unwrap();
    assert!(
        text(&status).contains(&format!(" deposited  dois {doi}")),
        "{}",
        text(&status)
    );

    // A check of the DOI alone reads its record: the header does not promise files read
    // back, which DataCite does not keep.
    let out = lodge_in(&lab)
        .args(["verify", "--all", "--bytes", "--target", "dois"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("checking 1 deposit by record (the target keeps no files"),
        "{}",
        text(&out)
    );
}

/// The lab's config file with S3 target `lab-s3` saved (its own endpoint, a user, and a
/// secret in the secrets file), and `more` config and secrets lines after it.
fn saved_lab_s3(lab: &Lab, more_config: &str, more_secrets: &str) {
    std::fs::create_dir_all(lab.path("config")).unwrap();
    std::fs::write(
        lab.path("config/config.toml"),
        format!(
            "[targets.lab-s3]\nurl = \"s3://labdata/x\"\nendpoint = \"http://127.0.0.1:9\"\n\
             user = \"AKIAEXAMPLE\"\n{more_config}"
        ),
    )
    .unwrap();
    std::fs::write(
        lab.path("config/secrets.toml"),
        format!("[secrets]\n\"lab-s3\" = \"not-a-real-secret\"\n{more_secrets}"),
    )
    .unwrap();
}

/// A saved S3 target with its own endpoint, given by its URL as `target list` shows it
/// (which alone would name AWS's endpoint) or by its identity as `status` shows it: the
/// saved target is used, with its credentials, and a note says so. Nothing is sent (a
/// dry run).
#[test]
fn a_saved_s3_target_given_by_its_url_or_its_identity_is_used_with_its_credentials() {
    let lab = Lab::new();
    saved_lab_s3(&lab, "", "");
    add_dataset(&lab.store("lodge.db"), &lab);
    for given in ["s3://labdata/x", "s3:http://127.0.0.1:9/labdata/x"] {
        let out = with_token(
            &lab,
            &["deposit", "--all", "--dry-run", "--target", given],
            None,
        );
        let t = text(&out);
        assert!(out.status.success(), "{given}: {t}");
        assert!(
            t.contains(&format!("note: {given} is"))
                && t.contains("'lab-s3'")
                && t.contains("its saved credentials and settings are used"),
            "{given}: {t}"
        );
    }
}

/// A saved S3 target signs its requests with its access key and secret, a WebDAV one signs
/// in with its user and password: a token given for the run is not used, and a note says
/// so, as for a saved token target. Nothing is sent (a dry run).
#[test]
fn a_token_given_to_a_saved_s3_target_is_not_used_and_a_note_says_so() {
    let lab = Lab::new();
    saved_lab_s3(
        &lab,
        "[targets.dav]\nurl = \"webdav+http://127.0.0.1:9/x\"\nuser = \"u\"\n",
        "dav = \"pw\"\n",
    );
    add_dataset(&lab.store("lodge.db"), &lab);
    let out = with_token(
        &lab,
        &["deposit", "--all", "--dry-run", "--target", "lab-s3"],
        Some("a-token"),
    );
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "note: target 'lab-s3' (S3) signs its requests with its access key and secret; the \
           token given with --token (or LODGE_TOKEN) is not used",
        ],
    );
    let out = with_token(
        &lab,
        &["deposit", "--all", "--dry-run", "--target", "dav"],
        Some("a-token"),
    );
    assert!(
        text(&out).contains(
            "note: target 'dav' (WebDAV) signs in with its user name and password; the token \
             given with --token (or LODGE_TOKEN) is not used"
        ),
        "{}",
        text(&out)
    );
    // Without a token, no note.
    let out = with_token(
        &lab,
        &["deposit", "--all", "--dry-run", "--target", "lab-s3"],
        None,
    );
    assert!(!text(&out).contains("is not used"), "{}", text(&out));
}

/// Two names for one place, written into the config file by hand (`target add` refuses
/// it): `target list` warns of it and names the removal that keeps one.
#[test]
fn target_list_warns_of_two_names_for_one_place_written_by_hand() {
    let lab = Lab::new();
    let config = lab.path("config/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "[targets.lab]\nurl = \"sandbox+http://127.0.0.1:9\"\n\n\
         [targets.lab2]\nurl = \"sandbox+http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let out = lodge_in(&lab).args(["target", "list"]).output().unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "warning: 'lab' and 'lab2' are the same place (sandbox+http://127.0.0.1:9)",
            "`lodge target remove lab2`",
        ],
    );
}
