//! Settings → Targets driven like a person would (egui_kittest): adding a second sandbox on
//! loopback puts it in the picker and the config file and deposits go to it; Test connection
//! shows its checks; a malformed URL is refused next to the field and nothing is saved; a
//! typed secret never shows up in the config file, the model, the log or the store.
//!
//! The config file is the app's `config.toml` in each test's temp folder; `LODGE_NO_KEYRING=1`
//! sends secrets to the 0600 secrets file beside it.

mod gui;
mod support;

use std::net::SocketAddr;
use std::sync::Once;

use egui_kittest::kittest::{NodeT, Queryable};
use lodge::app::{DedupStatus, LogLevel, TargetField, TargetTest};
use lodge::sandbox::{FaultConfig, RunningSandbox, SandboxConfig};
use lodge::store::JobState;
use lodge::targets::probe::ProbeReport;

use gui::{Window, citable_folder};
use support::servers;

/// Every test calls this first, before it starts any thread, so the environment is written
/// once while nothing reads it.
fn no_keyring() {
    static ONCE: Once = Once::new();
    // SAFETY: see above; every test of this binary waits here before doing anything else.
    ONCE.call_once(|| unsafe { std::env::set_var("LODGE_NO_KEYRING", "1") });
}

fn second_sandbox(w: &Window) -> RunningSandbox {
    sandbox_beside(&w.runtime, &w.lab)
}

/// A target URL of a kind that keeps a user and a secret (WebDAV; a sandbox keeps none) at
/// the second sandbox's address: the tests that save credentials never deposit there.
fn credentialed_url(sandbox: &RunningSandbox) -> String {
    sandbox.target_url().replacen("sandbox+", "webdav+", 1)
}

/// Write the window's config file (`config`, its text) and, when given, its private secrets
/// file, as a person would before opening the window.
fn config_before_opening(lab: &support::Lab, config: &str, secrets: Option<&str>) {
    std::fs::create_dir_all(lab.path("app")).unwrap();
    std::fs::write(lab.path("app/config.toml"), config).unwrap();
    if let Some(secrets) = secrets {
        std::fs::write(lab.path("app/secrets.toml"), secrets).unwrap();
    }
}

async fn sandbox_requests(base: &str) -> u64 {
    let stats: serde_json::Value = reqwest::get(format!("{base}/stats"))
        .await
        .expect("GET /stats")
        .json()
        .await
        .expect("stats JSON");
    stats["requests"].as_u64().expect("requests counter")
}

/// Open Settings, press Add target and fill in the form (user and secret when given).
fn add_target(w: &mut Window, name: &str, url: &str, user_secret: Option<(&str, &str)>) {
    if w.harness.query_by_label("Add target").is_none() {
        w.open_settings();
    }
    w.harness.get_by_label("Add target").click();
    w.harness.step();
    w.harness.step();
    w.type_into("Target name", name);
    w.type_into("Target URL", url);
    if let Some((user, secret)) = user_secret {
        // No user for a target whose token is its one credential.
        if !user.is_empty() {
            w.type_into("User or access key id", user);
        }
        w.type_into("Password, secret key or token", secret);
    }
    press_save_target(w);
}

/// Press Save target, wait until the picker has the target beside the sandbox, and check
/// the secret `typed` is stored.
fn saved_with_secret(w: &mut Window, typed: &str) {
    press_save_target(w);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    let secrets = std::fs::read_to_string(w.lab.path("app/secrets.toml")).unwrap();
    assert!(secrets.contains(typed), "the secret is stored");
}

/// Press the form's Save target.
fn press_save_target(w: &mut Window) {
    press_in_form(w, "Save target");
}

/// Open the (first) listed target's Edit form and type `url` over its URL.
fn edit_target_url(w: &mut Window, url: &str) {
    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    retype_url(w, url);
}

/// Press the target form's button `label` (Save target, Cancel).
fn press_in_form(w: &mut Window, label: &str) {
    // With a target listed above it (more so with a warning), the form's end can be
    // below the window's edge. Scrolling is animated: the button is clicked where it ends.
    w.scroll_to(label);
    w.harness.get_by_label(label).click();
    w.harness.step();
}

/// Add a target (no credentials) in Settings, wait until the picker has it beside the
/// sandbox, and close Settings. The sandbox stays picked.
fn target_in_the_picker(w: &mut Window, name: &str, url: &str) {
    add_target(w, name, url, None);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    w.harness.state_mut().settings = Default::default();
    w.harness.step();
}

/// Add a target in Settings, pick it, and deposit the folder "soil-cores" to it: the
/// dataset's id and the record's identifier.
fn deposit_to_a_new_target(
    w: &mut Window,
    name: &str,
    url: &str,
    user_secret: Option<(&str, &str)>,
) -> (i64, String) {
    add_target(w, name, url, user_secret);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    w.harness.state_mut().settings = Default::default();
    w.harness.state_mut().target = 1;
    w.harness.step();
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, _) = w.deposit_row(id);
    (id, identifier)
}

/// The one problem the last Save target found, with its field.
fn only_problem(w: &Window) -> (TargetField, String) {
    let problems = &w.app().model.target_problems;
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems[0].clone()
}

/// Press the only Test connection button in Settings and wait for the checks of target
/// `name`.
fn test_connection(w: &mut Window, name: &str) -> ProbeReport {
    w.harness.get_by_label("Test connection").click();
    w.wait("the checks", |app| {
        matches!(app.model.target_tests.get(name), Some(TargetTest::Done(_)))
    });
    match w.app().model.target_tests.get(name) {
        Some(TargetTest::Done(report)) => report.clone(),
        other => unreachable!("{other:?}"),
    }
}

fn config_text(w: &Window) -> String {
    std::fs::read_to_string(w.lab.path("app/config.toml")).unwrap_or_default()
}

#[test]
fn a_target_added_in_settings_is_in_the_picker_and_the_config_passes_test_connection_and_takes_deposits()
 {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let url = other.target_url();
    add_target(&mut w, "lab-sandbox", &url, None);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });

    let picked = w.app().model.targets[1].clone();
    assert_eq!(picked.label, format!("lab-sandbox — {url}"));
    let config = config_text(&w);
    assert!(config.contains("[targets.lab-sandbox]"), "{config}");
    assert!(config.contains(&url), "{config}");
    w.wait("the form to close", |app| {
        app.model.configured.len() == 1 && app.model.target_saved.is_some()
    });
    assert!(
        w.harness.query_by_label("Save target").is_none(),
        "the form closed after saving"
    );
    w.harness.get_by_label("lab-sandbox");

    let report = test_connection(&mut w, "lab-sandbox");
    assert!(report.ok(), "every check passed: {report:?}");
    assert!(!report.checks.is_empty());
    for check in &report.checks {
        w.harness
            .get_by_label_contains(&format!("✔ {}: ", check.name));
    }
    w.harness
        .get_by_label_contains("'lab-sandbox' is ready for deposits.");
    // Settings opened again another time show no stale verdict: the server may have
    // changed since; Test connection asks again.
    w.harness.state_mut().settings = Default::default();
    w.harness.step();
    w.open_settings();
    w.harness.get_by_label("Test connection");
    assert!(
        w.harness
            .query_by_label_contains("is ready for deposits")
            .is_none(),
        "an earlier test's verdict is shown again"
    );

    // Deposit to the picked target: it lands in the second sandbox.
    w.harness.state_mut().settings = Default::default();
    w.harness.state_mut().target = 1;
    w.harness.step();
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    w.drop_paths(&[&folder]);
    w.wait("hashing", |app| {
        app.model.rows().iter().any(|r| r.key.is_some())
    });
    let before = w.runtime.block_on(sandbox_requests(&other.base_url()));
    w.harness.get_by_label("Deposit").click();
    w.wait("Deposited to lab-sandbox", |app| {
        app.table.order.len() == 1
            && matches!(
                app.status_of(app.table.order[0]),
                Some(DedupStatus::Deposited { .. })
            )
    });
    assert_eq!(w.app().target_id(), picked.scope_id);
    let after = w.runtime.block_on(sandbox_requests(&other.base_url()));
    assert!(after > before, "the deposit went to the second sandbox");
}

/// A name and a URL both wrong are said together, each beside its field, after one Save
/// target; fixing the name takes its problem away and leaves the URL's.
#[test]
fn every_problem_of_the_form_is_said_at_once_each_beside_its_field() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    add_target(&mut w, "lab s3!", "ftp//nowhere", None);
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    let problems = w.app().model.target_problems.clone();
    let fields: Vec<TargetField> = problems.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        fields,
        [TargetField::Name, TargetField::Url],
        "{problems:?}"
    );
    w.harness.step();
    w.harness
        .get_by_label_contains("'lab s3!' is not a target name");
    w.harness.get_by_label_contains("is not a target URL");
    let (_, url_problem) = &problems[1];
    assert!(
        url_problem.starts_with("'ftp//nowhere' is not a target URL"),
        "no stand-in name: {url_problem}"
    );
    assert!(!config_text(&w).contains("lab"), "nothing saved");

    w.replace_text("Target name", "lab-s3");
    w.harness.step();
    w.harness.step();
    assert!(
        w.harness
            .query_by_label_contains("is not a target name")
            .is_none()
    );
    w.harness.get_by_label_contains("is not a target URL");
}

#[test]
fn a_malformed_url_shows_the_error_next_to_the_field_and_saves_nothing() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    add_target(&mut w, "broken", "ftp//nowhere", None);
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    let (field, message) = only_problem(&w);
    assert_eq!(field, TargetField::Url);
    assert!(message.contains("is not a target URL"), "{message}");

    let url_field = w.harness.get_by_label("Target URL").rect();
    let shown = w
        .harness
        .get_by_label_contains("is not a target URL")
        .rect();
    assert!(
        shown.top() >= url_field.bottom() - 1.0 && shown.top() - url_field.bottom() < 40.0,
        "the message sits right under the URL field ({url_field:?} vs {shown:?})"
    );
    // A long message wraps within the fields' column, so Settings keeps its width.
    assert!(
        shown.left() >= url_field.left() - 1.0 && shown.right() <= url_field.right() + 1.0,
        "the message stays in the fields' column ({url_field:?} vs {shown:?})"
    );
    assert!(
        !w.lab.path("app/config.toml").exists(),
        "nothing was saved: {}",
        config_text(&w)
    );
    assert!(w.app().model.configured.is_empty());
    assert_eq!(w.app().model.targets.len(), 1, "the picker is unchanged");
    w.harness.get_by_label("Save target");

    // Typing a fix takes the message away (it no longer speaks of what the field holds).
    w.type_into("Target URL", "x");
    w.harness.step();
    assert!(
        w.harness
            .query_all_by_label_contains("is not a target URL")
            .next()
            .is_none(),
        "the refusal stays while the URL is being fixed"
    );
}

