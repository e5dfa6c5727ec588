//! DPareto's two illustrative problems (P §2.2, §3.3; Figs. 1–4): two hyperparameters each,
//! cheap enough for an exact Pareto front from a dense grid, so they show how close BO gets.
//!
//! A problem maps a point of its 2-D box to (ε, error). DPareto runs on the problem's own
//! coordinates: log10 of a log-scaled axis, so its random points are log-uniform as in the
//! paper. Hypervolumes here are in (log10 ε, error) space, ε clamped below at the problem's
//! floor, w.r.t. (log10 of its reference ε, 1): ε spans five decades, and a linear-ε volume
//! would ignore everything below ε = 0.1.

pub mod logreg;
pub mod run;
pub mod svt;

use dp_core::bo::dpareto::{DparetoOptions, Observations, Surrogates, propose};
use dp_core::bo::gp::Hyper;
use dp_core::bo::pareto::{Point2, hypervolume, non_dominated};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::figures::{geomspace, linspace};

/// One hyperparameter's range.
#[derive(Clone, Copy, Debug)]
pub struct Axis {
    /// Axis label.
    pub label: &'static str,
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Log-scaled (sampled log-uniformly, gridded geometrically).
    pub log: bool,
}

impl Axis {
    /// The BO coordinate of value `v`.
    pub fn coord(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// The value at BO coordinate `c`, inside the range (BO's rescaling can round a
    /// coordinate on the boundary to just outside it).
    pub fn value(&self, c: f64) -> f64 {
        let v = if self.log { 10f64.powf(c) } else { c };
        v.clamp(self.lo, self.hi)
    }

    /// `size` grid values from `lo` to `hi`.
    pub fn grid(&self, size: usize) -> Vec<f64> {
        if self.log {
            geomspace(self.lo, self.hi, size)
        } else {
            linspace(self.lo, self.hi, size)
        }
    }
}

/// A 2-D privacy–utility problem.
pub trait Toy: Sync {
    /// Short name for titles and CSV rows.
    fn name(&self) -> &'static str;
    /// The two hyperparameters (x axis, y axis of the figures).
    fn axes(&self) -> [Axis; 2];
    /// The privacy oracle.
    fn epsilon(&self, x: [f64; 2]) -> anyhow::Result<f64>;
    /// The utility oracle at many points (problems share work across points).
    fn errors(&self, xs: &[[f64; 2]]) -> anyhow::Result<Vec<f64>>;
    /// What the error is.
    fn error_label(&self) -> &'static str;
    /// (ε floor, reference ε) of [`Toy`] hypervolumes.
    fn hv_box(&self) -> (f64, f64);
}

/// Points with both objectives.
#[derive(Clone, Debug, Default)]
pub struct Evaluated {
    /// Inputs, in values (not coordinates).
    pub x: Vec<[f64; 2]>,
    /// ε of each.
    pub epsilon: Vec<f64>,
    /// Error of each.
    pub error: Vec<f64>,
}

impl Evaluated {
    /// Evaluates `xs` on `toy`.
    pub fn of(toy: &dyn Toy, xs: Vec<[f64; 2]>) -> anyhow::Result<Evaluated> {
        let epsilon = xs
            .iter()
            .map(|&x| toy.epsilon(x))
            .collect::<anyhow::Result<_>>()?;
        let error = toy.errors(&xs)?;
        Ok(Evaluated {
            x: xs,
            epsilon,
            error,
        })
    }

    fn extend(&mut self, other: Evaluated) {
        self.x.extend(other.x);
        self.epsilon.extend(other.epsilon);
        self.error.extend(other.error);
    }

    /// The first `k` points.
    pub fn prefix(&self, k: usize) -> Evaluated {
        Evaluated {
            x: self.x[..k].to_vec(),
            epsilon: self.epsilon[..k].to_vec(),
            error: self.error[..k].to_vec(),
        }
    }

    /// (ε, error) pairs.
    pub fn objectives(&self) -> Vec<Point2> {
        self.epsilon
            .iter()
            .copied()
            .zip(self.error.iter().copied())
            .collect()
    }

    /// The (weakly) non-dominated front, sorted by ε.
    pub fn front(&self) -> anyhow::Result<Vec<Point2>> {
        Ok(non_dominated(&self.objectives())?)
    }

