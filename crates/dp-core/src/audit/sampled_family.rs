//! f-DP tests against the family of the mechanism's own curves where they are not Gaussian:
//! T steps of the Poisson-subsampled Gaussian at rate q, indexed by the noise multiplier z.
//! That is exactly what white-box DP-SGD with Poisson batches shows of each of its gradient
//! canaries, as μ-GDP is what it shows at full batch. Two tests share the family: the one-run
//! test (Mahloujifar, Melis & Chaudhuri 2025; [`SampledFamily::epsilon_lower_bound`]) and one
//! on a many-run threshold test's counts ([`SampledFamily::epsilon_lower_bound_counts`]).
//!
//! **The many-run test at z.** A test fixed before the runs it is evaluated on has error
//! rates (α, β) with β ≥ f_z(α) if the view is f_z-DP. With Clopper–Pearson upper bounds α̂
//! and β̂ at γ/2 each, α ≤ α̂ and β ≤ β̂ with probability 1 − γ, and then β̂ ≥ f_z(α) ≥
//! f_z(α̂) (f_z falls): counts with β̂ below the curve at α̂ reject f_z at level γ. The curve
//! is symmetric, so which error is which does not matter.
//!
//! **The test at z.** The claim "every canary's view is f_z-DP" is tested with
//! [`one_run_fdp`](super::one_run_fdp)'s recursion on a curve that lies below f_z and is
//! symmetric: the lower convex hull of the pessimistic PLD's curves at z, both relations,
//! both orientations ([`Tradeoff::from_pmf`]; a dominating pair's curve lies below the
//! mechanism's). The hull of their vertices is the hull of their pointwise minimum, convex
//! as every trade-off curve is and symmetric because the set of vertices is. A lower curve
//! forces less, so rejecting it rejects f_z. The mass the accountant charged to +∞ (window
//! and round-off, c) bounds the ℓ1 error of the P-masses, so it moves a β (P-mass) by at
//! most c and an α (Q-mass, P-mass times e^{−ω}) by at most c·e^{−ω_min}, ω_min the least
//! loss on the grid; the larger of the two is taken off both axes.
//!
//! **The bound.** More noise is post-processing, so f_z rises with z and the rejected z are
//! those above some z*. Under the family assumption (the view's curve is f_z for the true
//! z), a rejected z bounds the true z above, and the true ε(δ) is at least a rejected z's:
//! [`SampledFamily::epsilon_lower_bound`] takes the least z the bisection saw rejected and
//! reads its ε from [`LowerPld`], a *lower* bound on ε(δ), so discretisation never raises
//! the result.

use crate::accounting::pld::lower::LowerPld;
use crate::accounting::pld::{Pld, PldConfig};
use crate::audit::ceiling::{Tradeoff, expected_counts};
use crate::audit::check_gamma;
use crate::audit::clopper_pearson;
use crate::audit::one_run_fdp::{check_counts, rejects};
use crate::audit::threshold::Counts;
use crate::error::{Result, check_delta, check_positive, check_sampling_rate, ensure};

/// The grid of the test's curves: any pessimistic grid is valid, a coarser one only weaker.
const TEST_GRID: f64 = 1e-3;

/// The noise multipliers searched: below Z_MIN the bound is read at Z_MIN (still rejected;
/// smaller z would need loss grids past the accountant's limit), above Z_MAX a claim nothing
/// rejects reveals nothing worth stating.
const Z_MIN: f64 = 1.0 / 8.0;
const Z_MAX: f64 = 4096.0;

/// The bisection stops when the bracket is this narrow relatively (ε moves far less).
const Z_PRECISION: f64 = 1e-4;

/// The Poisson-subsampled Gaussian family at a fixed rate and number of steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampledFamily {
    /// Sampling rate q ∈ (0, 1].
    pub sampling_rate: f64,
    /// Steps T ≥ 1.
    pub steps: u64,
}

