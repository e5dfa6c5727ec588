//! The privacy loss of two Gaussian mixtures with one mixing law and opposite shifts,
//! P = Σ_i w_i N(+s_i, 1) and Q = Σ_i w_i N(−s_i, 1) in units of the noise: what a white-box
//! auditor sees of one step of a noisy gradient sum whose canary row is drawn a random number
//! of times (the same law on both datasets) and moves the sum by +G per copy on D′ and −G on
//! D (paper P-SGD's batches drawn with replacement,
//! [`crate::accounting::with_replacement_gaussian::canary_view`]).
//!
//! **The loss.** L(x) = ln Σ w_i e^{s_i x − s_i²/2} − ln Σ w_i e^{−s_i x − s_i²/2}. The first sum
//! rises with x and the second falls, so L rises, with slope L′ = E_π(s) + E_ρ(s) ≤ 2·max s
//! (π, ρ the posteriors of the two mixtures' components); it is odd, so the pair is symmetric
//! (Q's law of L is P's reflected, and the add relation's PLD is the remove one's). L ≤ l
//! exactly when x ≤ x(l), the root found by safeguarded Newton, and the tails are
//! P(L ≤ l) = Σ w_i Φ(x(l) − s_i), Q(L ≤ l) = Σ w_i Φ(x(l) + s_i).
//!
//! **Missing weight.** A mixing law cut to finitely many components (the rest of its mass r
//! dropped) stands for the mechanism that also reveals the draw when it falls in the cut tail:
//! (1 − r)(P_K, Q_K) + r(P_tail, Q_tail). The hockey-stick divergence is jointly convex, and
//! the tail's is at most 1, so δ(ε) ≤ (1 − r)δ_K(ε) + r: the kept pair's PLD scaled by 1 − r
//! with r at +∞ dominates the whole one.

use super::discretise::{LogTails, PrivacyLoss, discretise};
use super::pmf::Pmf;
use super::{Pld, PldConfig};
use crate::error::{DpError, Result, ensure};
use crate::special::log_norm_cdf;

/// Newton's iterations on x(l) stop at this relative width (a few ulp).
const ROOT_PRECISION: f64 = 4.0 * f64::EPSILON;

/// A pair Σ w_i N(±s_i, 1) with a mass charged as infinite loss (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianShiftMixture {
    /// ln w_i, normalised over the kept components.
    ln_w: Vec<f64>,
    /// s_i ≥ 0.
    shifts: Vec<f64>,
    /// The largest s_i (> 0).
    widest: f64,
    /// r, the mixing law's mass not among the components, charged at +∞.
    missing: f64,
}

impl GaussianShiftMixture {
    /// The pair of `components` (w_i, s_i), the weights relative (normalised here), with
    /// `missing` ∈ [0, 1) of the mixing law left out. At least one component needs w > 0 and
    /// s > 0: with no shift the two laws are one and there is nothing to audit.
    pub fn new(components: &[(f64, f64)], missing: f64) -> Result<Self> {
        ensure(
            (0.0..1.0).contains(&missing),
            "missing",
            missing,
            "must be in [0, 1)",
        )?;
        for &(w, s) in components {
            ensure(
                w.is_finite() && w >= 0.0,
                "weight",
                w,
                "must be finite and >= 0",
            )?;
            ensure(
                s.is_finite() && s >= 0.0,
                "shift",
                s,
                "must be finite and >= 0",
            )?;
        }
        let kept: Vec<(f64, f64)> = components.iter().copied().filter(|c| c.0 > 0.0).collect();
        let total: f64 = kept.iter().map(|c| c.0).sum();
        let widest = kept.iter().fold(0.0f64, |m, c| m.max(c.1));
        if !(total.is_finite() && widest > 0.0) {
            return Err(DpError::Invalid(
                "a shift mixture needs a component with weight > 0 and shift > 0 (with no \
                 shift the two laws are one)"
                    .into(),
            ));
        }
        Ok(Self {
            ln_w: kept.iter().map(|c| (c.0 / total).ln()).collect(),
            shifts: kept.iter().map(|c| c.1).collect(),
            widest,
            missing,
        })
    }

    /// The mass charged as infinite loss.
    pub fn missing(&self) -> f64 {
        self.missing
    }

