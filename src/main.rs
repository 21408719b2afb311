//! The `lodge` binary. With no command it opens the desktop window, on the database that
//! `--db` or `LODGE_DB` names if any; with a command it is the command line
//! (`lodge::cli::run_parsed`). Built without the `desktop` feature it is the command line
//! alone.

use std::process::ExitCode;
#[cfg(feature = "desktop")]
use std::sync::Arc;

#[cfg(feature = "desktop")]
use lodge::app::{AppService, ServiceConfig};
#[cfg(feature = "desktop")]
use lodge::ui::LodgeApp;

#[cfg(feature = "desktop")]
const ICON_PNG: &[u8] = include_bytes!("../assets/icon.png");

fn main() -> ExitCode {
    use clap::Parser;
    // An empty LODGE_DB (`export LODGE_DB=` in a profile) would reach clap as an empty
    // --db, and its error would name the flag, not the variable.
    if std::env::var_os("LODGE_DB").is_some_and(|v| v.is_empty()) {
        eprintln!(
            "error: LODGE_DB is set but empty: unset it (`unset LODGE_DB`) to use the default \
             database, or set it to a database file or postgres:// URL"
        );
        return ExitCode::from(2);
    }
    let cli = match lodge::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(refusal) => return refused(refusal),
    };
    if cli.command.is_some() {
        return lodge::cli::run_parsed(cli);
    }
    run_window(cli.db)
}

/// Print clap's refusal of the command line (or the help or version asked for), with a
/// hint where the refusal alone would not say what was meant.
fn refused(refusal: clap::Error) -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    // clap's usage line names the options it was given, those from the environment too:
    // `Usage: lodge deposit --target <TARGET> --db <PATH|URL>` with LODGE_DB set would
    // read as though --db were wanted on the command line. Left out unless typed there.
    let from_env: Vec<&str> = [("LODGE_DB", "--db"), ("LODGE_DB_WAIT", "--db-wait")]
        .into_iter()
        .filter(|(var, flag)| {
            std::env::var_os(var).is_some()
                && !args
                    .iter()
                    .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
        })
        .map(|(_, flag)| flag)
        .collect();
    let rendered = refusal.render().to_string();
    let usage_fixed: String = rendered
        .split_inclusive('\n')
        .map(|line| match line.starts_with("Usage: ") {
            true => from_env.iter().fold(line.to_string(), |line, flag| {
                ["<PATH|URL>", "<DURATION>"]
                    .iter()
                    .fold(line, |line, value| {
                        line.replace(&format!(" {flag} {value}"), "")
                    })
            }),
            false => line.to_string(),
        })
        .collect();
    if usage_fixed == rendered || !refusal.use_stderr() {
        let _ = refusal.print();
    } else {
        eprint!("{usage_fixed}");
    }
    let saved = lodge::config::Config::load(&lodge::config::config_path()).unwrap_or_default();
    let hint = lodge::cli::hint_after_refusal(refusal.kind(), &args, |word| {
        saved.targets.contains_key(word)
    });
    if let Some(hint) = hint {
        eprintln!("{hint}");
    }
    ExitCode::from(u8::try_from(refusal.exit_code()).unwrap_or(2))
}

#[cfg(not(feature = "desktop"))]
fn run_window(_db: Option<std::path::PathBuf>) -> ExitCode {
    eprintln!(
        "this lodge was built without its desktop window (the `desktop` feature): use the \
         command line, see `lodge --help`"
    );
    ExitCode::FAILURE
}

#[cfg(feature = "desktop")]
fn run_window(db: Option<std::path::PathBuf>) -> ExitCode {
    // Without a display winit fails with an error about X server connections; say it plainly.
    #[cfg(target_os = "linux")]
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        eprintln!(
            "error: no display to open the Lodge window on (neither DISPLAY nor WAYLAND_DISPLAY \
             is set): run it in a desktop session, or use the command line: `lodge --help`"
        );
        return ExitCode::FAILURE;
    }
    // The runtime lives here, for the whole life of the window: hashing, deposits and the
    // sandbox run on it; dropping it would cancel them.
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let handle = runtime.handle().clone();

    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Lodge")
        .with_app_id("lodge")
        .with_inner_size([1280.0, 800.0])
        .with_min_inner_size([800.0, 600.0])
        .with_drag_and_drop(true);
    match eframe::icon_data::from_png_bytes(ICON_PNG) {
        Ok(icon) => viewport = viewport.with_icon(Arc::new(icon)),
        Err(e) => eprintln!("warning: the app icon could not be read: {e}"),
    }
    let mut options = eframe::NativeOptions {
        viewport,
        persist_window: true,
        // Lodge adds the system font fallback itself (`lodge::ui::fonts`), not through
        // eframe's `system_fonts` feature: without it eframe would add a provider that finds
        // nothing.
        system_font_fallback: false,
        ..Default::default()
    };
    // winit delivers no drops on native Wayland: run on X11 (XWayland) so folder drops work.
    #[cfg(target_os = "linux")]
    {
        options.event_loop_builder = Some(Box::new(|builder| {
            use winit::platform::x11::EventLoopBuilderExtX11;
            builder.with_x11();
        }));
    }

    let result = eframe::run_native(
        "Lodge",
        options,
        Box::new(move |cc| {
            // The system's fonts for what the built-in ones lack (CJK, Hangul, Arabic, ...).
            lodge::ui::fonts::install(&cc.egui_ctx);
            let ctx = cc.egui_ctx.clone();
            let service = AppService::start(
                &handle,
                ServiceConfig::platform(db),
                Arc::new(move || ctx.request_repaint()),
            );
            let mut app = LodgeApp::new(service);
            if let Some(storage) = cc.storage {
                app.recall_from(storage);
            }
            Ok(Box::new(app))
        }),
    );
    // The window is closed (the app and its service are dropped, which cancels the engine):
    // uploads its stopped deposits leave open on a server are aborted first (their tasks
    // are async, which the runtime's shutdown would drop), then in-flight work gets a
    // moment to stop cleanly.
    runtime.block_on(lodge::targets::cleanup::finish(
        std::time::Duration::from_secs(3),
    ));
    runtime.shutdown_timeout(std::time::Duration::from_secs(3));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "error: cannot open the Lodge window: {e}. The command line still works: `lodge --help`."
            );
            ExitCode::FAILURE
        }
    }
}
