//! Real test servers on loopback, started from the project's `.venv` (made by
//! `scripts/install/target-servers.sh`): moto (S3) and wsgidav (WebDAV). A missing server
//! fails the test loudly; it is never skipped. Each server is watched by a shell that stops it
//! when the test process exits.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The WebDAV test user and password.
pub const DAV_USER: &str = "lodge";
pub const DAV_PASSWORD: &str = "dav-test-password";

fn venv_bin(name: &str) -> PathBuf {
    let venv = std::env::var_os("LODGE_TEST_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv"));
    let bin = venv.join("bin").join(name);
    assert!(
        bin.exists(),
        "{} is missing: run scripts/install/target-servers.sh (scripts/test does) — the \
         conformance suite needs real servers and never skips",
        bin.display()
    );
    bin
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start `program args` under a watchdog that kills it when this process ends.
fn spawn_watched(program: &Path, args: &[String], envs: &[(&str, &str)], log: &Path) {
    let mut quoted = format!("'{}'", program.display());
    for a in args {
        quoted.push_str(&format!(" '{a}'"));
    }
    let script = format!(
        "{quoted} >'{}' 2>&1 & S=$!; while kill -0 {} 2>/dev/null && kill -0 $S 2>/dev/null; \
         do sleep 0.5; done; kill $S 2>/dev/null",
        log.display(),
        std::process::id()
    );
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut watchdog = cmd.spawn().expect("start a test server");
    // Reap the watchdog when it ends (with this process, or when the server dies).
    std::thread::spawn(move || watchdog.wait());
}

fn wait_ready(port: u16, what: &str, log: &Path) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "{what} did not start on 127.0.0.1:{port} within 30 s; its log:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// A moto S3 server: `auth` makes it check access keys (it knows none, so every key is
/// wrong).
pub fn start_moto(auth: bool) -> String {
    start_moto_with(if auth {
        &[("INITIAL_NO_AUTH_ACTION_COUNT", "0")]
    } else {
        &[]
    })
}

/// A moto of its own that checks every request's signature, as AWS does, with one user
/// allowed everything: its URL and that user's access key and secret. (Its first three
/// requests go unchecked: they make the user, its key and its policy.)
pub async fn start_moto_checking_signatures() -> (String, lodge::targets::secret::UserSecret) {
    let endpoint = start_moto_with(&[("INITIAL_NO_AUTH_ACTION_COUNT", "3")]);
    let client = reqwest::Client::new();
    let iam = |form: String| {
        client
            .post(format!("{endpoint}/"))
            // Names the service (IAM) to moto, which serves them all on one port.
            .header(
                "authorization",
                "AWS4-HMAC-SHA256 Credential=AKIAUNCHECKED/20260101/us-east-1/iam/aws4_request, \
                 SignedHeaders=host, Signature=0",
            )
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("{form}&Version=2010-05-08"))
            .send()
    };
    let text = |r: reqwest::Response| async move {
        assert!(r.status().is_success(), "IAM: HTTP {}", r.status());
        r.text().await.unwrap()
    };
    text(iam("Action=CreateUser&UserName=lab".into()).await.unwrap()).await;
    let keys = text(
        iam("Action=CreateAccessKey&UserName=lab".into())
            .await
            .unwrap(),
    )
    .await;
    let field = |name: &str| {
        keys.split(&format!("<{name}>"))
            .nth(1)
            .and_then(|rest| rest.split('<').next())
            .unwrap_or_else(|| panic!("no {name} in {keys}"))
            .to_string()
    };
    let policy =
        r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#;
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("Action", "PutUserPolicy")
        .append_pair("UserName", "lab")
        .append_pair("PolicyName", "everything")
        .append_pair("PolicyDocument", policy)
        .finish();
    text(iam(form).await.unwrap()).await;
    let user = lodge::targets::secret::UserSecret {
        user: field("AccessKeyId"),
        secret: lodge::targets::secret::Secret::new(field("SecretAccessKey")),
    };
    (endpoint, user)
}

fn start_moto_with(envs: &[(&str, &str)]) -> String {
    let port = free_port();
    let log = super::scratch::process_scratch().join(format!("moto-{port}.log"));
    spawn_watched(
        &venv_bin("moto_server"),
        &[
            "-H".into(),
            "127.0.0.1".into(),
            "-p".into(),
            port.to_string(),
        ],
        envs,
        &log,
    );
    wait_ready(port, "moto_server", &log);
    format!("http://127.0.0.1:{port}")
}

/// The moto server shared by this test binary (no auth).
pub fn moto() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| std::env::var("LODGE_TEST_MOTO_URL").unwrap_or_else(|_| start_moto(false)))
}

/// The wsgidav server shared by this test binary: URL and the folder it serves (and, at
/// `/read-only/lodge`, a folder its user may read and not write).
pub fn webdav() -> &'static (String, PathBuf) {
    static DAV: OnceLock<(String, PathBuf)> = OnceLock::new();
    DAV.get_or_init(|| {
        let port = free_port();
        let root = super::scratch::process_scratch().join(format!("dav-{port}"));
        std::fs::create_dir_all(&root).unwrap();
        // A share the user may read and not write, at /read-only.
        let read_only = super::scratch::process_scratch().join(format!("dav-ro-{port}"));
        std::fs::create_dir_all(read_only.join("lodge")).unwrap();
        let config = super::scratch::process_scratch().join(format!("wsgidav-{port}.yaml"));
        std::fs::write(
            &config,
            format!(
                "host: 127.0.0.1\nport: {port}\nserver: cheroot\nverbose: 1\n\
                 provider_mapping:\n  '/': '{}'\n  '/read-only':\n    root: '{}'\n    \
                 readonly: true\n\
                 http_authenticator:\n  domain_controller: null\n  accept_basic: true\n  \
                 accept_digest: false\n  default_to_digest: false\n\
                 simple_dc:\n  user_mapping:\n    '*':\n      '{DAV_USER}':\n        \
                 password: '{DAV_PASSWORD}'\n",
                root.display(),
                read_only.display()
            ),
        )
        .unwrap();
        let log = super::scratch::process_scratch().join(format!("wsgidav-{port}.log"));
        spawn_watched(
            &venv_bin("wsgidav"),
            &["--config".into(), config.display().to_string()],
            &[],
            &log,
        );
        wait_ready(port, "wsgidav", &log);
        (format!("http://127.0.0.1:{port}"), root)
    })
}

/// A unique lowercase name for a bucket or folder.
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A fresh folder in the shared WebDAV server's tree; its name, for the target URL.
pub fn dav_folder(root: &Path) -> String {
    let name = unique("cli");
    std::fs::create_dir_all(root.join(&name)).unwrap();
    name
}
