//! Figure 1: left, in-sample accuracy against ε (mean ± std over runs) for OPDisc, RSPM and
//! private LR, with the non-private optima as dashed lines; right, the run-time histograms
//! per method (the cell's wall time: for the MIP methods, about the oracle's solve). Plus
//! `table.md`: the per-(method, ε) table with the runs the MIP solver proved optimal, the ε
//! accounted for those runs, an ε stated but not accounted, the solver's work in nodes and the
//! median time.

use std::path::Path;

use super::results::Row;
use crate::figures::csv::LongCsv;
use crate::figures::{Outcome, save};
use crate::files::write_text_atomic;
use crate::plot::{Figure, Panel, Series};

/// Histogram bins per decade of seconds.
const BINS_PER_DECADE: f64 = 4.0;

/// Writes `<stem>.{png,svg,csv}` for one run's rows; `title` names the run.
pub fn write(out: &Path, stem: &str, rows: &[Row], title: &str) -> anyhow::Result<Outcome> {
    // "Certified" alone named two things: the solver's proof of optimality and a privacy
    // guarantee. Each column now says which; `epsilon_accounted*` hold only ε this project's
    // accountants certify, `epsilon_stated` an ε a paper states that none checks (RSPM).
    let mut csv = LongCsv::new(&[
        "method",
        "epsilon",
        "n",
        "calibration",
        "mean_accuracy",
        "std",
        "runs",
        "solver_certified",
        "median_seconds",
        "incumbent_accuracy",
        "epsilon_accounted",
        "solver_certified_runs",
        "epsilon_accounted_solved",
        "median_nodes",
        "epsilon_stated",
    ]);
    for r in rows {
        csv.push(vec![
            r.method.clone().into(),
            r.epsilon.into(),
            (r.n as u64).into(),
            r.calibration.clone().into(),
            r.mean_accuracy.into(),
            r.std.into(),
            (r.runs as u64).into(),
            r.solver_certified.into(),
            r.median_seconds.into(),
            r.incumbent_accuracy.into(),
            r.epsilon_accounted.into(),
            (r.solver_certified_runs as u64).into(),
            r.epsilon_accounted_solved.into(),
            r.median_nodes.into(),
            r.epsilon_stated.into(),
        ])?;
    }
    let methods = method_order(rows);
    let (lo, hi) = rows
        .iter()
        .filter(|r| !r.reference)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            (lo.min(r.epsilon), hi.max(r.epsilon))
        });
    let mut accuracy = Vec::new();
    let mut incumbents = Vec::new();
    for m in &methods {
        let mut pts: Vec<&Row> = rows.iter().filter(|r| &r.method == m).collect();
        pts.sort_by(|a, b| a.epsilon.total_cmp(&b.epsilon));
        let reference = pts.iter().any(|r| r.reference);
        let (points, err) = if reference {
            let a = pts[0].mean_accuracy;
            (vec![(lo, a), (hi, a)], None)
        } else {
            (
                pts.iter().map(|r| (r.epsilon, r.mean_accuracy)).collect(),
                Some(pts.iter().map(|r| r.std).collect()),
            )
        };
        accuracy.push(Series {
            name: m.clone(),
            points,
            err,
            dashed: reference,
            dots: false,
            steps: false,
        });
        // What releasing every oracle answer, uncertified incumbents too, would have scored.
        // Every method appears in every panel (empty where it has nothing to show), so that
        // a method keeps its colour across panels.
        let oracle = pts.iter().all(|r| r.incumbent_accuracy.is_finite());
        let mut s = accuracy.last().expect("just pushed").clone();
        if !reference {
            s.points = if oracle {
                pts.iter()
                    .map(|r| (r.epsilon, r.incumbent_accuracy))
                    .collect()
            } else {
                Vec::new()
            };
            s.err = None;
        }
        incumbents.push(s);
    }
    let mut histogram = Vec::new();
    for m in &methods {
        let secs: Vec<f64> = rows
            .iter()
            .filter(|r| &r.method == m && !r.reference)
            .flat_map(|r| r.seconds.iter().copied())
            .filter(|s| *s > 0.0 && s.is_finite())
            .collect();
        histogram.push(Series::line(m.clone(), step_outline(&secs)));
    }
    let figure = Figure {
        title: format!("Figure 1 (Neel et al. 2019): {title}"),
        panels: vec![
            Panel {
                title: "released: in-sample accuracy (mean ± std; dashed: non-private)".into(),
                x_label: "ε".into(),
                y_label: "accuracy (%)".into(),
                log_x: true,
                log_y: false,
                series: accuracy,
                y_range: None,
            },
            Panel {
                title: "the same if every oracle answer were released (solver-uncertified: no DP)"
                    .into(),
                x_label: "ε".into(),
                y_label: "accuracy (%), mean over runs".into(),
                log_x: true,
                log_y: false,
                series: incumbents,
                y_range: None,
            },
            Panel {
                title: "run times over all ε (MIP: oracle solve; LR: whole grid)".into(),
                x_label: "seconds".into(),
                y_label: "runs per bin (4 bins per decade)".into(),
                log_x: true,
                log_y: false,
                series: histogram,
                y_range: None,
            },
        ],
        columns: 3,
    };
    let mut files = save(out, stem, &figure, &csv)?;
    let md = out.join(format!("{stem}-table.md"));
    write_text_atomic(&md, &markdown(rows, title))?;
    files.push(md);
    Ok(Outcome::Written(files))
}

