//! `dp-bench merge RESULTS_DIR`: the finished shards under `RESULTS_DIR/shards/` become the
//! `cells.*`, `summary.*` and figure a single process would have written (the same bytes for
//! the cell and summary tables: both are sorted by key before anything is summed).
//!
//! Nothing is written unless every cell of the config is there: the merge refuses shards of
//! another config (fingerprint) or another split, and names the missing cells and the shards
//! that owe them.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::shard::{self, SHARDS_DIR, ShardInfo};
use crate::experiment::config::Config;
use crate::experiment::grid::expand;
use crate::experiment::provenance::Provenance;
use crate::experiment::record::CellRecord;
use crate::experiment::store::Store;
use crate::experiment::{report, runner};

/// What a merge did.
#[derive(Debug)]
pub struct MergeReport {
    /// The merged results folder.
    pub dir: PathBuf,
    /// Shards merged.
    pub shards: usize,
    /// Cells in the merged tables (audits, for an audit config).
    pub cells: usize,
    /// The merged audits' run, for an audit config (its table is `audit.md`, not
    /// `summary.md`).
    pub audit: Option<crate::audit::AuditRun>,
}

/// Merges the shards of `dir` into `dir`.
pub fn merge(dir: &Path) -> anyhow::Result<MergeReport> {
    let start = std::time::Instant::now();
    if let Some(study) = study_results(dir) {
        anyhow::bail!("{study}");
    }
    let found = shard_dirs(dir)?;
    let cfg_path = found[0].0.join("config.toml");
    let cfg = Config::load(&cfg_path)
        .with_context(|| format!("cannot read the config of shard {}", found[0].0.display()))?;
    let fp = shard::fingerprint(&cfg)?;
    let count = found[0].1.count;
    for (path, info) in &found {
        let own = Config::load(&path.join("config.toml"))
            .and_then(|c| shard::fingerprint(&c))
            .with_context(|| format!("cannot read the config of shard {}", path.display()))?;
        if info.config_fingerprint != fp || own != fp {
            anyhow::bail!(
                "shard {} was run from a different config (fingerprint {} vs {fp} of {}); \
                 remove it or rerun it with the same config",
                path.display(),
                info.config_fingerprint,
                found[0].0.display()
            );
        }
        if info.count != count {
            anyhow::bail!(
                "shard {} is part of a split into {} but {} of a split into {count}; shards of \
                 different splits cannot be merged: remove one split's folders",
                path.display(),
                info.count,
                found[0].0.display()
            );
        }
    }

    if cfg.audit.is_some() {
        let dirs: Vec<PathBuf> = found.iter().map(|(p, _)| p.clone()).collect();
        let run = crate::audit::merge(&cfg, dir, &dirs, count)?;
        return Ok(MergeReport {
            dir: dir.to_path_buf(),
            shards: found.len(),
            cells: run.outcomes.len(),
            audit: Some(run),
        });
    }

    // Opening a shard's store takes its lock (a shard still running is an error) and
    // compacts its journal.
    let mut by_key: HashMap<String, CellRecord> = HashMap::new();
    for (path, _) in &found {
        let store =
            Store::open(path).with_context(|| format!("cannot open shard {}", path.display()))?;
        for r in store.rows() {
            by_key.entry(r.key.clone()).or_insert_with(|| r.clone());
        }
    }
    let cells = expand(&cfg);
    let owner = shard::assign(&cfg, &cells, count);
    let missing: Vec<(usize, String)> = cells
        .iter()
        .zip(&owner)
        .filter(|(c, _)| by_key.get(&c.key()).is_none_or(|r| r.seed != c.seed))
        .map(|(c, &s)| {
            (
                s,
                format!("{} ε={} trial={} (shard {s})", c.method, c.epsilon, c.trial),
            )
        })
        .collect();
    if !missing.is_empty() {
        let owing: BTreeSet<usize> = missing.iter().map(|m| m.0).collect();
        let list: Vec<String> = owing.iter().map(|s| s.to_string()).collect();
        let examples: Vec<&str> = missing.iter().take(5).map(|m| m.1.as_str()).collect();
        anyhow::bail!(
            "{} of {} cells are missing, owed by shard(s) {} of {count}: {}{}; rerun those \
             shards (`dp-bench run CONFIG --shard I/{count} --out {}`, or under Slurm \
             `sbatch --array={} {}/slurm/array.sh`), then merge again; nothing was written",
            missing.len(),
            cells.len(),
            list.join(", "),
            examples.join("; "),
            if missing.len() > examples.len() {
                ", …"
            } else {
                ""
            },
            dir.display(),
            list.join(","),
            dir.display()
        );
    }

    // Each shard's run checked its cells against their targets; a cell changed since is
    // refused here, before anything is written.
    for c in &cells {
        if let Some(r) = by_key.get(&c.key()) {
            crate::experiment::certified::check(&cfg, r)
                .with_context(|| format!("merging the shards of {}", dir.display()))?;
        }
    }
    let mut store = Store::open(dir)?;
    // A folder that holds an older run of another version of the config keeps those cells
    // apart: the merged summary counts this config's cells only.
    runner::set_aside_stale(&mut store, &cells, dir)?;
    for c in &cells {
        if !store.contains(&c.key()) {
            let row = by_key.remove(&c.key()).expect("checked above");
            store.append(row)?;
        }
    }
    store.compact()?;
    report::write_config_copy(dir, &cfg)?;
    runner::finish(&cfg, dir, store.rows(), &found[0].1.dataset_label)?;
    Provenance::here(
        &format!("merge of {} shards", found.len()),
        start.elapsed().as_secs_f64(),
        &cfg.dataset.name,
    )
    .write(dir)?;
    Ok(MergeReport {
        dir: dir.to_path_buf(),
        shards: found.len(),
        cells: cells.len(),
        audit: None,
    })
}