#[test]
fn a_plain_https_address_is_answered_in_the_forms_words_not_the_command_lines() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    add_target(
        &mut w,
        "bucket",
        "https://lab-data.s3.eu-west-1.amazonaws.com",
        None,
    );
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    let (field, message) = only_problem(&w);
    assert_eq!(field, TargetField::Url);
    assert!(
        message.contains("s3://BUCKET/PREFIX") && message.contains("\"S3 region\""),
        "names the form's fields: {message}"
    );
    assert!(
        !message.contains("lodge target add") && !message.contains("--"),
        "no command-line flags in the window: {message}"
    );

    w.replace_text("Target URL", "https://repo.example.org");
    press_save_target(&mut w);
    w.wait("the second refusal", |app| {
        app.model
            .target_problems
            .iter()
            .any(|(_, m)| m.contains("repo.example.org"))
    });
    let (_, message) = only_problem(&w);
    assert!(
        message.contains("webdav+https://repo.example.org")
            && message.contains("https://repo.example.org in \"S3 endpoint\""),
        "{message}"
    );
    assert!(!message.contains("--"), "{message}");
    assert!(!w.lab.path("app/config.toml").exists(), "nothing saved");
}

/// Settings' Add target filled in with `name` and `url` (`target`) and one more field
/// (`field`, its label and value), then saved: the one problem the form is refused with.
fn refused_new_target(
    w: &mut Window,
    target: (&str, &str),
    field: (&str, &str),
) -> (TargetField, String) {
    w.open_settings();
    w.harness.get_by_label("Add target").click();
    w.harness.run_steps(2);
    w.type_into("Target name", target.0);
    w.type_into("Target URL", target.1);
    w.type_into(field.0, field.1);
    press_save_target(w);
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    only_problem(w)
}

/// Type `url` over the open form's URL.
fn retype_url(w: &mut Window, url: &str) {
    w.harness.get_by_label("Target URL").focus();
    w.harness.step();
    w.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    w.harness.step();
    w.harness.get_by_label("Target URL").type_text(url);
    w.harness.step();
}

/// A save refused for its URL keeps the secret typed: the URL fixed, the next save stores
/// it (it was emptied, and the save after the fix refused for want of it). A problem of
/// the user or the secret that the URL's kind made (a sandbox keeps none) goes once the
/// URL is typed over.
#[test]
fn a_save_refused_for_its_url_keeps_the_typed_secret_for_the_next() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    add_target(
        &mut w,
        "dav1",
        "sandbox+http://127.0.0.1:9",
        Some(("alice", "pw123")),
    );
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    let problems = w.app().model.target_problems.clone();
    assert!(
        problems
            .iter()
            .all(|(f, _)| matches!(f, TargetField::User | TargetField::Secret)),
        "{problems:?}"
    );
    retype_url(&mut w, "webdav+http://127.0.0.1:9/dav?x=1");
    assert!(
        w.app().model.target_problems.is_empty(),
        "the user's and the secret's problems went with the sandbox's URL: {:?}",
        w.app().model.target_problems
    );

    press_save_target(&mut w);
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    assert_eq!(only_problem(&w).0, TargetField::Url);
    retype_url(&mut w, "webdav+http://127.0.0.1:9/dav");
    // The secret typed first.
    saved_with_secret(&mut w, "pw123");
}

/// An S3 endpoint or region filled in for a WebDAV target is refused under "S3 endpoint",
/// and nothing is saved: saved, they would be listed as if they applied.
#[test]
fn s3_fields_filled_in_for_a_webdav_target_are_refused() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let (field, message) = refused_new_target(
        &mut w,
        ("share", "webdav+http://127.0.0.1:9/share"),
        ("S3 region", "eu-west-1"),
    );
    assert_eq!(field, TargetField::Endpoint, "{message}");
    assert!(
        message.contains("are for S3 targets (s3://bucket/prefix) only: empty them"),
        "{message}"
    );
    assert!(!w.lab.path("app/config.toml").exists(), "nothing saved");
}

/// An S3 endpoint typed without its scheme is refused under "S3 endpoint", not under the
/// URL, which was right; typing the endpoint over takes the message away.
#[test]
fn a_refused_s3_endpoint_is_said_under_the_endpoint_field() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let (field, message) = refused_new_target(
        &mut w,
        ("gui-s3", "s3://gui-bucket/dep"),
        ("S3 endpoint", "127.0.0.1:9"),
    );
    assert_eq!(field, TargetField::Endpoint, "{message}");
    assert!(
        message.contains("did you mean http://127.0.0.1:9"),
        "{message}"
    );
    w.harness.run_steps(2);
    let said = w
        .harness
        .get_by_label_contains("did you mean http://127.0.0.1:9")
        .rect();
    let endpoint = w.harness.get_by_label("S3 endpoint").rect();
    let region = w.harness.get_by_label("S3 region").rect();
    assert!(
        said.top() >= endpoint.bottom() && said.bottom() <= region.top(),
        "the message {said:?} is not between the endpoint {endpoint:?} and the region {region:?}"
    );

    w.type_into("S3 endpoint", "x");
    w.harness.step();
    assert!(
        w.harness
            .query_all_by_label_contains("did you mean http://127.0.0.1:9")
            .next()
            .is_none(),
        "the refusal stays while the endpoint is being fixed"
    );
    assert!(!w.lab.path("app/config.toml").exists(), "nothing saved");
}

#[test]
fn the_secret_typed_in_settings_never_shows_in_the_config_the_model_the_log_or_the_store() {
    no_keyring();
    const SECRET: &str = "pw-7f3a9c-never-shown";
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let url = credentialed_url(&other);
    add_target(&mut w, "with-secret", &url, Some(("alice", SECRET)));
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    test_connection(&mut w, "with-secret");

    let secrets = w.lab.path("app/secrets.toml");
    let stored = std::fs::read_to_string(&secrets).expect("secrets file");
    assert!(
        stored.contains(SECRET),
        "the secret is stored in the secrets file"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&secrets).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the secrets file is private");
    }
    let config = config_text(&w);
    assert!(config.contains("user = \"alice\""), "{config}");
    assert!(!config.contains(SECRET), "config: {config}");
    let model = format!("{:?}", w.app().model);
    assert!(!model.contains(SECRET), "the model's Debug output");
    let log: Vec<&str> = w.app().model.log.iter().map(|l| l.text.as_str()).collect();
    assert!(!log.join("\n").contains(SECRET), "the log: {log:?}");
    w.wait("the credentials in the list", |app| {
        app.model
            .configured
            .iter()
            .any(|t| t.summary.credentials.contains("user alice"))
    });
    assert!(
        w.harness
            .query_all_by_label_contains(SECRET)
            .next()
            .is_none(),
        "nothing on screen shows the secret"
    );
    for entry in std::fs::read_dir(w.lab.path("app")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path != secrets {
            let bytes = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains(SECRET),
                "{} holds the secret",
                path.display()
            );
        }
    }
}

#[test]
fn removing_a_target_in_settings_takes_it_out_of_the_picker_the_config_and_the_secrets_file() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    add_target(
        &mut w,
        "short-lived",
        &credentialed_url(&other),
        Some(("alice", "pw-removed-too")),
    );
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    w.harness.state_mut().target = 1;
    w.harness.step();

    // Asked first: its stored secret goes with it. Keep it keeps it.
    w.harness.get_by_label("Remove").click();
    w.harness.step();
    w.harness.get_by_label_contains(
        "Remove 'short-lived' and its stored secret (to use it again, it is typed again)?",
    );
    w.harness.get_by_label("Keep it").click();
    w.harness.run_steps(3);
    assert_eq!(w.app().model.configured.len(), 1, "kept");
    assert!(w.harness.query_by_label("Remove short-lived").is_none());
    w.harness.get_by_label("Remove").click();
    w.harness.step();
    w.harness.get_by_label("Remove short-lived").click();
    w.wait("the target gone", |app| {
        app.model.targets.len() == 1 && app.model.configured.is_empty()
    });
    assert_eq!(w.app().target, 0, "the picker falls back to the sandbox");
    w.harness.step();
    assert_eq!(
        gui::notices_with(
            w.app(),
            "The target 'short-lived' is no longer configured, so the picker shows Local \
             sandbox now: pick another before depositing."
        )
        .len(),
        1,
        "the fallback is said"
    );
    assert!(
        !config_text(&w).contains("short-lived"),
        "{}",
        config_text(&w)
    );
    let secrets = std::fs::read_to_string(w.lab.path("app/secrets.toml")).unwrap_or_default();
    assert!(
        !secrets.contains("pw-removed-too"),
        "the secret is forgotten"
    );
    w.harness.get_by_label("No targets configured yet.");
    assert_eq!(
        gui::notices_with(
            w.app(),
            "Target 'short-lived' and its stored secret removed"
        )
        .len(),
        1
    );
}

/// A picked target removed and saved again from a terminal (replaced, say) is picked again
/// when it comes back, while the picker still shows the sandbox it fell back to: the
/// fallback was only ever because it was gone. Once another is picked by hand, that stays.
#[test]
fn a_picked_target_removed_and_saved_again_from_a_terminal_is_picked_again() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let url = other.target_url();
    target_in_the_picker(&mut w, "lab", &url);
    w.harness.state_mut().target = 1;
    w.harness.step();
    let (db, config) = (w.lab.path("app/lodge.db"), w.lab.path("app/config.toml"));
    let terminal =
        |args: &[&str]| gui::lodge_elsewhere(&db, &[("LODGE_CONFIG", config.as_path())], args);
    let replace = |w: &mut Window| {
        terminal(&["target", "remove", "lab"]);
        w.wait("the target gone", |app| app.model.targets.len() == 1);
        assert_eq!(w.app().target, 0, "the picker falls back to the sandbox");
        terminal(&["target", "add", "lab", &url]);
        w.wait("the target back", |app| app.model.targets.len() == 2);
        w.harness.step();
    };

    replace(&mut w);
    assert_eq!(w.app().target_id(), w.app().model.targets[1].scope_id);
    assert_eq!(
        gui::notices_with(
            w.app(),
            "The target 'lab' is configured again, so the picker shows it again."
        )
        .len(),
        1
    );
    // The warning that it was gone is taken down: the picker shows it again.
    let shown: Vec<String> = (w.app().notices.current())
        .map(|n| n.text.clone())
        .collect();
    assert!(
        !shown.iter().any(|t| t.contains("is no longer configured")),
        "{shown:?}"
    );

    // Removed, then added again at its address under another name: named as it is now.
    terminal(&["target", "remove", "lab"]);
    w.wait("the target gone", |app| app.model.targets.len() == 1);
    terminal(&["target", "add", "steady", &url]);
    w.wait("the target back", |app| app.model.targets.len() == 2);
    w.harness.step();
    assert_eq!(w.app().target_id(), w.app().model.targets[1].scope_id);
    assert_eq!(
        gui::notices_with(
            w.app(),
            "The target 'steady' has the address of 'lab', removed before, so the picker shows \
             it now."
        )
        .len(),
        1
    );
    terminal(&["target", "remove", "steady"]);
    w.wait("the target gone", |app| app.model.targets.len() == 1);
    terminal(&["target", "add", "lab", &url]);
    w.wait("the target back", |app| app.model.targets.len() == 2);
    w.harness.step();

    // Lost again, and the sandbox picked by hand meanwhile: it stays picked.
    terminal(&["target", "remove", "lab"]);
    w.wait("the target gone", |app| app.model.targets.len() == 1);
    w.harness.step();
    let third = second_sandbox(&w);
    terminal(&["target", "add", "spare", &third.target_url()]);
    w.wait("another target", |app| app.model.targets.len() == 2);
    w.harness.step();
    let spare = third.target_url();
    let at = w
        .app()
        .model
        .targets
        .iter()
        .position(|t| t.scope_id == spare)
        .unwrap();
    w.harness.state_mut().target = at;
    w.harness.step();
    terminal(&["target", "add", "lab", &url]);
    w.wait("the target back", |app| app.model.targets.len() == 3);
    w.harness.step();
    assert_eq!(w.app().target_id(), spare, "the hand's pick stands");
}

