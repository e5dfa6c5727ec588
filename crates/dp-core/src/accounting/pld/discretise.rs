//! Pessimistic discretisation of a continuous privacy-loss random variable onto the grid.
//!
//! Both schemes only ever move an atom of loss ω to larger losses or split it between
//! neighbouring grid points ω⁻ ≤ ω ≤ ω⁺ with the P-mass and the Q-mass (P-mass times e^{−ω})
//! preserved. Since (1 − e^{ε−ω})₊ = g(e^{−ω}) with g(v) = (1 − e^ε v)₊ convex in v, Jensen's
//! inequality makes the split dominate the atom for every real ε, so the discrete pair
//! dominates the continuous one and stays dominating under composition. Splitting between
//! the top grid point and +∞ (v = 0) is the same argument.

use super::pmf::Pmf;
use super::{Discretisation, PldConfig};
use crate::error::{Result, ensure};
use crate::special::log_sub_exp;

/// Largest single-mechanism grid the accountant will build.
pub(crate) const MAX_GRID_POINTS: usize = 1 << 24;

/// ln of the lower and upper tail probabilities of the loss at one point: ln Pr(L ≤ l) and
/// ln Pr(L > l). Each side is accurate in its own tail.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LogTails {
    pub(crate) cdf: f64,
    pub(crate) sf: f64,
}

/// A privacy-loss random variable L = log(P(o)/Q(o)), described by its distribution under
/// P and by the measure Q(L ∈ ·) = E_P[e^{−L}; L ∈ ·] (Q may have mass ≤ 1).
pub(crate) trait PrivacyLoss {
    /// Tails of L under P at loss `l`.
    fn p_tails(&self, l: f64) -> LogTails;
    /// Tails of L under Q at loss `l`.
    fn q_tails(&self, l: f64) -> LogTails;
    /// Closed interval containing all of L's mass under P (ends may be infinite).
    fn support(&self) -> (f64, f64);
    /// A loss value in the bulk of the distribution, where the range search starts.
    fn centre(&self) -> f64;
}

/// ln of the mass in (a, b] from the tails at a and b, subtracting on the side where the
/// values are small so the difference does not cancel.
fn log_interval(a: LogTails, b: LogTails) -> f64 {
    let (hi, lo) = if b.cdf <= a.sf {
        (b.cdf, a.cdf)
    } else {
        (a.sf, b.sf)
    };
    if hi > lo {
        log_sub_exp(hi, lo)
    } else {
        f64::NEG_INFINITY
    }
}

/// Interval [lo, hi] outside which each tail of L under P has mass ≤ `tail / 2` (clipped to
/// the support). Any interval is valid; this one only sets accuracy and grid size.
fn loss_range(model: &impl PrivacyLoss, tail: f64) -> (f64, f64) {
    let log_half_tail = (0.5 * tail).ln();
    let (s_lo, s_hi) = model.support();
    let c = model.centre();
    let hi = if s_hi.is_finite() {
        s_hi
    } else {
        tail_point(|l| model.p_tails(l).sf, c, 1.0, log_half_tail)
    };
    let lo = if s_lo.is_finite() {
        s_lo
    } else {
        tail_point(|l| model.p_tails(l).cdf, c, -1.0, log_half_tail)
    };
    (lo.min(c), hi.max(c))
}

/// Point `c + dir·d` beyond which the monotone log-tail `log_tail` falls to `target`:
/// doubling search for a bracket, then bisection.
fn tail_point(log_tail: impl Fn(f64) -> f64, c: f64, dir: f64, target: f64) -> f64 {
    let mut inner = 0.0;
    let mut outer = 1e-6;
    while log_tail(c + dir * outer) > target {
        inner = outer;
        outer *= 2.0;
        if outer > 1e12 {
            break;
        }
    }
    for _ in 0..60 {
        let mid = 0.5 * (inner + outer);
        if log_tail(c + dir * mid) > target {
            inner = mid;
        } else {
            outer = mid;
        }
    }
    c + dir * outer
}

/// The grid of `config` over `model`'s loss range: its first index and its losses.
fn grid(model: &impl PrivacyLoss, config: &PldConfig) -> Result<(i64, Vec<f64>)> {
    let h = config.grid_step;
    let (lo, hi) = loss_range(model, config.tail_mass_truncation);
    let imin = (lo / h).floor();
    let imax = (hi / h).ceil().max(imin + 1.0);
    let points = imax - imin + 1.0;
    ensure(
        points <= MAX_GRID_POINTS as f64,
        "grid-step",
        h,
        "too small for the loss range (more than 2^24 grid points)",
    )?;
    let offset = imin as i64;
    let losses = (0..points as usize)
        .map(|i| (offset + i as i64) as f64 * h)
        .collect();
    Ok((offset, losses))
}

