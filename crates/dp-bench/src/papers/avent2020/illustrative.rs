//! Figures 1–4: the two illustrative problems, from `dp-bench run
//! configs/avent2020/illustrative-*.toml` (see [`super::toy::run`]).
//! Figs. 1–2: both oracles over the grid and the exact front with its inputs. Figs. 3–4: the
//! GP means after the random initial sample, the fronts (exact, initial sample, a DPareto run)
//! and HV-PoI with its maximiser. SVT's ε is the paper's closed form, which under-reports for
//! fractional C; Fig. 2 adds the certified front when `illustrative-svt-certified` has run.

use std::path::Path;

use dp_core::bo::pareto::{Point2, non_dominated};

use super::fronts::staircase_in;
use super::toy::Axis;
use super::toy::{logreg, svt};
use crate::figures::csv::{LongCsv, Table};
use crate::figures::{Outcome, save};
use crate::plot::heatmap::{Cell, Heatmap, Mosaic};
use crate::plot::{Panel, Series};

/// Points of one CSV written by the run.
struct Points {
    x: Vec<[f64; 2]>,
    epsilon: Vec<f64>,
    error: Vec<f64>,
    extra: Vec<f64>,
}

impl Points {
    fn read(path: &Path, extra: Option<&str>) -> anyhow::Result<Points> {
        let t = Table::read(path)?;
        let n = t.rows.len();
        let col = |name: &str| {
            (0..n)
                .map(|i| t.num(i, name))
                .collect::<anyhow::Result<Vec<_>>>()
        };
        let (xs, ys) = (col("x")?, col("y")?);
        Ok(Points {
            x: xs.into_iter().zip(ys).map(|(a, b)| [a, b]).collect(),
            epsilon: col("epsilon")?,
            error: col("error")?,
            extra: match extra {
                Some(c) => col(c)?,
                None => Vec::new(),
            },
        })
    }

    fn objectives(&self) -> Vec<Point2> {
        self.epsilon
            .iter()
            .copied()
            .zip(self.error.iter().copied())
            .collect()
    }

    fn front(&self) -> anyhow::Result<Vec<Point2>> {
        Ok(non_dominated(&self.objectives())?)
    }

    fn front_inputs(&self) -> anyhow::Result<Vec<(f64, f64)>> {
        let f = self.front()?;
        Ok(self
            .x
            .iter()
            .zip(self.objectives())
            .filter(|(_, o)| f.contains(o))
            .map(|(x, _)| (x[0], x[1]))
            .collect())
    }

    /// Grid axes: x varies fastest.
    fn axes(&self) -> (Vec<f64>, Vec<f64>) {
        let nx = self.x.iter().take_while(|x| x[1] == self.x[0][1]).count();
        let xs = self.x[..nx].iter().map(|x| x[0]).collect();
        let ys = self.x.iter().step_by(nx).map(|x| x[1]).collect();
        (xs, ys)
    }
}

/// What differs between the two problems.
struct Problem {
    stem: &'static str,
    name: &'static str,
    axes: [Axis; 2],
    error_label: &'static str,
    eps_label: &'static str,
    eps_range: (f64, f64),
}

const LOGISTIC: Problem = Problem {
    stem: "illustrative-logistic",
    name: "output-perturbation logistic regression on a1a",
    axes: logreg::AXES,
    error_label: "classification error",
    eps_label: "ε (δ = 1e-6)",
    eps_range: (1e-5, 1e2),
};

const SVT: Problem = Problem {
    stem: "illustrative-svt",
    name: "sparse vector technique (paper's ε)",
    axes: svt::AXES,
    error_label: "1 − F1",
    eps_label: "ε (pure DP)",
    eps_range: (1e-2, 1e4),
};

fn heat(
    p: &Problem,
    title: String,
    grid: &Points,
    values: Vec<f64>,
    log: bool,
    label: &str,
) -> Heatmap {
    let (xs, ys) = grid.axes();
    Heatmap {
        title,
        x_label: p.axes[0].label.into(),
        y_label: p.axes[1].label.into(),
        log_x: p.axes[0].log,
        log_y: p.axes[1].log,
        xs,
        ys,
        values,
        log_color: log,
        color_label: label.into(),
        markers: Vec::new(),
        star: None,
    }
}

fn front_panel(p: &Problem, title: String) -> Panel {
    Panel {
        title,
        x_label: p.eps_label.into(),
        y_label: p.error_label.into(),
        log_x: true,
        log_y: false,
        series: Vec::new(),
        y_range: Some((0.0, 1.0)),
    }
}

fn add_front(
    panel: &mut Panel,
    csv: &mut LongCsv,
    name: &str,
    front: &[Point2],
    p: &Problem,
) -> anyhow::Result<()> {
    for &(e, err) in front {
        csv.push(vec![
            name.replace('\n', " ").as_str().into(),
            e.into(),
            err.into(),
        ])?;
    }
    let (lo, hi) = p.eps_range;
    panel
        .series
        .push(Series::steps(name, staircase_in(front, lo, hi)));
    Ok(())
}

