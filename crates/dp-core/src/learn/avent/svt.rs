//! The sparse vector technique, DPareto's second illustrative problem (P Alg. 1, App. B): `m`
//! binary queries against threshold ½, a noise level `b` split as `b₁ = b/(1 + (2C)^{1/3})` on
//! the threshold and `b₂ = b − b₁` on every answer, stopping once `C` answers were positive.
//!
//! Privacy. The paper's closed form `ε = (1 + (2C)^{1/3})(1 + (2C)^{2/3})/b` is
//! `1/b₁ + 2C/b₂` (Lyu et al. 2017, Alg. 7, with `ε₁ = 1/b₁`, `ε₂ = 2C/b₂`), whose proof
//! charges `2/b₂` per positive answer released. The paper draws `C` from the continuous range
//! `[1, 30]`, and Alg. 1 stops at `c ≥ C`, i.e. after `⌈C⌉` positives: for a non-integer `C`
//! the closed form charges for `C` of them and under-reports. [`Svt::epsilon`] charges
//! `1/b₁ + 2⌈C⌉/b₂` (certified; equal to the paper's for integer `C`),
//! [`Svt::epsilon_paper`] is the closed form as published.

use rand::Rng;

use crate::error::{DpError, Result};
use crate::learn::laplace::laplace;

/// The threshold every answer is compared with (P Alg. 1: `T = 1/2`).
pub const THRESHOLD: f64 = 0.5;

/// One configuration of Alg. 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Svt {
    b: f64,
    cutoff: f64,
}

impl Svt {
    /// Noise level `b > 0` and cutoff `C ≥ 1`.
    pub fn new(b: f64, cutoff: f64) -> Result<Svt> {
        if !(b > 0.0 && b.is_finite()) {
            return Err(DpError::Invalid(format!(
                "SVT noise level b = {b} must be positive and finite"
            )));
        }
        if !(cutoff >= 1.0 && cutoff.is_finite()) {
            return Err(DpError::Invalid(format!(
                "SVT cutoff C = {cutoff} must be finite and >= 1"
            )));
        }
        Ok(Svt { b, cutoff })
    }

    /// The Laplace scales `(b₁, b₂)` of the threshold and of each answer.
    pub fn scales(&self) -> (f64, f64) {
        let b1 = self.b / (1.0 + (2.0 * self.cutoff).cbrt());
        (b1, self.b - b1)
    }

    /// The most positive answers a run releases: `⌈C⌉`.
    pub fn max_positives(&self) -> usize {
        self.cutoff.ceil() as usize
    }

    /// The paper's closed form (P §2.2 and App. B), exact only for integer `C`.
    pub fn epsilon_paper(&self) -> f64 {
        let k = (2.0 * self.cutoff).cbrt();
        (1.0 + k) * (1.0 + k * k) / self.b
    }

    /// Certified pure-DP ε: `1/b₁ + 2⌈C⌉/b₂`.
    pub fn epsilon(&self) -> f64 {
        let (b1, b2) = self.scales();
        1.0 / b1 + 2.0 * self.max_positives() as f64 / b2
    }

    /// Alg. 1 on the true `answers` with unit-scale Laplace draws `rho` (threshold) and `nu`
    /// (one per query) scaled by `(b₁, b₂)`: callers that share draws across `(b, C)` get
    /// common random numbers.
    pub fn run_with(&self, answers: &[bool], rho: f64, nu: &[f64]) -> Vec<bool> {
        assert_eq!(answers.len(), nu.len(), "one answer draw per query");
        let (b1, b2) = self.scales();
        let mut out = vec![false; answers.len()];
        let mut count = 0.0;
        for (i, (&q, &v)) in answers.iter().zip(nu).enumerate() {
            if f64::from(u8::from(q)) + b2 * v >= THRESHOLD + b1 * rho {
                out[i] = true;
                count += 1.0;
                if count >= self.cutoff {
                    break;
                }
            }
        }
        out
    }

    /// Alg. 1 with fresh draws from `rng`.
    pub fn run<R: Rng + ?Sized>(&self, answers: &[bool], rng: &mut R) -> Vec<bool> {
        let rho = laplace(rng, 1.0);
        let nu: Vec<f64> = answers.iter().map(|_| laplace(rng, 1.0)).collect();
        self.run_with(answers, rho, &nu)
    }
}

/// F₁ of `released` against `truth`: `2TP/(2TP + FP + FN)`, 1 when neither has a positive.
pub fn f1_score(truth: &[bool], released: &[bool]) -> f64 {
    let (mut tp, mut wrong) = (0usize, 0usize);
    for (&t, &r) in truth.iter().zip(released) {
        tp += usize::from(t && r);
        wrong += usize::from(t != r);
    }
    if tp == 0 && wrong == 0 {
        1.0
    } else {
        2.0 * tp as f64 / (2 * tp + wrong) as f64
    }
}

#[cfg(test)]
#[path = "svt_tests.rs"]
mod tests;
