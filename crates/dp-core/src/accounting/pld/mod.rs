//! FFT-based privacy-loss-distribution (PLD) accountant (Koskela et al.; Google dp_accounting).
//!
//! A [`Pld`] holds, for each neighbouring relation (remove / add one record), the distribution
//! of the privacy loss L = log(P(o)/Q(o)), o ~ P, discretised onto the grid ω_i = i·h as a
//! [`Pmf`] plus a mass at +∞. Then δ(ε) = m_∞ + Σ_i p_i (1 − e^{ε − ω_i})₊, composition is
//! convolution (done by FFT), and the reported δ is the maximum over the two relations.
//!
//! # Pessimism and error budget
//! Every step over-reports δ(ε), never under-reports it:
//! - discretisation ([`Discretisation`]) moves or splits atoms so that the discrete pair
//!   dominates the continuous one for every ε (see `discretise.rs`); its *accuracy* is set by
//!   [`PldConfig::grid_step`] (connect-the-dots: O(k·h²) bias of the composed loss; round-up:
//!   up to k·h);
//! - the single-mechanism loss range is cut where each tail has P-mass ≤ τ/2
//!   (τ = [`PldConfig::tail_mass_truncation`]); the lower tail is rounded up onto the grid and
//!   the upper tail split between the top grid point and +∞, so each cut adds ≤ τ/2 to δ;
//! - k-fold composition keeps a Chernoff window with outside mass ≤ τ, charged to m_∞;
//! - FFT round-off is charged to m_∞ through an ℓ1 error bound evaluated on the spectra
//!   (≈1e-13 for 10⁴ DP-SGD steps: the low frequencies, where a k-fold power would amplify
//!   the forward FFT's error k-fold, are recomputed in double-double); other floating-point
//!   error (≈1e-11 relative) is covered by [`ROUND_OFF_MARGIN`].
//!
//! So δ_PLD(ε) − δ_true(ε) ≤ (discretisation gap) + (k + 1)·τ + (round-off), with the first
//! term shrinking with h. The defaults (h = 1e-4, τ = 1e-15) give ε within ~1e-4 of the
//! fine-grid limit for 10⁴ DP-SGD steps at δ = 1e-5.

mod dd;
mod discretise;
mod fft_compose;
mod gaussian;
pub mod lower;
mod objpert;
mod pmf;
mod randomized_response;
pub mod shift_mixture;
mod spectrum;
mod subsampled_gaussian;

pub use pmf::Pmf;
pub use shift_mixture::GaussianShiftMixture;

use crate::error::{
    DpError, Result, check_delta, check_nonnegative, check_positive, check_sampling_rate, ensure,
};
use discretise::{PrivacyLoss, discretise};
use gaussian::GaussianLoss;
use objpert::ObjPertLoss;
use subsampled_gaussian::{Direction, SubsampledGaussianLoss};

/// Relative inflation of every δ the accountant reports. The discretisation is pessimistic in
/// exact arithmetic; in floating point the split ratios and tail differences carry relative
/// errors of about 1e-11 of δ (measured against closed forms), which this margin covers.
pub const ROUND_OFF_MARGIN: f64 = 1e-9;

/// How a continuous privacy loss is put on the grid. Both are pessimistic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Discretisation {
    /// Split each atom between its two neighbouring grid points preserving P- and Q-mass
    /// (Doroshenko et al. 2022, dp_accounting's pessimistic "connect the dots").
    #[default]
    ConnectTheDots,
    /// Round each atom's loss up to the next grid point (the mass of each interval
    /// (ω_{i−1}, ω_i] is assigned to ω_i). Simpler, but biased by up to h per composition.
    RoundUp,
}

/// Discretisation parameters and error budget of the accountant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PldConfig {
    /// Grid spacing h of the privacy-loss values.
    pub grid_step: f64,
    /// Tail mass τ that each truncation may cut (charged pessimistically to δ).
    pub tail_mass_truncation: f64,
    /// Discretisation scheme.
    pub discretisation: Discretisation,
}

impl Default for PldConfig {
    fn default() -> Self {
        Self {
            grid_step: 1e-4,
            tail_mass_truncation: 1e-15,
            discretisation: Discretisation::ConnectTheDots,
        }
    }
}

impl PldConfig {
    /// Checks h > 0 and τ ∈ (0, 1).
    pub fn validate(&self) -> Result<()> {
        check_positive("grid-step", self.grid_step)?;
        ensure(
            self.tail_mass_truncation > 0.0 && self.tail_mass_truncation < 1.0,
            "tail-mass-truncation",
            self.tail_mass_truncation,
            "must be in (0, 1)",
        )
    }
}

/// Privacy-loss distributions of a mechanism (or composition) under remove and add
/// neighbours. `add == None` means the add relation has the same PLD as remove.
#[derive(Clone, Debug)]
pub struct Pld {
    remove: Pmf,
    add: Option<Pmf>,
    config: PldConfig,
}

impl Pld {
    /// Gaussian mechanism with noise `sigma` and ℓ2 sensitivity `sensitivity` (symmetric:
    /// the PLRV is N(μ, 2μ), μ = Δ²/(2σ²), for both relations).
    pub fn gaussian(sigma: f64, sensitivity: f64, config: &PldConfig) -> Result<Self> {
        check_positive("sigma", sigma)?;
        check_positive("sensitivity", sensitivity)?;
        Self::symmetric(&GaussianLoss::new(sigma, sensitivity), config)
    }

