//! Helpers for the window tests: a real app service (store in a temp folder, in-process
//! sandbox on loopback, fast retries) behind a kittest harness at 1280x800, and waiting for
//! background work by stepping frames.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use lodge::app::{
    AppPaths, AppService, DedupStatus, Details, LogLevel, Opener, ServiceConfig, StatusKind,
};
use lodge::sandbox::FaultConfig;
use lodge::ui::LodgeApp;

use crate::support::{Lab, fast_config};

pub const WINDOW: [f32; 2] = [1280.0, 800.0];

/// A dropped file or folder, as the platform would deliver it.
#[derive(Debug)]
pub struct Dropped(pub PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

/// A runtime, a lab folder and the window.
pub struct Window {
    pub lab: Lab,
    pub harness: Harness<'static, LodgeApp>,
    // Dropped last: the harness (and the service in it) goes first.
    pub runtime: tokio::runtime::Runtime,
}

pub fn config(lab: &Lab, faults: FaultConfig) -> ServiceConfig {
    // No browser or file manager opens in a test: what the window hands the desktop is
    // written down instead, one line each, for `Window::opened`.
    let opened = lab.path("opened.txt");
    ServiceConfig {
        paths: AppPaths::in_dir(&lab.path("app")),
        engine: fast_config(),
        sandbox_faults: faults,
        start_paused: false,
        sandbox_token: None,
        opener: Opener::new(move |what| {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&opened)?;
            writeln!(file, "{}", what.to_string_lossy())
        }),
    }
}

impl Window {
    /// Open the window on a fresh lab and wait until the store is loaded.
    pub fn open(faults: FaultConfig) -> Window {
        let lab = Lab::new();
        let cfg = config(&lab, faults);
        Window::open_with(lab, cfg)
    }

    pub fn open_with(lab: Lab, config: ServiceConfig) -> Window {
        Window::open_prepared(lab, config, |_| {})
    }

    /// Open the window, `prepare` given the app before its first frame (as `main` gives
    /// it what eframe's storage remembers).
    fn open_prepared(
        lab: Lab,
        config: ServiceConfig,
        prepare: impl FnOnce(&mut LodgeApp),
    ) -> Window {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let service = AppService::start(runtime.handle(), config, Arc::new(|| {}));
        let mut app = LodgeApp::new(service);
        prepare(&mut app);
        let harness = Harness::builder().with_size(WINDOW).build_ui_state(
            // As eframe runs it: `App::logic`, then `App::ui`.
            |ui, app: &mut LodgeApp| {
                app.before_frame(ui.ctx());
                app.show(ui)
            },
            app,
        );
        let mut w = Window {
            lab,
            harness,
            runtime,
        };
        w.wait("the store to open", |app| app.model.ready);
        w
    }

    /// Open the window on a lab whose database cannot be opened: it waits for the start to
    /// fail (its message in `app.model.start_error`).
    pub fn open_not_started(lab: Lab, config: ServiceConfig) -> Window {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let service = AppService::start(runtime.handle(), config, Arc::new(|| {}));
        let harness = Harness::builder().with_size(WINDOW).build_ui_state(
            |ui, app: &mut LodgeApp| app.show(ui),
            LodgeApp::new(service),
        );
        let mut w = Window {
            lab,
            harness,
            runtime,
        };
        w.wait("the start to fail", |app| app.model.start_error.is_some());
        w
    }

    /// Close the window (its service and sandbox stop) and open it again on the same lab,
    /// as a person does from one day to the next.
    pub fn reopen(self) -> Window {
        self.reopen_prepared(|_| {})
    }

    /// [`Window::reopen`], `prepare` given the new app before its first frame.
    pub fn reopen_prepared(self, prepare: impl FnOnce(&mut LodgeApp)) -> Window {
        let Window {
            lab,
            harness,
            runtime,
        } = self;
        drop(harness);
        drop(runtime);
        let cfg = config(&lab, FaultConfig::default());
        Window::open_prepared(lab, cfg, prepare)
    }

