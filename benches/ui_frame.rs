//! Window benchmark with 100,000 datasets in the store (kittest, no rendering): the time
//! from start to the first frame and to the first frame with every row loaded, then the CPU
//! time per frame of the datasets table, at the top and scrolled to the middle.
//!
//! `cargo bench --bench ui_frame` (release). Goal: under 4 ms per frame.

use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use lodge::app::{AppPaths, AppService, ServiceConfig};
use lodge::content::{ContentDocument, Creator, ManifestEntry, Metadata, Sha256Hex};
use lodge::engine::EngineConfig;
use lodge::sandbox::FaultConfig;
use lodge::store::{FileScan, NewDataset, Store};
use lodge::ui::LodgeApp;

const DATASETS: usize = 100_000;
const FRAMES: usize = 300;

fn seed(paths: &AppPaths) {
    let store = Store::open(&paths.db).expect("store");
    let started = Instant::now();
    let items: Vec<(String, String, Metadata, ContentDocument, Vec<FileScan>)> = (0..DATASETS)
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
            (
                format!("/bench/ds{i:06}"),
                format!("ds{i:06}"),
                metadata,
                document,
                files,
            )
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
        store.save_datasets(&news).expect("save");
    }
    println!(
        "seeded {DATASETS} datasets in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let paths = AppPaths::in_dir(dir.path());
    seed(&paths);

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let started = Instant::now();
    let service = AppService::start(
        runtime.handle(),
        ServiceConfig {
            paths,
            engine: EngineConfig::default(),
            sandbox_faults: FaultConfig::default(),
            start_paused: true,
        },
        Arc::new(|| {}),
    );
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(
            |ui, app: &mut LodgeApp| app.show(ui),
            LodgeApp::new(service),
        );
    let first_frame = started.elapsed();
    while !harness.state().model.ready {
        std::thread::sleep(Duration::from_millis(1));
        harness.step();
    }
    harness.step();
    let loaded = started.elapsed();
    assert_eq!(harness.state().table.order.len(), DATASETS);
    println!(
        "start -> first frame: {:.1} ms; start -> first frame with {DATASETS} rows: {:.0} ms",
        first_frame.as_secs_f64() * 1e3,
        loaded.as_secs_f64() * 1e3
    );

    let per_frame = |harness: &mut Harness<'_, LodgeApp>| {
        for _ in 0..20 {
            harness.step();
        }
        let t = Instant::now();
        for _ in 0..FRAMES {
            harness.step();
        }
        t.elapsed().as_secs_f64() * 1e3 / FRAMES as f64
    };
    let top = per_frame(&mut harness);
    println!("frame, table at the top: {top:.2} ms (goal < 4 ms)");
    // Scroll to the middle of the table.
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(egui::pos2(400.0, 300.0)));
    for _ in 0..50 {
        harness.input_mut().events.push(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Page,
            delta: egui::vec2(0.0, -400.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        harness.step();
    }
    let middle = per_frame(&mut harness);
    println!("frame, table scrolled down: {middle:.2} ms (goal < 4 ms)");
}
