//! Runs a config's cells in parallel, appending each finished cell to the store, then writes
//! the summary table and figure.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};

use super::config::Config;
use super::context::{Context as CellContext, Prepared};
use super::engine::{self, Observer};
use super::grid::Cell;
use super::grid::expand;
use super::record::{CellRecord, EPSILON_ADD_REMOVE, PURE_DP};
use super::store::Store;
use super::study::{GridStudy, Study};
use super::{report, summary};
use crate::experiment::provenance::Provenance;
use crate::experiment::shard::{self, Shard, ShardInfo};

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
    /// Of which in the results store (journal appends, compaction), seconds.
    pub store_seconds: f64,
}

/// Default results folder: `results/<paper>/<config file stem>` for a paper's config,
/// `results/<config file stem>` otherwise.
pub fn default_out_dir(config_path: &Path, cfg: &Config) -> PathBuf {
    out_dir(config_path, cfg.paper.as_deref(), cfg.output_dir.as_deref())
}

/// The results folder of any config (grid or study): its `output_dir`, else
/// `results/[<paper>/]<config file stem>`.
pub fn out_dir(config_path: &Path, paper: Option<&str>, output_dir: Option<&Path>) -> PathBuf {
    if let Some(d) = output_dir {
        return d.to_path_buf();
    }
    let stem = config_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("run");
    match paper {
        Some(p) => PathBuf::from("results").join(p).join(stem),
        None => PathBuf::from("results").join(stem),
    }
}

/// A progress bar over `total` `unit`s on stderr when it is a terminal and `show` holds.
pub fn progress_bar(total: usize, unit: &str, show: bool) -> ProgressBar {
    if !(show && std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(total as u64);
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {unit}  {{elapsed_precise}} elapsed, ETA {{eta}}  {{msg}}"
        ))
        .expect("valid template"),
    );
    b
}

/// Runs one cell through its method and times it.
pub fn run_cell(ctx: &CellContext<'_>, cell: &Cell) -> anyhow::Result<CellRecord> {
    let start = Instant::now();
    let spec = ctx
        .cfg
        .methods
        .get(&cell.method)
        .expect("cells come from the config");
    let mut out = spec.method.run(ctx, cell)?;
    let native = spec.method.protocol().relation;
    let epsilon_accounted = ctx.certify_as(&out.event, native)?;
    // A run that fixes its relation (the leaderboard's) records what the tables show beside
    // the certified ε: the method's own relation's ε, and whether that ε holds with δ = 0.
    if let (Some(_), Some(d)) = (ctx.cfg.relation, out.details.as_object_mut()) {
        let doubled = if ctx.by_group(native) { 2.0 } else { 1.0 };
        let pure = out
            .event
            .pure_epsilon()
            .is_some_and(|p| doubled * p <= epsilon_accounted);
        d.insert(PURE_DP.into(), pure.into());
        if ctx.by_group(native) {
            let own = ctx.certify(&out.event)?;
            // JSON has no ∞: serde_json writes a non-finite f64 as null.
            d.insert(EPSILON_ADD_REMOVE.into(), own.into());
        }
    }
    let record = CellRecord {
        method: cell.method.clone(),
        kind: spec.kind.to_string(),
        epsilon: cell.epsilon,
        delta: ctx.cfg.delta,
        trial: cell.trial,
        seed: cell.seed,
        accuracy: out.accuracy,
        epsilon_accounted,
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
        key: cell.key(),
        details: out.details,
    };
    super::certified::check(ctx.cfg, &record)?;
    Ok(record)
}

/// Runs every unfinished cell of `cfg`, writing into `dir`.
pub fn run(cfg: &Config, dir: &Path, progress: bool) -> anyhow::Result<RunReport> {
    run_part(cfg, dir, None, progress)
}