/// Removing a target that still has deposits queued says so, and how to take them off the
/// queue; one that kept no secret is not said to have had one.
#[test]
fn removing_a_target_with_deposits_queued_says_they_wait_and_how_to_cancel_them() {
    no_keyring();
    let (mut w, locked) = window_with_a_paused_target();
    w.open_settings();
    w.harness.get_by_label("Remove").click();
    w.harness.step();
    // It kept no secret: none is said to go with it. Its deposit on the queue is said
    // before it is removed, not only after.
    w.harness.get_by_label_contains(
        "Remove 'locked'? Its deposit history stays, and its deposits stay on the server. 1 \
         deposit for it still on the queue waits there, unsent, until the target is added \
         again or it is taken off the queue.",
    );
    w.harness.get_by_label("Remove locked").click();
    let said = format!(
        "Target 'locked' removed; its deposit history stays. 1 deposit for it is still \
         queued: add the target again to send it, or `lodge cancel --target {}` takes it \
         off the queue.",
        locked.target_url()
    );
    w.wait("the notice", |app| {
        !gui::notices_with(app, &said).is_empty()
    });
    assert!(gui::notices_with(w.app(), "stored secret").is_empty());
}

#[test]
fn editing_a_target_keeps_its_stored_secret_and_a_bad_url_leaves_the_config_unchanged() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let url = credentialed_url(&other);
    add_target(&mut w, "edited", &url, Some(("alice", "pw-kept-on-edit")));
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    let before = config_text(&w);

    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    w.type_into("Target URL", "-broken");
    press_save_target(&mut w);
    w.wait("the refusal", |app| !app.model.target_problems.is_empty());
    assert_eq!(config_text(&w), before, "a refused edit changes nothing");

    // Back to the good URL, no secret typed: the stored one is kept.
    press_in_form(&mut w, "Cancel");
    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    press_save_target(&mut w);
    w.wait("the edit saved", |app| app.model.target_saved.is_some());
    let secrets = std::fs::read_to_string(w.lab.path("app/secrets.toml")).unwrap();
    assert!(
        secrets.contains("pw-kept-on-edit"),
        "the stored secret stays"
    );
    assert_eq!(config_text(&w), before);
    assert!(
        w.app()
            .model
            .log
            .iter()
            .any(|l| l.text.contains("Target 'edited' changed")),
        "the log says it changed"
    );
}

#[test]
fn editing_the_picked_targets_url_keeps_it_picked() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let (old, new) = (
        second_sandbox(&w),
        sandbox_at(&w, ([127, 0, 0, 1], 0).into(), None),
    );
    add_target(&mut w, "lab2", &old.target_url(), None);
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    w.harness.state_mut().target = 1;
    w.harness.step();

    // The server moved: a new URL, so a new scope, under the same name.
    edit_target_url(&mut w, &new.target_url());
    press_save_target(&mut w);
    w.wait("the edit saved", |app| {
        app.model.target_saved.is_some()
            && app
                .model
                .targets
                .iter()
                .any(|t| t.label.ends_with(&new.target_url()))
    });
    w.harness.step();
    let picked = &w.app().model.targets[w.app().target];
    assert_eq!(
        picked.label,
        format!("lab2 — {}", new.target_url()),
        "the picker stays on the edited target, not the sandbox"
    );
}

/// A target whose URL is edited to another place does not keep sending the old place's
/// password: Save asks for this place's, beside the secret field.
#[test]
fn editing_a_targets_url_to_another_place_asks_for_that_places_secret() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let (old, new) = (
        second_sandbox(&w),
        sandbox_at(&w, ([127, 0, 0, 1], 0).into(), None),
    );
    add_target(
        &mut w,
        "lab-dav",
        &credentialed_url(&old),
        Some(("u", "old-s3cret")),
    );
    w.wait("the target saved", |app| app.model.target_saved.is_some());

    edit_target_url(&mut w, &credentialed_url(&new));
    press_save_target(&mut w);
    w.wait("the secret asked for", |app| {
        app.model.target_problems.iter().any(|(field, problem)| {
            *field == TargetField::Secret
                && problem.contains("stored for 'lab-dav' is the one of")
                && problem.contains("type this place's")
        })
    });
    let config = config_text(&w);
    assert!(
        config.contains(&credentialed_url(&old)),
        "unchanged: {config}"
    );

    w.type_into("Password, secret key or token", "new-s3cret");
    press_save_target(&mut w);
    w.wait("saved with this place's secret", |app| {
        app.model.target_problems.is_empty() && app.model.target_saved.is_some()
    });
    let config = config_text(&w);
    assert!(config.contains(&credentialed_url(&new)), "{config}");
}

/// eframe's storage, in memory: what the window saves when it closes.
#[derive(Default)]
struct MemoryStorage(std::collections::HashMap<String, String>);

