//! A run folder as figures, the leaderboard and the report may read it: its summary is a
//! derived output, recomputed here from the checksummed cells ([`read_cells`]) with the
//! folder's config copy, exactly as the run wrote it. A `summary.csv` that differs (edited by
//! hand, or stale) stops the reader with an error naming it; a folder without cells is not a
//! result, whatever summary it holds.

use std::path::Path;

use super::config::Config;
use super::record::CellRecord;
use super::store::read_cells;
use super::summary::{self, SummaryRow};

/// A grid run folder read from its cells.
#[derive(Debug)]
pub struct VerifiedRun {
    /// Its config copy (`config.toml`).
    pub config: Config,
    /// Every cell the folder holds (compacted files and journal), checksums checked, in key
    /// order; cells of an earlier config version are not filtered out here.
    pub cells: Vec<CellRecord>,
    /// The summary recomputed from the cells, read back through `summary.csv`'s text so that
    /// every value is rounded as the file holds it.
    pub rows: Vec<SummaryRow>,
}

/// How to rewrite a folder's summary from its cells.
fn rerun_hint(dir: &Path) -> String {
    format!(
        "re-run its config (`dp-bench <config> --out {}`, the config as copied in {}): the \
         finished cells are kept and the summary is rewritten from them",
        dir.display(),
        dir.join("config.toml").display()
    )
}

/// Reads the grid run folder `dir`: its cells (an error if any is damaged, naming it), its
/// config copy, and the summary recomputed from them. Refused: a folder with no cells ("no
/// cells: not a result"), and one whose `summary.csv` differs from the recomputed summary
/// (the error names the file, the first differing row and how to rewrite it).
pub fn load(dir: &Path) -> anyhow::Result<VerifiedRun> {
    let cells = read_cells(dir)?;
    if cells.is_empty() {
        anyhow::bail!(
            "{}: no cells: not a result (a summary is only shown when the cells it summarises \
             are there, in cells.parquet or cells.log); {}",
            dir.display(),
            rerun_hint(dir)
        );
    }
    let config = Config::load(&dir.join("config.toml"))?;
    let rows = summary::summarize(&config, &cells)?;
    let text = summary::csv_text(&rows);
    let path = dir.join(summary::CSV_FILE);
    match std::fs::read_to_string(&path) {
        Ok(found) if found != text => anyhow::bail!(mismatch(&path, &found, &text, dir)),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(anyhow::Error::from(e).context(format!("cannot read {}", path.display())));
        }
    }
    let rows = summary::parse(
        &text,
        &format!("the summary recomputed from {}", dir.display()),
    )?;
    Ok(VerifiedRun {
        config,
        cells,
        rows,
    })
}

/// The summary rows of the grid run folder `dir`, recomputed from its cells ([`load`]).
pub fn summary_rows(dir: &Path) -> anyhow::Result<Vec<SummaryRow>> {
    Ok(load(dir)?.rows)
}

/// Why `path` is refused: its first line that differs from the recomputed text.
fn mismatch(path: &Path, found: &str, want: &str, dir: &Path) -> String {
    let (mut f, mut w) = (found.lines(), want.lines());
    let mut line = 1;
    let detail = loop {
        match (f.next(), w.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                break format!(
                    "line {line} reads {:?}, the cells give {:?}",
                    a.unwrap_or("(nothing)"),
                    b.unwrap_or("(nothing)")
                );
            }
        }
    };
    format!(
        "{} does not match the cells beside it ({detail}): it was edited by hand or written by \
         another version of dpbench, and a summary is a derived output; {}",
        path.display(),
        rerun_hint(dir)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::test_runs::{FakeCell, fake_run};
    use std::path::PathBuf;

    const CONFIG: &str = "seed = 1\ntrials = 3\nepsilons = [0.5, 1.0]\ndelta = 1e-6\n\n\
                          [dataset]\nname = \"synthetic-l\"\n\n[methods.alg1]\nkind = \"alg1\"\n";

    fn run(results: &Path) -> PathBuf {
        fake_run(results, "r", CONFIG, |c| FakeCell {
            // Thirds: the mean has more digits than summary.csv keeps.
            accuracy: 80.0 + f64::from(c.trial) / 3.0 + c.epsilon,
            epsilon_accounted: c.epsilon,
            details: serde_json::json!({}),
        })
    }

    /// Untampered, the rows are exactly what summary.csv holds (rounding included), so the
    /// figures drawn from them do not change.
    #[test]
    fn verified_rows_are_the_summary_a_run_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let r = run(dir.path());
        let from_file = summary::read(&r.join(summary::CSV_FILE)).unwrap();
        let verified = summary_rows(&r).unwrap();
        assert_eq!(format!("{verified:?}"), format!("{from_file:?}"));
        assert_eq!(
            verified[1].mean_accuracy, 81.3333,
            "rounded as the file holds it"
        );
        // Without a summary.csv (an interrupted run), the cells still give the rows.
        std::fs::remove_file(r.join(summary::CSV_FILE)).unwrap();
        assert_eq!(
            format!("{:?}", summary_rows(&r).unwrap()),
            format!("{from_file:?}")
        );
    }

    #[test]
    fn an_edited_summary_or_a_folder_without_cells_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let r = run(dir.path());
        let path = r.join(summary::CSV_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("81.3333", "81.3334")).unwrap();
        let e = format!("{:#}", load(&r).unwrap_err());
        assert!(
            e.contains("summary.csv does not match the cells beside it")
                && e.contains("line 3 reads")
                && e.contains("81.3334"),
            "{e}"
        );
        let bare = dir.path().join("bare");
        std::fs::create_dir_all(&bare).unwrap();
        std::fs::write(bare.join("config.toml"), CONFIG).unwrap();
        std::fs::write(bare.join(summary::CSV_FILE), text).unwrap();
        let e = format!("{:#}", load(&bare).unwrap_err());
        assert!(e.contains("no cells: not a result"), "{e}");
    }
}
