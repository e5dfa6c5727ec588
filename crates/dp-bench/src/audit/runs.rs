//! The runs of an audit, whole or one shard's block of them, and their merge.
//!
//! Run `i` on side `s` of an audit is seeded by (config seed, method, ε, s, i) alone, so a
//! block of runs computed in one process is the same block computed in another, and the
//! blocks of every shard, concatenated in run order, are the runs one process makes: the
//! merged outcome is the single-process outcome (only its wall time, the sum of the shards',
//! differs). A shard writes its block to `shards/I-of-N/runs/NAME@ε.json`.

use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::one::Outcome;
use crate::experiment::shard::Shard;
use crate::files::write_text_atomic;

/// Which runs an audit makes now ([`super::one::audit`], [`super::white_box::audit`]).
pub enum Step {
    /// Every run, then the outcome.
    Whole,
    /// The runs with these indices on each side (a shard's block), and no outcome.
    Block(Range<u64>),
    /// No run: the outcome of runs made elsewhere (every shard's block, merged).
    Merged(Runs),
}

/// What an audit's step gave.
pub enum Done {
    /// The outcome and every run's score on D and on D′.
    Outcome(Box<Outcome>, [Vec<f64>; 2]),
    /// A block of runs.
    Part(Runs),
}

/// A block of an audit's runs: what the outcome needs of them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Runs {
    /// The fingerprint of the audit the runs belong to.
    pub fingerprint: String,
    /// Index of the first run on each side.
    pub first: u64,
    /// Each run's score on D, then on D′.
    pub scores: [Vec<f64>; 2],
    /// Runs that released nothing, on D and on D′.
    pub failures: [u64; 2],
    /// The largest ε certified for what the runs released (the mechanism's event and every
    /// other event a run reported); ∞ (`null`) when nothing is certified.
    #[serde(with = "super::one::infinite_as_null")]
    pub certified: f64,
    /// Wall time of the runs, seconds.
    pub seconds: f64,
}

impl Runs {
    /// The indices of the runs held.
    pub fn range(&self) -> Range<u64> {
        self.first..self.first + self.scores[0].len() as u64
    }
}

/// `run(seed)` for every run index of `range` in parallel, in index order: run i's seed is
/// derived from `key` and i alone, so any block gives the same runs wherever it is computed.
pub fn each<T: Send>(
    range: Range<u64>,
    key: &[&[u8]],
    progress: &indicatif::ProgressBar,
    run: impl Fn(u64) -> T + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    range
        .into_par_iter()
        .map(|i| {
            let mut parts = key.to_vec();
            let index = i.to_le_bytes();
            parts.push(&index);
            let out = run(dp_core::seed::derive_seed(&parts));
            progress.inc(1);
            out
        })
        .collect()
}

/// The block of `total` runs per side that shard `s` makes: contiguous, in shard order, sizes
/// differing by at most one.
pub fn block(total: u64, s: Shard) -> Range<u64> {
    let at = |i: usize| total * i as u64 / s.count as u64;
    at(s.index)..at(s.index + 1)
}

/// The file of an audit's runs in a shard's folder.
pub fn path(shard_dir: &Path, name: &str, epsilon: f64) -> std::path::PathBuf {
    shard_dir
        .join("runs")
        .join(format!("{name}@{epsilon}.json"))
}

/// Writes a block atomically.
pub fn write(path: &Path, runs: &Runs) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    write_text_atomic(path, &serde_json::to_string(runs)?)
}

/// A stored block, if it is whole, of the audit `fingerprint`, and exactly `range` when given.
pub fn stored(path: &Path, fingerprint: &str, range: Option<&Range<u64>>) -> Option<Runs> {
    let text = std::fs::read_to_string(path).ok()?;
    let r: Runs = serde_json::from_str(&text).ok()?;
    let sane = r.fingerprint == fingerprint
        && r.scores[0].len() == r.scores[1].len()
        && r.failures.iter().all(|&f| f <= r.scores[0].len() as u64)
        && r.certified >= 0.0
        && range.is_none_or(|want| r.range() == *want);
    sane.then_some(r)
}