impl eframe::Storage for MemoryStorage {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

/// A window with a second sandbox saved as `lab2` (returned) and picked.
fn with_a_second_sandbox_picked() -> (Window, RunningSandbox) {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    add_target(&mut w, "lab2", &other.target_url(), None);
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    w.harness.state_mut().target = 1;
    w.harness.step();
    (w, other)
}

/// From one run to the next the window remembers which target is picked and how the list
/// is sorted, as a person who deposits to the lab's store every week expects; not the
/// search, which would hide datasets.
#[test]
fn the_picked_target_and_the_lists_order_are_remembered_from_one_run_to_the_next() {
    let (mut w, other) = with_a_second_sandbox_picked();
    let lab2 = w.app().target_id().to_string();
    assert_eq!(lab2, other.target_url());
    {
        let app = w.harness.state_mut();
        app.table.sort = lodge::ui::table::SortBy::Name;
        app.table.descending = true;
        app.table.search = "soil".into();
    }
    w.harness.step();
    let mut storage = MemoryStorage::default();
    eframe::App::save(w.harness.state_mut(), &mut storage);

    // As `main` does: the app takes up what was remembered before its first frame, while
    // the targets are not known yet.
    let mut w = w.reopen_prepared(|app| app.recall_from(&storage));
    w.wait("lab2 picked again", |app| app.target_id() == lab2);
    let table = &w.app().table;
    assert_eq!(table.sort, lodge::ui::table::SortBy::Name);
    assert!(table.descending);
    assert_eq!(table.search, "", "the search is not kept");

    // A target removed since is not picked: the sandbox is.
    let gone = lodge::ui::ViewMemory {
        target_scope: "sandbox+http://127.0.0.1:9".into(),
        ..Default::default()
    };
    w.harness.state_mut().recall(gone);
    w.harness.step();
    w.harness.step();
    assert_eq!(w.app().target, 0);
}

/// The pick is written down as soon as it changes, not at a clean exit or eframe's
/// half-minute autosave: a window killed right after (here: never saved at all) opens again
/// on the target picked last, where a Deposit all ready is meant to go.
#[test]
fn the_picked_target_is_on_disk_as_soon_as_it_is_picked_and_survives_a_crash() {
    let (w, _lab2_server) = with_a_second_sandbox_picked();
    let lab2 = w.app().target_id().to_string();
    let on_disk = std::fs::read_to_string(w.lab.path("app/window-view.json")).expect("written");
    let memory: lodge::ui::ViewMemory = serde_json::from_str(&on_disk).expect("readable");
    assert_eq!(memory.target_scope, lab2);
    assert_eq!(memory.target_name.as_deref(), Some("lab2"));

    // Closed with no eframe save (a kill -9): the pick comes from Lodge's own file.
    let mut w = w.reopen();
    w.wait("lab2 picked again", |app| app.target_id() == lab2);
}

/// A sandbox at `addr` (port 0: any) that wants `token`, if one, keeping its records in the
/// lab's `locked-sandbox` folder across restarts.
fn sandbox_at(w: &Window, addr: SocketAddr, token: Option<&str>) -> RunningSandbox {
    w.runtime
        .block_on(RunningSandbox::start(SandboxConfig {
            addr,
            data_dir: w.lab.path("locked-sandbox"),
            token: token.map(str::to_string),
            faults: FaultConfig::default(),
        }))
        .expect("sandbox")
}

/// A window started with `LODGE_TOKEN` (the service's `sandbox_token`, which `main` reads
/// from it) sends that token to a configured sandbox started with `--token`: Test connection
/// passes and the deposit lands, where a window started without it is refused (the test
/// above).
#[test]
fn a_window_started_with_lodge_token_tests_and_deposits_to_a_sandbox_that_wants_it() {
    no_keyring();
    let lab = support::Lab::new();
    let mut cfg = gui::config(&lab, FaultConfig::default());
    cfg.sandbox_token = Some("right".into());
    let mut w = Window::open_with(lab, cfg);
    let locked = sandbox_at(&w, SocketAddr::from(([127, 0, 0, 1], 0)), Some("right"));
    add_target(&mut w, "locked", &locked.target_url(), None);
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    assert!(
        !config_text(&w).contains("right"),
        "the token is not written to the config file"
    );

    let report = test_connection(&mut w, "locked");
    assert!(report.ok(), "the token was sent: {report:?}");

    w.harness.state_mut().settings = Default::default();
    w.harness.state_mut().target = 1;
    w.harness.step();
    let folder = citable_folder(&w.lab, "field-notes", "Field notes 2026");
    let id = w.add_folder(&folder);
    w.harness.get_by_label("Deposit").click();
    w.wait("deposited on 'locked'", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    assert_eq!(locked.stats().records, 1);
}

/// A window whose target 'locked' (picked) is a sandbox wanting a token the saved target
/// does not send, and a dataset "field-notes" whose deposit there has just been refused.
///
/// The engine looks at the queue on its own only once an hour: what the window does about
/// the pause must wake it.
fn window_with_a_paused_target() -> (Window, RunningSandbox) {
    let lab = support::Lab::new();
    let mut cfg = gui::config(&lab, FaultConfig::default());
    cfg.engine.poll = std::time::Duration::from_secs(3600);
    let mut w = Window::open_with(lab, cfg);
    let locked = sandbox_at(&w, SocketAddr::from(([127, 0, 0, 1], 0)), Some("right"));
    add_target(&mut w, "locked", &locked.target_url(), None);
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    w.harness.state_mut().settings = Default::default();
    deposit_to_the_second_target_until_paused(&mut w, "field-notes", "Field notes 2026");
    (w, locked)
}

/// Pick the picker's second target, add a folder `name` titled `title` and press Deposit,
/// then wait until its row says the target paused (the server refused the credentials).
fn deposit_to_the_second_target_until_paused(w: &mut Window, name: &str, title: &str) {
    w.harness.state_mut().target = 1;
    w.harness.step();
    let folder = citable_folder(&w.lab, name, title);
    w.add_folder(&folder);
    w.harness.get_by_label("Deposit").click();
    w.wait("the row paused", |app| {
        matches!(
            app.status_of(app.table.order[0]),
            Some(DedupStatus::TargetPaused { .. })
        )
    });
}

#[test]
fn a_target_that_refuses_the_credentials_pauses_its_rows_says_so_and_deposit_resumes_it() {
    no_keyring();
    let (mut w, locked) = window_with_a_paused_target();
    let addr = locked.addr();
    let Some(DedupStatus::TargetPaused { reason, .. }) = w.status("field-notes") else {
        unreachable!()
    };
    assert!(reason.starts_with("not authorised (HTTP 401)"), "{reason}");
    w.harness.get_by_label_contains("Target paused");
    // The notice (and the log line that keeps it) says what happened and what to do.
    for words in [
        "locked — sandbox+http://",
        "is paused: not authorised (HTTP 401)",
        // A sandbox's token is not kept in Settings: the window says where it comes from.
        "a sandbox started with --token wants that token: start Lodge with LODGE_TOKEN set",
    ] {
        assert!(
            w.harness
                .query_all_by_label_contains(words)
                .next()
                .is_some(),
            "the window says '{words}'"
        );
    }
    assert_eq!(locked.stats().records, 0);
    // Settings says it beside the target, where its Edit is.
    w.open_settings();
    w.harness.get_by_label_contains(&format!(
        "⏸ Paused: {} Nothing is sent there until you act: a sandbox started with --token \
         wants that token",
        lodge::wording::sentence(&reason)
    ));
    w.harness.state_mut().settings = Default::default();
    w.harness.step();

    // Closed and opened again, the window still knows the target waits on the user.
    w.runtime.block_on(locked.shutdown());
    let gui::Window {
        lab,
        harness,
        runtime,
    } = w;
    drop(harness);
    drop(runtime);
    let config = gui::config(&lab, FaultConfig::default());
    let mut w = Window::open_with(lab, config);
    w.harness.state_mut().target = 1;
    w.harness.step();
    w.wait("the row paused after a restart", |app| {
        app.table.order.len() == 1
            && matches!(
                app.status_of(app.table.order[0]),
                Some(DedupStatus::TargetPaused { .. })
            )
    });

    // The user acts (here: the server stops asking for a token), then presses Deposit.
    let open = sandbox_at(&w, addr, None);
    w.harness.get_by_label("Deposit").click();
    w.wait("deposited after the pause", |app| {
        matches!(
            app.status_of(app.table.order[0]),
            Some(DedupStatus::Deposited { .. })
        )
    });
    assert_eq!(open.stats().records, 1, "one record, sent once resumed");
    assert!(!w.log_of("resumed").is_empty(), "the log says it resumed");
    // The press lifted the pause: that is what the notice says, not that the row was
    // already on the queue.
    let notices: Vec<String> = (w.harness.state().notices.current())
        .map(|n| n.text.clone())
        .collect();
    assert!(
        notices
            .contains(&"The target's pause is lifted: 1 deposit waiting there is sent now.".into()),
        "{notices:?}"
    );
}

/// A configured target that cannot be opened is left out of the picker, and the window
/// says so once: saving another target (which opens them all again) does not say it again.
#[test]
fn a_target_left_out_of_the_picker_is_warned_of_once_not_at_every_save() {
    no_keyring();
    let lab = support::Lab::new();
    config_before_opening(
        &lab,
        "[targets.lab-dav]\nurl = \"webdav+http://127.0.0.1:9/dav\"\nuser = \"alice\"\n\
         secret_env = \"LODGE_TEST_SECRET_NEVER_SET\"\n",
        None,
    );
    let cfg = gui::config(&lab, FaultConfig::default());
    let mut w = Window::open_with(lab, cfg);
    let said = |w: &Window| gui::notices_with(w.app(), "Target 'lab-dav' is not in the picker");
    w.wait("the warning", |app| {
        !gui::notices_with(app, "Target 'lab-dav' is not in the picker").is_empty()
    });
    assert!(
        said(&w)[0].1.contains("LODGE_TEST_SECRET_NEVER_SET"),
        "names the variable: {:?}",
        said(&w)
    );

    // Read, the warning is closed (it would cover the form's buttons).
    w.harness.get_by_label("✖").click();
    w.harness.step();
    let other = second_sandbox(&w);
    add_target(&mut w, "lab-sandbox", &other.target_url(), None);
    w.wait("the new target in the picker", |app| {
        app.model.targets.len() == 2
    });
    w.wait("the save's log line", |app| {
        app.model.log.iter().any(|l| l.text.contains("lab-sandbox"))
    });
    for _ in 0..20 {
        w.harness.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(said(&w).len(), 1, "{:?}", said(&w));
}

/// A target saved with a user and no password (by `lodge target add`, or a config file
/// copied from another machine) is left out of the picker with a notice that says where
/// to type the password; Settings says none is stored; typing it there brings it in.
#[test]
fn a_target_without_its_stored_password_says_where_to_type_it_and_typing_it_brings_it_in() {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    let other = {
        let config = SandboxConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: lab.path("second-sandbox"),
            token: None,
            faults: FaultConfig::default(),
        };
        let rt = tokio::runtime::Runtime::new().unwrap();
        let sandbox = rt.block_on(RunningSandbox::start(config)).unwrap();
        (rt, sandbox)
    };
    config_before_opening(
        &lab,
        &format!(
            "[targets.lab-dav]\nurl = \"{}\"\nuser = \"alice\"\n",
            credentialed_url(&other.1)
        ),
        None,
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("the warning", |app| {
        !gui::notices_with(app, "Target 'lab-dav' is not in the picker").is_empty()
    });
    let said = gui::notices_with(w.app(), "Target 'lab-dav' is not in the picker");
    assert!(
        said[0].1.contains("no password or secret key stored")
            && said[0].1.contains("press Edit next to it"),
        "says where to type it: {said:?}"
    );
    assert!(!said[0].1.contains("--secret-stdin"), "{said:?}");
    w.harness.get_by_label("✖").click();
    w.open_settings();
    assert!(
        w.harness
            .query_by_label("Credentials: user alice, no secret stored yet")
            .is_some(),
        "Settings says no secret is stored"
    );

    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    assert!(
        w.harness
            .get_by_label("Password, secret key or token")
            .accesskit_node()
            .is_focused(),
        "the form opens with the cursor in the password field"
    );
    w.type_into("Password, secret key or token", "typed-in-settings");
    saved_with_secret(&mut w, "typed-in-settings");
}

#[test]
fn deposits_made_from_the_command_line_to_a_target_not_in_the_picker_show_in_the_details() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let folder = citable_folder(&w.lab, "core-scans", "Core scans 2026");
    w.add_folder(&folder);

    // The same database, from the command line, to a URL the window does not list.
    let out = support::lodge(&w.lab.path("app/lodge.db"))
        .args(["deposit", "--target", &other.target_url(), "core-scans"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::text(&out));

    w.open_details("core-scans", |d| !d.jobs.is_empty());
    w.harness.get_by_label(&format!(
        "{} (not in the target picker)",
        other.target_url()
    ));
    w.harness
        .get_by_label_contains("· deposited · 1 attempt: sbx-000001");
    // The window cannot ask a target it does not have: its Verify is greyed out, saying
    // why and what can, rather than offered and then refused.
    let verify = w.harness.get_by_label("Verify");
    assert!(verify.accesskit_node().is_disabled());
    assert!(w.harness.query_by_label("Verify bytes").is_none());
    assert!(w.harness.query_by_label("Repair").is_none());
}

/// A deposit that failed on a target of the picker other than the picked one is retried
/// from the dataset's details: the row's status, and its Retry, are the picked target's.
#[test]
fn a_failed_deposit_to_a_target_not_picked_is_retried_from_the_details() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let down = w.runtime.block_on(w.lab.failing_sandbox("down"));
    target_in_the_picker(&mut w, "down", &down.target_url());
    let folder = citable_folder(&w.lab, "core-scans", "Core scans 2026");
    w.add_folder(&folder);
    let out = support::lodge(&w.lab.path("app/lodge.db"))
        .env("LODGE_CONFIG", w.lab.path("app/config.toml"))
        .args([
            "deposit",
            "--target",
            "down",
            "--max-attempts",
            "1",
            "core-scans",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", support::text(&out));

    // The picked target is the sandbox, where it was never sent: the row offers Deposit.
    w.open_details("core-scans", |d| {
        d.jobs.iter().any(|(j, _)| j.state == JobState::Failed)
    });
    w.harness.step();
    w.scroll_to("Retry");
    w.harness.get_by_label("Retry").click();
    w.wait("the retry's re-queue", |app| {
        app.model
            .log
            .iter()
            .any(|l| l.text.contains("re-queued by retry with the same key"))
    });
}

/// A copy's details list the deposit it shares on a target that is not the picked one,
/// and follow it as it moves: a retry of it from a terminal shows there without reopening
/// them (they were read again only for the picked target's shared job).
#[test]
fn a_copys_details_follow_the_deposit_it_shares_on_a_target_not_picked() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let down = w.runtime.block_on(w.lab.failing_sandbox("down"));
    target_in_the_picker(&mut w, "down", &down.target_url());
    // The window does not deposit (its engine would take the retry up itself): a terminal
    // does.
    w.harness.state_mut().send(lodge::app::Command::Pause);
    w.harness.step();
    w.add_folder(&citable_folder(&w.lab, "original", "Cores"));
    w.add_folder(&citable_folder(&w.lab, "backup", "Cores"));
    let (db, config) = (w.lab.path("app/lodge.db"), w.lab.path("app/config.toml"));
    let terminal = |args: &[&str]| {
        support::lodge(&db)
            .env("LODGE_CONFIG", &config)
            .args(args)
            .output()
            .unwrap()
    };
    let out = terminal(&[
        "deposit",
        "--target",
        "down",
        "--max-attempts",
        "1",
        "--all",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", support::text(&out));

    // The picked target is the sandbox; the copy's details list the failed deposit to
    // `down` its twin holds.
    w.open_details("backup", |d| {
        d.jobs.iter().any(|(j, _)| j.state == JobState::Failed)
    });
    w.harness.step();
    w.harness
        .get_by_label_contains(" · failed · 1 attempt · with original");
    let job = w.app().model.details.as_ref().unwrap().jobs[0]
        .0
        .id
        .to_string();
    let out = terminal(&["retry", &job, "--max-attempts", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", support::text(&out));
    w.wait("the details read again", |app| {
        app.model.details.as_ref().is_some_and(|d| {
            d.jobs
                .iter()
                .any(|(j, _)| j.attempts_before + j.attempts == 2)
        })
    });
    w.harness.step();
    w.harness
        .get_by_label_contains(" · failed · 2 attempts · with original");
}

#[test]
fn saving_an_edited_target_lifts_its_pause_and_what_waited_is_sent() {
    no_keyring();
    let (mut w, locked) = window_with_a_paused_target();
    let addr = locked.addr();
    w.runtime.block_on(locked.shutdown());
    let open = sandbox_at(&w, addr, None);
    let says_paused = |w: &Window| {
        w.harness
            .state()
            .notices
            .current()
            .any(|n| n.text.contains("is paused: not authorised"))
    };
    assert!(says_paused(&w), "the pause is said while it lasts");

    // The user fixes the target in Settings (here nothing needs changing) and saves it.
    w.open_settings();
    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    press_save_target(&mut w);
    w.wait("deposited without pressing Deposit", |app| {
        matches!(
            app.status_of(app.table.order[0]),
            Some(DedupStatus::Deposited { .. })
        )
    });
    assert_eq!(open.stats().records, 1);
    assert!(
        w.harness
            .query_all_by_label_contains("Its pause is lifted")
            .next()
            .is_some(),
        "the notice says the pause is lifted"
    );
    assert!(
        !says_paused(&w),
        "the pause's notice is taken down with the pause"
    );
}

/// A check of a deposit whose server is no longer there says what to look at in one
/// sentence: the cause ends in a question ("is that its address?"), with no full stop
/// after it.
#[test]
fn verify_on_a_server_that_is_gone_ends_its_notice_with_the_question_of_the_cause() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    deposit_to_a_new_target(&mut w, "lab-sandbox", &other.target_url(), None);

    w.runtime.block_on(other.shutdown());
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    let (level, said) = w.press_for_notice("Verify", "Cannot verify soil-cores");
    assert_eq!(level, LogLevel::Error);
    assert!(said.contains("refused the connection"), "{said}");
    assert!(said.ends_with("is that its address?"), "{said}");
}

/// A WebDAV (or S3) record is named by its whole address. Where room is short the window
/// says `records/KEY….json`: the details' header of the deposit no longer holds the address
/// on one line, which made the panel as wide as the window and pushed the table's statuses
/// and actions out of sight.
#[test]
fn a_record_named_by_its_address_reads_short_and_the_details_leave_the_table_its_room() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let (dav_url, root) = servers::webdav();
    let folder = servers::dav_folder(root);
    let (id, identifier) = deposit_to_a_new_target(
        &mut w,
        "lab-dav",
        &format!("webdav+{dav_url}/{folder}"),
        Some((servers::DAV_USER, servers::DAV_PASSWORD)),
    );
    let key = w.app().model.row(id).unwrap().key.unwrap().to_hex();
    assert!(
        identifier.ends_with(&format!("/records/{key}.json")),
        "{identifier}"
    );
    let short = format!("records/{}….json", &key[..12]);
    w.harness.get_by_label(&format!("✔ Deposited · {short}"));

    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    for _ in 0..3 {
        w.harness.step();
    }
    w.harness
        .get_by_label_contains(&format!("deposited · 1 attempt: {short}"));
    let panel_left = w.harness.get_by_label("Deposit attempts").rect().left();
    assert!(
        panel_left > gui::WINDOW[0] - 600.0,
        "the details panel starts at x = {panel_left} of {}",
        gui::WINDOW[0]
    );
    // So does a check's notice.
    let (_, intact) = w.press_for_notice("Verify", "is intact");
    assert!(intact.contains(&format!("(record {short})")), "{intact}");

    // And History, whose Record column holds the whole short form.
    w.harness.get_by_label("History").click();
    w.wait("the history", |app| app.model.history.is_some());
    for _ in 0..3 {
        w.harness.step();
    }
    // A label too wide for its column is cut short ("records/6741faaea150…"): its width
    // is then less than its text's.
    let shown = w.harness.get_by_label(&short).rect().width();
    let font = egui::TextStyle::Body.resolve(&w.harness.ctx.global_style());
    let whole = w.harness.ctx.fonts_mut(|fonts| {
        fonts
            .layout_no_wrap(short.clone(), font, egui::Color32::WHITE)
            .size()
            .x
    });
    assert!(
        shown >= whole - 0.5,
        "History shows {shown} px of {short}, whose text is {whole} px wide"
    );
}

/// In the window, credentials are typed in Settings: a server refusing them says to edit the
/// target there, not to run a `lodge target add` in a terminal (what the command line says),
/// in Test connection and on the paused rows alike.
#[test]
fn refused_credentials_in_the_window_say_to_edit_the_target_in_settings() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let (dav_url, root) = servers::webdav();
    let folder = servers::dav_folder(root);
    add_target(
        &mut w,
        "lab-dav",
        &format!("webdav+{dav_url}/{folder}"),
        Some((servers::DAV_USER, "not-the-password")),
    );
    w.wait("the target saved", |app| {
        app.model.targets.len() == 2 && app.model.target_saved.is_some()
    });
    let edit_in_settings = "refused the user name or password: correct them in Settings \
                            (Targets, Edit next to 'lab-dav')";

    let report = test_connection(&mut w, "lab-dav");
    let refused = report
        .first_failure()
        .map(|check| format!("{check:?}"))
        .unwrap_or_default();
    assert!(refused.contains(edit_in_settings), "{refused}");
    assert!(!refused.contains("lodge target add"), "{refused}");
    w.harness.step();
    w.harness.get_by_label_contains(edit_in_settings);

    // A deposit to it pauses the row with the same words.
    w.harness.state_mut().settings = Default::default();
    w.harness.state_mut().target = 1;
    w.harness.step();
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the row paused", |app| {
        matches!(app.status_of(id), Some(DedupStatus::TargetPaused { .. }))
    });
    let Some(DedupStatus::TargetPaused { reason, .. }) = w.app().status_of(id) else {
        unreachable!()
    };
    assert!(reason.contains(edit_in_settings), "{reason}");
    assert!(!reason.contains("lodge target add"), "{reason}");

    // Its Edit opens on the password, which is what needs typing, and says why; the right
    // one saved sends what waited.
    w.open_settings();
    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    let field = w.harness.get_by_label("Password, secret key or token");
    assert!(
        field.accesskit_node().is_focused(),
        "the form opens with the cursor in the password field"
    );
    assert_eq!(
        field.accesskit_node().placeholder(),
        Some("the server refused the stored one: type the right one")
    );
    w.type_into("Password, secret key or token", servers::DAV_PASSWORD);
    press_save_target(&mut w);
    w.wait("deposited once the password is right", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
}

/// The form's fields start and end at one x, whatever their labels' lengths: it reads as a
/// form, and a field's width says nothing it does not mean.
#[test]
fn the_target_forms_fields_line_up_in_one_column() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.harness.get_by_label("Add target").click();
    for _ in 0..3 {
        w.harness.step();
    }
    // The form opens with the keyboard in its first field: the Add target pressed by
    // keyboard went away with the focus.
    assert!(w.harness.get_by_label("Target name").is_focused());
    let fields = [
        "Target name",
        "Target URL",
        "S3 endpoint",
        "S3 region",
        "User or access key id",
        "Password, secret key or token",
    ];
    let rects: Vec<_> = fields
        .iter()
        .map(|label| w.harness.get_by_label(label).rect())
        .collect();
    for (label, rect) in fields.iter().zip(&rects) {
        assert_eq!(
            (rect.left(), rect.right()),
            (rects[0].left(), rects[0].right()),
            "{label} is not in the column of {}",
            fields[0]
        );
    }
}

/// A picker target paused by a terminal's deposit (its token refused) reads paused in the
/// open window's rows, as when the window's own deposit is refused: the queued job waits
/// for the person, not for its turn.
#[test]
fn a_target_paused_by_a_terminals_deposit_shows_paused_in_the_open_window() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let locked = w
        .runtime
        .block_on(RunningSandbox::start(SandboxConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: w.lab.path("locked-sandbox"),
            token: Some("s3cret".into()),
            faults: FaultConfig::default(),
        }))
        .expect("a sandbox with a token");
    add_target(&mut w, "locked", &locked.target_url(), None);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    w.harness.state_mut().settings = Default::default();
    w.harness.state_mut().target = 1;
    // The window does not deposit: a terminal does, with no token.
    w.harness.state_mut().send(lodge::app::Command::Pause);
    w.harness.step();
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    gui::terminal_deposit_paused(&w, &w.lab.path("app/config.toml"), "locked");
    w.wait("the row to say its target is paused", |app| {
        matches!(
            app.model
                .row(id)
                .map(|r| app.model.status(r, app.target_id())),
            Some(DedupStatus::TargetPaused { .. })
        )
    });
}