/// Runs the unfinished cells of `cfg`: all of them into `out`, or one shard's into its own
/// folder under `out` (no summary then: `dp-bench merge` writes it from all the shards).
pub fn run_part(
    cfg: &Config,
    out: &Path,
    shard: Option<Shard>,
    progress: bool,
) -> anyhow::Result<RunReport> {
    let start = Instant::now();
    // A wrong folder fails at once, before the data is loaded (a shard's own folder, under
    // `out`, is checked when its store opens).
    crate::files::check_dir(out, Some("grid"))?;
    let prepared = Prepared::new(cfg)?;
    let mut ctx = prepared.context()?;
    let mut cells = expand(cfg);
    let dir = match shard {
        None => out.to_path_buf(),
        Some(s) => {
            let mine = shard::assign(cfg, &cells, s.count);
            cells = cells
                .into_iter()
                .zip(mine)
                .filter(|&(_, i)| i == s.index)
                .map(|(c, _)| c)
                .collect();
            s.dir(out)
        }
    };
    ctx.scratch = Some(dir.clone());
    // Before the folder is touched: an unreachable target moves nothing to `stale/`.
    super::reach::check_targets(cfg, &ctx)?;
    if shard.is_some() {
        // The shards' parent is where they are merged: claimed as a results folder, not locked
        // (every shard runs at once).
        crate::files::claim_dir(out, "grid")?;
    }
    let mut store = Store::open(&dir)?;
    set_aside_stale(&mut store, &cells, &dir)?;
    for r in store.rows() {
        super::certified::check(cfg, r).with_context(|| format!("stored in {}", dir.display()))?;
    }
    report::write_config_copy(&dir, cfg)?;
    if let Some(s) = shard {
        shard::write_info(
            &dir,
            &ShardInfo {
                config_fingerprint: shard::fingerprint(cfg)?,
                index: s.index,
                count: s.count,
                cells: cells.len(),
                dataset_label: prepared.dataset_label(),
            },
        )?;
    }
    let mut study = GridStudy::of(cells);
    let total = study.size_hint().unwrap_or(0);
    let bar = progress_bar(0, "cells", progress);
    let observer = GridProgress {
        bar: &bar,
        total,
        dir: &dir,
        first: std::cell::Cell::new(true),
    };
    let run = |cell: &Cell| {
        run_cell(&ctx, cell).with_context(|| {
            format!(
                "cell {} ε={} trial={} failed",
                cell.method, cell.epsilon, cell.trial
            )
        })
    };
    let ran = engine::drive(&mut study, &mut store, &run, &observer)?;
    bar.finish_and_clear();
    store.compact()?;
    if shard.is_none() {
        finish(cfg, &dir, store.rows(), &prepared.dataset_label())?;
    }
    let how = shard.map_or("run".to_string(), |s| {
        format!("run --shard {}/{}", s.index, s.count)
    });
    Provenance::here(&how, start.elapsed().as_secs_f64(), &cfg.dataset.name).write(&dir)?;
    Ok(RunReport {
        dir,
        total: total.max(ran),
        skipped: total.saturating_sub(ran),
        ran,
        seconds: start.elapsed().as_secs_f64(),
        store_seconds: store.busy().as_secs_f64(),
    })
}

/// Moves the stored cells that are not cells of `cells` (an earlier version of the config: a
/// method removed or changed, fewer trials, other ε) to the folder's `stale/`, and says so, so
/// that a summary never mixes them in. A stored cell whose key is current but whose seed or
/// kind differs from the config's is damage and goes the same way (it is re-run).
pub fn set_aside_stale(store: &mut Store, cells: &[Cell], dir: &Path) -> anyhow::Result<()> {
    let current: std::collections::HashMap<String, u64> =
        cells.iter().map(|c| (c.key(), c.seed)).collect();
    let gone = store.set_aside(|r| current.get(&r.key) == Some(&r.seed))?;
    if gone.is_empty() {
        return Ok(());
    }
    let mut by_method: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in &gone {
        *by_method.entry(r.method.as_str()).or_default() += 1;
    }
    let list: Vec<String> = by_method.iter().map(|(m, n)| format!("{m}: {n}")).collect();
    errln!(
        "note: {} stored cell(s) in {} are not cells of this config (an earlier version of \
         it: {}); moved to {}, they are not in this run's tables or summary",
        gone.len(),
        dir.display(),
        list.join(", "),
        dir.join(super::store::STALE_DIR).display()
    );
    Ok(())
}

/// Writes the summary tables and the accuracy figure of a finished set of cells.
pub fn finish(
    cfg: &Config,
    dir: &Path,
    cells: &[CellRecord],
    dataset_label: &str,
) -> anyhow::Result<()> {
    let rows = summary::summarize(cfg, cells)?;
    summary::write(dir, &rows)?;
    report::accuracy_figure(cfg, &rows, dataset_label).save(&dir.join("accuracy"))
}

/// A grid's progress: a bar over its cells, and a line when it resumes.
struct GridProgress<'a> {
    bar: &'a ProgressBar,
    total: usize,
    dir: &'a Path,
    first: std::cell::Cell<bool>,
}

impl Observer<CellRecord> for GridProgress<'_> {
    fn batch(&self, units: usize) {
        if self.first.replace(false) && units < self.total {
            errln!(
                "resuming: {} of {} cells already finished in {}",
                self.total - units,
                self.total,
                self.dir.display()
            );
        }
        self.bar.inc_length(units as u64);
    }

    fn record(&self, r: &CellRecord) {
        self.bar
            .set_message(format!("{} ε={}", r.method, r.epsilon));
        self.bar.inc(1);
    }
}
