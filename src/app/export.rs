//! Writing the deposit history to a CSV or JSON file, for "Export" in the history view.

use std::path::{Path, PathBuf};

use crate::history_file::HistoryFile;

/// The file formats history exports to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Csv,
    Json,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        }
    }
}

/// Write `rows` to a new file `lodge-history-<time>.<ext>` in `dir`; returns its path.
/// The CSV and the JSON are those of `lodge history --csv` and `--json`
/// ([`crate::history_file`]).
pub fn write_history(
    dir: &Path,
    format: ExportFormat,
    history: &HistoryFile,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| {
        format!(
            "cannot create the export folder {}: {e}; check its permissions",
            dir.display()
        )
    })?;
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(':', "-");
    let path = dir.join(format!("lodge-history-{stamp}.{}", format.extension()));
    let fail = |e: String| format!("cannot write {}: {e}", path.display());
    match format {
        ExportFormat::Json => {
            let text = history
                .to_json()
                .and_then(|json| serde_json::to_string_pretty(&json))
                .map_err(|e| fail(e.to_string()))?;
            std::fs::write(&path, text).map_err(|e| fail(e.to_string()))?;
        }
        ExportFormat::Csv => {
            let file = std::fs::File::create(&path).map_err(|e| fail(e.to_string()))?;
            history
                .write_csv(std::io::BufWriter::new(file))
                .map_err(|e| fail(e.to_string()))?;
        }
    }
    Ok(path)
}
