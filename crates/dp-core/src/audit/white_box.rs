//! The white-box statistic of DP-SGD (audit.md §3): the auditor sees every step's released
//! noisy sum at a coordinate only its Dirac gradient canary touches
//! ([`crate::learn::dpsgd_white_box`]) and scores a run by the log-likelihood ratio of "the
//! canary is in" against "out".
//!
//! Per step the canary's coordinate carries u = B + z·ξ in units of the clip norm C, with
//! ξ ~ N(0, 1) and B ~ Bernoulli(q) when the canary is in, B = 0 when out. The density ratio of
//! one step is (1 − q) + q·exp((u − ½)/z²), and steps are independent given the canary, so
//! the sum of their logs is the Neyman–Pearson statistic: no test on these updates separates
//! D from D′ better than a threshold on it. At q = 1 it is affine in Σu: Gaussian under both
//! hypotheses, the means √T/z of its standard deviations apart, so the trade-off curve is
//! exactly μ-GDP with μ = √T/z, the one case where the GDP estimate ([`crate::audit::gdp`]) is
//! a valid lower bound for DP-SGD.

use crate::accounting::pld::GaussianShiftMixture;
use crate::error::{Result, check_positive, check_sampling_rate};
use crate::special::log_add_exp;

/// Σ_t ln((1 − q) + q·exp((u_t − ½)/z²)) over a run's white-box `updates` (in units of C) of
/// DP-SGD with sampling rate `q` and noise multiplier `z`.
pub fn likelihood_ratio(updates: &[f64], sampling_rate: f64, noise_multiplier: f64) -> Result<f64> {
    check_sampling_rate(sampling_rate)?;
    check_positive("noise-multiplier", noise_multiplier)?;
    let inv_var = 1.0 / (noise_multiplier * noise_multiplier);
    if sampling_rate == 1.0 {
        return Ok(updates.iter().map(|u| (u - 0.5) * inv_var).sum());
    }
    let (ln_out, ln_in) = ((-sampling_rate).ln_1p(), sampling_rate.ln());
    Ok(updates
        .iter()
        .map(|u| log_add_exp(ln_out, ln_in + (u - 0.5) * inv_var))
        .sum())
}

/// Σ_t L(u_t/z) over a run's white-box `updates` (in units of G) of a view whose steps are
/// the shift mixture `view` (paper P-SGD's canary drawn with replacement, ±G per copy), z the
/// noise multiplier σ/G: the sum of the steps' privacy losses, the view's Neyman–Pearson
/// statistic as the Poisson one above is DP-SGD's.
pub fn mixture_likelihood_ratio(
    updates: &[f64],
    view: &GaussianShiftMixture,
    noise_multiplier: f64,
) -> Result<f64> {
    check_positive("noise-multiplier", noise_multiplier)?;
    Ok(updates
        .iter()
        .map(|u| view.loss(u / noise_multiplier))
        .sum())
}

/// μ of full-batch (q = 1) white-box DP-SGD over `steps` steps: √T/z. Its trade-off curve is
/// exactly μ-GDP; with q < 1 it is not Gaussian and there is no μ (`None`).
pub fn full_batch_mu(sampling_rate: f64, steps: usize, noise_multiplier: f64) -> Option<f64> {
    (sampling_rate == 1.0 && noise_multiplier > 0.0)
        .then(|| (steps as f64).sqrt() / noise_multiplier)
}

#[cfg(test)]
#[path = "white_box_tests.rs"]
mod tests;
