//! Audits split into shards: each shard runs its block of every audit's runs
//! ([`super::runs`]); the merge joins the blocks and writes the outcomes and the table one
//! process would have written.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::runs::{self, Done, Step};
use super::{AuditRun, Plan, whole};
use crate::experiment::audit_settings::AuditTest;
use crate::experiment::config::Config;
use crate::experiment::provenance::Provenance;
use crate::experiment::runner::progress_bar;
use crate::experiment::shard::{Shard, ShardInfo};
use crate::files::lock_dir;

/// Runs shard `s`'s block of every audit's runs into `out/shards/I-of-N/runs/` (resuming
/// blocks already there); `dp-bench merge out` then writes the outcomes and the table.
pub fn run_shard(cfg: &Config, out: &Path, s: Shard, show: bool) -> anyhow::Result<AuditRun> {
    let start = Instant::now();
    crate::files::check_dir(out, Some("audit"))?;
    let plan = Plan::new(cfg)?;
    if plan.settings.test == AuditTest::OneRun {
        return Err(crate::error::UsageError(
            "a one-run audit is one training run and does not split into shards: run it \
             without --shard"
                .into(),
        )
        .into());
    }
    // The shards' parent is where they are merged: claimed, not locked (every shard runs at
    // once); each shard locks its own folder.
    crate::files::claim_dir(out, "audit")?;
    let dir = s.dir(out);
    let _lock = lock_dir(&dir, "audit")?;
    crate::experiment::report::write_config_copy(&dir, cfg)?;
    let info = ShardInfo {
        config_fingerprint: crate::experiment::shard::fingerprint(cfg)?,
        index: s.index,
        count: s.count,
        cells: plan.probes.len(),
        dataset_label: cfg.dataset.name.clone(),
    };
    crate::experiment::shard::write_info(&dir, &info)?;
    let range = runs::block(u64::from(cfg.trials), s);
    let size = (range.end - range.start) as usize;
    let bar = progress_bar(plan.probes.len() * 2 * size, "runs", show);
    let (mut ran, mut reused) = (0, 0);
    for (name, spec, epsilon, probe, fp) in plan.audits(cfg) {
        let path = runs::path(&dir, name, epsilon);
        if runs::stored(&path, &fp, Some(&range)).is_some() {
            bar.inc(2 * size as u64);
            reused += 1;
            continue;
        }
        let step = Step::Block(range.clone());
        let Done::Part(part) = plan.step(cfg, name, spec, epsilon, probe, fp, step, &bar)? else {
            unreachable!("a block of runs ends in the block")
        };
        runs::write(&path, &part)?;
        ran += 1;
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let how = format!("audit --shard {}/{}", s.index, s.count);
    Provenance::here(&how, seconds, &cfg.dataset.name).write(&dir)?;
    Ok(AuditRun {
        outcomes: Vec::new(),
        dir,
        ran,
        reused,
        seconds,
    })
}

/// Writes every audit of `cfg` into `dir` from the blocks of runs in the `count` shard
/// folders `shard_dirs` (each locked while it is read, so a shard still running is an error).
/// Nothing is written for an audit whose runs are not all there; the error names the shards
/// that owe them.
pub fn merge(
    cfg: &Config,
    dir: &Path,
    shard_dirs: &[PathBuf],
    count: usize,
) -> anyhow::Result<AuditRun> {
    let _locks = shard_dirs
        .iter()
        .map(|d| lock_dir(d, "audit"))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // Every audit's blocks are gathered (and any missing named) before the first outcome is
    // written.
    let plan = Plan::new(cfg)?;
    let merged = plan
        .audits(cfg)
        .map(|(name, _, epsilon, _, fp)| gather(shard_dirs, count, name, epsilon, &fp, cfg.trials))
        .collect::<anyhow::Result<Vec<_>>>()?;
    whole(cfg, plan, dir, false, Some((merged, shard_dirs.len())))
}

/// The runs of one audit from every shard's block, joined; an error naming the shards that
/// owe runs when they do not cover every run.
fn gather(
    shard_dirs: &[PathBuf],
    count: usize,
    name: &str,
    epsilon: f64,
    fp: &str,
    trials: u32,
) -> anyhow::Result<runs::Runs> {
    let parts: Vec<runs::Runs> = shard_dirs
        .iter()
        .filter_map(|d| runs::stored(&runs::path(d, name, epsilon), fp, None))
        .collect();
    let total = u64::from(trials);
    runs::concat(parts, total).map_err(|missing| {
        let owing: Vec<String> = (0..count)
            .filter(|&index| {
                let b = runs::block(total, Shard { index, count });
                missing.iter().any(|m| m.start < b.end && b.start < m.end)
            })
            .map(|i| i.to_string())
            .collect();
        anyhow::anyhow!(
            "the audit of `methods.{name}` at ε = {epsilon} lacks runs {} (of 0..{total} per \
             side), owed by shard(s) {} of {count}: rerun them (`dp-bench audit CONFIG --shard \
             I/{count} --out DIR`) and merge again; nothing was written",
            missing
                .iter()
                .map(|m| format!("{}..{}", m.start, m.end))
                .collect::<Vec<_>>()
                .join(", "),
            owing.join(", ")
        )
    })
}