#[test]
fn an_invenio_target_added_in_settings_with_its_token_takes_deposits_and_the_token_stays_out_of_the_config()
 {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let url = other.invenio_target_url();
    let token = other.invenio_account().token;

    // A user beside a token is refused next to the user field.
    add_target(&mut w, "zen", &url, Some(("alice", &token)));
    w.wait("the refusal of the user", |app| {
        !app.model.target_problems.is_empty()
    });
    let (field, message) = only_problem(&w);
    assert_eq!(field, TargetField::User, "{message}");
    assert!(message.contains("has no user"), "{message}");
    press_in_form(&mut w, "Cancel");

    // Without the token, the form asks for it where it is typed.
    add_target(&mut w, "zen", &url, None);
    w.wait("the question of the token", |app| {
        !app.model.target_problems.is_empty()
    });
    let (field, message) = only_problem(&w);
    assert_eq!(field, TargetField::Secret, "{message}");
    assert!(
        message.contains("target 'zen' has no token stored: type it here"),
        "{message}"
    );
    assert!(!config_text(&w).contains("zen"), "nothing saved yet");
    w.type_into("Password, secret key or token", &token);
    press_save_target(&mut w);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    let config = config_text(&w);
    assert!(config.contains("[targets.zen]"), "{config}");
    assert!(!config.contains(&token), "no token in the config: {config}");
    let secrets = std::fs::read_to_string(w.lab.path("app/secrets.toml")).unwrap();
    assert!(secrets.contains(&token), "the token is in the secrets file");
    let listed = &w.app().model.configured[0].summary;
    assert_eq!(listed.kind, "invenio");
    assert_eq!(listed.credentials, "token from the keyring or secrets file");

    // A deposit to it makes an InvenioRDM record with the dataset's files.
    w.harness.state_mut().settings = Default::default();
    w.harness.state_mut().target = 1;
    w.harness.step();
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, _) = w.deposit_row(id);
    assert_eq!(identifier, "00000-00001", "the emulation's first record");
    assert!(other.invenio_uploads() > 0, "its files were uploaded");
}

