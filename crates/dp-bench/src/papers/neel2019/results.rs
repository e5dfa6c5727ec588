//! One run's cells grouped per (method, ε) with what Figure 1 and its table need: mean and
//! std of the released accuracy, how many runs the MIP solver proved optimal, the ε this
//! project's accountants certify (accounted) apart from an ε a paper states that none checks,
//! solver work and solve times. Methods are labelled from their tables in the run's
//! `config.toml` copy, read as a `Config` (kind and `Method::protocol`), not their names.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;

use crate::experiment::record::CellRecord;
use crate::experiment::verified;

/// One (method, ε) of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Display name (kind and calibration in words).
    pub method: String,
    /// Method kind.
    pub kind: String,
    /// `paper`, `chi`, `authors-code`, or `-`.
    pub calibration: String,
    /// ε of the cells.
    pub epsilon: f64,
    /// Training rows.
    pub n: usize,
    /// Mean accuracy (percent) of what was released (the summary's: dishonest DP-SGD reports
    /// its best grid point).
    pub mean_accuracy: f64,
    /// Std over runs (ddof 0).
    pub std: f64,
    /// Runs.
    pub runs: usize,
    /// Fraction of runs whose MIP solver proved the argmin optimal (NaN for methods without a
    /// solver). A precondition of the MIP methods' guarantees, not a privacy guarantee.
    pub solver_certified: f64,
    /// Runs whose MIP solver proved optimality (0 without a solver).
    pub solver_certified_runs: usize,
    /// Median branch-and-bound nodes of the oracle's solves (NaN without an oracle).
    pub median_nodes: f64,
    /// Median seconds of a run (the MIP solve for oracle methods, the cell's wall time else).
    pub median_seconds: f64,
    /// Every run's seconds (the run-time histogram).
    pub seconds: Vec<f64>,
    /// Mean accuracy the oracle's answers would have had had every one been released,
    /// timeouts' incumbents included (no guarantee; NaN for methods without an oracle).
    pub incumbent_accuracy: f64,
    /// Largest ε this project's accountants certify over all runs (∞ as soon as one run has no
    /// accounted guarantee): the summary's `epsilon_certified` column.
    pub epsilon_accounted: f64,
    /// Largest accounted ε over the runs that can carry a guarantee, the solver-certified runs
    /// of a MIP method and every run of the others (∞ when none is accounted): read with
    /// `solver_certified_runs`, what a reader of one release may rely on.
    pub epsilon_accounted_solved: f64,
    /// Largest ε a paper states for a method and no accountant here checks (RSPM: NRW18's),
    /// over the solver-certified runs (NaN when nothing is stated).
    pub epsilon_stated: f64,
    /// A deterministic non-private reference line (one run, ε-free).
    pub reference: bool,
}

