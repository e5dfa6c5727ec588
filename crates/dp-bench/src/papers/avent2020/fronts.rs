//! Figures 5–8: hypervolume against points evaluated, and Pareto fronts (ε, error) of
//! DPareto, random sampling and grid search, as step lines (each front point holds its error
//! until the next, larger ε). Hypervolumes are w.r.t. the paper's anti-ideal point (10, 1)
//! with ε on a linear axis; the fronts are drawn on a log ε axis for legibility.

use std::path::Path;

use dp_core::bo::pareto::{ANTI_IDEAL, Point2, hypervolume_curve, reported_front};

use super::runs::{Run, Runs};
use super::{MNIST_SETTINGS, SETTINGS};
use crate::figures::csv::LongCsv;
use crate::figures::{Outcome, save};
use crate::pareto::output::{ErrorOf, hypervolume, objectives};
use crate::plot::{Figure, Panel, Series};

/// Smallest ε drawn on the log axis (fronts start there).
const EPS_MIN: f64 = 1e-2;

/// A front as a step line on ε ∈ [EPS_MIN, 10].
fn staircase(front: &[Point2]) -> Vec<(f64, f64)> {
    staircase_in(front, EPS_MIN, ANTI_IDEAL.0)
}

/// A front as a step line on ε ∈ [lo, hi]: each point holds its error until the next ε.
pub fn staircase_in(front: &[Point2], lo: f64, hi: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let inside: Vec<Point2> = front.iter().copied().filter(|p| p.0 < hi).collect();
    for (i, &(e, err)) in inside.iter().enumerate() {
        if i > 0 {
            out.push((e.max(lo), inside[i - 1].1));
        }
        out.push((e.max(lo), err));
    }
    if let Some(&(_, err)) = inside.last() {
        out.push((hi, err));
    }
    out
}

fn front_of(run: &Run, which: ErrorOf) -> anyhow::Result<Vec<Point2>> {
    Ok(reported_front(&objectives(&run.points, which))?)
}

fn front_panel(title: String) -> Panel {
    Panel {
        title,
        x_label: "ε (δ = 1e-5)".into(),
        y_label: "classification error".into(),
        log_x: true,
        log_y: false,
        series: Vec::new(),
        y_range: Some((0.14, 0.30)),
    }
}

/// Adds `run`'s front to a panel and to the CSV.
fn add_front(
    panel: &mut Panel,
    csv: &mut LongCsv,
    setting: &str,
    name: String,
    run: &Run,
    which: ErrorOf,
) -> anyhow::Result<()> {
    let front = front_of(run, which)?;
    for &(e, err) in &front {
        csv.push(vec![
            setting.into(),
            name.as_str().into(),
            run.stem.as_str().into(),
            e.into(),
            err.into(),
        ])?;
    }
    panel.series.push(Series::steps(name, staircase(&front)));
    Ok(())
}

fn fronts_csv() -> LongCsv {
    LongCsv::new(&["setting", "series", "run", "epsilon", "error"])
}

fn skipped(what: &str, runs: &Runs, cmd: &str) -> Outcome {
    Outcome::Skipped(format!(
        "{what} skipped: no complete study under {}; run e.g. \
         `cargo run --release -p dp-bench -- configs/avent2020/{cmd}.toml --out {}`",
        runs.root().display(),
        runs.root().join(cmd).display()
    ))
}

/// Figure 5: HV against points (DPareto vs random sampling, same 16 seed points), and fronts.
pub fn fig5(out: &Path, runs: &Runs) -> anyhow::Result<Outcome> {
    let mut curves = Vec::new();
    let mut fronts = Vec::new();
    let mut csv = LongCsv::new(&["setting", "series", "run", "points", "hypervolume"]);
    for (setting, label) in SETTINGS {
        let mut panel = Panel {
            title: format!("Adult, {label}: hypervolume w.r.t. (10, 1)"),
            x_label: "points evaluated".into(),
            y_label: "hypervolume".into(),
            log_x: false,
            log_y: false,
            series: Vec::new(),
            y_range: None,
        };
        let mut fp = front_panel(format!("Adult, {label}: fronts"));
        let mut fcsv = fronts_csv();
        for (study, name) in [("dpareto", "DPareto"), ("random", "random sampling")] {
            let Some(run) = runs.get(setting, study) else {
                continue;
            };
            let curve = hypervolume_curve(&objectives(&run.points, ErrorOf::Mean), ANTI_IDEAL)?;
            for (i, v) in curve.iter().enumerate() {
                csv.push(vec![
                    (*setting).into(),
                    name.into(),
                    run.stem.as_str().into(),
                    (i as u64 + 1).into(),
                    (*v).into(),
                ])?;
            }
            let pts = curve
                .iter()
                .enumerate()
                .map(|(i, v)| ((i + 1) as f64, *v))
                .collect();
            panel.series.push(Series::line(run.label(name), pts));
            add_front(
                &mut fp,
                &mut fcsv,
                setting,
                run.label(name),
                run,
                ErrorOf::Mean,
            )?;
        }
        if !panel.series.is_empty() {
            curves.push(panel);
            fronts.push(fp);
        }
    }
    if curves.is_empty() {
        return Ok(skipped("Figure 5", runs, "adult-lr-sgd-dpareto-fast"));
    }
    let columns = curves.len();
    curves.extend(fronts);
    let fig = Figure {
        title: "Avent et al. 2020, Figure 5: DPareto vs random sampling on Adult (a1a), paper's privacy oracle (WOR RDP, classic conversion)".into(),
        panels: curves,
        columns,
    };
    Ok(Outcome::Written(save(out, "fig5", &fig, &csv)?))
}