/// A window with two saved targets on a second sandbox: `lab` (the sandbox itself) and
/// `dois`, its DataCite emulation with `landing_from=lab` and `options` (`&state=...`)
/// after it, its password saved. The runtime keeps the sandbox running.
fn window_with_a_doi_target_landing_on_lab(
    options: &str,
) -> (tokio::runtime::Runtime, RunningSandbox, Window) {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let other = sandbox_beside(&rt, &lab);
    let password = other.datacite_account().password;
    config_before_opening(
        &lab,
        &format!(
            "[targets.lab]\nurl = \"{}\"\n\n[targets.dois]\nurl = \"{}{options}&landing_from=lab\"\n",
            other.target_url(),
            other.datacite_target_url()
        ),
        Some(&format!("[secrets]\ndois = \"{password}\"\n")),
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("both targets in the picker", |app| {
        app.model.targets.len() == 3
    });
    (rt, other, w)
}

/// `soil-cores` added and deposited to `dois` before it has a record on `lab`: refused,
/// for want of a landing page. Returns its dataset id.
fn refused_a_doi(w: &mut Window) -> i64 {
    pick(w, "dois");
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.harness.get_by_label("Deposit").click();
    w.wait("refused", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Rejected { .. }))
    });
    id
}

/// Pick the saved target `name` in the window's picker.
fn pick(w: &mut Window, name: &str) {
    let at = w
        .app()
        .model
        .targets
        .iter()
        .position(|t| t.label.starts_with(&format!("{name} — ")))
        .unwrap_or_else(|| panic!("{name} is in the picker"));
    w.harness.state_mut().target = at;
    w.harness.step();
}

/// "Mint a DOI for what I just deposited there", from the window: a DataCite target saved
/// with `landing_from=` the name of another saved target gets each dataset's landing page
/// from the record its deposit to that target got, looked up as its deposit starts. In the
/// details both deposits offer Verify, and only the record with the files offers Verify
/// bytes: DataCite keeps none to read back.
#[test]
fn a_doi_minted_from_the_window_lands_on_the_record_its_dataset_got_on_the_landing_from_target() {
    let (rt, other, mut w) = window_with_a_doi_target_landing_on_lab("&state=publish");

    // Asked for a DOI first, the dataset is refused before anything is sent: it has no
    // record on 'lab' to land on yet.
    let id = refused_a_doi(&mut w);
    let Some(DedupStatus::Rejected { cause }) = w.app().status_of(id) else {
        unreachable!()
    };
    assert!(
        cause.contains("no landing page: this dataset has no record on lab yet"),
        "{cause}"
    );
    assert_eq!(other.doi_count(), 0);
    // No metadata is at fault: the row offers no Edit, only Deposit again.
    w.harness.step();
    assert!(w.harness.query_by_label("Edit").is_none());
    w.harness.get_by_label("Deposit again");

    pick(&mut w, "lab");
    let (_, record) = w.deposit_row(id);
    let record = record.expect("a sandbox record has an address");

    // Back on 'dois', the refused row is sent again, with nothing to edit. (Its long label,
    // the URL and its query, keeps the top bar on one row.)
    pick(&mut w, "dois");
    let first_row = w.harness.get_by_label("Datasets").rect();
    let last_button = w.harness.get_by_label("Settings").rect();
    assert!(
        last_button.top() < first_row.bottom(),
        "the top bar wrapped: {first_row:?} {last_button:?}"
    );
    w.harness.get_by_label("Deposit again").click();
    w.wait("the DOI", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    let Some(DedupStatus::Deposited {
        identifier: doi, ..
    }) = w.app().status_of(id)
    else {
        unreachable!()
    };
    assert!(doi.starts_with("10.80000/"), "{doi}");
    let body = rt.block_on(support::get_doi_json(&other, &doi));
    assert_eq!(body["data"]["attributes"]["state"], "findable", "{body:#}");
    assert_eq!(
        body["data"]["attributes"]["url"],
        record.as_str(),
        "the DOI lands on the record the dataset got on 'lab': {body:#}"
    );

    w.open_details("soil-cores", |d| {
        d.jobs.iter().filter(|(j, _)| j.state.is_landed()).count() == 2
    });
    w.harness.step();
    assert_eq!(w.harness.query_all_by_label("Verify").count(), 2);
    assert_eq!(
        w.harness.query_all_by_label("Verify bytes").count(),
        1,
        "Verify bytes under the record on 'lab' only"
    );
}

/// A findable DOI minted from the window may not lead to a draft only its owner sees: with
/// `landing_from=` a target that makes drafts (InvenioRDM with `state=draft`), the deposit
/// is refused before anything is minted, the row naming the draft and what to do, as the
/// command line does.
#[test]
fn a_findable_doi_from_the_window_is_refused_a_draft_as_its_landing_page() {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let other = sandbox_beside(&rt, &lab);
    config_before_opening(
        &lab,
        &format!(
            "[targets.drafts]\nurl = \"{}?state=draft\"\n\n[targets.dois]\nurl = \"{}&state=publish&landing_from=drafts\"\n",
            other.invenio_target_url(),
            other.datacite_target_url()
        ),
        Some(&format!(
            "[secrets]\ndrafts = \"{}\"\ndois = \"{}\"\n",
            other.invenio_account().token,
            other.datacite_account().password
        )),
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("both targets in the picker", |app| {
        app.model.targets.len() == 3
    });
    pick(&mut w, "drafts");
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (record, page) = w.deposit_row(id);
    let page = page.expect("a draft has its owner's page");
    assert!(page.ends_with(&format!("/uploads/{record}")), "{page}");

    pick(&mut w, "dois");
    w.harness.get_by_label("Deposit").click();
    w.wait("refused", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Rejected { .. }))
    });
    let Some(DedupStatus::Rejected { cause }) = w.app().status_of(id) else {
        unreachable!()
    };
    for words in [
        &format!("is draft {record} ({page}), which only its owner sees"),
        "a findable DOI resolves for anyone and cannot be withdrawn",
        &format!("publish {record} at the repository and run `lodge verify`"),
        "or mint a draft DOI for now (state=draft)",
    ] {
        assert!(cause.contains(words), "{words:?} in {cause}");
    }
    assert_eq!(other.doi_count(), 0, "nothing minted");
    // No metadata is at fault: the row offers no Edit, only Deposit again.
    w.harness.step();
    assert!(w.harness.query_by_label("Edit").is_none());
    w.harness.get_by_label("Deposit again");
}

/// A refused deposit given up on with the details' Dismiss: the row no longer shows it
/// refused, and the History keeps it, marked dismissed, with no Retry (a refused deposit is
/// not re-queued as it is: depositing the dataset sends it again).
#[test]
fn dismiss_in_a_refused_deposits_details_gives_it_up_and_the_history_keeps_it() {
    let (_rt, other, mut w) = window_with_a_doi_target_landing_on_lab("");
    let id = refused_a_doi(&mut w);

    w.select(id);
    w.harness.get_by_label("Dismiss").click();
    w.wait("the refusal given up on", |app| {
        matches!(app.status_of(id), Some(DedupStatus::New { ready: true }))
    });
    assert_eq!(
        gui::notices_with(
            w.app(),
            "Dismissed 1 refused deposit: given up on. The History keeps it."
        )
        .len(),
        1
    );
    w.harness.step();
    assert!(
        w.harness.query_by_label("Dismiss").is_none(),
        "nothing left to give up on"
    );

    w.open_history();
    w.harness.get_by_label("dismissed").hover();
    w.wait_for_label_contains("then dismissed (given up on) ");
    w.harness
        .get_by_label_contains("the datasets list leaves it. A new deposit of the dataset");
    assert!(
        w.harness
            .query_by_label_contains("Retry all failed leave")
            .is_none(),
        "Retry all failed never took a refused deposit"
    );
    assert!(
        w.harness.query_by_label("Retry").is_none(),
        "a refused deposit is not re-queued from the History"
    );
    assert_eq!(other.doi_count(), 0, "nothing was sent");
}

/// A failed job whose dataset changed since (its metadata edited) and whose content as it is
/// now landed on that target since: the history's "changed since" names that deposit, not
/// "deposit it as it is now".
#[test]
fn a_failed_job_whose_dataset_changed_and_landed_since_names_that_deposit_in_the_history() {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let other = sandbox_beside(&rt, &lab);
    other.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    config_before_opening(
        &lab,
        &format!("[targets.lab]\nurl = \"{}\"\n", other.target_url()),
        None,
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    pick(&mut w, "lab");
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("failed", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Failed { .. }))
    });

    let before = w.app().model.row(id).unwrap().key;
    w.retitle(id, ", revised");
    assert_ne!(w.app().model.row(id).unwrap().key, before, "re-keyed");
    other.set_faults(FaultConfig::default());
    let (identifier, _) = w.deposit_row(id);

    w.open_history();
    w.harness.step();
    w.harness.get_by_label("changed since").hover();
    w.wait_for_label_contains(&format!(
        "as it is now, job 2 deposited it here since, as {identifier}."
    ));
}

/// A window on a config file written by hand (`config`, its text) with one target, once
/// Settings lists it.
fn window_on_one_target(config: &str) -> Window {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    config_before_opening(&lab, config, None);
    let mut w = Window::open_with(lab, cfg);
    w.wait("the configured target", |app| {
        app.model.configured.len() == 1
    });
    w
}

/// A target saved without its token (a config file written by hand, or copied from another
/// machine) is tested from Settings: the window says where the token is typed, in Settings,
/// not the `lodge target add … --secret-stdin` the command line would run.
#[test]
fn test_connection_of_a_target_with_no_token_says_to_type_it_in_settings() {
    let mut w = window_on_one_target("[targets.zen]\nurl = \"invenio+http://127.0.0.1:9\"\n");
    w.open_settings();
    w.harness.get_by_label("Test connection").click();
    w.wait("the test's answer", |app| {
        matches!(
            app.model.target_tests.get("zen"),
            Some(TargetTest::Error(_))
        )
    });
    let Some(TargetTest::Error(said)) = w.app().model.target_tests.get("zen").cloned() else {
        unreachable!()
    };
    assert!(
        said.contains("target 'zen' has no token stored: in Settings, Targets, press Edit"),
        "{said}"
    );
    assert!(!said.contains("lodge target add"), "{said}");
}