    /// ln Σ w_i e^{sign·s_i x − s_i²/2} and Σ s_i of its normalised terms (the posterior mean
    /// of s), by one max-shifted pass.
    fn log_sum(&self, x: f64, sign: f64) -> (f64, f64) {
        let term = |i: usize| {
            let s = self.shifts[i];
            self.ln_w[i] + sign * s * x - 0.5 * s * s
        };
        let top = (0..self.ln_w.len())
            .map(term)
            .fold(f64::NEG_INFINITY, f64::max);
        let (mut sum, mut mean) = (0.0, 0.0);
        for i in 0..self.ln_w.len() {
            let e = (term(i) - top).exp();
            sum += e;
            mean += e * self.shifts[i];
        }
        (top + sum.ln(), mean / sum)
    }

    /// The privacy loss ln(P/Q) at output `x` (in units of the noise).
    pub fn loss(&self, x: f64) -> f64 {
        self.log_sum(x, 1.0).0 - self.log_sum(x, -1.0).0
    }

    /// L(x) and L′(x).
    fn loss_and_slope(&self, x: f64) -> (f64, f64) {
        let (up, up_mean) = self.log_sum(x, 1.0);
        let (down, down_mean) = self.log_sum(x, -1.0);
        (up - down, up_mean + down_mean)
    }

    /// The output x(l) with L(x(l)) = l: L is odd, so the root for |l| with l's sign. From
    /// below, L(x) ≤ 2·max s·x brackets it; Newton steps that leave the bracket bisect it.
    fn output_at(&self, l: f64) -> f64 {
        if l == 0.0 || l.is_nan() {
            return 0.0;
        }
        let target = l.abs();
        let mut lo = target / (2.0 * self.widest);
        let mut hi = lo.max(f64::MIN_POSITIVE);
        for _ in 0..2100 {
            if self.loss(hi) >= target {
                break;
            }
            lo = hi;
            hi *= 2.0;
        }
        let mut x = lo;
        for _ in 0..200 {
            let (value, slope) = self.loss_and_slope(x);
            if value < target {
                lo = x;
            } else {
                hi = x;
            }
            if value == target || hi - lo <= ROOT_PRECISION * hi {
                break;
            }
            let step = x - (value - target) / slope;
            let next = if step > lo && step < hi {
                step
            } else {
                0.5 * (lo + hi)
            };
            let settled = (next - x).abs() <= ROOT_PRECISION * x.abs();
            x = next;
            if settled {
                break;
            }
        }
        l.signum() * x
    }

    /// ln Σ w_i Φ(sign·(x − shift·s_i)).
    fn log_mix_cdf(&self, x: f64, shift: f64, sign: f64) -> f64 {
        let term = |i: usize| self.ln_w[i] + log_norm_cdf(sign * (x - shift * self.shifts[i]));
        let top = (0..self.ln_w.len())
            .map(term)
            .fold(f64::NEG_INFINITY, f64::max);
        if top == f64::NEG_INFINITY {
            return top;
        }
        top + (0..self.ln_w.len())
            .map(|i| (term(i) - top).exp())
            .sum::<f64>()
            .ln()
    }

    /// The tails of L at `l` under the mixture shifted by `shift`·s (+1: P, −1: Q).
    fn tails(&self, l: f64, shift: f64) -> LogTails {
        let x = self.output_at(l);
        LogTails {
            cdf: self.log_mix_cdf(x, shift, 1.0),
            sf: self.log_mix_cdf(x, shift, -1.0),
        }
    }

    /// The pair's PLD on `config`'s grid, pessimistic, with the missing mass at +∞
    /// (module docs). Symmetric: one PMF serves both relations.
    pub fn pld(&self, config: &PldConfig) -> Result<Pld> {
        config.validate()?;
        let pmf = discretise(self, config)?;
        let kept = 1.0 - self.missing;
        let probs = pmf.probs().iter().map(|p| p * kept).collect();
        let infinity = (pmf.infinity_mass() * kept + self.missing).min(1.0);
        let pmf = Pmf::from_parts(pmf.grid_step(), pmf.offset(), probs, infinity);
        Pld::from_pmfs(pmf, None, config)
    }
}

impl PrivacyLoss for GaussianShiftMixture {
    fn p_tails(&self, l: f64) -> LogTails {
        self.tails(l, 1.0)
    }

    fn q_tails(&self, l: f64) -> LogTails {
        self.tails(l, -1.0)
    }

    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }

    fn centre(&self) -> f64 {
        0.0
    }
}

#[cfg(test)]
#[path = "shift_mixture_tests.rs"]
mod tests;
