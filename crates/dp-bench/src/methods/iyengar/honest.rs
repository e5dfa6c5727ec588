//! Honest tuning of an Iyengar et al. grid (Papernot & Steinke 2022; `docs/reference/
//! iyengar2019.md` §5): the base algorithm Q draws a live grid point uniformly at random and runs
//! it; Q runs K ~ Poisson(μ) times and the best run by test accuracy is released.
//!
//! Privacy: Q's event is the [`Event::Mixture`] of the points' events (RDP at most the worst
//! point's), and the tuned procedure's is `RepeatAndSelect { Mixture, Poisson(μ) }`. Certified
//! mode calibrates every point to one per-run target (ε_run, δ), with ε_run the largest value
//! (to a 2% bracket, on the safe side) whose tuned event the accountant certifies at the cell's
//! (ε, δ); paper mode runs every point at the full target with the authors' formulas, as a user
//! who ignored the tuning cost would, and reports what that certifies.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use dp_core::accounting::event::Event;
use dp_core::accounting::private_selection::poisson_mean_for_tail;
use dp_core::accounting::{RdpAccountant, Selection, Target};
use dp_core::learn::iyengar::Calibration;
use dp_core::learn::tuning::sample_runs;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::common::{Grid, GridMethod, finite_or_null, point_event, run_point, run_seed};
use crate::experiment::grid::Cell;
use crate::methods::{CellOutcome, Context};

/// What every trial of one ε shares: the per-run target and the tuned procedure's event.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Target each run is calibrated to.
    pub run_target: Target,
    /// Indices of the live points Q draws from.
    pub live: Vec<usize>,
    /// Poisson selection of K.
    pub selection: Selection,
    /// ε the accountant certifies for the tuned procedure at the config's δ.
    pub epsilon: f64,
}

/// Plans by ε, solved once and shared by the trials (the solve is the expensive part).
#[derive(Debug, Default)]
pub struct Cache(Mutex<HashMap<u64, PlanSlot>>);

/// One ε's plan, solved by the first trial that needs it.
type PlanSlot = Arc<OnceLock<Result<Plan, String>>>;

/// Step of the ε_run search: the bracket ends when hi/lo < 1 + this.
const RUN_TARGET_REL: f64 = 0.02;

#[allow(clippy::too_many_arguments)]
fn tuned_event<G: Grid>(
    m: &GridMethod<G>,
    n: usize,
    classes: usize,
    live: &[usize],
    points: &[G::Point],
    run_target: Target,
    selection: Selection,
    rdp: &RdpAccountant,
) -> Event {
    // A point that cannot be calibrated releases nothing when drawn: NoOp.
    let parts = live
        .iter()
        .map(|&i| point_event(m, &points[i], n, classes, run_target, rdp).unwrap_or(Event::NoOp))
        .collect();
    Event::Mixture(parts).repeat_and_select(selection)
}

fn plan<G: Grid>(m: &GridMethod<G>, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<Plan> {
    let n = ctx.train.n();
    let delta = ctx.cfg.delta;
    let target = Target::new(epsilon, delta)?;
    let points = m.grid.points(n, epsilon);
    let live: Vec<usize> = (0..points.len())
        .filter(|&i| m.grid.live(&points[i]))
        .collect();
    anyhow::ensure!(!live.is_empty(), "no live grid point to tune over");
    let mu = poisson_mean_for_tail(u64::from(m.common.grid_size), m.common.tail_prob)?;
    let selection = Selection::poisson(mu)?;
    let cost = |eps_run: f64| -> anyhow::Result<f64> {
        let t = Target::new(eps_run, delta)?;
        let e = tuned_event(
            m,
            n,
            ctx.classes.len(),
            &live,
            &points,
            t,
            selection,
            &ctx.rdp,
        );
        ctx.certify(&e)
    };
    let run_target = match m.common.calibration {
        Calibration::Paper => target,
        Calibration::Certified => {
            // The tuned ε grows with ε_run; bisect in log space, keeping the safe end.
            let mut lo = epsilon * 1e-4;
            anyhow::ensure!(
                cost(lo)? <= epsilon,
                "no per-run target makes the tuned procedure ({epsilon}, {delta})-DP"
            );
            let mut hi = epsilon;
            if cost(hi)? <= epsilon {
                lo = hi;
            }
            while hi / lo > 1.0 + RUN_TARGET_REL {
                let mid = (lo * hi).sqrt();
                if cost(mid)? <= epsilon {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            Target::new(lo, delta)?
        }
    };
    let epsilon_certified = cost(run_target.epsilon())?;
    Ok(Plan {
        run_target,
        live,
        selection,
        epsilon: epsilon_certified,
    })
}

fn cached_plan<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    epsilon: f64,
) -> anyhow::Result<Plan> {
    let slot = {
        let mut map = m.honest.0.lock().expect("plan cache lock");
        map.entry(epsilon.to_bits()).or_default().clone()
    };
    slot.get_or_init(|| plan(m, ctx, epsilon).map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(anyhow::Error::msg)
}

/// One trial of honest tuning.
pub fn cell<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    cell: &Cell,
) -> anyhow::Result<CellOutcome> {
    let plan = cached_plan(m, ctx, cell.epsilon)?;
    let points = m.grid.points(ctx.train.n(), cell.epsilon);
    let mut rng = StdRng::seed_from_u64(cell.seed);
    let k = sample_runs(&plan.selection, &mut rng)?;
    let mut scores = Vec::with_capacity(k);
    let mut best: Option<(f64, usize)> = None;
    for j in 0..k {
        let i = plan.live[rng.random_range(0..plan.live.len())];
        let s = run_point(
            m,
            ctx,
            &points[i],
            plan.run_target,
            run_seed(cell.seed, j),
            None,
        )?;
        scores.push((i, s.accuracy));
        if best.is_none_or(|(b, _)| s.accuracy >= b) {
            best = Some((s.accuracy, i));
        }
    }
    // K = 0 releases nothing: θ = 0, which scores 50% under random tie-breaking.
    let accuracy = best.map_or(50.0, |b| b.0);
    Ok(CellOutcome {
        accuracy,
        epsilon_accounted: plan.epsilon,
        details: serde_json::json!({
            "runs": k,
            "chosen": best.map(|b| m.grid.label(&points[b.1])),
            "scores": scores,
            "run_epsilon": plan.run_target.epsilon(),
            "tuned_epsilon": finite_or_null(plan.epsilon),
        }),
    })
}