impl SampledFamily {
    fn validate(&self) -> Result<()> {
        check_sampling_rate(self.sampling_rate)?;
        ensure(self.steps >= 1, "steps", self.steps as f64, "must be >= 1")
    }

    /// The family, δ and γ of a bound on counts.
    fn check(&self, delta: f64, gamma: f64) -> Result<()> {
        self.validate()?;
        check_delta(delta)?;
        check_gamma(gamma)
    }

    /// The test's symmetric lower curve at noise multiplier `z`, and the charged mass to take
    /// off its rates.
    fn lower_curve(&self, z: f64) -> Result<(Tradeoff, f64)> {
        let config = PldConfig {
            grid_step: TEST_GRID,
            ..PldConfig::default()
        };
        let pld =
            Pld::subsampled_gaussian(self.sampling_rate, z, &config)?.self_compose(self.steps)?;
        let mut vertices = Vec::new();
        let mut charged = 0.0f64;
        for pmf in [pld.remove(), pld.add()] {
            // Q-masses are P-masses times e^{−ω}: their error is the P-error times at most
            // e^{−ω_min} (module docs).
            let amplified = pmf.infinity_mass() * (-pmf.loss(0)).exp().max(1.0);
            charged = charged.max(amplified);
            let curve = Tradeoff::from_pmf(pmf);
            if let Tradeoff::Points(p) = &curve {
                vertices.extend(p.iter().copied());
                vertices.extend(p.iter().map(|&(a, b)| (b, a)));
            }
        }
        Ok((Tradeoff::Points(lower_hull(vertices)), charged))
    }

    /// Whether v right of r guesses on m canaries reject, at level γ, the claim that every
    /// canary's view is that of this family at noise multiplier `z`.
    pub fn rejects(&self, z: f64, m: u64, r: u64, v: u64, gamma: f64) -> Result<bool> {
        self.validate()?;
        check_positive("noise-multiplier", z)?;
        check_counts(m, r, v)?;
        check_gamma(gamma)?;
        let (curve, charged) = self.lower_curve(z)?;
        Ok(rejects(m, r, v, gamma, |x| {
            // f(1 − x), the least α whose test reaches power x, lowered by the charged mass
            // on both axes and a few ulp.
            let beta = curve.beta((1.0 - x + charged).min(1.0)) - charged;
            (beta * (1.0 - 4.0 * f64::EPSILON)).max(0.0)
        }))
    }

    /// The least noise multiplier the bisection found rejected by the one-run counts (`None`
    /// when not even Z_MAX is), at relative precision 1e-4; Z_MIN where everything above it
    /// is.
    pub fn least_rejected_noise(&self, m: u64, r: u64, v: u64, gamma: f64) -> Result<Option<f64>> {
        least_rejected(|z| self.rejects(z, m, r, v, gamma))
    }

    /// ε at `delta` of the least member the one-run counts reject: a lower bound where the
    /// view's curve is in the family (module docs); 0 when no member is rejected.
    pub fn epsilon_lower_bound(
        &self,
        m: u64,
        r: u64,
        v: u64,
        delta: f64,
        gamma: f64,
    ) -> Result<f64> {
        check_delta(delta)?;
        self.epsilon_of(self.least_rejected_noise(m, r, v, gamma)?, delta)
    }

    /// Whether some pair of upper confidence bounds (α̂, β̂) lies below the test's curve at z
    /// (module docs), the charged mass taken off as in [`SampledFamily::rejects`].
    fn rejects_any(&self, z: f64, bounds: &[(f64, f64)]) -> Result<bool> {
        check_positive("noise-multiplier", z)?;
        let (curve, charged) = self.lower_curve(z)?;
        let below = |a: f64| (curve.beta((a + charged).min(1.0)) - charged).max(0.0);
        Ok(bounds
            .iter()
            .any(|&(a, b)| b < below(a) * (1.0 - 4.0 * f64::EPSILON)))
    }

