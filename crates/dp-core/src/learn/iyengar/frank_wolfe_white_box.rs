//! What a white-box auditor of P-FW inserts and sees (audit.md §3, here for report-noisy-max).
//!
//! The auditor chooses the whole dataset, as the certificate allows: n − 1 rows at the origin,
//! whose gradients are 0 at every θ, and one canary example whose gradient is a constant g
//! with ‖g‖∞ ≤ L: the gradient of the linear loss ⟨g, θ⟩, convex and L-Lipschitz in ℓ1, so
//! inside P-FW's guarantee. On D, g = +L·1; on D′, g = −L·1. Every vertex score ±C₁gⱼ/n then
//! moves by exactly Δ = 2LC₁/n between them, the sensitivity the certificate charges: every
//! +vertex gains Δ on D′ and every −vertex loses Δ. The auditor reads the sign of each step's
//! vertex (the final θ holds them too: θ_T is the mean of the T vertices).
//!
//! Paper mode runs the same dataset through its minibatches: the canary is row 0, drawn k ~
//! Bin(m, 1/n) times per batch of m, and moves every score by k·2LC₁/m, unseen by the auditor.
//! Its event (`Event::SampledWithReplacement`) bounds every mechanism with that per-copy ε;
//! the view's own curve, the mixture over k, is what its audit's ceiling reads.
//!
//! What it can reach. With many coordinates the least of d Laplace scores is nearly Gumbel,
//! so the two groups' minima differ by a logistic variable and each step is randomised
//! response at Δ/b: half the ε₀ = 2Δ/b per step the certificate charges. Report-noisy-max
//! reaches 2Δ/b only in the tail where one score beats the other by far, which costs more
//! runs than it gains at these run counts.

use super::Pfw;
use crate::accounting::quadrature::log_integrate;
use crate::accounting::with_replacement;
use crate::error::{DpError, Result};
use crate::features::FeatureMatrix;
use crate::learn::data::GlmData;
use crate::special::log_sum_exp;

impl Pfw {
    /// The bound on every entry of a per-example gradient that the sensitivity Δ assumes:
    /// L·sup|ℓ′|. A gradient canary may reach it.
    pub fn gradient_bound(&self) -> f64 {
        self.spec.linf * self.spec.loss.max_abs_deriv()
    }

    /// One run of P-FW on the auditor's dataset of `d` features: n − 1 rows at the origin and
    /// the canary example (row 0) whose gradient is `canary` at every θ (one entry per feature,
    /// each within ±[`Pfw::gradient_bound`]), on the full gradient or, in paper mode, on the
    /// minibatches drawn with replacement. The sign of every step's vertex, in order.
    pub fn white_box_signs(&self, d: usize, seed: u64, canary: &[f64]) -> Result<Vec<f64>> {
        if canary.len() != d || d == 0 {
            return Err(DpError::Invalid(format!(
                "a P-FW gradient canary has one entry per feature: {} for {d} features",
                canary.len()
            )));
        }
        let bound = self.gradient_bound();
        if let Some(bad) = canary.iter().find(|g| g.is_nan() || g.abs() > bound) {
            return Err(DpError::Invalid(format!(
                "a P-FW gradient canary's entries must lie within ±{bound} (L times the \
                 loss's derivative bound); got {bad}"
            )));
        }
        let origin = FeatureMatrix::origin(self.n, d);
        let y = vec![1.0; self.n];
        let data = GlmData::new(&origin, &y)?;
        let mut signs = Vec::with_capacity(self.spec.steps as usize);
        self.run(&data, seed, Some(canary), |_, sign| signs.push(sign))?;
        Ok(signs)
    }

    /// The ε of one step of this view on `d` features, exactly: the steps are independent
    /// (the scores do not depend on θ) and, by the ± symmetry, each is randomised response
    /// at ε_v = ln(P[+ vertex | D′] / P[− vertex | D′]), so the view's curve is T-fold
    /// ε_v-randomised response. With x the least of the d Laplace noises on the + side (in
    /// units of b) and Δ′ = Δ/b, P[±] = ∫ d·f(x)(1 − F(x))^{d−1}(1 − F(x ∓ Δ′))^d dx, each by
    /// Gauss–Legendre between the kinks; ε_v is rounded up by 1e-9, since an audit's ceiling
    /// must not fall below the view's curve. In paper mode the canary is drawn k ~ Bin(m, 1/n)
    /// times per batch, unseen, and each P[±] is the mixture over k at Δ′ = k·(n/m)·Δ/b.
    pub fn white_box_step_epsilon(&self, d: usize) -> Result<f64> {
        if d == 0 {
            return Err(DpError::Invalid(
                "a P-FW view needs at least one feature".into(),
            ));
        }
        let shift = self.sensitivity() / self.scale;
        let dd = d as f64;
        // ln(1 − F(x)) for the standard Laplace law.
        let log_sf = |x: f64| {
            if x < 0.0 {
                (-0.5 * x.exp()).ln_1p()
            } else {
                -x - std::f64::consts::LN_2
            }
        };
        let side = |s: f64| -> f64 {
            let g = |x: f64| {
                dd.ln() - x.abs() - std::f64::consts::LN_2
                    + (dd - 1.0) * log_sf(x)
                    + dd * log_sf(x - s)
            };
            let (k1, k2) = (0.0f64.min(s), 0.0f64.max(s));
            // Panels between the kinks grow with their span (a minibatch's many copies move
            // the scores far); at a full gradient's shifts (≤ 5) this is the fixed 20.
            let mid = 20.max((4.0 * (k2 - k1)).ceil() as usize);
            log_sum_exp(&[
                log_integrate(g, (-80f64).min(k1 - 40.0), k1, 400),
                log_integrate(g, k1, k2, mid),
                log_integrate(g, k2, 80f64.max(k2 + 40.0), 400),
            ])
        };
        let (plus, minus) = match self.minibatch() {
            None => (side(shift), side(-shift)),
            Some(m) => {
                // k copies of the canary in a batch move every score k·(n/m)·Δ: each side is
                // the Bin(m, 1/n) mixture over k. Multiplicities below chance 1e-26 are left
                // out and their mass credited to the + side, so ε_v can only come out high.
                let ln_w = with_replacement::ln_weights(m as u64, self.n as u64);
                let per_copy = shift * self.n as f64 / m as f64;
                let (mut plus, mut minus, mut dropped) = (vec![], vec![], 0.0);
                for (k, &lw) in ln_w.iter().enumerate() {
                    if lw < -60.0 {
                        dropped += lw.exp();
                        continue;
                    }
                    plus.push(lw + side(k as f64 * per_copy));
                    minus.push(lw + side(-(k as f64) * per_copy));
                }
                let plus = log_sum_exp(&plus).exp() + dropped;
                (plus.ln(), log_sum_exp(&minus))
            }
        };
        let total = plus.exp() + minus.exp();
        if !(plus.is_finite() && minus.is_finite() && (total - 1.0).abs() < 1e-6) {
            return Err(DpError::NoConvergence(format!(
                "the P-FW view's step probabilities sum to {total}, not 1"
            )));
        }
        Ok(plus - minus + 1e-9)
    }
}

#[cfg(test)]
#[path = "frank_wolfe_white_box_tests.rs"]
mod tests;
