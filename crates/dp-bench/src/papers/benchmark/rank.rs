//! From loaded runs to ranks: per (dataset, ε) cell, per dataset (the mean over its ε-cells,
//! since cells of one dataset share a split and are not independent blocks, §1
//! "Independence"), and over datasets with Friedman's test and the Nemenyi CD.

use std::collections::{BTreeMap, BTreeSet};

use super::load::{Entry, Role, Run};
use super::stats::{Friedman, cell_ranks, friedman, nemenyi_cd, tied_with_best};

/// A ranked learner's place in one (dataset, ε) cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellRank {
    /// Mean rank among the cell's ranked results (ties share the mean of their positions).
    pub rank: f64,
    /// Not significantly worse than the best of the cell (one-sided Welch, α = 0.05).
    pub tied_with_best: bool,
}

/// Ranks of every ranked result of one run, by (ε bits, learner); `only` restricts the
/// learners ranked (the Friedman set) and keeps only the cells where all of them have a
/// result, so that every block ranks the same learners; `None` ranks all, cell by cell.
pub fn rank_run(run: &Run, only: Option<&BTreeSet<String>>) -> BTreeMap<(u64, String), CellRank> {
    let mut out = BTreeMap::new();
    for &eps in &run.epsilons {
        let ranked: Vec<&Entry> = run
            .entries
            .iter()
            .filter(|e| e.epsilon == eps && e.role == Role::Ranked)
            .filter(|e| e.unranked_reason().is_none())
            .filter(|e| only.is_none_or(|o| o.contains(&e.learner)))
            .collect();
        if only.is_some_and(|o| ranked.len() < o.len()) {
            continue;
        }
        // Welch needs the trials; a summary without cells falls back to its mean alone.
        let samples: Vec<Vec<f64>> = ranked
            .iter()
            .map(|e| {
                if e.accuracies.iter().all(|a| a.is_finite()) && !e.accuracies.is_empty() {
                    e.accuracies.clone()
                } else {
                    vec![e.mean]
                }
            })
            .collect();
        let ranks = cell_ranks(&samples);
        let tied = tied_with_best(&samples);
        for (i, e) in ranked.iter().enumerate() {
            out.insert(
                (eps.to_bits(), e.learner.clone()),
                CellRank {
                    rank: ranks[i],
                    tied_with_best: tied[i],
                },
            );
        }
    }
    out
}

/// Each learner's mean rank over the ε-cells of one run where it has a ranked result.
pub fn dataset_ranks(run: &Run, only: Option<&BTreeSet<String>>) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for ((_, learner), r) in rank_run(run, only) {
        let s = sums.entry(learner).or_default();
        s.0 += r.rank;
        s.1 += 1;
    }
    sums.into_iter()
        .map(|(l, (s, n))| (l, s / n as f64))
        .collect()
}

/// The comparison over datasets.
#[derive(Clone, Debug)]
pub struct Overall {
    /// Every ranked learner: its mean over the datasets where it ran of its dataset rank, and
    /// how many datasets that is.
    pub average: Vec<(String, f64, usize)>,
    /// The learners with a ranked result on every dataset, which Friedman's test compares
    /// (re-ranked among themselves on the ε-cells where all of them have a result), with
    /// their mean ranks over those blocks, best first.
    pub complete: Vec<(String, f64)>,
    /// Friedman and Iman–Davenport over `complete` (None: fewer than two of either).
    pub friedman: Option<Friedman>,
    /// Nemenyi CD at α = 0.05 for `complete` (None beyond k = 12 or without a test).
    pub cd: Option<f64>,
}

/// Ranks over all runs.
pub fn overall(runs: &[Run]) -> Overall {
    let per_run: Vec<BTreeMap<String, f64>> = runs.iter().map(|r| dataset_ranks(r, None)).collect();
    let mut all: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for ranks in &per_run {
        for (l, r) in ranks {
            all.entry(l.clone()).or_default().push(*r);
        }
    }
    let mut average: Vec<(String, f64, usize)> = all
        .iter()
        .map(|(l, rs)| {
            (
                l.clone(),
                rs.iter().sum::<f64>() / rs.len() as f64,
                rs.len(),
            )
        })
        .collect();
    average.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let every: BTreeSet<String> = all
        .iter()
        .filter(|(_, rs)| rs.len() == runs.len())
        .map(|(l, _)| l.clone())
        .collect();
    // A dataset without one ε-cell where all of them have a result is no block.
    let table: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| dataset_ranks(r, Some(&every)))
        .filter(|ranks| !ranks.is_empty())
        .map(|ranks| every.iter().map(|l| ranks[l]).collect())
        .collect();
    let friedman = friedman(&table);
    let mut complete: Vec<(String, f64)> = every
        .iter()
        .enumerate()
        .map(|(j, l)| {
            let mean = table.iter().map(|b| b[j]).sum::<f64>() / table.len().max(1) as f64;
            (l.clone(), mean)
        })
        .collect();
    complete.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let cd = friedman.and_then(|f| nemenyi_cd(f.k, f.n));
    Overall {
        average,
        complete,
        friedman,
        cd,
    }
}

/// How far honest tuning moves each learner: over the (dataset, ε) cells where both its
/// dishonest (best of grid) and honest entries are results, dishonest minus honest mean
/// accuracy (points), as (base learner, mean gap, largest gap, cells).
pub fn tuning_gaps(runs: &[Run]) -> Vec<(String, f64, f64, usize)> {
    let mut gaps: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for run in runs {
        for d in run.entries.iter().filter(|e| e.role == Role::Dishonest) {
            let honest = run.entries.iter().find(|h| {
                h.role == Role::Ranked
                    && h.base == d.base
                    && h.epsilon == d.epsilon
                    && h.unranked_reason().is_none()
            });
            if let Some(h) = honest.filter(|_| d.unranked_reason().is_none()) {
                gaps.entry(d.base.clone())
                    .or_default()
                    .push(d.mean - h.mean);
            }
        }
    }
    gaps.into_iter()
        .map(|(l, g)| {
            let mean = g.iter().sum::<f64>() / g.len() as f64;
            let max = g.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (l, mean, max, g.len())
        })
        .collect()
}

/// The median wall time of one cell (ms) of every learner, over all runs.
pub fn median_wall_ms(runs: &[Run]) -> BTreeMap<String, f64> {
    let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for e in runs.iter().flat_map(|r| &r.entries) {
        times
            .entry(e.learner.clone())
            .or_default()
            .extend(e.wall_ms.iter().copied().filter(|t| t.is_finite()));
    }
    times
        .into_iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(l, mut t)| {
            t.sort_by(f64::total_cmp);
            let m = t.len() / 2;
            let median = if t.len() % 2 == 1 {
                t[m]
            } else {
                (t[m - 1] + t[m]) / 2.0
            };
            (l, median)
        })
        .collect()
}