/// Methods in a fixed order: private methods first, reference lines last.
fn method_order(rows: &[Row]) -> Vec<String> {
    let mut m: Vec<(bool, String)> = rows
        .iter()
        .map(|r| (r.reference, r.method.clone()))
        .collect();
    m.sort();
    m.dedup();
    m.into_iter().map(|(_, name)| name).collect()
}

/// A histogram of log10 seconds drawn as a closed step outline.
fn step_outline(secs: &[f64]) -> Vec<(f64, f64)> {
    if secs.is_empty() {
        return Vec::new();
    }
    let bin = |s: f64| (s.log10() * BINS_PER_DECADE).floor() as i64;
    let (lo, hi) = secs.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &s| {
        (lo.min(bin(s)), hi.max(bin(s)))
    });
    let mut counts = vec![0u32; (hi - lo + 1) as usize];
    for &s in secs {
        counts[(bin(s) - lo) as usize] += 1;
    }
    let edge = |k: i64| 10f64.powf(k as f64 / BINS_PER_DECADE);
    let mut pts = vec![(edge(lo), 0.0)];
    for (k, &c) in counts.iter().enumerate() {
        let k = lo + k as i64;
        pts.push((edge(k), f64::from(c)));
        pts.push((edge(k + 1), f64::from(c)));
    }
    pts.push((edge(hi + 1), 0.0));
    pts
}