/// Discretises `model` on the grid of `config` (validated by the caller).
pub(crate) fn discretise(model: &impl PrivacyLoss, config: &PldConfig) -> Result<Pmf> {
    let h = config.grid_step;
    let (offset, grid) = grid(model, config)?;
    let p_tails: Vec<LogTails> = grid.iter().map(|&l| model.p_tails(l)).collect();
    let pmf = match config.discretisation {
        Discretisation::RoundUp => round_up(h, offset, &p_tails),
        Discretisation::ConnectTheDots => {
            let q_tails: Vec<LogTails> = grid.iter().map(|&l| model.q_tails(l)).collect();
            connect_dots(h, offset, &grid, &p_tails, &q_tails)
        }
    };
    Ok(pmf.truncate_tails(0.0))
}

/// Discretises `model` optimistically: every atom goes to the grid point at or below it, the
/// upper tail to the top point, the lower tail (below the first point) is dropped. Each loss
/// only falls, and δ(ε) = E_P[(1 − e^{ε−L})₊] rises with L, so the result's δ(ε) is at most
/// the continuous one, and so is that of any composition of such results: losses add, and
/// every sum only falls. Not a pair (Q's mass may pass 1): only [`super::lower`] reads it.
pub(crate) fn discretise_down(model: &impl PrivacyLoss, config: &PldConfig) -> Result<Pmf> {
    let (offset, grid) = grid(model, config)?;
    let p: Vec<LogTails> = grid.iter().map(|&l| model.p_tails(l)).collect();
    let mut probs: Vec<f64> = p
        .windows(2)
        .map(|w| log_interval(w[0], w[1]).exp())
        .collect();
    probs.push(p[p.len() - 1].sf.exp());
    Ok(Pmf::from_parts(config.grid_step, offset, probs, 0.0).truncate_tails(0.0))
}

/// Every atom goes to the next grid point at or above it; the lower tail to the first point,
/// the upper tail to +∞.
fn round_up(h: f64, offset: i64, p: &[LogTails]) -> Pmf {
    let mut probs = Vec::with_capacity(p.len());
    probs.push(p[0].cdf.exp());
    probs.extend(p.windows(2).map(|w| log_interval(w[0], w[1]).exp()));
    let infinity_mass = p[p.len() - 1].sf.exp();
    Pmf::from_parts(h, offset, probs, infinity_mass)
}

/// The share of an atom at loss ω sent up to ω⁻ + h when it is split between ω⁻ ≤ ω and
/// ω⁻ + h keeping its P- and Q-mass: (1 − e^{ω⁻ − ω}) / (1 − e^{−h}), from `below` = ω⁻ − ω
/// ∈ [−h, 0] and `one_m_decay` = 1 − e^{−h}.
pub(super) fn share_up(below: f64, one_m_decay: f64) -> f64 {
    (-below.exp_m1() / one_m_decay).clamp(0.0, 1.0)
}

/// Connect-the-dots (Doroshenko et al. 2022): each bin's mass is split between its two end
/// points preserving P- and Q-mass; the mass above the top point is split between the top
/// point and +∞ the same way; the lower tail is rounded up onto the first point.
fn connect_dots(h: f64, offset: i64, grid: &[f64], p: &[LogTails], q: &[LogTails]) -> Pmf {
    let one_m_decay = -(-h).exp_m1();
    let n = grid.len();
    let mut probs = vec![0.0; n];
    probs[0] = p[0].cdf.exp();
    for j in 1..n {
        let lp = log_interval(p[j - 1], p[j]);
        if lp == f64::NEG_INFINITY {
            continue;
        }
        let lq = log_interval(q[j - 1], q[j]);
        // The bin's mass sits at an effective loss ω with e^{−ω} = Q_j / P_j.
        let up = share_up(grid[j - 1] + lq - lp, one_m_decay);
        let mass = lp.exp();
        probs[j] += mass * up;
        probs[j - 1] += mass * (1.0 - up);
    }
    let top = n - 1;
    let lp = p[top].sf;
    let mut infinity_mass = 0.0;
    if lp > f64::NEG_INFINITY {
        // Share kept at the top point is e^{ω_top} Q(L > ω_top) / P(L > ω_top) ≤ 1.
        let log_keep = (grid[top] + q[top].sf - lp).min(0.0);
        let mass = lp.exp();
        probs[top] += mass * log_keep.exp();
        infinity_mass = mass * -log_keep.exp_m1();
    }
    Pmf::from_parts(h, offset, probs, infinity_mass)
}
