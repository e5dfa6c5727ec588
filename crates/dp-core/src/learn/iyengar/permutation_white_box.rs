//! What a white-box auditor of P-SCPSGD and of P-PSGD inserts and sees (audit.md §3, here for
//! output perturbation); P-PSGD's view is derived at its `impl` below.
//!
//! The auditor chooses the whole dataset, as the certificate allows: n − 1 rows at the origin,
//! whose loss gradients are 0 at every θ, and one canary example whose gradient is a constant g
//! with ‖g‖₂ ≤ L·sup|ℓ′|: the gradient of the linear loss ⟨g, θ⟩, convex, Lipschitz and
//! 0-smooth. Wu et al.'s guarantee, the certificate's, holds for every such loss. As a data
//! row of this GLM mechanism, x = L·e₁ with the Huber loss, it has that gradient only while its
//! margin stays in the linear zone, which |θ₁| ≤ C < 1 − h ensures (radius 0.1 in the audit
//! config, not radius 1); the audit relies on the general guarantee. On D, g = +G·e₁; on D′,
//! g = −G·e₁ (replace-one, the certificate's relation). The auditor reads the last iterate
//! plus its output noise, before the final projection (the release is that projection of it).
//!
//! On this dataset every step is θ ← (1 − η_tλ)θ − η_t·g/|B| on the canary's batch, so the two
//! runs, which share the start and the permutation, end exactly
//! s(i) = 2G·Σ_passes η_t·Π_{u>t}(1 − η_uλ)/|B_i| apart along e₁, where t is the canary's step
//! in each pass (batch i). The projection after each step is 1-Lipschitz and can only shrink
//! that. The view is therefore a mixture over i of Gaussian pairs at distance at most
//! max_i s(i), and is dominated by the Gaussian pair at that distance
//! ([`Pscpsgd::white_box_shift`]), which its ceiling reads.
//!
//! What it can reach. The certificate's Δ₂ = 2L_reg/(λn) counts L_reg = L·sup|ℓ′| + λC, the
//! bound on the *regularised* per-example gradient, but the regulariser λθ is the same on both
//! datasets and cancels. The view's distance is at most 2G/(λ·|B|min·m) for m batches
//! (2G/(λn) for equal ones), the factor G/L_reg below the certificate, and below that again by
//! the early steps, where η = 1/β < 1/(λt).

use super::{Ppsgd, Pscpsgd};
use crate::error::{DpError, Result};
use crate::features::FeatureMatrix;
use crate::learn::data::GlmData;
use crate::learn::iyengar::calibration::Calibration;
use crate::learn::iyengar::step::batch_bounds;
use crate::learn::loss::lipschitz;
use crate::learn::mechanism::OutputPerturbation;

impl Pscpsgd {
    /// The bound on a per-example loss gradient's ℓ2 norm that the sensitivity assumes:
    /// L·sup|ℓ′|. A gradient canary may reach it.
    pub fn gradient_bound(&self) -> f64 {
        lipschitz(self.spec.loss, self.spec.lipschitz)
    }

    /// One run of P-SCPSGD on the auditor's dataset of `d` features: n − 1 rows at the origin
    /// and, as row 0, the canary example whose gradient is `canary` at every θ (‖canary‖₂ ≤
    /// [`Pscpsgd::gradient_bound`]). The last iterate plus the release's output noise, before
    /// the final projection: the same draws as a run of [`crate::learn::Mechanism::fit`] with
    /// `seed`.
    pub fn white_box_release(&self, d: usize, seed: u64, canary: &[f64]) -> Result<Vec<f64>> {
        self.check_certified()?;
        check_canary("P-SCPSGD", canary, d, self.gradient_bound())?;
        let mut theta = on_the_origin(self.n, d, |data| {
            self.descend_with(data, seed, Some((0, canary)))
        })?;
        self.add_output_noise(&mut theta, super::noise_seed(seed));
        Ok(theta)
    }

    /// The largest distance between the last iterates of [`Pscpsgd::white_box_release`] on D
    /// and D′ (canaries ±[`Pscpsgd::gradient_bound`]·e₁) over the canary's batch: see the
    /// module's derivation. Refused in paper mode, whose certificate does not hold.
    pub fn white_box_shift(&self) -> Result<f64> {
        self.check_certified()?;
        let s = &self.spec;
        let bounds = batch_bounds(self.n, s.batch, true);
        let count = bounds.len() - 1;
        let total = (s.passes as usize).saturating_mul(count);
        let eta = |t: usize| (1.0 / self.smoothness).min(1.0 / (s.lambda * t as f64));
        // Backwards over the steps, `after` = Π_{u > t} (1 − η_u λ), each factor in [0, 1):
        // memory for one sum per batch, not one product per step (passes are unbounded).
        let mut sums = vec![0.0; count];
        let mut after = 1.0;
        for t in (1..=total).rev() {
            sums[(t - 1) % count] += eta(t) * after;
            after *= 1.0 - eta(t) * s.lambda;
        }
        let reach = sums
            .iter()
            .zip(bounds.windows(2))
            .map(|(sum, w)| sum / (w[1] - w[0]) as f64)
            .fold(0.0, f64::max);
        Ok(2.0 * self.gradient_bound() * reach)
    }