/// Display name of a method kind and calibration.
pub fn display(kind: &str, calibration: &str) -> String {
    match (kind, calibration) {
        ("opdisc", "chi") => "OPDisc (χ-certified σ)".into(),
        ("opdisc", "authors-code") => "OPDisc (authors' code σ/2: not private)".into(),
        ("opdisc", _) => "OPDisc (paper σ)".into(),
        ("rspm", _) => "RSPM (ε as stated by NRW18)".into(),
        ("opsamp", _) => "OPSamp (theory only)".into(),
        ("dpsgd", _) => "private LR (DP-SGD; best of grid)".into(),
        ("logreg_erm", _) => "non-private LR".into(),
        ("zero_one_erm", _) => "non-private 0/1 optimum".into(),
        (k, _) => k.into(),
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Seconds of one run: the cell's wall time (from `timings.csv`), or the oracle's solve time
/// in runs made before solve times moved out of the cell table.
fn seconds(c: &CellRecord) -> f64 {
    let s = c.detail("solve_seconds");
    if s.is_finite() { s } else { c.wall_ms / 1e3 }
}

/// Whether the cell's MIP solver proved optimality; `None` for methods without a solver. Cells
/// written before the detail was named `solver_certified` call it `certified`.
fn solver_certified(c: &CellRecord) -> Option<bool> {
    ["solver_certified", "certified"]
        .iter()
        .find_map(|k| c.details.get(*k))
        .and_then(serde_json::Value::as_bool)
}

/// A run's privacy guarantee: accounted (∞: none) and stated but not accounted (NaN: none).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Guarantee {
    accounted: f64,
    stated: f64,
}

/// The guarantee `c` records. RSPM cells written before NRW18's ε moved to the `epsilon_stated`
/// detail recorded it as accounted: read as what it is, stated.
fn guarantee(c: &CellRecord, kind: &str) -> Guarantee {
    let stated = c.detail("epsilon_stated");
    if kind == "rspm" && stated.is_nan() && c.epsilon_accounted.is_finite() {
        return Guarantee {
            accounted: f64::INFINITY,
            stated: c.epsilon_accounted,
        };
    }
    Guarantee {
        accounted: c.epsilon_accounted,
        stated,
    }
}

/// The rows of the run in `dir`; `None` when it has no summary yet.
pub fn load(dir: &Path) -> anyhow::Result<Option<Vec<Row>>> {
    let summary = dir.join("summary.csv");
    if !summary.exists() {
        return Ok(None);
    }
    // The summary is recomputed from the checksummed cells: a summary.csv that differs from
    // them, or one without cells, is an error naming it.
    let verified::VerifiedRun {
        config: cfg,
        cells: all,
        rows: summary_rows,
    } = verified::load(dir)?;
    let n = cfg.dataset.subsample.unwrap_or(15_682);
    let mut cells: BTreeMap<(String, u64), Vec<CellRecord>> = BTreeMap::new();
    for c in all {
        cells
            .entry((c.method.clone(), c.epsilon.to_bits()))
            .or_default()
            .push(c);
    }
    let mut rows = Vec::new();
    for r in summary_rows {
        let (method, epsilon) = (r.method.clone(), r.epsilon);
        let spec = cfg.methods.get(&method).with_context(|| {
            format!(
                "{}: method {method:?} is not in the config beside it; re-run the config",
                summary.display()
            )
        })?;
        let kind = spec.kind.to_string();
        // Only the MIP learners' calibrations are columns of the paper's figure.
        let calibration = match kind.as_str() {
            "opdisc" | "rspm" => spec.method.protocol().calibration.unwrap_or("paper"),
            _ => "-",
        }
        .to_string();
        let group = cells
            .get(&(method.clone(), epsilon.to_bits()))
            .map_or(&[][..], Vec::as_slice);
        let secs: Vec<f64> = group.iter().map(seconds).collect();
        let solver: Vec<Option<bool>> = group.iter().map(solver_certified).collect();
        let has_solver = solver.iter().any(Option::is_some);
        // The runs that can carry a guarantee: every run of a method without a solver.
        let solved: Vec<Guarantee> = group
            .iter()
            .zip(&solver)
            .filter(|(_, s)| **s != Some(false))
            .map(|(c, _)| guarantee(c, &kind))
            .collect();
        let solver_certified_runs = if has_solver { solved.len() } else { 0 };
        let solver_certified = if group.is_empty() || !has_solver {
            f64::NAN
        } else {
            solved.len() as f64 / group.len() as f64
        };
        let epsilon_accounted_solved = solved
            .iter()
            .map(|g| g.accounted)
            .fold(f64::NEG_INFINITY, f64::max);
        let epsilon_stated = solved
            .iter()
            .map(|g| g.stated)
            .filter(|e| !e.is_nan())
            .fold(f64::NAN, f64::max);
        let nodes: Vec<f64> = group.iter().map(|c| c.detail("nodes")).collect();
        let incumbents: Vec<f64> = group
            .iter()
            .map(|c| c.detail("incumbent_accuracy"))
            .filter(|a| a.is_finite())
            .collect();
        let incumbent_accuracy = if incumbents.is_empty() {
            f64::NAN
        } else {
            incumbents.iter().sum::<f64>() / incumbents.len() as f64
        };
        let kind_is_rspm = kind == "rspm";
        rows.push(Row {
            incumbent_accuracy,
            method: display(&kind, &calibration),
            reference: matches!(kind.as_str(), "logreg_erm" | "zero_one_erm"),
            kind,
            calibration,
            epsilon,
            n,
            mean_accuracy: r.mean_accuracy,
            std: r.std,
            runs: r.trials,
            solver_certified,
            solver_certified_runs,
            median_nodes: median(&nodes),
            median_seconds: median(&secs),
            seconds: secs,
            // NRW18's ε is never accounted; summaries written before it moved to the
            // `epsilon_stated` detail recorded it in this column.
            epsilon_accounted: if kind_is_rspm {
                f64::INFINITY
            } else {
                r.epsilon_certified
            },
            epsilon_accounted_solved: if epsilon_accounted_solved.is_finite() {
                epsilon_accounted_solved
            } else {
                f64::INFINITY
            },
            epsilon_stated,
        });
    }
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(kind: &str, epsilon_accounted: f64, details: serde_json::Value) -> CellRecord {
        CellRecord {
            method: kind.into(),
            kind: kind.into(),
            epsilon: 1.0,
            delta: 1e-6,
            trial: 0,
            seed: 0,
            accuracy: 60.0,
            epsilon_accounted,
            wall_ms: 1.0,
            key: String::new(),
            details,
        }
    }

    #[test]
    fn stated_epsilons_are_never_read_as_accounted() {
        // Today's RSPM cell, and one written when NRW18's ε was recorded as accounted.
        let new = cell(
            "rspm",
            f64::INFINITY,
            json!({"solver_certified": true, "epsilon_stated": 1.0}),
        );
        let old = cell("rspm", 1.0, json!({"certified": true}));
        for c in [&new, &old] {
            assert_eq!(solver_certified(c), Some(true));
            let g = guarantee(c, "rspm");
            assert_eq!((g.accounted, g.stated), (f64::INFINITY, 1.0));
        }
        let opdisc = cell("opdisc", 1.2, json!({"solver_certified": false}));
        assert_eq!(solver_certified(&opdisc), Some(false));
        let g = guarantee(&opdisc, "opdisc");
        assert!(g.accounted == 1.2 && g.stated.is_nan());
        // No solver (OPSamp, DP-SGD): no solver status at all, not "certified".
        assert_eq!(
            solver_certified(&cell("opsamp", f64::INFINITY, json!({}))),
            None
        );
    }
}