/// Figs. 1 and 2: the oracles and the exact front.
fn oracle_figure(out: &Path, results: &Path, p: &Problem, number: u32) -> anyhow::Result<Outcome> {
    let dir = results.join(p.stem);
    if !dir.join("config.toml").exists() {
        return Ok(skipped(number, results, p.stem));
    }
    let grid = Points::read(&dir.join("grid.csv"), None)?;
    let mut csv = LongCsv::new(&["series", "epsilon", "error"]);
    let mut fronts = front_panel(
        p,
        "Pareto front: every grid point and the exact front".into(),
    );
    fronts.series.push(Series::dots(
        format!("{} grid points", grid.x.len()),
        grid.objectives(),
    ));
    add_front(&mut fronts, &mut csv, "exact front", &grid.front()?, p)?;
    let certified = results.join("illustrative-svt-certified");
    if number == 2 && certified.join("config.toml").exists() {
        let c = Points::read(&certified.join("grid.csv"), None)?;
        add_front(
            &mut fronts,
            &mut csv,
            "exact front\ncertified ε (ceil C)",
            &c.front()?,
            p,
        )?;
    }
    let inputs = Panel {
        title: "hyperparameters of the exact front".into(),
        x_label: p.axes[0].label.into(),
        y_label: p.axes[1].label.into(),
        log_x: p.axes[0].log,
        log_y: p.axes[1].log,
        series: vec![Series::dots("front inputs", grid.front_inputs()?)],
        y_range: Some((p.axes[1].lo, p.axes[1].hi)),
    };
    let fig = Mosaic {
        title: format!(
            "Avent et al. 2020, Figure {number}: {} — oracles and exact Pareto front",
            p.name
        ),
        cells: vec![
            Cell::Heat(heat(
                p,
                "privacy oracle ε".into(),
                &grid,
                grid.epsilon.clone(),
                true,
                "ε",
            )),
            Cell::Heat(heat(
                p,
                format!("utility oracle: {}", p.error_label),
                &grid,
                grid.error.clone(),
                false,
                p.error_label,
            )),
            Cell::Lines(fronts),
            Cell::Lines(inputs),
        ],
        columns: 2,
    };
    Ok(Outcome::Written(save(
        out,
        &format!("fig{number}"),
        &fig,
        &csv,
    )?))
}

/// Figs. 3 and 4: the surrogates after the initial sample, and HV-PoI.
fn surrogate_figure(
    out: &Path,
    results: &Path,
    p: &Problem,
    number: u32,
) -> anyhow::Result<Outcome> {
    let dir = results.join(p.stem);
    if !dir.join("config.toml").exists() {
        return Ok(skipped(number, results, p.stem));
    }
    let grid = Points::read(&dir.join("grid.csv"), None)?;
    let initial = Points::read(&dir.join("initial.csv"), None)?;
    let view = Points::read(&dir.join("surrogate.csv"), Some("hvpoi"))?;
    let next = Points::read(&dir.join("next.csv"), None)?;
    let bo = Points::read(&dir.join("bo.csv"), None)?;
    let k0 = initial.x.len();
    let markers: Vec<(f64, f64)> = initial.x.iter().map(|x| (x[0], x[1])).collect();

    let mut csv = LongCsv::new(&["series", "epsilon", "error"]);
    let mut fronts = front_panel(p, "exact and empirical fronts".into());
    fronts.series.push(Series::dots(
        format!("{k0} initial points"),
        initial.objectives(),
    ));
    add_front(
        &mut fronts,
        &mut csv,
        "exact front (grid)",
        &grid.front()?,
        p,
    )?;
    add_front(
        &mut fronts,
        &mut csv,
        &format!("front of the {k0} initial points"),
        &initial.front()?,
        p,
    )?;
    add_front(
        &mut fronts,
        &mut csv,
        &format!("DPareto run ({} points)", bo.x.len()),
        &bo.front()?,
        p,
    )?;

    let mut eps = heat(
        p,
        "GP mean of ε".into(),
        &view,
        view.epsilon.clone(),
        true,
        "ε",
    );
    eps.markers = markers.clone();
    let mut err = heat(
        p,
        format!("GP mean of {}", p.error_label),
        &view,
        view.error.clone(),
        false,
        p.error_label,
    );
    err.markers = markers;
    let mut acq = heat(
        p,
        "HV-PoI and the next point (red)".into(),
        &view,
        view.extra.clone(),
        false,
        "HV-PoI",
    );
    acq.star = Some((next.x[0][0], next.x[0][1]));
    let fig = Mosaic {
        title: format!(
            "Avent et al. 2020, Figure {number}: {} — surrogates after {k0} random points",
            p.name
        ),
        cells: vec![
            Cell::Heat(eps),
            Cell::Heat(err),
            Cell::Lines(fronts),
            Cell::Heat(acq),
        ],
        columns: 2,
    };
    Ok(Outcome::Written(save(
        out,
        &format!("fig{number}"),
        &fig,
        &csv,
    )?))
}

fn skipped(number: u32, results: &Path, stem: &str) -> Outcome {
    let dir = results.join(stem);
    Outcome::Skipped(format!(
        "Figure {number} skipped: no {}; run \
         `cargo run --release -p dp-bench -- configs/avent2020/{stem}.toml --out {}`",
        dir.display(),
        dir.display()
    ))
}

/// Figures 1–4 into `out`.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    Ok(vec![
        oracle_figure(out, results, &LOGISTIC, 1)?,
        oracle_figure(out, results, &SVT, 2)?,
        surrogate_figure(out, results, &LOGISTIC, 3)?,
        surrogate_figure(out, results, &SVT, 4)?,
    ])
}
