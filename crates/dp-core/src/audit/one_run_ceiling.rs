//! The ceiling of a one-run audit on any trade-off curve: the bound its statistic reaches when
//! the right guesses come out at their expected number for a mechanism whose every canary is
//! seen through a pair with exactly that curve, the guesses being the likelihood-ratio test's.
//!
//! [`one_run_fdp::gaussian_ceiling`] is the Gaussian case, computed from the laws' tails; this
//! reads the curve itself, so a certificate's PLD (subsampled DP-SGD, objective perturbation)
//! gives a one-run audit its ceiling as [`ceiling`](super::ceiling) gives a threshold test
//! its. As there, the counts are expected ones rounded, not a quantile: a measured bound may
//! pass the ceiling by chance.
//!
//! **Expected counts.** Canary i is in (law P_in) or out (P_out) with probability ½ each. The
//! k highest scores of the best test are those above a threshold: out-canaries pass it at
//! some rate α and in-canaries at 1 − f(α), so (m/2)(α + 1 − f(α)) = k picks α and (m/2)(1 −
//! f(α)) of the k are right. The k lowest are the same with the roles swapped (f⁻¹).

use crate::audit::ceiling::Tradeoff;
use crate::audit::sampled_family::SampledFamily;
use crate::audit::{one_run, one_run_fdp};
use crate::error::{DpError, Result};

/// Bisection cap; each search stops once the midpoint no longer moves.
const MAX_ITER: usize = 200;

/// Which bound a one-run audit reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OneRunStatistic {
    /// Steinke, Nasr & Jagielski's ε-randomised-response bound ([`one_run`]), valid for
    /// every mechanism.
    RandomisedResponse,
    /// The f-DP test against the Gaussian family ([`one_run_fdp`]), a bound where the view
    /// is Gaussian.
    GaussianFdp,
    /// The f-DP test against the Poisson-subsampled Gaussian family
    /// ([`sampled_family`](super::sampled_family)), a bound where the view is in it.
    SampledFdp(SampledFamily),
}

impl OneRunStatistic {
    /// The statistic's ε at `delta` from v right of r guesses on m canaries.
    pub fn bound(self, m: u64, r: u64, v: u64, delta: f64, gamma: f64) -> Result<f64> {
        match self {
            Self::RandomisedResponse => one_run::epsilon_lower_bound(m, r, v, delta, gamma),
            Self::GaussianFdp => one_run_fdp::epsilon_lower_bound(m, r, v, delta, gamma),
            Self::SampledFdp(family) => family.epsilon_lower_bound(m, r, v, delta, gamma),
        }
    }
}

/// Expected right guesses among the `k` highest scores of `m` canaries seen through `curve`
/// (module docs). 0 for k = 0, k for a view at which all of them are in.
fn expected_right(curve: &Tradeoff, m: u64, k: u64) -> f64 {
    let half = 0.5 * m as f64;
    let target = k as f64 / half;
    let taken = |alpha: f64| alpha + 1.0 - curve.beta(alpha);
    if k == 0 {
        return 0.0;
    }
    if taken(0.0) >= target {
        // Even the test that never passes an out-canary passes k in-canaries.
        return k as f64;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..MAX_ITER {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if taken(mid) <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (half * (1.0 - curve.beta(lo))).min(k as f64)
}

/// The ceiling of a one-run audit of `m` canaries guessing "in" for the `k_plus` highest
/// scores and "out" for the `k_minus` lowest, under `statistic`, for a mechanism known to lie
/// above each of `curves` in one of its two orientations: the largest bound over the curves
/// and orientations (0 for no curves).
pub fn one_run_ceiling(
    curves: &[Tradeoff],
    statistic: OneRunStatistic,
    m: u64,
    (k_plus, k_minus): (u64, u64),
    delta: f64,
    gamma: f64,
) -> Result<f64> {
    let r = k_plus
        .checked_add(k_minus)
        .filter(|&r| m >= 1 && r <= m)
        .ok_or_else(|| {
            DpError::Invalid(format!(
                "one-run ceiling needs k_plus + k_minus <= m and m >= 1, got m = {m}, \
                 k_plus = {k_plus}, k_minus = {k_minus}"
            ))
        })?;
    let mut most: Option<u64> = None;
    for curve in curves {
        curve.validate()?;
        let swapped = curve.swapped();
        for (plus, minus) in [(curve, &swapped), (&swapped, curve)] {
            let right = expected_right(plus, m, k_plus) + expected_right(minus, m, k_minus);
            let v = (right.round() as u64).min(r);
            most = most.max(Some(v));
        }
    }
    // Every statistic here rises with the right guesses: one bound, at the most of them (the
    // family test's is a bisection over PLDs).
    match most {
        Some(v) => statistic.bound(m, r, v, delta, gamma),
        None => Ok(0.0),
    }
}

#[cfg(test)]
#[path = "one_run_ceiling_tests.rs"]
mod tests;