/// The blocks of one audit joined in run order, if they cover `0..total` exactly; else the
/// ranges of runs missing.
pub fn concat(mut parts: Vec<Runs>, total: u64) -> Result<Runs, Vec<Range<u64>>> {
    parts.sort_by_key(|p| p.first);
    let mut missing = Vec::new();
    let mut next = 0;
    let mut kept: Vec<Runs> = Vec::new();
    for p in parts {
        let r = p.range();
        if r.start > next {
            missing.push(next..r.start);
        }
        // Blocks of one split never overlap; a block of another split does, and is not used.
        if r.start >= next && r.end <= total && !r.is_empty() {
            next = r.end;
            kept.push(p);
        }
    }
    if next < total {
        missing.push(next..total);
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let fingerprint = kept
        .first()
        .map(|p| p.fingerprint.clone())
        .unwrap_or_default();
    let mut whole = Runs {
        fingerprint,
        first: 0,
        scores: [Vec::new(), Vec::new()],
        failures: [0, 0],
        certified: 0.0,
        seconds: 0.0,
    };
    for p in kept {
        for side in 0..2 {
            whole.scores[side].extend_from_slice(&p.scores[side]);
            whole.failures[side] += p.failures[side];
        }
        whole.certified = whole.certified.max(p.certified);
        whole.seconds += p.seconds;
    }
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(first: u64, n: usize) -> Runs {
        Runs {
            fingerprint: "f".into(),
            first,
            scores: [
                (0..n).map(|i| (first as usize + i) as f64).collect(),
                (0..n).map(|i| -((first as usize + i) as f64)).collect(),
            ],
            failures: [1, 0],
            certified: first as f64,
            seconds: 1.0,
        }
    }

    /// Blocks of any split cover every run once, in order; their concatenation is the runs
    /// in order, with failures summed and the largest certificate; a gap is named.
    #[test]
    fn blocks_cover_every_run_once_and_join_in_order() {
        for total in [0u64, 1, 7, 100] {
            for count in 1..=9 {
                let blocks: Vec<_> = (0..count)
                    .map(|index| block(total, Shard { index, count }))
                    .collect();
                assert_eq!(blocks[0].start, 0);
                assert_eq!(blocks[count - 1].end, total);
                assert!(blocks.windows(2).all(|w| w[0].end == w[1].start));
                let sizes: Vec<u64> = blocks.iter().map(|b| b.end - b.start).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            }
        }
        let whole = concat(vec![part(4, 6), part(0, 4)], 10).unwrap();
        assert_eq!(
            whole.scores[0],
            (0..10).map(|i| i as f64).collect::<Vec<_>>()
        );
        assert_eq!(
            (whole.failures, whole.certified, whole.seconds),
            ([2, 0], 4.0, 2.0)
        );
        assert_eq!(
            concat(vec![part(0, 4), part(6, 4)], 10).unwrap_err(),
            vec![4..6]
        );
        assert_eq!(concat(vec![part(0, 4)], 10).unwrap_err(), vec![4..10]);
    }

    /// A stored block round-trips exactly (scores are compared bit for bit after the merge)
    /// and is refused when it belongs to another audit or block, or is damaged.
    #[test]
    fn stored_blocks_round_trip_and_reject_foreign_ones() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path(), "m", 1.0);
        let mut r = part(3, 5);
        r.scores[0][1] = 0.1 + 0.2;
        r.certified = f64::INFINITY;
        write(&p, &r).unwrap();
        assert_eq!(stored(&p, "f", Some(&(3..8))), Some(r.clone()));
        assert_eq!(stored(&p, "f", None), Some(r));
        assert_eq!(stored(&p, "g", None), None);
        assert_eq!(stored(&p, "f", Some(&(0..5))), None);
        std::fs::write(&p, "{").unwrap();
        assert_eq!(stored(&p, "f", None), None);
    }
}
