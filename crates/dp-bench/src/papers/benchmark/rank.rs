//! From loaded runs to ranks: per (dataset, ε) cell by mean accuracy, with the Holm-corrected
//! comparison against the best as an annotation; and over datasets, on the (dataset, ε) cells
//! where every learner of a set has a ranked result, with Friedman's test and the Nemenyi CD.
//! Cells of one dataset share a split and are not independent blocks (Demšar 2006, §1
//! "Independence"), so a block is a dataset: a learner's rank on it is its mean rank over the
//! dataset's cells of the set, and its average rank is the mean over the blocks. The average
//! ranks and Friedman's test use the same blocks.

use std::collections::{BTreeMap, BTreeSet};

use super::cell_stats::{VsBest, versus_best};
use super::load::{Entry, Role, Run};
use super::stats::{Friedman, friedman, mean_ranks, nemenyi_cd};

/// A ranked learner's place in one (dataset, ε) cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellRank {
    /// Rank by mean accuracy among the cell's ranked results, 1 the highest (exact ties share
    /// the mean of their positions).
    pub rank: f64,
    /// Against the best of the cell (Holm-corrected one-sided Welch, α = 0.05).
    pub vs_best: VsBest,
}

/// The entries of `run` at `eps` that are ranked: honest on the ranking axis, with a result.
pub fn ranked_at(run: &Run, eps: f64) -> impl Iterator<Item = &Entry> {
    run.entries
        .iter()
        .filter(move |e| e.epsilon == eps && e.role == Role::Ranked)
        .filter(|e| e.unranked_reason().is_none())
}

/// Ranks of every ranked result of one run, by (ε bits, learner); `only` restricts the
/// learners ranked (a set compared over datasets) and keeps only the cells where all of them
/// have a result, so that every cell ranks the same learners; `None` ranks all, cell by cell.
pub fn rank_run(run: &Run, only: Option<&BTreeSet<String>>) -> BTreeMap<(u64, String), CellRank> {
    let mut out = BTreeMap::new();
    for &eps in &run.epsilons {
        let ranked: Vec<&Entry> = ranked_at(run, eps)
            .filter(|e| only.is_none_or(|o| o.contains(&e.learner)))
            .collect();
        if ranked.is_empty() || only.is_some_and(|o| ranked.len() < o.len()) {
            continue;
        }
        // Welch needs the trials; an entry whose trials are not all finite has its mean alone.
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
        let means: Vec<f64> = ranked.iter().map(|e| e.mean).collect();
        let ranks = mean_ranks(&means);
        let vs = versus_best(&means, &samples);
        for (i, e) in ranked.iter().enumerate() {
            out.insert(
                (eps.to_bits(), e.learner.clone()),
                CellRank {
                    rank: ranks[i],
                    vs_best: vs[i],
                },
            );
        }
    }
    out
}

/// A comparison over a set of datasets.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// The datasets (run stems) it covers.
    pub runs: Vec<String>,
    /// The learners compared: every ranked learner with a ranked result on each of `runs`,
    /// with its average rank over the blocks, best first.
    pub learners: Vec<(String, f64)>,
    /// The (dataset, ε) cells where all of them have a ranked result, by run stem (datasets
    /// without such a cell are no block and are left out).
    pub cells: Vec<(String, Vec<f64>)>,
    /// Friedman and Iman–Davenport over the blocks (None: fewer than two blocks or learners).
    pub friedman: Option<Friedman>,
    /// Nemenyi CD at α = 0.05 (None beyond k = 12 or without a test).
    pub cd: Option<f64>,
}

/// The comparison of the learners ranked on every one of `runs`.
pub fn view(runs: &[&Run]) -> View {
    let mut present: BTreeMap<String, usize> = BTreeMap::new();
    for run in runs {
        let mine: BTreeSet<String> = run
            .epsilons
            .iter()
            .flat_map(|&eps| ranked_at(run, eps).map(|e| e.learner.clone()))
            .collect();
        for l in mine {
            *present.entry(l).or_default() += 1;
        }
    }
    let set: BTreeSet<String> = present
        .into_iter()
        .filter(|(_, n)| *n == runs.len())
        .map(|(l, _)| l)
        .collect();
    let mut blocks: Vec<Vec<f64>> = Vec::new();
    let mut cells = Vec::new();
    for run in runs {
        let ranks = rank_run(run, Some(&set));
        if set.is_empty() || ranks.is_empty() {
            continue;
        }
        let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
        let mut eps: Vec<f64> = Vec::new();
        for ((bits, l), r) in &ranks {
            let s = sums.entry(l.as_str()).or_default();
            s.0 += r.rank;
            s.1 += 1;
            eps.push(f64::from_bits(*bits));
        }
        eps.sort_by(f64::total_cmp);
        eps.dedup();
        blocks.push(
            set.iter()
                .map(|l| sums[l.as_str()].0 / sums[l.as_str()].1 as f64)
                .collect(),
        );
        cells.push((run.stem.clone(), eps));
    }
    let mut learners: Vec<(String, f64)> = set
        .iter()
        .enumerate()
        .filter(|_| !blocks.is_empty())
        .map(|(j, l)| {
            let mean = blocks.iter().map(|b| b[j]).sum::<f64>() / blocks.len() as f64;
            (l.clone(), mean)
        })
        .collect();
    learners.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let friedman = friedman(&blocks);
    View {
        runs: runs.iter().map(|r| r.stem.clone()).collect(),
        learners,
        cells,
        friedman,
        cd: friedman.and_then(|f| nemenyi_cd(f.k, f.n)),
    }
}

/// The comparisons over datasets.
#[derive(Clone, Debug)]
pub struct Overall {
    /// Over every dataset.
    pub all: View,
    /// Over the binary datasets (configs without `dataset.one_vs_all = true`).
    pub binary: View,
}

/// Both views over `runs`.
pub fn overall(runs: &[Run]) -> Overall {
    let all: Vec<&Run> = runs.iter().collect();
    let binary: Vec<&Run> = runs.iter().filter(|r| r.binary).collect();
    Overall {
        all: view(&all),
        binary: view(&binary),
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
                matches!(h.role, Role::Ranked | Role::OffAxis)
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