/// Where a study's results are, if `dir` holds a study rather than shards: a study runs
/// whole, in shard 0, straight into its results folder, so there is never anything to merge.
pub fn study_results(dir: &Path) -> Option<String> {
    // Both written by the study runner (`pareto::points::PointLog`) before its first point.
    let (fingerprint, log) = (dir.join("study.json"), dir.join("points.jsonl"));
    if dir.join(SHARDS_DIR).is_dir() || !(fingerprint.is_file() || log.is_file()) {
        return None;
    }
    let files: Vec<&str> = ["points.csv", "front.csv", "hv.csv"]
        .into_iter()
        .filter(|f| dir.join(f).is_file())
        .collect();
    let intro = format!(
        "{} holds a study (DPareto, random or grid search), which runs whole in one process: \
         it has no shards and nothing to merge",
        dir.display()
    );
    Some(if files.is_empty() {
        format!(
            "{intro}; it has not written its results yet (its points so far are in {}): \
             rerun `dp-bench run CONFIG --out {}` to resume it",
            log.display(),
            dir.display()
        )
    } else {
        format!(
            "{intro}; its results are {} in {}",
            files.join(", "),
            dir.display()
        )
    })
}

/// The shard folders of `dir` with their descriptions, in name order.
fn shard_dirs(dir: &Path) -> anyhow::Result<Vec<(PathBuf, ShardInfo)>> {
    let root = dir.join(SHARDS_DIR);
    let entries = std::fs::read_dir(&root).map_err(|e| {
        anyhow::anyhow!(
            "no shards to merge in {} ({e}): run `dp-bench run CONFIG --shard I/N --out {}` \
             for every I first",
            root.display(),
            dir.display()
        )
    })?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        // A shard that never got past loading its data has no description yet: it owes all
        // of its cells, which the check of missing cells reports.
        if d.join(shard::SHARD_FILE).exists() {
            let info = shard::read_info(&d)?;
            out.push((d, info));
        }
    }
    if out.is_empty() {
        anyhow::bail!(
            "no shards to merge in {}: run `dp-bench run CONFIG --shard I/N --out {}` first",
            root.display(),
            dir.display()
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_study_folder_has_nothing_to_merge_and_says_where_its_results_are() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("study.json"), "{}").unwrap();
        std::fs::write(d.join("points.jsonl"), "{}\n{}\n").unwrap();
        let unfinished = merge(d).unwrap_err().to_string();
        assert!(unfinished.contains("nothing to merge"), "{unfinished}");
        assert!(
            unfinished.contains("not written its results yet")
                && unfinished.contains(&format!("dp-bench run CONFIG --out {}", d.display())),
            "{unfinished}"
        );
        for f in ["points.csv", "front.csv", "hv.csv"] {
            std::fs::write(d.join(f), "x\n").unwrap();
        }
        let done = merge(d).unwrap_err().to_string();
        assert!(
            done.contains("holds a study")
                && done.contains("nothing to merge")
                && done.contains(&format!(
                    "its results are points.csv, front.csv, hv.csv in {}",
                    d.display()
                )),
            "{done}"
        );
        assert!(!done.contains("--shard"), "{done}");
        assert_eq!(study_results(d), Some(done));
        assert_eq!(std::fs::read_dir(d).unwrap().count(), 5, "nothing written");
    }

    #[test]
    fn a_folder_without_shards_or_study_still_asks_for_the_shards() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(study_results(dir.path()), None);
        let e = merge(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("no shards to merge") && e.contains("--shard I/N"),
            "{e}"
        );
    }
}
