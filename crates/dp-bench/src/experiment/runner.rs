//! Runs a config's cells in parallel, appending each finished cell to the store, then writes
//! the summary table and figure.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::config::Config;
use super::methods::{self, Prepared};
use super::store::{CellResult, Store};
use super::{grid, report, summary};

/// What a run did.
#[derive(Debug)]
pub struct RunReport {
    /// Results folder.
    pub dir: PathBuf,
    /// Cells in the grid.
    pub total: usize,
    /// Cells skipped because an earlier run finished them.
    pub skipped: usize,
    /// Cells run now.
    pub ran: usize,
    /// Wall time of this run in seconds.
    pub seconds: f64,
}

/// Default results folder: `results/<config file stem>`.
pub fn default_out_dir(config_path: &Path, cfg: &Config) -> PathBuf {
    if let Some(d) = &cfg.output_dir {
        return d.clone();
    }
    let stem = config_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("run");
    PathBuf::from("results").join(stem)
}

/// Runs every unfinished cell of `cfg`, writing into `dir`.
pub fn run(cfg: &Config, dir: &Path, progress: bool) -> anyhow::Result<RunReport> {
    let start = Instant::now();
    let prepared = Prepared::new(cfg)?;
    let ctx = prepared.context()?;
    let mut store = Store::open(dir)?;
    report::write_config_copy(dir, cfg)?;
    let cells = grid::expand(cfg);
    let todo: Vec<_> = cells
        .iter()
        .filter(|c| !store.contains(&c.key()))
        .cloned()
        .collect();
    let skipped = cells.len() - todo.len();

    let bar = if progress && std::io::stderr().is_terminal() {
        let b = ProgressBar::new(todo.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} cells  {elapsed_precise} elapsed, ETA {eta}  {msg}",
            )
            .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    if skipped > 0 {
        eprintln!(
            "resuming: {skipped} of {} cells already finished in {}",
            cells.len(),
            dir.display()
        );
    }

    // Cells run on rayon's pool; only this thread touches the store (polars writes from a
    // rayon worker can deadlock against polars' own pool, and one writer keeps files whole).
    let (tx, rx) = mpsc::channel::<CellResult>();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let ctx = &ctx;
        let todo = &todo;
        let workers = scope.spawn(move || {
            todo.par_iter()
                .try_for_each_with(tx, |tx, cell| -> anyhow::Result<()> {
                    let row = methods::run_cell(ctx, cell).with_context(|| {
                        format!(
                            "cell {} ε={} trial={} failed",
                            cell.method, cell.epsilon, cell.trial
                        )
                    })?;
                    tx.send(row)
                        .map_err(|_| anyhow::anyhow!("results writer stopped"))
                })
        });
        let mut write_result = Ok(());
        for row in rx {
            bar.set_message(format!("{} ε={}", row.method, row.epsilon));
            if let Err(e) = store.append(row) {
                write_result = Err(e);
                break; // dropping the receiver makes the workers stop
            }
            bar.inc(1);
        }
        let run_result = workers.join().expect("worker thread panicked");
        write_result.and(run_result)
    })?;
    bar.finish_and_clear();

    let rows = summary::summarize(cfg, store.rows());
    summary::write(dir, &rows)?;
    report::accuracy_figure(cfg, &rows, &prepared.dataset_label()).save(&dir.join("accuracy"))?;
    Ok(RunReport {
        dir: dir.to_path_buf(),
        total: cells.len(),
        skipped,
        ran: todo.len(),
        seconds: start.elapsed().as_secs_f64(),
    })
}
