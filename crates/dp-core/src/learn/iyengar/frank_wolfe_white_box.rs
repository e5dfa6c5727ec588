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
//! What it can reach. With many coordinates the least of d Laplace scores is nearly Gumbel,
//! so the two groups' minima differ by a logistic variable and each step is randomised
//! response at Δ/b: half the ε₀ = 2Δ/b per step the certificate charges. Report-noisy-max
//! reaches 2Δ/b only in the tail where one score beats the other by far, which costs more
//! runs than it gains at these run counts.

use super::Pfw;
use crate::error::{DpError, Result};
use crate::features::{Csr, FeatureMatrix};
use crate::learn::data::GlmData;
use crate::learn::iyengar::calibration::Calibration;

impl Pfw {
    /// One run of full-gradient (certified) P-FW on the auditor's dataset of `d` features:
    /// n − 1 rows at the origin and the canary example whose gradient is `canary` at every θ
    /// (one entry per feature, each within ±L). The sign of every step's vertex, in order.
    pub fn white_box_signs(&self, d: usize, seed: u64, canary: &[f64]) -> Result<Vec<f64>> {
        if self.calibration != Calibration::Certified {
            return Err(DpError::Invalid(
                "a white-box audit of P-FW needs the certified (full-gradient) mode: paper \
                 mode's with-replacement minibatches are not the event it is accounted as"
                    .into(),
            ));
        }
        if canary.len() != d || d == 0 {
            return Err(DpError::Invalid(format!(
                "a P-FW gradient canary has one entry per feature: {} for {d} features",
                canary.len()
            )));
        }
        if let Some(bad) = canary
            .iter()
            .find(|g| g.is_nan() || g.abs() > self.spec.linf)
        {
            return Err(DpError::Invalid(format!(
                "a P-FW gradient canary's entries must lie within ±L = ±{}; got {bad}",
                self.spec.linf
            )));
        }
        let origin = FeatureMatrix::Sparse(Csr {
            nrows: self.n,
            ncols: d,
            indptr: vec![0; self.n + 1],
            indices: Vec::new(),
            values: Vec::new(),
        });
        let y = vec![1.0; self.n];
        let data = GlmData::new(&origin, &y)?;
        let mut signs = Vec::with_capacity(self.spec.steps as usize);
        self.run(&data, seed, Some(canary), |_, sign| signs.push(sign))?;
        Ok(signs)
    }
}

#[cfg(test)]
#[path = "frank_wolfe_white_box_tests.rs"]
mod tests;