/// A hand-edited target whose bucket S3 refuses, saved with no secret: Settings names the
/// bucket, not the missing secret (which, typed in, would only meet the bucket's refusal).
#[test]
fn settings_name_a_hand_edited_bad_bucket_before_the_missing_secret() {
    let w = window_on_one_target(
        "[targets.lab]\nurl = \"s3://Bad_Bucket/x\"\nuser = \"AKIAEXAMPLE\"\n",
    );
    let problem = w.app().model.configured[0].problem.clone();
    let problem = problem.expect("the target is not in the picker");
    assert!(
        problem.contains("'Bad_Bucket' is not a bucket name"),
        "{problem}"
    );
}

/// A config file that cannot be read when the window opens is said as the file's problem:
/// Settings lists no make-believe target named "(config file)" with buttons that act on
/// nothing, and the notice names the file, not a target.
#[test]
fn a_config_file_unreadable_at_start_is_said_as_the_files_problem_not_listed_as_a_target() {
    let mut w = window_on_one_target("[targets.lab\nurl = \"sandbox+http://127.0.0.1:9\"\n");
    let unreadable = w.app().model.configured[0].clone();
    assert!(unreadable.unreadable_config);
    w.wait("the notice", |app| {
        !gui::notices_with(
            app,
            "Until it is fixed the window lists and uses no saved target",
        )
        .is_empty()
    });
    assert!(
        gui::notices_with(w.app(), "is not in the picker").is_empty(),
        "no target is named for the file"
    );
    w.open_settings();
    w.harness
        .get_by_label_contains("The saved targets are listed here once it is fixed");
    assert!(
        w.harness.query_by_label("Test connection").is_none()
            && w.harness.query_by_label("Edit").is_none()
            && w.harness.query_by_label("Remove").is_none(),
        "nothing to test, edit or remove"
    );
}

/// One entry of the config file that is not valid (a lab member's typo) takes no other
/// target away from the window: the others stay in the picker, Settings lists the entry
/// with its line and the fix, and its Remove takes it out of the file, the rest kept.
#[test]
fn an_entry_not_valid_is_listed_with_its_problem_and_the_others_stay_in_the_picker() {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    let good = "[targets.good]\nurl = \"sandbox+http://127.0.0.1:9\"\n";
    config_before_opening(
        &lab,
        &format!("{good}\n[targets.typo]\nurl = \"s3://labdata/x\"\nendpont = \"x\"\n"),
        None,
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("both listed", |app| app.model.configured.len() == 2);
    assert_eq!(w.app().model.targets.len(), 2, "the sandbox and 'good'");
    let typo = w.app().model.configured[1].clone();
    assert_eq!(typo.summary.name, "typo");
    assert!(!typo.unreadable_config);
    let problem = typo.problem.expect("said");
    assert!(
        problem.contains("is not valid: line 6: unknown field `endpont`"),
        "{problem}"
    );
    w.wait("the notice", |app| {
        !gui::notices_with(app, "Target 'typo' is not in the picker: target 'typo' in").is_empty()
    });
    let said = |w: &Window| {
        w.harness
            .query_all_by_label_contains("line 6: unknown field `endpont`")
            .count()
    };
    let in_the_notice = said(&w);
    w.open_settings();
    w.harness.run_steps(2);
    assert!(
        said(&w) > in_the_notice,
        "said beside the entry in Settings too"
    );
    let removes: Vec<_> = w.harness.query_all_by_label("Remove").collect();
    assert_eq!(removes.len(), 2, "each target has its Remove");
    removes[1].click_accesskit();
    w.harness.run_steps(2);
    w.harness.get_by_label("Remove typo").click_accesskit();
    w.wait("the entry gone", |app| app.model.configured.len() == 1);
    assert_eq!(config_text(&w), good);
    assert_eq!(w.app().model.targets.len(), 2, "'good' stays in the picker");
}

/// A config file saved halfway through an edit (a typo, a bracket missing) takes no target
/// away from the open window: it keeps the ones it has and says why, once; fixed, the file
/// is read again.
#[test]
fn a_config_file_that_cannot_be_read_keeps_the_windows_targets_until_it_is_fixed() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let second = second_sandbox(&w);
    let config = w.lab.path("app/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let lab = format!("[targets.lab]\nurl = \"{}\"\n", second.target_url());
    std::fs::write(&config, &lab).unwrap();
    w.wait("the picker to have 'lab'", |app| {
        app.model.targets.len() == 2
    });

    std::fs::write(&config, format!("[targets.lab\n{}", &lab[13..])).unwrap();
    w.wait("the window to say the file cannot be read", |app| {
        !gui::notices_with(app, "The window keeps the targets it has").is_empty()
    });
    let said = gui::notices_with(w.app(), "Changed outside this window, the config file");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].1.contains("is not valid: line 1"), "{said:?}");
    // Looked at again (every 2 s), the same broken file is not said twice.
    w.step_for(std::time::Duration::from_millis(2_500));
    assert_eq!(
        w.app().model.targets.len(),
        2,
        "'lab' is still in the picker"
    );
    assert!(
        w.app()
            .model
            .configured
            .iter()
            .any(|t| t.summary.name == "lab")
    );
    assert_eq!(
        gui::notices_with(w.app(), "The window keeps the targets it has").len(),
        1
    );

    // Fixed (and renamed), the file is read again.
    std::fs::write(&config, lab.replace("targets.lab", "targets.field")).unwrap();
    w.wait("the renamed target", |app| {
        app.model
            .configured
            .iter()
            .any(|t| t.summary.name == "field")
    });
    let said = gui::notices_with(w.app(), "(added 'field'; removed 'lab')");
    assert_eq!(said.len(), 1, "{said:?}");
}

/// A target added to the config file from outside the window (`lodge target add` in a
/// terminal) reaches the picker and Settings without a restart, with a notice naming it;
/// but not while the window sends a deposit, which opening the targets again would cut
/// short: that deposit lands on its first attempt, and the new target comes after.
#[test]
fn a_target_added_in_a_terminal_reaches_the_picker_once_nothing_is_being_sent() {
    no_keyring();
    let mut w = Window::open(FaultConfig {
        latency_ms: 3_000,
        ..FaultConfig::default()
    });
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit to be sent", |app| {
        app.model.work_in_hand().sending == 1
    });
    let second = second_sandbox(&w);
    let config = w.lab.path("app/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!("[targets.lab]\nurl = \"{}\"\n", second.target_url()),
    )
    .unwrap();

    // The file is looked at every 2 s: in 2.5 s it was seen, and left for later.
    w.step_for(std::time::Duration::from_millis(2_500));
    assert!(
        w.app().model.configured.is_empty(),
        "the targets are not opened again while a deposit is sent"
    );
    assert_eq!(w.app().model.targets.len(), 1, "the local sandbox alone");

    w.wait("the deposit to land", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    w.wait("the new target", |app| {
        app.model.configured.iter().any(|t| t.summary.name == "lab")
    });
    w.wait("the picker to have it", |app| app.model.targets.len() == 2);
    let said = gui::notices_with(w.app(), "changed outside this window (added 'lab')");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0]
            .1
            .contains("the target picker and Settings follow it now"),
        "{said:?}"
    );
    let cut_short: Vec<_> = w
        .app()
        .model
        .log
        .iter()
        .filter(|l| l.text.contains("stopped before the attempt finished"))
        .collect();
    assert!(cut_short.is_empty(), "{cut_short:?}");
}

/// A change to the config file outside the window is told against the targets as the
/// window last opened them, its own saves included: a target it added in Settings is not
/// said to be added from outside, and a target whose settings changed is named.
#[test]
fn a_change_outside_the_window_names_what_changed_not_what_the_window_saved() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let second = second_sandbox(&w);
    add_target(&mut w, "lab", &second.target_url(), None);
    w.wait("the target saved", |app| {
        app.model.configured.iter().any(|t| t.summary.name == "lab")
    });
    let config = w.lab.path("app/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.trim_end()
            .ends_with(&format!("\"{}\"", second.target_url())),
        "{text}"
    );
    text.push_str("files_at_once = 2\n");
    std::fs::write(&config, text).unwrap();
    w.wait("the change to be read", |app| {
        app.model
            .configured
            .iter()
            .any(|t| t.summary.name == "lab" && t.config.files_at_once == Some(2))
    });
    let said = gui::notices_with(w.app(), "changed outside this window");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].1.contains("(changed 'lab')"), "{said:?}");
}

/// A sandbox beside the window's own (with its DataCite and InvenioRDM emulations), on
/// `rt`, its data in the lab: for a test whose config names it before the window opens.
fn sandbox_beside(rt: &tokio::runtime::Runtime, lab: &support::Lab) -> RunningSandbox {
    rt.block_on(RunningSandbox::start(SandboxConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        data_dir: lab.path("second-sandbox"),
        token: None,
        faults: FaultConfig::default(),
    }))
    .expect("second sandbox")
}