    /// ε at `delta` of the least member that the counts of a test, fixed before the runs
    /// they count, reject at level γ (module docs): a lower bound where the view's curve is
    /// in the family; 0 when no member is rejected.
    pub fn epsilon_lower_bound_counts(
        &self,
        counts: Counts,
        delta: f64,
        gamma: f64,
    ) -> Result<f64> {
        self.check(delta, gamma)?;
        let bounds = [upper_bounds(counts, gamma)?];
        self.epsilon_of(least_rejected(|z| self.rejects_any(z, &bounds))?, delta)
    }

    /// The ceiling of [`SampledFamily::epsilon_lower_bound_counts`]: its bound from counts at
    /// their expected values over `negatives` and `positives` evaluation runs, for a view that
    /// lies above each of `curves`, at the best threshold (every count of the rarer error
    /// that [`ceiling`](super::ceiling) tries, either way round). One bisection over z serves
    /// every candidate: the least z any of them rejects.
    pub fn ceiling(
        &self,
        curves: &[Tradeoff],
        (negatives, positives): (u64, u64),
        delta: f64,
        gamma: f64,
    ) -> Result<f64> {
        self.check(delta, gamma)?;
        let mut bounds = Vec::new();
        for curve in curves {
            for counts in expected_counts(curve, negatives, positives) {
                bounds.push(upper_bounds(counts, gamma)?);
            }
        }
        self.epsilon_of(least_rejected(|z| self.rejects_any(z, &bounds))?, delta)
    }

    /// ε at `delta` of noise multiplier `z` from [`LowerPld`]; 0 for none.
    fn epsilon_of(&self, z: Option<f64>, delta: f64) -> Result<f64> {
        match z {
            None => Ok(0.0),
            Some(z) => LowerPld::subsampled_gaussian(
                self.sampling_rate,
                z,
                self.steps,
                &PldConfig::default(),
            )?
            .epsilon(delta),
        }
    }
}

/// Clopper–Pearson upper bounds on a test's two error rates, at γ/2 each.
fn upper_bounds(c: Counts, gamma: f64) -> Result<(f64, f64)> {
    ensure(
        c.negatives >= 1 && c.positives >= 1,
        "runs",
        c.negatives.min(c.positives) as f64,
        "must be >= 1 on each side",
    )?;
    Ok((
        clopper_pearson::upper(c.false_positives, c.negatives, 0.5 * gamma)?,
        clopper_pearson::upper(c.false_negatives, c.positives, 0.5 * gamma)?,
    ))
}

/// The least z at which `rejected` holds, by bisection in ln z from z = 1 (module docs):
/// `None` when not even Z_MAX is rejected, Z_MIN when everything above it is. The z returned
/// was tested and rejected.
fn least_rejected(rejected: impl Fn(f64) -> Result<bool>) -> Result<Option<f64>> {
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    if rejected(1.0)? {
        while rejected(lo)? {
            hi = lo;
            lo *= 0.5;
            if lo < Z_MIN {
                return Ok(Some(hi));
            }
        }
    } else {
        while !rejected(hi)? {
            lo = hi;
            hi *= 2.0;
            if hi > Z_MAX {
                return Ok(None);
            }
        }
    }
    while hi > lo * (1.0 + Z_PRECISION) {
        let mid = (lo * hi).sqrt();
        if rejected(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(hi))
}

/// The lower convex hull of `points` (α, β) from α = 0 to α = 1, α ascending: Andrew's
/// monotone chain on the lower side.
fn lower_hull(mut points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    points.dedup();
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(points.len());
    for p in points {
        while hull.len() >= 2 {
            let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            // Pop b unless a → b → p turns left (counter-clockwise).
            let cross = (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
            if cross <= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    // The leftmost point at α = 0 is the least β there: the hull starts at it.
    if hull.is_empty() {
        return vec![(0.0, 0.0), (1.0, 0.0)];
    }
    hull
}

#[cfg(test)]
#[path = "sampled_family_tests.rs"]
mod tests;