    pub fn app(&self) -> &LodgeApp {
        self.harness.state()
    }

    /// Step frames until `done` holds (10 s at most), then one more frame.
    /// What the window handed the desktop to open (folders, record links), in order.
    pub fn opened(&self) -> Vec<String> {
        std::fs::read_to_string(self.lab.path("opened.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Step frames until the window has handed the desktop `n` things to open.
    pub fn wait_opened(&mut self, n: usize) -> Vec<String> {
        let start = Instant::now();
        while self.opened().len() < n {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {n} opened; so far {:?}",
                self.opened()
            );
            self.harness.step();
            std::thread::sleep(Duration::from_millis(10));
        }
        self.opened()
    }

    /// Step frames for `how_long` of real time (what the window does on its own clock, such
    /// as its look at the config file every 2 s, happens meanwhile).
    pub fn step_for(&mut self, how_long: std::time::Duration) {
        let until = std::time::Instant::now() + how_long;
        while std::time::Instant::now() < until {
            self.harness.step();
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    pub fn wait(&mut self, what: &str, done: impl Fn(&LodgeApp) -> bool) {
        let start = Instant::now();
        loop {
            self.harness.step();
            if done(self.harness.state()) {
                self.harness.step();
                return;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let log: Vec<String> = self
                    .app()
                    .model
                    .log
                    .iter()
                    .map(|l| format!("{} {}", l.kind, l.text))
                    .collect();
                panic!("timed out waiting for {what}; log:\n{}", log.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A window whose sandbox answers every write with 503, holding one dataset
    /// (`soil-cores`) whose deposit has failed after its retries; returns its dataset id.
    pub fn with_a_failed_deposit() -> (Window, i64) {
        Window::with_a_failed_deposit_configured(|_| {})
    }

    /// [`Window::with_a_failed_deposit`], with `adjust` given the service's configuration
    /// first.
    pub fn with_a_failed_deposit_configured(
        adjust: impl FnOnce(&mut ServiceConfig),
    ) -> (Window, i64) {
        let always_503 = FaultConfig {
            fail_before_commit: 1.0,
            ..FaultConfig::default()
        };
        let lab = Lab::new();
        let mut cfg = config(&lab, always_503);
        adjust(&mut cfg);
        let mut w = Window::open_with(lab, cfg);
        let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
        w.harness.get_by_label("Deposit").click();
        w.wait("Failed", |app| {
            app.status_of(id).map(|s| s.kind()) == Some(StatusKind::Failed)
        });
        (w, id)
    }

    /// Drop these paths on the window.
    pub fn drop_paths(&mut self, paths: &[&Path]) {
        for p in paths {
            self.harness
                .input_mut()
                .dropped_files
                .push(Arc::new(Dropped(p.to_path_buf())));
        }
        self.harness.step();
    }

    /// Click into the text field labelled `label` and type `text` at its end.
    pub fn type_into(&mut self, label: &str, text: &str) {
        self.harness.get_by_label(label).focus();
        self.harness.step();
        self.harness.get_by_label(label).type_text(text);
        self.harness.step();
    }

    /// Replace what the text field labelled `label` holds with `text` (select all, then
    /// type), and let the window take it in.
    pub fn replace_text(&mut self, label: &str, text: &str) {
        self.harness.get_by_label(label).focus();
        self.harness
            .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        self.harness.get_by_label(label).type_text(text);
        self.harness.step();
        self.harness.step();
    }

    /// Replace what the `nth` (from 0) of the text fields labelled `label` holds with `text`,
    /// as [`Window::replace_text`] does: for a label several rows share (each affiliation's
    /// "ROR") or that a table's column has too (a creator's "Name").
    pub fn replace_nth_text(&mut self, label: &str, nth: usize, text: &str) {
        let text_box = |n: &egui_kittest::Node<'_>| {
            n.accesskit_node().role() == egui::accesskit::Role::TextInput
        };
        (self
            .harness
            .get_all_by_label(label)
            .filter(text_box)
            .nth(nth))
        .unwrap_or_else(|| panic!("no text field '{label}' number {nth}"))
        .focus();
        self.harness.step();
        self.harness
            .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        (self
            .harness
            .get_all_by_label(label)
            .filter(text_box)
            .nth(nth))
        .unwrap()
        .type_text(text);
        self.harness.step();
        self.harness.step();
    }

    /// Whether the details' Deposit button is disabled (what the form holds cannot be sent).
    pub fn deposit_blocked(&self) -> bool {
        (self.harness.get_by_label("Deposit to Local sandbox"))
            .accesskit_node()
            .is_disabled()
    }

    /// Scroll the widget labelled `label` into view (below a panel's fold, say) and let the
    /// animated scroll end, so a click lands where it is drawn.
    pub fn scroll_to(&mut self, label: &str) {
        self.harness.get_by_label(label).scroll_to_me();
        for _ in 0..20 {
            self.harness.step();
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// Open Settings and let it draw.
    pub fn open_settings(&mut self) {
        self.harness.get_by_label("Settings").click();
        self.harness.step();
        self.harness.step();
    }

    /// What a press of `button` puts on the clipboard (in the frame that sees it), pressed
    /// through accessibility: a deposit's buttons are listed under the details' metadata
    /// form, below the panel's fold, where a pointer cannot reach without scrolling.
    pub fn copied_by(&mut self, button: &str) -> Option<String> {
        self.harness.get_by_label(button).click_accesskit();
        (0..3).find_map(|_| {
            self.harness.step();
            self.harness
                .output()
                .platform_output
                .commands
                .iter()
                .find_map(|c| match c {
                    egui::OutputCommand::CopyText(text) => Some(text.clone()),
                    _ => None,
                })
        })
    }

    /// Press `key` and let the window draw what it did (two frames: a key queued for the
    /// next one, then what it changed).
    pub fn press(&mut self, key: egui::Key) {
        self.harness.key_press(key);
        self.harness.step();
        self.harness.step();
    }

    /// Paste `text` (Ctrl+V) onto the window, or into the text field being typed in.
    pub fn paste(&mut self, text: &str) {
        self.harness
            .input_mut()
            .events
            .push(egui::Event::Paste(text.to_string()));
        self.harness.step();
    }

    /// Drop one folder and wait until its row has a key; returns the row's dataset id.
    pub fn add_folder(&mut self, folder: &Path) -> i64 {
        let name = folder
            .file_name()
            .expect("a folder name")
            .to_string_lossy()
            .into_owned();
        self.drop_paths(&[folder]);
        self.wait(&format!("{name} hashed"), |app| {
            app.model
                .rows()
                .iter()
                .any(|r| r.name == name && r.key.is_some() && r.id > 0)
        });
        self.row_id(&name)
    }

    /// Select row `id` (its details open) and let the window draw it: a few frames, for
    /// the panel to take its place and size.
    pub fn select(&mut self, id: i64) {
        self.harness.state_mut().select(Some(id));
        for _ in 0..3 {
            self.harness.step();
        }
    }

    /// Select row `id` and press Delete, and wait for the remove confirmation to show (it
    /// opens once the dataset's deposits are read).
    pub fn ask_to_remove(&mut self, id: i64) {
        let name = self.app().model.row(id).expect("listed").name.clone();
        self.select(id);
        self.harness.key_press(egui::Key::Delete);
        self.wait_for_label(&format!("Remove {name}?"));
    }

    /// Append `suffix` to dataset `id`'s title in its details, not saved: the details then
    /// hold an edit (`""` empties the title instead).
    pub fn edit_title(&mut self, id: i64, suffix: &str) {
        self.select(id);
        self.harness.get_by_label("Title").focus();
        if suffix.is_empty() {
            self.harness
                .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
            self.harness.key_press(egui::Key::Backspace);
        } else {
            self.harness.get_by_label("Title").type_text(suffix);
        }
        // Two frames: the second draws the "Edits not saved" mark above the form, and a
        // click must name the button as that frame laid it out.
        self.harness.step();
        self.harness.step();
    }

    /// Append `suffix` to dataset `id`'s title in its details, Save metadata, and wait
    /// until the store has it (a new key).
    pub fn retitle(&mut self, id: i64, suffix: &str) {
        self.edit_title(id, suffix);
        self.harness.get_by_label("Save metadata").click_accesskit();
        self.wait("the new title stored", |app| {
            app.model
                .row(id)
                .is_some_and(|r| r.metadata.title.ends_with(suffix))
        });
    }

    /// The id of dataset `id`'s first job the window knows of.
    pub fn first_job(&self, id: i64) -> i64 {
        let row = self.app().model.row(id).expect("the row");
        row.jobs.values().next().expect("a job").id
    }

    /// Select the row named `name` and wait until its details are loaded and `ready`
    /// holds of them; returns the row's dataset id.
    pub fn open_details(&mut self, name: &str, ready: impl Fn(&Details) -> bool) -> i64 {
        let id = self.row_id(name);
        self.harness.state_mut().select(Some(id));
        self.harness.step();
        self.wait(&format!("{name}'s details"), |app| {
            app.model
                .details
                .as_ref()
                .is_some_and(|d| d.dataset == id && ready(d))
        });
        id
    }

    /// Press the only row's Deposit button and wait until row `id` is deposited; returns
    /// its record's identifier and link.
    pub fn deposit_row(&mut self, id: i64) -> (String, Option<String>) {
        self.harness.get_by_label("Deposit").click();
        self.wait("Deposited", |app| {
            matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
        });
        match self.app().status_of(id) {
            Some(DedupStatus::Deposited {
                identifier, url, ..
            }) => (identifier, url),
            other => unreachable!("{other:?}"),
        }
    }

    /// Where the details panel's close button is: the first ✖ (each creator has one too),
    /// at the panel's top left.
    pub fn details_close(&self) -> egui::Rect {
        self.harness
            .query_all_by_label("✖")
            .next()
            .expect("the details are open")
            .rect()
    }

    /// Scroll the table at height `y` sideways, as a person does (a trackpad's swipe, or
    /// Shift and the wheel, over it), until `reached` holds or ten swipes did not do it.
    /// (`Node::scroll_to_me` cannot: a table's own vertical scrolling takes the sideways
    /// part of its request.)
    pub fn swipe_left_until(&mut self, y: f32, reached: impl Fn(&Self) -> bool) {
        self.harness.hover_at(egui::pos2(150.0, y));
        for _ in 0..10 {
            if reached(self) {
                return;
            }
            self.harness.event(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: egui::vec2(-100.0, 0.0),
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Unknown,
                modifiers: egui::Modifiers::NONE,
            });
            self.harness.step();
            self.harness.step();
        }
    }

    /// Turn the mouse wheel down over the point `at` until what scrolls there is at its end
    /// (a long wheel turn, more than any test's list is long), and let the scroll settle.
    pub fn wheel_down_to_the_end(&mut self, at: egui::Pos2) {
        self.harness.hover_at(at);
        self.harness.step();
        self.harness.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -100_000.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        for _ in 0..20 {
            self.harness.step();
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// The status of the only row whose name is `name`.
    pub fn status(&self, name: &str) -> Option<DedupStatus> {
        status_of(self.app(), name)
    }

    pub fn row_id(&self, name: &str) -> i64 {
        self.app()
            .model
            .rows()
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.id)
            .expect("row")
    }

    /// Switch to the History and wait until it lists a job.
    pub fn open_history(&mut self) {
        self.harness.get_by_label("History").click();
        self.wait("the history", |app| {
            app.model.history.as_ref().is_some_and(|h| !h.is_empty())
        });
    }

    /// Step the window until a node labelled `label` shows (a tooltip takes a moment after
    /// the hover), for a second or so; then it must be there.
    pub fn wait_for_label(&mut self, label: &str) {
        self.step_until(|h| h.query_by_label(label).is_some());
        self.harness.get_by_label(label);
    }

    /// [`Window::wait_for_label`] for a node whose label holds `part`.
    pub fn wait_for_label_contains(&mut self, part: &str) {
        self.step_until(|h| h.query_by_label_contains(part).is_some());
        self.harness.get_by_label_contains(part);
    }

    /// Step the window until `shown` holds of it, for a second or so at most.
    fn step_until(&mut self, shown: impl Fn(&Harness<'static, LodgeApp>) -> bool) {
        for _ in 0..60 {
            self.harness.step();
            if shown(&self.harness) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Press the button labelled `label` (through accessibility: under a deposit it may be
    /// below the panel's fold) and wait for the window's notice holding `text`: its level and
    /// words.
    pub fn press_for_notice(&mut self, label: &str, text: &str) -> (LogLevel, String) {
        self.harness.get_by_label(label).click_accesskit();
        self.wait(&format!("a notice saying '{text}'"), |app| {
            !notices_with(app, text).is_empty()
        });
        notices_with(self.app(), text).remove(0)
    }

    /// The file in which the window's sandbox keeps the blob of `content`.
    pub fn sandbox_blob(&self, content: &[u8]) -> PathBuf {
        self.lab
            .path("app/sandbox/blobs/sha256")
            .join(lodge::content::Sha256Hex::of(content).to_hex())
    }

    /// Log lines of one kind.
    pub fn log_of(&self, kind: &str) -> Vec<String> {
        self.app()
            .model
            .log
            .iter()
            .filter(|l| l.kind == kind)
            .map(|l| l.text.clone())
            .collect()
    }
}

/// The window's own lines in the log (its notices) that hold `text`, with their level.
pub fn notices_with(app: &LodgeApp, text: &str) -> Vec<(LogLevel, String)> {
    app.model
        .log
        .iter()
        .filter(|l| l.kind == "app" && l.text.contains(text))
        .map(|l| (l.level, l.text.clone()))
        .collect()
}

/// The status `app` shows for the only row whose name is `name` (for a `Window::wait`).
pub fn status_of(app: &LodgeApp, name: &str) -> Option<DedupStatus> {
    let row = app.model.rows().iter().find(|r| r.name == name)?;
    Some(app.model.status(row, app.target_id()))
}

/// A folder whose CITATION.cff makes its metadata complete.
pub fn citable_folder(lab: &Lab, name: &str, title: &str) -> PathBuf {
    let cff = format!(
        "cff-version: 1.2.0\ntitle: \"{title}\"\nauthors:\n  - family-names: Curie\n    given-names: Marie\ndate-released: 2026-03-01\npublisher: Lodge test lab\n"
    );
    lab.folder(
        name,
        &[
            ("CITATION.cff", cff.as_bytes()),
            ("data/cores.csv", b"core,depth\n1,0.5\n2,1.0\n"),
            ("README.txt", b"Soil cores from the test plot."),
        ],
    )
}

/// Run `lodge` with `args` on the database `db` (a file, or a PostgreSQL URL) as another
/// process would while the window is open: a terminal on this machine, or with `env`
/// another machine in team mode. Panics with its error output if it fails.
/// `lodge deposit --all --target TARGET` from a terminal on the window's store and config
/// file, with no token: the target refuses it and the terminal says it is paused.
pub fn terminal_deposit_paused(w: &Window, config: &Path, target: &str) {
    let out = crate::support::lodge(&w.lab.path("app/lodge.db"))
        .env("LODGE_CONFIG", config)
        .env("LODGE_NO_KEYRING", "1")
        .args(["deposit", "--all", "--target", target])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("is paused"),
        "{out:?}"
    );
}

pub fn lodge_elsewhere(db: &Path, env: &[(&str, &Path)], args: &[&str]) {
    let mut lodge = crate::support::lodge(db);
    lodge.envs(env.iter().copied()).args(args);
    let out = lodge.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
