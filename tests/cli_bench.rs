//! `lodge bench` as a user runs it: `--quick` prints one table with every row measured
//! (numbers for Lodge and for its reference) and a replay that sent no request; a reference
//! tool missing from PATH stops the benchmark with the tool's name and how to install it,
//! before anything is measured. The figures themselves are not asserted (speed is measured,
//! never tested).

mod support;

use std::process::Output;

use support::*;

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The cells of the table row whose measure starts with `measure`.
fn row<'a>(table: &'a str, measure: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("| {measure}")))
        .unwrap_or_else(|| panic!("no row '{measure}' in:\n{table}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

fn has_number(cell: &str) -> bool {
    cell.chars().any(|c| c.is_ascii_digit())
}

#[test]
fn bench_quick_prints_every_row_with_figures_and_a_replay_that_sent_no_request() {
    let lab = Lab::new();
    let work = lab.path("bench-work");
    let out = lodge(&lab.path("lodge.db"))
        .arg("bench")
        .arg("--quick")
        .arg("--work-dir")
        .arg(&work)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("machine: "), "{stdout}");
    if cfg!(debug_assertions) {
        assert!(
            stderr.contains("debug build"),
            "a debug build is named: {stderr}"
        );
    }
    let header = row(&stdout, "measure");
    assert_eq!(
        header,
        ["measure", "Lodge", "reference", "ratio", "goal", "verdict"]
    );
    for measure in [
        "hashing",
        "rescan",
        "guarded deposits",
        "replay",
        "upload",
        "small files",
        "GUI frame",
    ] {
        let cells = row(&stdout, measure);
        assert_eq!(cells.len(), 6, "{measure}: {cells:?}");
        assert!(has_number(cells[1]), "{measure}: Lodge's figure: {cells:?}");
        assert!(has_number(cells[2]), "{measure}: the reference: {cells:?}");
        assert!(
            ["ok", "below goal"].contains(&cells[5]),
            "{measure}: verdict: {cells:?}"
        );
    }
    assert!(row(&stdout, "hashing")[2].contains("openssl dgst -sha256"));
    assert!(row(&stdout, "upload")[1].contains("peak RSS"), "{stdout}");
    assert!(row(&stdout, "upload")[2].contains("curl --upload-file"));
    assert!(
        row(&stdout, "small files")[1].contains("files/s"),
        "{stdout}"
    );
    assert!(row(&stdout, "small files")[2].contains("curl --parallel"));
    let replay = row(&stdout, "replay");
    assert!(replay[1].starts_with("0 requests"), "{replay:?}");
    assert_eq!(replay[5], "ok");
    // Inputs are kept in the work folder for the next run; the run's stores are not.
    assert!(work.join("hashing").is_dir());
    let leftovers: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("run-"))
        .collect();
    assert!(leftovers.is_empty(), "run folders left: {leftovers:?}");
}

#[test]
fn bench_with_a_reference_tool_missing_fails_naming_the_tool_and_how_to_install_it() {
    let lab = Lab::new();
    let empty_path = lab.path("no-tools");
    std::fs::create_dir_all(&empty_path).unwrap();
    for (row, tool) in [
        ("hashing", "openssl"),
        ("upload", "curl"),
        ("files", "curl"),
    ] {
        let out = lodge(&lab.path("lodge.db"))
            .args(["bench", "--quick", "--only", row, "--work-dir"])
            .arg(lab.path("work"))
            .env("PATH", &empty_path)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{row}: {stdout}\n{stderr}");
        assert!(
            stderr.contains(&format!("{tool} is not installed")),
            "{row}: {stderr}"
        );
        assert!(stderr.contains("apt-get install openssl curl"), "{stderr}");
        assert!(!stdout.contains("| measure"), "no table: {stdout}");
        assert!(!lab.path("work").exists(), "nothing generated for {row}");
    }
}

#[test]
fn bench_files_row_takes_a_work_folder_whose_name_has_quotes_and_backslashes() {
    let lab = Lab::new();
    let out = lodge(&lab.path("lodge.db"))
        .args(["bench", "--quick", "--only", "files", "--work-dir"])
        .arg(lab.path("a \"quoted\" \\ folder"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let cells = row(&stdout, "small files");
    assert!(has_number(cells[2]), "curl's figure: {cells:?}");
}

/// `--files-at-once N` sets the files row's files in flight on both sides (the sandbox
/// target's `files_at_once`, curl's `--parallel-max`), and the row says so; a value out of
/// range stops the run naming the flag, before anything is generated.
#[test]
fn bench_files_row_sends_as_many_files_at_once_as_asked_on_both_sides() {
    let lab = Lab::new();
    let files_row = |at_once: &str, work: &str| {
        let out = lodge(&lab.path("lodge.db"))
            .args([
                "bench",
                "--quick",
                "--only",
                "files",
                "--files-at-once",
                at_once,
            ])
            .arg("--work-dir")
            .arg(lab.path(work))
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        (out.status.code(), stdout, stderr)
    };
    let (status, stdout, stderr) = files_row("2", "work");
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    let cells = row(&stdout, "small files");
    assert!(cells[1].contains("2 at a time"), "Lodge's side: {cells:?}");
    assert!(
        cells[2].contains("curl --parallel`, 2 at a time"),
        "curl's side: {cells:?}"
    );

    let (status, stdout, stderr) = files_row("0", "refused");
    assert_eq!(status, Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("--files-at-once is 0: give 1 (one file after another) to 32"),
        "{stderr}"
    );
    assert!(!lab.path("refused").exists(), "nothing generated");
}
