//! Lower bounds on a mechanism's privacy profile: the optimistic twin of the accountant
//! (dp_accounting's `pessimistic_estimate=False`), for audits only.
//!
//! An audit that rejects a claim from a family of mechanisms (the f-DP test against the
//! Poisson-subsampled Gaussian's curves, `crate::audit::sampled_family`) turns the least
//! rejected member into a bound on ε only through a *lower* bound on that member's ε(δ): the
//! accountant's ε is an upper bound, above the truth by its discretisation error, and would
//! over-state what the audit showed.
//!
//! **Why it is a lower bound.** Each step's loss is rounded down onto the grid
//! (`discretise_down`), so every composed loss only falls and δ(ε) = E_P[(1 − e^{ε−L})₊],
//! increasing in L, only falls. The k-fold FFT composition then charges its window's outside
//! mass (aliased into the window at worst) and its round-off (an ℓ1 bound) to the infinity
//! mass, each of which can raise the computed sum by no more than it: so δ(ε) below is the
//! sum **minus** that mass, shrunk by the accountant's relative round-off margin. Never use
//! it as a certificate.

use super::discretise::discretise_down;
use super::fft_compose::self_convolve;
use super::gaussian::GaussianLoss;
use super::subsampled_gaussian::{Direction, SubsampledGaussianLoss};
use super::{PldConfig, Pmf, ROUND_OFF_MARGIN};
use crate::error::{
    Result, check_delta, check_nonnegative, check_positive, check_sampling_rate, ensure,
};

/// Bisection cap on ε (about 60 halvings reach double resolution on these brackets).
const MAX_ITER: usize = 200;

/// Lower bounds on δ(ε) and ε(δ) of a composition, for each neighbouring relation.
#[derive(Clone, Debug)]
pub struct LowerPld {
    relations: Vec<Pmf>,
}

impl LowerPld {
    /// `steps` runs of the Poisson-subsampled Gaussian mechanism (rate q ∈ (0, 1], noise
    /// multiplier z, sensitivity 1), both relations.
    pub fn subsampled_gaussian(
        sampling_rate: f64,
        noise_multiplier: f64,
        steps: u64,
        config: &PldConfig,
    ) -> Result<Self> {
        check_sampling_rate(sampling_rate)?;
        check_positive("noise-multiplier", noise_multiplier)?;
        config.validate()?;
        ensure(steps >= 1, "steps", steps as f64, "must be >= 1")?;
        let relations = [Direction::Remove, Direction::Add]
            .into_iter()
            .map(|d| {
                let one = discretise_down(
                    &SubsampledGaussianLoss::new(sampling_rate, noise_multiplier, d),
                    config,
                )?;
                self_convolve(&one, steps, config.tail_mass_truncation)
            })
            .collect::<Result<_>>()?;
        Ok(Self { relations })
    }

    /// `steps` runs of the Gaussian mechanism with noise `sigma` and sensitivity
    /// `sensitivity` (one relation: it is symmetric).
    pub fn gaussian(sigma: f64, sensitivity: f64, steps: u64, config: &PldConfig) -> Result<Self> {
        check_positive("sigma", sigma)?;
        check_positive("sensitivity", sensitivity)?;
        config.validate()?;
        ensure(steps >= 1, "steps", steps as f64, "must be >= 1")?;
        let one = discretise_down(&GaussianLoss::new(sigma, sensitivity), config)?;
        Ok(Self {
            relations: vec![self_convolve(&one, steps, config.tail_mass_truncation)?],
        })
    }

    /// A lower bound on δ(ε): the larger over the relations (module docs).
    pub fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonnegative("epsilon", epsilon)?;
        Ok(self.raw_delta(epsilon))
    }

    fn raw_delta(&self, epsilon: f64) -> f64 {
        self.relations
            .iter()
            .map(|p| {
                // pmf.delta adds the charged mass once; the bound takes it off once more.
                let sum = p.delta(epsilon) - 2.0 * p.infinity_mass();
                (sum * (1.0 - ROUND_OFF_MARGIN)).max(0.0)
            })
            .fold(0.0, f64::max)
    }

    /// A lower bound on ε(δ): the largest ε whose lower δ(ε) still exceeds `delta`, by
    /// bisection rounded down; 0 when even δ(0) does not.
    pub fn epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        if self.raw_delta(0.0) <= delta {
            return Ok(0.0);
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while self.raw_delta(hi) > delta {
            lo = hi;
            hi *= 2.0;
            if hi > 1e6 {
                // Losses on the grid are finite: δ falls to 0 past the largest of them.
                return Ok(lo);
            }
        }
        for _ in 0..MAX_ITER {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.raw_delta(mid) > delta {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }
}

#[cfg(test)]
#[path = "lower_tests.rs"]
mod tests;
