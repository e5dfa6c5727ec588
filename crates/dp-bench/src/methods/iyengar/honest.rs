//! Honest tuning of an Iyengar et al. grid (Papernot & Steinke 2022; `docs/reference/
//! iyengar2019.md` §5): the base algorithm Q draws a live grid point uniformly at random and runs
//! it; Q runs K ~ Poisson(μ) times and the best run by its score on the selection rows (the
//! validation rows, its score released privately and paid for, or the test rows under the
//! papers' protocol) is released.
//!
//! Privacy: Q's event is the [`Event::Mixture`] of the points' events (RDP at most the worst
//! point's); dp-core's [`HonestTuning`] makes the tuned procedure's event and, in certified
//! mode, calibrates every point to one per-run target (ε_run, δ), the largest (to its 2%
//! bracket, on the safe side) whose tuned event the accountant certifies at the cell's (ε, δ).
//! Paper mode runs every point at the full target with the authors' formulas, as a user who
//! ignored the tuning cost would, and reports what that certifies. This file is the glue: the
//! live points as candidates, and running them.

use dp_core::accounting::event::Event;
use dp_core::accounting::{HonestTuning, Target};
use dp_core::learn::iyengar::Calibration;
use dp_core::learn::{Candidates, draw_runs, select_best};

use dp_core::seed::run_seed;

use super::common::{Grid, GridMethod, point_event, run_point};
use crate::experiment::grid::Cell;
use crate::experiment::once_map::OnceMap;
use crate::methods::{CellOutcome, Context, HonestDetails};

/// What every trial of one ε shares: the per-run target and the tuned procedure's event.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Target each run is calibrated to.
    pub run_target: Target,
    /// Indices of the live points Q draws from.
    pub live: Vec<usize>,
    /// K ~ Poisson(μ).
    pub tuning: HonestTuning,
    /// The tuned procedure's event.
    pub event: Event,
    /// ε the accountants certify for it at the config's δ, under the config's relation.
    pub epsilon: f64,
}

/// Plans by ε, solved once and shared by the trials (the solve is the expensive part).
pub type Cache = OnceMap<u64, Plan>;

/// Q's event at `run_target`: the mixture of the live points' events. A point that cannot be
/// calibrated releases nothing when drawn: NoOp.
fn base_event<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    live: &[usize],
    points: &[G::Point],
    run_target: Target,
) -> Event {
    let (n, classes) = (ctx.train.n(), ctx.classes.len());
    let parts = live
        .iter()
        .map(|&i| {
            point_event(m, &points[i], n, classes, run_target, &ctx.rdp).unwrap_or(Event::NoOp)
        })
        .collect();
    // Each run also releases its score, at a share of the run's training target.
    ctx.selection
        .candidate_event(Event::Mixture(parts), run_target.epsilon())
}

fn plan<G: Grid>(m: &GridMethod<G>, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<Plan> {
    let native = Some(m.grid.certificate(m.common.calibration));
    let target = ctx.target(epsilon, native)?;
    let points = m.grid.points(ctx.train.n(), epsilon);
    let live: Vec<usize> = (0..points.len())
        .filter(|&i| m.grid.live(&points[i]))
        .collect();
    anyhow::ensure!(!live.is_empty(), "no live grid point to tune over");
    let tuning = HonestTuning::poisson_tail(u64::from(m.common.grid_size), m.common.tail_prob)?;
    let base_of = |t: Target| Ok(base_event(m, ctx, &live, &points, t));
    let certify = |e: &Event| ctx.certify_at(e, target.delta());
    let run_target = match m.common.calibration {
        Calibration::Paper => target,
        Calibration::Certified => tuning
            .calibrate_run_target(certify, base_of, target)
            .map_err(|e| {
                e.context(format!(
                    "no per-run target makes the tuned procedure ({epsilon}, {})-DP",
                    target.delta()
                ))
            })?,
    };
    let event = tuning.event(base_event(m, ctx, &live, &points, run_target));
    let epsilon = ctx.certify_as(&event, native)?;
    Ok(Plan {
        run_target,
        live,
        tuning,
        event,
        epsilon,
    })
}

/// The plan of ε, solved once and shared by every trial (and by the check before the run).
pub fn plan_of<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    epsilon: f64,
) -> anyhow::Result<Plan> {
    m.honest
        .get_or_init(epsilon.to_bits(), || plan(m, ctx, epsilon))
        .map_err(anyhow::Error::msg)
}

/// One trial of honest tuning.
pub fn cell<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    cell: &Cell,
) -> anyhow::Result<CellOutcome> {
    let plan = plan_of(m, ctx, cell.epsilon)?;
    let points = m.grid.points(ctx.train.n(), cell.epsilon);
    // Q draws a live point uniformly: candidates are indices into `live`.
    let slots = Candidates::List((0..plan.live.len()).map(|j| j as f64).collect());
    let draws = draw_runs(&plan.tuning.selection, &slots, cell.seed)?;
    let k = draws.len();
    let point = |slot: f64| plan.live[slot as usize];
    let run_eps = plan.run_target.epsilon();
    let tuned = select_best(&draws, |j, slot| {
        let i = point(slot);
        let seed = run_seed(cell.seed, j);
        let s = run_point(m, ctx, &points[i], plan.run_target, seed, None)?;
        let rows = ctx.selection_rows().len();
        let score = ctx
            .selection
            .release(s.selection_accuracy(ctx)?, rows, run_eps, seed);
        anyhow::Ok((score, s))
    })?;
    // The test rows are read once, for the released run. K = 0 releases nothing: θ = 0,
    // which scores 50% under random tie-breaking.
    let accuracy = match &tuned.best {
        Some(b) => b.3.test_accuracy(ctx)?,
        None => 50.0,
    };
    let details = HonestDetails {
        runs: k,
        chosen: tuned.best.map(|b| m.grid.label(&points[point(b.1)])),
        scores: tuned.scores.iter().map(|&(v, s)| (point(v), s)).collect(),
        run_epsilon: plan.run_target.epsilon(),
        tuned_epsilon: Some(plan.epsilon.is_finite().then_some(plan.epsilon)),
    };
    Ok(CellOutcome::new(accuracy, plan.event.clone(), &details))
}

#[cfg(test)]
#[path = "honest_tests.rs"]
mod tests;