/// A target that leaves drafts (here InvenioRDM with `state=draft`) says so beside what it
/// deposited, in the row and in the details' deposit; a target that publishes does not.
/// A draft is not public, so its deposit offers no citation to copy, as the published one
/// does.
#[test]
fn a_deposit_to_a_drafting_target_says_it_is_a_draft_beside_its_status() {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let other = sandbox_beside(&rt, &lab);
    config_before_opening(
        &lab,
        &format!(
            "[targets.review]\nurl = \"{}?state=draft\"\n",
            other.invenio_target_url()
        ),
        Some(&format!(
            "[secrets]\nreview = \"{}\"\n",
            other.invenio_account().token
        )),
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("the drafting target in the picker", |app| {
        app.model.targets.len() == 2
    });
    let folder = citable_folder(&w.lab, "plankton", "Plankton counts");
    let id = w.add_folder(&folder);

    // The local sandbox publishes what it takes: no draft to speak of.
    w.deposit_row(id);
    assert!(w.harness.query_by_label("(as draft)").is_none());

    let review = w
        .app()
        .model
        .targets
        .iter()
        .position(|t| t.label.starts_with("review — "))
        .unwrap();
    w.harness.state_mut().target = review;
    w.harness.step();
    let (draft, _) = w.deposit_row(id);
    assert_eq!(other.invenio_counts(), (0, 1), "a draft, nothing published");
    w.select(id);
    assert_eq!(
        w.harness.query_all_by_label("(as draft)").count(),
        2,
        "the row and the details' deposit say {draft} is a draft"
    );
    assert_eq!(
        w.harness.query_all_by_label("Copy identifier").count(),
        2,
        "both deposits are listed"
    );
    assert_eq!(
        w.harness.query_all_by_label("Copy citation").count(),
        1,
        "the published deposit alone is cited"
    );
}

/// The target form's "A folder per dataset" puts `?layout=folders` on an S3 or WebDAV URL
/// and takes it off again, so nobody needs to know the query; it is greyed out until the
/// URL is of such a kind. The saved target keeps its files in folders: its identity and
/// its label in the picker say so.
#[test]
fn a_folder_per_dataset_sets_the_layout_on_the_url_and_the_saved_target() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.harness.get_by_label("Add target").click();
    w.harness.step();
    w.harness.step();
    let folders = "A folder per dataset, files by name (S3, WebDAV)";
    assert!(
        w.harness
            .get_by_label(folders)
            .accesskit_node()
            .is_disabled(),
        "greyed out with no URL"
    );
    w.type_into("Target name", "lab-s3");
    w.type_into("Target URL", "s3://lab-data/deposits");
    assert!(
        !w.harness
            .get_by_label(folders)
            .accesskit_node()
            .is_disabled()
    );
    let url = |w: &Window| {
        w.harness
            .get_by_label("Target URL")
            .value()
            .unwrap_or_default()
    };
    w.harness.get_by_label(folders).click();
    w.harness.step();
    w.harness.step();
    assert_eq!(url(&w), "s3://lab-data/deposits?layout=folders");
    w.harness.get_by_label(folders).click();
    w.harness.step();
    w.harness.step();
    assert_eq!(
        url(&w),
        "s3://lab-data/deposits",
        "unticked, the query goes"
    );
    w.harness.get_by_label(folders).click();
    w.harness.step();
    w.type_into("S3 endpoint", "http://127.0.0.1:9");
    w.type_into("User or access key id", "AKIDLAB");
    w.type_into("Password, secret key or token", "lab-secret");
    press_save_target(&mut w);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    assert!(
        config_text(&w).contains("url = \"s3://lab-data/deposits?layout=folders\""),
        "{}",
        config_text(&w)
    );
    let saved = w.app().model.targets[1].clone();
    assert_eq!(
        saved.scope_id,
        "s3:http://127.0.0.1:9/lab-data/deposits?layout=folders"
    );
    assert!(saved.label.contains("?layout=folders"), "{}", saved.label);
}

/// A token corrected by hand in the secrets file (not in Settings, not by `lodge target
/// add`) reaches an open window within seconds: the target paused because the server
/// refused the old one is tried again, and what waited there lands, once.
#[test]
fn a_secret_corrected_by_hand_in_the_secrets_file_lifts_the_pause_and_what_waited_lands() {
    no_keyring();
    let lab = support::Lab::new();
    let mut cfg = gui::config(&lab, FaultConfig::default());
    // The engine looks at the queue on its own only once an hour: the lifted pause must
    // wake it.
    cfg.engine.poll = std::time::Duration::from_secs(3600);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let other = sandbox_beside(&rt, &lab);
    config_before_opening(
        &lab,
        &format!("[targets.zen]\nurl = \"{}\"\n", other.invenio_target_url()),
        Some("[secrets]\nzen = \"an-old-token\"\n"),
    );
    let mut w = Window::open_with(lab, cfg);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    deposit_to_the_second_target_until_paused(&mut w, "plankton", "Plankton counts");

    std::fs::write(
        w.lab.path("app/secrets.toml"),
        format!("[secrets]\nzen = \"{}\"\n", other.invenio_account().token),
    )
    .unwrap();
    w.wait("deposited with the corrected token", |app| {
        matches!(
            app.status_of(app.table.order[0]),
            Some(DedupStatus::Deposited { .. })
        )
    });
    assert_eq!(other.invenio_counts(), (1, 0), "one record, published");
    let notices: Vec<String> = (w.harness.state().notices.current())
        .map(|n| n.text.clone())
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("changed outside this window")
                && n.contains("The target paused for its credentials is tried again.")),
        "{notices:?}"
    );
}

/// A deposit to a WebDAV target that keeps a folder per dataset offers *Copy folder* in its
/// details: the address of the folder its files went to, which holds them under their own
/// names.
#[test]
fn a_deposit_to_a_folder_per_dataset_target_copies_the_folder_its_files_are_in() {
    no_keyring();
    let lab = support::Lab::new();
    let (dav, root) = servers::webdav();
    let share = servers::unique("window-dav");
    std::fs::create_dir_all(root.join(&share)).unwrap();
    config_before_opening(
        &lab,
        &format!(
            "[targets.share]\nurl = \"webdav+{dav}/{share}/?layout=folders\"\nuser = \"{}\"\n",
            servers::DAV_USER
        ),
        Some(&format!(
            "[secrets]\nshare = \"{}\"\n",
            servers::DAV_PASSWORD
        )),
    );
    let cfg = gui::config(&lab, FaultConfig::default());
    let mut w = Window::open_with(lab, cfg);
    w.wait("the target in the picker", |app| {
        app.model.targets.len() == 2
    });
    w.harness.state_mut().target = 1;
    w.harness.step();
    let folder = citable_folder(&w.lab, "plankton", "Plankton counts");
    let id = w.add_folder(&folder);
    w.deposit_row(id);
    w.open_details("plankton", |d| {
        d.jobs.iter().any(|(j, _)| j.identifier.is_some())
    });
    w.harness.step();
    let key = w.app().model.row(id).unwrap().key.unwrap();
    let expected = format!(
        "{dav}/{share}/datasets/Plankton-counts-{}/",
        &key.to_hex()[..12]
    );

    assert_eq!(w.copied_by("Copy folder"), Some(expected));
    let on_disk = root
        .join(&share)
        .join(format!("datasets/Plankton-counts-{}", &key.to_hex()[..12]));
    assert!(
        on_disk.join("CITATION.cff").is_file(),
        "the folder holds the dataset's files: {}",
        on_disk.display()
    );
}

/// A setting the form has no field for (here `files_at_once`, written in the config file or
/// given to `lodge target add`) is listed under the target in Settings and kept when the
/// target is edited there.
#[test]
fn editing_a_target_in_settings_keeps_its_files_at_once() {
    no_keyring();
    let lab = support::Lab::new();
    let cfg = gui::config(&lab, FaultConfig::default());
    config_before_opening(
        &lab,
        "[targets.slow-dav]\nurl = \"webdav+http://127.0.0.1:9/dav\"\nfiles_at_once = 1\n",
        None,
    );
    let mut w = Window::open_with(lab, cfg);
    w.open_settings();
    assert!(
        w.harness
            .query_by_label("Settings: 1 file at once")
            .is_some(),
        "Settings lists it"
    );
    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    press_save_target(&mut w);
    w.wait("the edit saved", |app| app.model.target_saved.is_some());
    let config = config_text(&w);
    assert!(
        config.contains("slow-dav") && config.contains("files_at_once = 1"),
        "{config}"
    );
}

/// *Files at once* in the target form: a value that is not a number from 1 to 32 is
/// refused beside the field and nothing is saved; a good one is written to the config
/// file, listed under the target, and shown in the form when the target is edited.
#[test]
fn files_at_once_typed_in_the_target_form_is_checked_beside_the_field_and_saved() {
    no_keyring();
    let mut w = Window::open(FaultConfig::default());
    let other = second_sandbox(&w);
    let fill = |w: &mut Window, files_at_once: &str| {
        if w.harness.query_by_label("Add target").is_none() {
            w.open_settings();
        }
        w.harness.get_by_label("Add target").click();
        w.harness.step();
        w.harness.step();
        w.type_into("Target name", "slow");
        w.type_into("Target URL", &other.target_url());
        w.type_into("Files at once", files_at_once);
        press_save_target(w);
    };
    for (typed, said) in [
        (
            "33",
            "Files at once is 33: give 1 (one file after another) to 32",
        ),
        ("four", "'four' is not a number: give 1"),
    ] {
        fill(&mut w, typed);
        w.wait("the refusal", |app| !app.model.target_problems.is_empty());
        let (field, message) = only_problem(&w);
        assert_eq!(field, TargetField::FilesAtOnce, "{message}");
        assert!(message.contains(said), "{message}");
        let typed_in = w.harness.get_by_label("Files at once").rect();
        let shown = w.harness.get_by_label_contains(said).rect();
        assert!(
            shown.top() >= typed_in.bottom() - 1.0 && shown.top() - typed_in.bottom() < 40.0,
            "the message sits right under the field ({typed_in:?} vs {shown:?})"
        );
        assert!(!w.lab.path("app/config.toml").exists(), "nothing saved");
        press_in_form(&mut w, "Cancel");
    }

    fill(&mut w, "2");
    w.wait("the target saved", |app| app.model.target_saved.is_some());
    let config = config_text(&w);
    assert!(config.contains("files_at_once = 2"), "{config}");
    w.harness.step();
    assert!(
        w.harness
            .query_by_label("Settings: 2 files at once")
            .is_some(),
        "listed under the target"
    );
    w.harness.get_by_label("Edit").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(
        w.harness.get_by_label("Files at once").value().as_deref(),
        Some("2"),
        "the form shows it"
    );
}

/// In the smallest window, Remove of the last of several targets brings its question and
/// buttons into view: below the fold, Remove would seem to do nothing.
#[test]
fn removing_a_target_below_the_fold_brings_the_question_into_view() {
    no_keyring();
    let lab = support::Lab::new();
    let config: String = (1..=6)
        .map(|n| {
            format!(
                "[targets.lab{n}]\nurl = \"sandbox+http://127.0.0.1:{}\"\n",
                9 + n
            )
        })
        .collect();
    config_before_opening(&lab, &config, None);
    let cfg = gui::config(&lab, FaultConfig::default());
    let mut w = Window::open_with(lab, cfg);
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.wait("the targets", |app| app.model.configured.len() == 6);
    w.open_settings();
    w.harness.run_steps(2);
    // Scrolled to, as a person would, and pressed: the question comes below it.
    let removes: Vec<_> = w.harness.query_all_by_label("Remove").collect();
    removes.last().expect("a target's Remove").scroll_to_me();
    w.harness.run_steps(2);
    let removes: Vec<_> = w.harness.query_all_by_label("Remove").collect();
    removes.last().expect("a target's Remove").click_accesskit();
    w.harness.run_steps(4);
    let settings = (w.harness.ctx)
        .memory(|m| m.area_rect(lodge::ui::settings_window::window_id()))
        .expect("Settings is open");
    let confirm = w.harness.get_by_label("Remove lab6").rect();
    assert!(
        settings.contains_rect(confirm),
        "Remove lab6 {confirm:?} is in Settings {settings:?}"
    );
}