/// The closing-note table: one line per (method, ε). The solver's proof of optimality and the
/// privacy guarantee are separate columns: a run the solver did not prove optimal is refused
/// (ε = ∞), so the accounted ε of a row is shown for its solver-certified runs beside how many
/// they are, instead of one refusal making the whole row ∞; an ε a paper states and no
/// accountant here checks has its own column.
pub fn markdown(rows: &[Row], title: &str) -> String {
    let mut s = format!(
        "# Neel et al. 2019, {title}\n\n| method | ε | n | accuracy (%) mean ± std | runs | solver proved optimal | ε accounted (those runs) | ε stated, not accounted | median nodes | median s |\n|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for m in method_order(rows) {
        let mut pts: Vec<&Row> = rows.iter().filter(|r| r.method == m).collect();
        pts.sort_by(|a, b| a.epsilon.total_cmp(&b.epsilon));
        for r in pts {
            let eps = if r.reference {
                "-".to_string()
            } else {
                format!("{}", r.epsilon)
            };
            let has_solver = !r.solver_certified.is_nan();
            let solver = if has_solver {
                format!(
                    "{:.0}% ({}/{})",
                    100.0 * r.solver_certified,
                    r.solver_certified_runs,
                    r.runs
                )
            } else {
                "- (no solver)".into()
            };
            let accounted = if has_solver && r.solver_certified_runs == 0 {
                "none released".to_string()
            } else if r.epsilon_accounted_solved.is_finite() {
                format!("{:.3}", r.epsilon_accounted_solved)
            } else {
                "∞".into()
            };
            let stated = if r.epsilon_stated.is_nan() {
                "-".to_string()
            } else {
                format!("{:.3}", r.epsilon_stated)
            };
            let nodes = if r.median_nodes.is_finite() {
                format!("{:.0}", r.median_nodes)
            } else {
                "-".into()
            };
            s.push_str(&format!(
                "| {} | {eps} | {} | {:.1} ± {:.1} | {} | {solver} | {accounted} | {stated} | {nodes} | {:.2} |\n",
                crate::quoting::md_cell(&r.method),
                r.n,
                r.mean_accuracy,
                r.std,
                r.runs,
                r.median_seconds,
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_outline_counts_every_run() {
        let pts = step_outline(&[0.5, 0.6, 3.0, 30.0]);
        // Each bin's top appears twice; their sum is twice the run count.
        let total: f64 = pts[1..pts.len() - 1].iter().map(|p| p.1).sum();
        assert_eq!(total, 8.0);
        assert!(pts.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(step_outline(&[]).is_empty());
    }

    fn row(solver_certified_runs: usize, epsilon_accounted_solved: f64) -> Row {
        Row {
            method: "OPDisc (paper σ)".into(),
            kind: "opdisc".into(),
            calibration: "paper".into(),
            epsilon: 1.326,
            n: 1000,
            mean_accuracy: 68.4,
            std: 7.7,
            runs: 15,
            solver_certified: solver_certified_runs as f64 / 15.0,
            solver_certified_runs,
            median_nodes: 412.0,
            median_seconds: 1.5,
            seconds: vec![1.5],
            incumbent_accuracy: 69.8,
            epsilon_accounted: f64::INFINITY,
            epsilon_accounted_solved,
            epsilon_stated: f64::NAN,
            reference: false,
        }
    }

    #[test]
    fn one_refused_run_does_not_hide_the_solved_runs_epsilon() {
        let md = markdown(&[row(13, 1.521)], "t");
        assert!(md.contains("| 87% (13/15) | 1.521 | - | 412 |"), "{md}");
        let md = markdown(&[row(0, f64::INFINITY)], "t");
        assert!(md.contains("| 0% (0/15) | none released | - |"), "{md}");
    }

    #[test]
    fn solver_proofs_and_privacy_guarantees_are_separate_columns() {
        // RSPM: every solve proved optimal, NRW18's ε stated, nothing accounted.
        let rspm = Row {
            method: "RSPM (ε as stated by NRW18)".into(),
            kind: "rspm".into(),
            epsilon_stated: 1.326,
            ..row(15, f64::INFINITY)
        };
        let md = markdown(&[rspm], "t");
        assert!(md.contains("| 100% (15/15) | ∞ | 1.326 |"), "{md}");
        // OPSamp: no solver, no guarantee; never "certified 100%".
        let opsamp = Row {
            method: "OPSamp (theory only)".into(),
            kind: "opsamp".into(),
            solver_certified: f64::NAN,
            median_nodes: f64::NAN,
            ..row(0, f64::INFINITY)
        };
        let md = markdown(&[opsamp], "t");
        assert!(md.contains("| - (no solver) | ∞ | - | - |"), "{md}");
        assert!(!md.contains("100%"), "{md}");
    }
}
