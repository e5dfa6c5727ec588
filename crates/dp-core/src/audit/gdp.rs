//! Gaussian-DP estimate of ε (Nasr et al. 2023; audit.md §5).
//!
//! **This is an ε lower bound only if the mechanism's trade-off curve is Gaussian.** That holds
//! for the Gaussian mechanism (sensitivity Δ and noise σ are exactly (Δ/σ)-GDP) and for
//! full-batch white-box DP-SGD (only approximately with subsampling), but *not* for Laplace
//! noise, report-noisy-max, SVT or any other mechanism whose curve has another shape: for those
//! the number below can exceed the true ε of a correct implementation, i.e. raise a false
//! alarm. Use [`threshold::epsilon_lower_bound`](super::threshold::epsilon_lower_bound) (§1)
//! when in doubt; it needs no assumption.
//!
//! μ-GDP means every test has β ≥ Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2019), so the
//! Clopper–Pearson upper bounds on the error rates give a valid μ_lb = Φ⁻¹(1 − α̂_up) − Φ⁻¹(β̂_up),
//! converted to ε at δ through the Gaussian privacy profile (jax_privacy `epsilon_from_gdp`).

use std::f64::consts::LN_2;

use crate::accounting::gaussian;
use crate::audit::clopper_pearson::upper_logit;
use crate::audit::threshold::Counts;
use crate::audit::{check_gamma, ln_logistic};
use crate::error::{DpError, Result, check_delta, ensure};
use crate::special::{log_norm_cdf, log1m_exp};

/// Bisection cap; each halving on a bracket of width < 100 reaches double resolution in < 70.
const MAX_ITER: usize = 200;

/// Φ⁻¹(p) for p ∈ [0, 1] (±∞ at the ends), rounded up; see [`norm_quantile_log`].
pub fn norm_quantile(p: f64) -> Result<f64> {
    ensure((0.0..=1.0).contains(&p), "p", p, "must be in [0, 1]")?;
    norm_quantile_log(p.ln())
}

/// Φ⁻¹(e^{ln_p}) for ln p ≤ 0, accurate in both tails (p down to e^{−10⁶} and 1 − p down to
/// the smallest double), by bisection on [`log_norm_cdf`]; never below the true quantile by
/// more than double rounding.
pub fn norm_quantile_log(ln_p: f64) -> Result<f64> {
    ensure(ln_p <= 0.0, "ln-p", ln_p, "must be <= 0")?;
    Ok(quantile_bracket(ln_p).1)
}

/// (lo, hi) with Φ(lo) ≤ p ≤ Φ(hi), adjacent doubles (or ±∞) around Φ⁻¹(p), for ln p ≤ 0.
pub(crate) fn quantile_bracket(ln_p: f64) -> (f64, f64) {
    if ln_p == f64::NEG_INFINITY {
        return (f64::NEG_INFINITY, f64::NEG_INFINITY);
    }
    if ln_p >= 0.0 {
        return (f64::INFINITY, f64::INFINITY);
    }
    if ln_p > -LN_2 {
        // Upper half: mirror the lower-half quantile of 1 − p, whose log stays accurate.
        let (lo, hi) = lower_half_bracket(log1m_exp(ln_p));
        return (-hi, -lo);
    }
    lower_half_bracket(ln_p)
}

/// Bracket for ln p ≤ −ln 2, where the quantile is ≤ 0.
fn lower_half_bracket(ln_p: f64) -> (f64, f64) {
    if ln_p == f64::NEG_INFINITY {
        return (f64::NEG_INFINITY, f64::NEG_INFINITY);
    }
    // Φ(x) ≤ φ(x)/|x| < e^{−x²/2} for x ≤ −1, so x = −√(−2 ln p) − 1 has Φ(x) < p.
    let mut lo = -(-2.0 * ln_p).sqrt() - 1.0;
    while log_norm_cdf(lo) > ln_p {
        lo *= 2.0;
    }
    let mut hi = 0.0;
    for _ in 0..MAX_ITER {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if log_norm_cdf(mid) < ln_p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// Lower bound on μ of a μ-GDP mechanism from one test's error counts, valid with probability
/// ≥ 1 − γ: μ_lb = Φ⁻¹(1 − α̂_up) − Φ⁻¹(β̂_up) with Clopper–Pearson bounds at γ/2 per rate,
/// floored at 0. When the threshold was chosen among T tried on the same runs, pass γ/T.
pub fn mu_lower_bound(counts: Counts, gamma: f64) -> Result<f64> {
    counts.validate()?;
    check_gamma(gamma)?;
    let a = 0.5 * gamma;
    let x_alpha = upper_logit(counts.false_positives, counts.negatives, a)?;
    let x_beta = upper_logit(counts.false_negatives, counts.positives, a)?;
    // Round each quantile toward the smaller μ.
    let q_pass = quantile_bracket(ln_logistic(-x_alpha)).0; // Φ⁻¹(1 − α̂)
    let q_miss = quantile_bracket(ln_logistic(x_beta)).1; // Φ⁻¹(β̂)
    let mu = q_pass - q_miss;
    Ok(if mu > 0.0 { mu } else { 0.0 })
}

/// The ε at which μ-GDP gives exactly `delta`: the root of
/// δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (the Gaussian mechanism's profile with Δ/σ = μ,
/// [`gaussian::log_delta`]), rounded down; 0 when μ-GDP already meets δ at ε = 0.
pub fn epsilon_from_mu(mu: f64, delta: f64) -> Result<f64> {
    ensure(
        mu >= 0.0 && mu.is_finite(),
        "mu",
        mu,
        "must be >= 0 and finite",
    )?;
    check_delta(delta)?;
    if mu == 0.0 {
        return Ok(0.0);
    }
    let ln_delta = delta.ln();
    let above = |eps: f64| -> Result<bool> { Ok(gaussian::log_delta(eps, 1.0, mu)? > ln_delta) };
    if !above(0.0)? {
        return Ok(0.0);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while above(hi)? {
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return Err(DpError::NoConvergence(format!(
                "no finite epsilon meets delta = {delta} for mu = {mu}"
            )));
        }
    }
    for _ in 0..MAX_ITER {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if above(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // δ(lo) ≥ δ, so lo is at most the exact root.
    Ok(lo)
}

/// ε lower bound at `delta` from one test's error counts **assuming a Gaussian trade-off
/// curve** (see the module docs): [`epsilon_from_mu`] of [`mu_lower_bound`].
pub fn epsilon_lower_bound(counts: Counts, delta: f64, gamma: f64) -> Result<f64> {
    epsilon_from_mu(mu_lower_bound(counts, gamma)?, delta)
}

#[cfg(test)]
#[path = "gdp_tests.rs"]
mod tests;
