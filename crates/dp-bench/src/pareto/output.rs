//! A study's outputs, rewritten atomically from the checkpoint after every run: every point
//! (`points.csv`), the reported front (`front.csv`, Figure 5–8's fronts), and the hypervolume
//! w.r.t. the anti-ideal point (10, 1) after each number of points (`hv.csv`, Figure 5 top).

use std::path::Path;

use dp_core::bo::pareto::{
    ANTI_IDEAL, Point2, hypervolume_curve, paper_hypervolume, reported_front,
};

use super::config::StudyConfig;
use super::points::Point;
use super::space::NAMES;
use crate::figures::csv::{Field, LongCsv};

/// Which replication error a front is built from (Figure 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorOf {
    /// 1 − mean accuracy (the objective).
    Mean,
    /// The best replication.
    Best,
    /// The worst replication.
    Worst,
}

impl ErrorOf {
    /// Every kind, in column order.
    pub const ALL: [ErrorOf; 3] = [ErrorOf::Mean, ErrorOf::Best, ErrorOf::Worst];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            ErrorOf::Mean => "mean",
            ErrorOf::Best => "best",
            ErrorOf::Worst => "worst",
        }
    }

    /// This error of `p`.
    pub fn of(self, p: &Point) -> f64 {
        match self {
            ErrorOf::Mean => p.error(),
            ErrorOf::Best => p.error_best(),
            ErrorOf::Worst => p.error_worst(),
        }
    }
}

/// (ε, error) of each point, in evaluation order.
pub fn objectives(points: &[Point], which: ErrorOf) -> Vec<Point2> {
    points.iter().map(|p| (p.epsilon, which.of(p))).collect()
}

/// The paper's hypervolume of `points` (mean error, w.r.t. (10, 1)).
pub fn hypervolume(points: &[Point]) -> anyhow::Result<f64> {
    Ok(paper_hypervolume(&objectives(points, ErrorOf::Mean))?)
}

/// Writes `points.csv`, `front.csv` and `hv.csv` into `dir`.
pub fn write(dir: &Path, cfg: &StudyConfig, points: &[Point]) -> anyhow::Result<()> {
    let mut cols: Vec<String> = ["index", "source"].map(String::from).to_vec();
    cols.extend(NAMES.iter().map(|n| format!("x_{n}")));
    cols.extend(
        [
            "epochs",
            "lot",
            "lr",
            "clip",
            "noise_multiplier",
            "steps",
            "epsilon",
            "error",
            "error_best",
            "error_worst",
            "diverged",
            "wall_ms",
        ]
        .map(String::from),
    );
    cols.extend((0..cfg.replications).map(|r| format!("accuracy_{r}")));
    let mut csv = LongCsv::new(&cols.iter().map(String::as_str).collect::<Vec<_>>());
    for p in points {
        let mut f: Vec<Field> = vec![(p.index as u64).into(), p.source.name().into()];
        f.extend(p.x.iter().map(|&v| v.into()));
        f.extend([
            (p.epochs as u64).into(),
            (p.lot as u64).into(),
            p.lr.into(),
            p.clip.into(),
            p.noise_multiplier.into(),
            p.steps.into(),
            p.epsilon.into(),
            p.error().into(),
            p.error_best().into(),
            p.error_worst().into(),
            (p.diverged as u64).into(),
            p.wall_ms.into(),
        ]);
        f.extend(p.accuracies.iter().map(|&a| a.into()));
        csv.push(f)?;
    }
    csv.write(&dir.join("points.csv"))?;

    let mut front = LongCsv::new(&["error_of", "epsilon", "error"]);
    for which in ErrorOf::ALL {
        for (e, err) in reported_front(&objectives(points, which))? {
            front.push(vec![which.name().into(), e.into(), err.into()])?;
        }
    }
    front.write(&dir.join("front.csv"))?;

    let mut hv = LongCsv::new(&["points", "hypervolume"]);
    let curve = hypervolume_curve(&objectives(points, ErrorOf::Mean), ANTI_IDEAL)?;
    for (i, v) in curve.iter().enumerate() {
        hv.push(vec![(i as u64 + 1).into(), (*v).into()])?;
    }
    hv.write(&dir.join("hv.csv"))
}