/// Figure 6: DPareto against grid search (3⁵ and 4⁵ points).
pub fn fig6(out: &Path, runs: &Runs) -> anyhow::Result<Outcome> {
    let mut panels = Vec::new();
    let mut csv = fronts_csv();
    for (setting, label) in SETTINGS {
        let mut p = front_panel(format!("Adult, {label}: DPareto vs grid search"));
        for (study, name) in [
            ("dpareto", "DPareto"),
            ("grid3", "grid 3^5"),
            ("grid4", "grid 4^5"),
        ] {
            if let Some(run) = runs.get(setting, study) {
                let name = format!("{} HV {:.3}", run.label(name), hypervolume(&run.points)?);
                add_front(&mut p, &mut csv, setting, name, run, ErrorOf::Mean)?;
            }
        }
        if p.series.len() > 1 {
            panels.push(p);
        }
    }
    if panels.is_empty() {
        return Ok(skipped("Figure 6", runs, "adult-lr-sgd-grid3"));
    }
    let fig = Figure {
        title: "Avent et al. 2020, Figure 6: DPareto vs grid search on Adult (a1a)".into(),
        columns: panels.len(),
        panels,
    };
    Ok(Outcome::Written(save(out, "fig6", &fig, &csv)?))
}

/// Figure 7: DPareto's fronts from the mean, best and worst replication error at each point.
pub fn fig7(out: &Path, runs: &Runs) -> anyhow::Result<Outcome> {
    let mut panels = Vec::new();
    let mut csv = fronts_csv();
    for (setting, label) in SETTINGS {
        let Some(run) = runs.get(setting, "dpareto") else {
            continue;
        };
        let mut p = front_panel(format!(
            "Adult, {label}: DPareto, R = {} replications",
            run.points.first().map_or(0, |p| p.accuracies.len())
        ));
        for which in ErrorOf::ALL {
            let name = format!("{} replication error", which.name());
            add_front(&mut p, &mut csv, setting, name, run, which)?;
        }
        panels.push(p);
    }
    if panels.is_empty() {
        return Ok(skipped("Figure 7", runs, "adult-lr-sgd-dpareto-fast"));
    }
    let fig = Figure {
        title: "Avent et al. 2020, Figure 7: variability of DPareto's fronts over training runs"
            .into(),
        columns: panels.len(),
        panels,
    };
    Ok(Outcome::Written(save(out, "fig7", &fig, &csv)?))
}

/// Figure 8 (left): DPareto's fronts of the three Adult settings together.
pub fn fig8(out: &Path, runs: &Runs) -> anyhow::Result<Outcome> {
    let mut p = front_panel("Adult: DPareto fronts across models and optimisers".into());
    let mut csv = fronts_csv();
    for (setting, label) in SETTINGS {
        if let Some(run) = runs.get(setting, "dpareto") {
            let name = format!("{label}: {}", run.label("DPareto"));
            add_front(&mut p, &mut csv, setting, name, run, ErrorOf::Mean)?;
        }
    }
    let mut m = front_panel("MNIST, epochs ≤ 5: MLP1 784-1000-10, MLP2 784-128-64-10".into());
    m.y_range = None;
    for (setting, label) in MNIST_SETTINGS {
        for (study, name) in [("dpareto", "DPareto"), ("random", "random")] {
            if let Some(run) = runs.get(setting, study) {
                let name = format!("{label}: {}", run.label(name));
                add_front(&mut m, &mut csv, setting, name, run, ErrorOf::Mean)?;
            }
        }
    }
    let panels: Vec<Panel> = [p, m]
        .into_iter()
        .filter(|p| !p.series.is_empty())
        .collect();
    if panels.is_empty() {
        return Ok(skipped("Figure 8", runs, "adult-lr-adam-dpareto-fast"));
    }
    let fig = Figure {
        title:
            "Avent et al. 2020, Figure 8: fronts by model and optimiser (Adult; MNIST scaled down)"
                .into(),
        columns: panels.len(),
        panels,
    };
    Ok(Outcome::Written(save(out, "fig8", &fig, &csv)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staircase_holds_each_error_until_the_next_epsilon() {
        let s = staircase(&[(0.5, 0.3), (2.0, 0.2), (12.0, 0.1)]);
        assert_eq!(s, vec![(0.5, 0.3), (2.0, 0.3), (2.0, 0.2), (10.0, 0.2)]);
    }
}