    fn check_certified(&self) -> Result<()> {
        if self.calibration == Calibration::Certified && self.sensitivity.is_finite() {
            return Ok(());
        }
        Err(DpError::Invalid(
            "only certified P-SCPSGD has a white-box view: paper mode's steps break the \
             contraction its certificate rests on"
                .into(),
        ))
    }
}

/// `descend` on the auditor's dataset of `n` rows at the origin, `d` features wide (labels +1;
/// row 0 carries the canary's gradient).
fn on_the_origin(
    n: usize,
    d: usize,
    descend: impl FnOnce(&GlmData<'_>) -> Result<Vec<f64>>,
) -> Result<Vec<f64>> {
    let origin = FeatureMatrix::origin(n, d);
    let y = vec![1.0; n];
    descend(&GlmData::new(&origin, &y)?)
}

/// A gradient canary of `d` entries whose ℓ2 norm is at most `bound`, or an error naming
/// `mechanism`.
fn check_canary(mechanism: &str, canary: &[f64], d: usize, bound: f64) -> Result<()> {
    if canary.len() != d || d == 0 {
        return Err(DpError::Invalid(format!(
            "a {mechanism} gradient canary has one entry per feature: {} for {d} features",
            canary.len()
        )));
    }
    let norm = canary.iter().map(|g| g * g).sum::<f64>().sqrt();
    if norm.is_nan() || norm > bound * (1.0 + 1e-12) {
        return Err(DpError::Invalid(format!(
            "a {mechanism} gradient canary's ℓ2 norm must be at most {bound} (L times the \
             loss's derivative bound); got {norm}"
        )));
    }
    Ok(())
}

/// P-PSGD's white-box view, on the same auditor's dataset as P-SCPSGD's (above): n − 1 rows at
/// the origin and a canary whose gradient is +g (D) or −g (D′), ‖g‖₂ ≤ G = L·sup|ℓ′|. P-PSGD
/// starts at 0 and neither regularises nor projects, so each pass moves θ by −η·g/|B_i|
/// exactly, i the canary's batch (one permutation serves every pass), and the two runs end
/// s_i = 2kηG/|B_i| apart along g. The view, θ plus the output noise N(0, σ²I) read along g,
/// is the mixture over i, with weights |B_i|/n (where the canary's row falls), of the
/// Gaussian pairs N(∓s_i/2, σ²): exact, not dominated ([`Ppsgd::white_box_shifts`]).
///
/// The certificate pays for the smallest batch in every run: Δ₂ = 2kLη/|B|min. With balanced
/// batches (certified) every s_i is within one row of it; the paper's code leaves a short last
/// batch, which holds the canary only |B_last|/n of the time, so its view is well below its
/// certificate there (and far above the paper's claim where the short batch is tiny: the
/// black-box audit at n = 100 refutes it).
impl Ppsgd {
    /// The bound on a per-example loss gradient's ℓ2 norm that the sensitivity assumes:
    /// L·sup|ℓ′|. A gradient canary may reach it.
    pub fn gradient_bound(&self) -> f64 {
        lipschitz(self.spec.loss, self.spec.lipschitz)
    }

    /// One run of P-PSGD on the auditor's dataset of `d` features: n − 1 rows at the origin
    /// and, as row 0, the canary example whose gradient is `canary` at every θ (‖canary‖₂ ≤
    /// [`Ppsgd::gradient_bound`]). The release: the same draws as a run of
    /// [`crate::learn::Mechanism::fit`] with `seed`. Refused where the certificate is ∞
    /// (steps that may expand).
    pub fn white_box_release(&self, d: usize, seed: u64, canary: &[f64]) -> Result<Vec<f64>> {
        self.check_finite()?;
        check_canary("P-PSGD", canary, d, self.gradient_bound())?;
        let theta = on_the_origin(self.n, d, |data| {
            self.descend_with(data, seed, Some((0, canary)))
        })?;
        Ok(self.release(theta, super::noise_seed(seed)).0)
    }

    /// The view's mixture, one (weight |B_i|/n, distance s_i = 2kηG/|B_i|) per distinct
    /// batch size, distances ascending: the two runs of [`Ppsgd::white_box_release`] with
    /// canaries ±G·e₁ end s_i apart when the canary's row is in a batch of size |B_i|.
    pub fn white_box_shifts(&self) -> Result<Vec<(f64, f64)>> {
        self.check_finite()?;
        let s = &self.spec;
        let bounds = batch_bounds(self.n, s.batch, self.calibration == Calibration::Certified);
        let mut sizes: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let mut out: Vec<(f64, f64)> = Vec::new();
        for size in sizes {
            let weight = size as f64 / self.n as f64;
            let distance = 2.0 * s.passes as f64 * s.lr * self.gradient_bound() / size as f64;
            match out.last_mut() {
                Some(last) if last.1 == distance => last.0 += weight,
                _ => out.push((weight, distance)),
            }
        }
        Ok(out)
    }

    fn check_finite(&self) -> Result<()> {
        if self.sensitivity.is_finite() {
            return Ok(());
        }
        Err(DpError::Invalid(
            "P-PSGD with η > 2/β has no certificate, and so no white-box view to compare with it"
                .into(),
        ))
    }
}

#[cfg(test)]
#[path = "permutation_white_box_tests.rs"]
mod tests;
