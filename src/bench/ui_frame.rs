//! GUI frame time: the real window code ([`LodgeApp`]) over a store of many datasets, driven
//! headless through an `egui::Context` (layout and tessellation, as eframe does on the CPU;
//! no GPU upload or painting): the time to
//! the first frame and to the first frame with every row, then the wall time per frame with
//! the datasets table at the top and scrolled to the middle.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::app::{AppPaths, AppService, ServiceConfig};
use crate::content::{ContentDocument, Creator, ManifestEntry, Metadata, Sha256Hex};
use crate::engine::EngineConfig;
use crate::sandbox::FaultConfig;
use crate::store::{FileScan, NewDataset, Store};
use crate::ui::LodgeApp;

/// The window size the frames are laid out for.
const WINDOW: egui::Vec2 = egui::vec2(1280.0, 800.0);
/// How long the store may take to load before the benchmark gives up.
const LOAD_LIMIT: Duration = Duration::from_secs(300);

pub struct FrameFigures {
    pub datasets: usize,
    pub first_frame: Duration,
    pub all_rows: Duration,
    /// Mean wall time per frame, table at the top.
    pub top: Duration,
    /// Mean wall time per frame, table scrolled down.
    pub scrolled: Duration,
}

impl FrameFigures {
    pub fn worst(&self) -> Duration {
        self.top.max(self.scrolled)
    }
}

/// Record `count` one-file datasets in the store at `db` (no files on disk: the window only
/// reads the store).
pub fn seed_store(db: &Path, count: usize) -> anyhow::Result<()> {
    let store = Store::open(db)?;
    type Item = (String, String, Metadata, ContentDocument, Vec<FileScan>);
    let items: Vec<Item> = (0..count)
        .map(|i| {
            let metadata = Metadata {
                title: format!("Dataset {i}"),
                creators: vec![Creator::named("Curie, Marie")],
                publisher: "Bench lab".into(),
                publication_year: Some(2026),
                ..Metadata::default()
            };
            let sha = Sha256Hex::of(format!("file {i}").as_bytes());
            let manifest = vec![ManifestEntry {
                path: "data.csv".into(),
                size: 100 + i as u64,
                sha256: sha,
            }];
            let document = ContentDocument::new(manifest, &metadata);
            let files = vec![FileScan {
                rel_path: "data.csv".into(),
                size: 100 + i as u64,
                mtime_ns: 0,
                file_id: i as u64,
                sha256: sha.to_hex(),
            }];
            let path = format!("/bench/ds{i:06}");
            (path, format!("ds{i:06}"), metadata, document, files)
        })
        .collect();
    for chunk in items.chunks(10_000) {
        let news: Vec<NewDataset<'_>> = chunk
            .iter()
            .map(|(path, name, metadata, document, files)| NewDataset {
                path,
                name,
                metadata,
                document,
                files,
            })
            .collect();
        store.save_datasets(&news)?;
    }
    Ok(())
}

/// A headless window: the app, its egui context and the input of the next frame.
struct Headless {
    ctx: egui::Context,
    app: LodgeApp,
    events: Vec<egui::Event>,
}

impl Headless {
    fn frame(&mut self) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, WINDOW)),
            predicted_dt: 1.0 / 60.0,
            events: std::mem::take(&mut self.events),
            ..Default::default()
        };
        let app = &mut self.app;
        let mut output = self.ctx.run_ui(input, |ui| app.show(ui));
        // What eframe does next on the CPU: tessellate the shapes into meshes. Textures
        // would go to the GPU; there is none.
        let meshes = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        std::hint::black_box(meshes);
        output.textures_delta.clear();
    }

    /// Mean time of `frames` frames, after a few to settle.
    fn time_frames(&mut self, frames: usize) -> Duration {
        for _ in 0..10 {
            self.frame();
        }
        let started = Instant::now();
        for _ in 0..frames.max(1) {
            self.frame();
        }
        started.elapsed() / frames.max(1) as u32
    }
}

/// Seed a store of `count` datasets in `dir`, open the window code on it (deposits paused)
/// with its service on `runtime`, and time `frames` frames at the top and scrolled down.
/// Blocking: call it off the runtime's worker threads.
pub fn measure(
    dir: &Path,
    count: usize,
    frames: usize,
    runtime: &tokio::runtime::Handle,
) -> anyhow::Result<FrameFigures> {
    let paths = AppPaths::in_dir(dir);
    seed_store(&paths.db, count)?;
    let started = Instant::now();
    let service = AppService::start(
        runtime,
        ServiceConfig {
            paths,
            engine: EngineConfig::default(),
            sandbox_faults: FaultConfig::default(),
            start_paused: true,
            sandbox_token: None,
            opener: crate::app::Opener::system(),
        },
        Arc::new(|| {}),
    );
    let mut window = Headless {
        ctx: egui::Context::default(),
        app: LodgeApp::new(service),
        events: Vec::new(),
    };
    window.frame();
    let first_frame = started.elapsed();
    while !window.app.model.ready || window.app.table.order.len() < count {
        anyhow::ensure!(
            started.elapsed() < LOAD_LIMIT,
            "the window did not load {count} datasets within {LOAD_LIMIT:?} (it shows {})",
            window.app.table.order.len()
        );
        std::thread::sleep(Duration::from_millis(1));
        window.frame();
    }
    let all_rows = started.elapsed();
    let top = window.time_frames(frames);

    // Scroll the table half a page at a time, towards the middle.
    window
        .events
        .push(egui::Event::PointerMoved(egui::pos2(400.0, 300.0)));
    for _ in 0..50 {
        window.events.push(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Page,
            delta: egui::vec2(0.0, -400.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        window.frame();
    }
    let scrolled = window.time_frames(frames);
    Ok(FrameFigures {
        datasets: count,
        first_frame,
        all_rows,
        top,
        scrolled,
    })
}