    /// Poisson-subsampled Gaussian mechanism with sampling rate q ∈ (0, 1], noise multiplier
    /// z and sensitivity 1; holds the remove and the add relation separately.
    pub fn subsampled_gaussian(
        sampling_rate: f64,
        noise_multiplier: f64,
        config: &PldConfig,
    ) -> Result<Self> {
        check_sampling_rate(sampling_rate)?;
        check_positive("noise-multiplier", noise_multiplier)?;
        config.validate()?;
        let remove =
            SubsampledGaussianLoss::new(sampling_rate, noise_multiplier, Direction::Remove);
        let add = SubsampledGaussianLoss::new(sampling_rate, noise_multiplier, Direction::Add);
        Ok(Self {
            remove: discretise(&remove, config)?,
            add: Some(discretise(&add, config)?),
            config: *config,
        })
    }

    /// Objective perturbation for GLMs through its dominating pair (Redberg et al., Thm 3.1):
    /// ω = c + s²/2 + |N(0, s²)|, c = −log(1 − β/λ), s = L/σ. Requires 0 ≤ β < λ.
    pub fn objpert(
        sigma: f64,
        lambda: f64,
        beta: f64,
        lipschitz: f64,
        config: &PldConfig,
    ) -> Result<Self> {
        // One validation of (σ, λ, β, L) for every ObjPert bound.
        crate::accounting::objpert::ObjPert::new(sigma, lambda, beta, lipschitz)?;
        Self::symmetric(&ObjPertLoss::new(sigma, lambda, beta, lipschitz), config)
    }

    /// PLD from already discretised distributions (`add == None`: same as `remove`).
    pub fn from_pmfs(remove: Pmf, add: Option<Pmf>, config: &PldConfig) -> Result<Self> {
        config.validate()?;
        for pmf in std::iter::once(&remove).chain(add.as_ref()) {
            same_grid(pmf.grid_step(), config.grid_step)?;
        }
        Ok(Self {
            remove,
            add,
            config: *config,
        })
    }

    fn symmetric(model: &impl PrivacyLoss, config: &PldConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            remove: discretise(model, config)?,
            add: None,
            config: *config,
        })
    }

    /// PLD of running `self` and then `other` (independently). Both must share the grid
    /// step; the result uses `self`'s configuration and truncates negligible tails.
    pub fn compose(&self, other: &Pld) -> Result<Pld> {
        same_grid(other.config.grid_step, self.config.grid_step)?;
        let tail = self.config.tail_mass_truncation;
        let both = |a: &Pmf, b: &Pmf| fft_compose::convolve(a, b).map(|p| p.truncate_tails(tail));
        let remove = both(&self.remove, &other.remove)?;
        let add = match (&self.add, &other.add) {
            (None, None) => None,
            _ => Some(both(self.add(), other.add())?),
        };
        Ok(Pld {
            remove,
            add,
            config: self.config,
        })
    }

    /// PLD of `k` independent runs of `self` (k ≥ 1).
    pub fn self_compose(&self, k: u64) -> Result<Pld> {
        ensure(k >= 1, "compositions", k as f64, "must be >= 1")?;
        let tail = self.config.tail_mass_truncation;
        let remove = fft_compose::self_convolve(&self.remove, k, tail)?;
        let add = match &self.add {
            Some(a) => Some(fft_compose::self_convolve(a, k, tail)?),
            None => None,
        };
        Ok(Pld {
            remove,
            add,
            config: self.config,
        })
    }

    /// δ(ε): the maximum over the two relations, inflated by [`ROUND_OFF_MARGIN`]; an upper
    /// bound on the true privacy profile.
    pub fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonnegative("epsilon", epsilon)?;
        let raw = self.remove.delta(epsilon).max(self.add().delta(epsilon));
        Ok((raw * (1.0 + ROUND_OFF_MARGIN)).min(1.0))
    }

    /// Smallest ε ≥ 0 with [`Pld::delta`]`(ε) ≤ delta`; `f64::INFINITY` if the infinite-loss
    /// mass alone exceeds it.
    pub fn epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        let raw = delta / (1.0 + ROUND_OFF_MARGIN);
        Ok(self.remove.epsilon(raw).max(self.add().epsilon(raw)))
    }

    /// PLD under the remove relation (P = mechanism on the larger dataset).
    pub fn remove(&self) -> &Pmf {
        &self.remove
    }

    /// PLD under the add relation (equal to [`Pld::remove`] for symmetric mechanisms).
    pub fn add(&self) -> &Pmf {
        self.add.as_ref().unwrap_or(&self.remove)
    }

    /// Whether both relations share one PLD.
    pub fn is_symmetric(&self) -> bool {
        self.add.is_none()
    }

    /// Configuration the PLD was built with.
    pub fn config(&self) -> &PldConfig {
        &self.config
    }
}

/// ε of `steps` DP-SGD steps (Poisson sampling rate q, noise multiplier z) at `delta`, by
/// the PLD accountant with the default [`PldConfig`].
pub fn dpsgd_epsilon_pld(
    sampling_rate: f64,
    noise_multiplier: f64,
    steps: u64,
    delta: f64,
) -> Result<f64> {
    check_delta(delta)?;
    ensure(steps >= 1, "steps", steps as f64, "must be >= 1")?;
    Pld::subsampled_gaussian(sampling_rate, noise_multiplier, &PldConfig::default())?
        .self_compose(steps)?
        .epsilon(delta)
}

fn same_grid(h: f64, expected: f64) -> Result<()> {
    if (h - expected).abs() <= 1e-12 * expected {
        Ok(())
    } else {
        Err(DpError::Invalid(format!(
            "PLD grid steps differ ({h} vs {expected}); compose on one grid"
        )))
    }
}