    /// The inputs of the front's points.
    pub fn front_inputs(&self) -> anyhow::Result<Vec<[f64; 2]>> {
        let front = self.front()?;
        Ok(self
            .x
            .iter()
            .zip(self.objectives())
            .filter(|(_, o)| front.contains(o))
            .map(|(x, _)| *x)
            .collect())
    }
}

/// The hypervolume of `points` in (log10 ε, error) space (see the module notes).
pub fn log_hypervolume(toy: &dyn Toy, points: &[Point2]) -> anyhow::Result<f64> {
    let (floor, reference) = toy.hv_box();
    let mapped: Vec<Point2> = points
        .iter()
        .filter(|p| p.0 < reference && p.1 < 1.0)
        .map(|&(e, err)| (e.max(floor).log10(), err))
        .collect();
    Ok(hypervolume(&mapped, (reference.log10(), 1.0))?)
}

/// The `size × size` grid (x fastest, as [`crate::plot::heatmap::Heatmap`] lays values out),
/// evaluated.
pub fn exact(toy: &dyn Toy, size: usize) -> anyhow::Result<Evaluated> {
    let [ax, ay] = toy.axes();
    let (gx, gy) = (ax.grid(size), ay.grid(size));
    let xs = gy
        .iter()
        .flat_map(|&y| gx.iter().map(move |&x| [x, y]))
        .collect();
    Evaluated::of(toy, xs)
}

/// `k` points drawn uniformly in the BO coordinates.
pub fn random_inputs(toy: &dyn Toy, k: usize, rng: &mut StdRng) -> Vec<[f64; 2]> {
    let axes = toy.axes();
    (0..k)
        .map(|_| axes.map(|a| a.value(rng.random_range(a.coord(a.lo)..a.coord(a.hi)))))
        .collect()
}

/// The DPareto settings used on the illustrative problems: GPflowOpt's, with fewer
/// candidates (the box is 2-D, not 5-D).
pub fn options() -> DparetoOptions {
    DparetoOptions {
        restarts: 3,
        candidates: 1000,
        estimated_reference: true,
    }
}

fn observations<'a>(
    toy: &dyn Toy,
    ev: &'a Evaluated,
    k0: usize,
    coords: &'a mut Vec<f64>,
) -> Observations<'a> {
    let axes = toy.axes();
    coords.clear();
    coords.extend(
        ev.x.iter()
            .flat_map(|x| [axes[0].coord(x[0]), axes[1].coord(x[1])]),
    );
    Observations {
        x: coords,
        dim: 2,
        epsilon: &ev.epsilon,
        error: &ev.error,
        k0,
    }
}

fn coord_box(toy: &dyn Toy) -> ([f64; 2], [f64; 2]) {
    let axes = toy.axes();
    (axes.map(|a| a.coord(a.lo)), axes.map(|a| a.coord(a.hi)))
}

/// DPareto on `toy`: `k0` random points, then `iterations` proposals, all from `seed`.
pub fn dpareto(
    toy: &dyn Toy,
    k0: usize,
    iterations: usize,
    seed: u64,
) -> anyhow::Result<Evaluated> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut ev = Evaluated::of(toy, random_inputs(toy, k0, &mut rng))?;
    let (lo, hi) = coord_box(toy);
    let axes = toy.axes();
    let mut warm: Option<(Hyper, Hyper)> = None;
    let mut coords = Vec::new();
    for _ in 0..iterations {
        let obs = observations(toy, &ev, k0, &mut coords);
        let p = propose(
            &obs,
            &lo,
            &hi,
            warm.as_ref().map(|(a, b)| (a, b)),
            &options(),
            &mut rng,
        )?;
        let x = [axes[0].value(p.x[0]), axes[1].value(p.x[1])];
        ev.extend(Evaluated::of(toy, vec![x])?);
        warm = Some((p.privacy, p.utility));
    }
    Ok(ev)
}

/// What the surrogates believe after `ev` (all initial points), on a `size × size` grid:
/// the GP means of ε and error, HV-PoI, and the point DPareto would evaluate next.
pub struct SurrogateView {
    /// ε predicted at each grid point (x fastest).
    pub epsilon: Vec<f64>,
    /// Error predicted at each grid point.
    pub error: Vec<f64>,
    /// HV-PoI at each grid point.
    pub acquisition: Vec<f64>,
    /// The maximiser of HV-PoI (values).
    pub next: [f64; 2],
}

/// Fits the surrogates to `ev` and evaluates them on the grid.
pub fn surrogate_view(
    toy: &dyn Toy,
    ev: &Evaluated,
    size: usize,
    seed: u64,
) -> anyhow::Result<SurrogateView> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut coords = Vec::new();
    let obs = observations(toy, ev, ev.x.len(), &mut coords);
    let s = Surrogates::fit(&obs, None, &options(), &mut rng)?;
    let axes = toy.axes();
    let (gx, gy) = (axes[0].grid(size), axes[1].grid(size));
    let rows: Vec<f64> = gy
        .iter()
        .flat_map(|&y| {
            gx.iter()
                .flat_map(move |&x| [axes[0].coord(x), axes[1].coord(y)])
        })
        .collect();
    let (epsilon, error) = s.mean_objectives(&rows).into_iter().unzip();
    let acquisition = s.acquisition(&rows);
    let (lo, hi) = coord_box(toy);
    let (x, _) = s.maximise(&lo, &hi, options().candidates, &mut rng)?;
    Ok(SurrogateView {
        epsilon,
        error,
        acquisition,
        next: [axes[0].value(x[0]), axes[1].value(x[1])],
    })
}

#[cfg(test)]
mod tests;
