//! One DPareto iteration (Avent et al. 2020, Alg. 2, as their GPflowOpt harness runs it):
//! transform the observations, fit a GP per objective, build HV-PoI on the front of the GP
//! means at the training inputs, and maximise it over the box.
//!
//! Transforms (`harness.py:172-222`): inputs divided per coordinate by their maximum over the
//! k₀ initial points (the box too, so its upper ends may exceed 1); privacy `ln ε / c` with
//! `c` the largest `ln ε` of the initial points; utility `logit(error)`. The privacy GP has
//! fixed (near-zero) noise, the utility GP learns its noise; both have zero mean and no other
//! scaling (`scaling=False`).

use rand::Rng;

use super::gp::{Gp, GpConfig, Hyper};
use super::hvpoi::{HvPoi, Reference};
use super::search::{SearchOptions, maximise};
use crate::error::{DpError, Result};

/// Error values are clamped to `[CLAMP, 1 − CLAMP]` before the logit (the authors' code does
/// not clamp; an error of exactly 0 or 1 would make the GP target infinite).
const CLAMP: f64 = 1e-6;

/// The privacy GP's fixed noise variance, standing in for GPflow's 0 + jitter retries.
const PRIVACY_NOISE: f64 = 1e-6;

/// The anti-ideal point of the authors' harness, (ε, error) = (10, 0.999) (`harness.py:81`).
pub const HARNESS_ANTI_IDEAL: (f64, f64) = (10.0, 0.999);

/// Settings of one iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct DparetoOptions {
    /// GP hyperparameter restarts (GPflowOpt: 5).
    pub restarts: usize,
    /// Uniform candidates of the acquisition search (GPflowOpt: 5000).
    pub candidates: usize,
    /// `true`: GPflowOpt's re-estimated reference point; `false`: the harness's anti-ideal
    /// point, transformed.
    pub estimated_reference: bool,
}

/// What the iteration proposes.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    /// The next point, in the caller's (untransformed) coordinates.
    pub x: Vec<f64>,
    /// HV-PoI at the proposal.
    pub acquisition: f64,
    /// Fitted privacy-GP hyperparameters (warm start of the next iteration).
    pub privacy: Hyper,
    /// Fitted utility-GP hyperparameters.
    pub utility: Hyper,
}

/// Observations so far: row-major inputs (`dim` per point) with their ε and error; the first
/// `k0` are the initial points that fix the scalings.
pub struct Observations<'a> {
    /// Inputs as proposed (unrounded), row-major.
    pub x: &'a [f64],
    /// Input dimension.
    pub dim: usize,
    /// ε of each point (> 0).
    pub epsilon: &'a [f64],
    /// Error of each point, in [0, 1].
    pub error: &'a [f64],
    /// Number of initial points.
    pub k0: usize,
}

fn logit(e: f64) -> f64 {
    let e = e.clamp(CLAMP, 1.0 - CLAMP);
    e.ln() - (-e).ln_1p()
}

impl Observations<'_> {
    fn check(&self) -> Result<()> {
        let n = self.epsilon.len();
        if self.dim == 0 || self.x.len() != n * self.dim || self.error.len() != n {
            return Err(DpError::Invalid(format!(
                "DPareto observations: {} inputs of dimension {}, {} ε and {} errors",
                self.x.len(),
                self.dim,
                n,
                self.error.len()
            )));
        }
        if self.k0 == 0 || self.k0 > n {
            return Err(DpError::Invalid(format!(
                "DPareto needs 1..={n} initial points, not {}",
                self.k0
            )));
        }
        if let Some(e) = self.epsilon.iter().find(|e| !(**e > 0.0 && e.is_finite())) {
            return Err(DpError::Invalid(format!(
                "ε = {e} is not positive and finite"
            )));
        }
        Ok(())
    }

    /// Per-coordinate input scale: the maximum over the initial points.
    fn input_scale(&self) -> Vec<f64> {
        (0..self.dim)
            .map(|d| {
                self.x
                    .chunks_exact(self.dim)
                    .take(self.k0)
                    .map(|r| r[d].abs())
                    .fold(0.0, f64::max)
                    .max(f64::MIN_POSITIVE)
            })
            .collect()
    }

    /// The privacy scale `c`, or 1 when every initial ε < 1 (dividing by `c ≤ 0` would flip or
    /// break the order the GP models; the authors' code would divide anyway).
    fn privacy_scale(&self) -> f64 {
        let c = self.epsilon[..self.k0]
            .iter()
            .map(|e| e.ln())
            .fold(f64::NEG_INFINITY, f64::max);
        if c > 0.0 { c } else { 1.0 }
    }
}

/// The two fitted surrogates and the acquisition of one iteration, in the transformed space.
pub struct Surrogates {
    scale: Vec<f64>,
    c: f64,
    privacy: Gp,
    utility: Gp,
    acq: HvPoi,
}

impl Surrogates {
    /// Fits both GPs to `obs` (warm-started from `warm`, restarts drawn from `rng`) and builds
    /// HV-PoI on the front of their means at the observed inputs.
    pub fn fit<R: Rng + ?Sized>(
        obs: &Observations<'_>,
        warm: Option<(&Hyper, &Hyper)>,
        opts: &DparetoOptions,
        rng: &mut R,
    ) -> Result<Surrogates> {
        obs.check()?;
        let dim = obs.dim;
        let scale = obs.input_scale();
        let x: Vec<f64> = obs
            .x
            .chunks_exact(dim)
            .flat_map(|r| r.iter().zip(&scale).map(|(v, s)| v / s))
            .collect();
        let c = obs.privacy_scale();
        let y_eps: Vec<f64> = obs.epsilon.iter().map(|e| e.ln() / c).collect();
        let y_err: Vec<f64> = obs.error.iter().map(|&e| logit(e)).collect();

        let mut pcfg = GpConfig::fixed_noise(PRIVACY_NOISE);
        pcfg.restarts = opts.restarts;
        let mut ucfg = GpConfig::learned_noise(0.01);
        ucfg.restarts = opts.restarts;
        let privacy = Gp::fit(&x, dim, &y_eps, &pcfg, warm.map(|w| w.0), rng)?;
        let utility = Gp::fit(&x, dim, &y_err, &ucfg, warm.map(|w| w.1), rng)?;

        let (m_eps, _) = privacy.predict_batch(&x);
        let (m_err, _) = utility.predict_batch(&x);
        let means: Vec<(f64, f64)> = m_eps.into_iter().zip(m_err).collect();
        let reference = if opts.estimated_reference {
            Reference::Estimated
        } else {
            let (e, err) = HARNESS_ANTI_IDEAL;
            Reference::Fixed((e.ln() / c, logit(err)))
        };
        let acq = HvPoi::new(&means, reference)?;
        Ok(Surrogates {
            scale,
            c,
            privacy,
            utility,
            acq,
        })
    }

    fn scaled(&self, rows: &[f64]) -> Vec<f64> {
        let dim = self.scale.len();
        rows.chunks_exact(dim)
            .flat_map(|r| r.iter().zip(&self.scale).map(|(v, s)| v / s))
            .collect()
    }

    /// HV-PoI at `rows` (row-major, untransformed inputs).
    pub fn acquisition(&self, rows: &[f64]) -> Vec<f64> {
        self.acquisition_scaled(&self.scaled(rows))
    }

    fn acquisition_scaled(&self, rows: &[f64]) -> Vec<f64> {
        let (me, ve) = self.privacy.predict_batch(rows);
        let (mu, vu) = self.utility.predict_batch(rows);
        (0..me.len())
            .map(|i| self.acq.eval((me[i], mu[i]), (ve[i], vu[i])))
            .collect()
    }

    /// The GP means at `rows` mapped back to the objectives: (ε, error) per row.
    pub fn mean_objectives(&self, rows: &[f64]) -> Vec<(f64, f64)> {
        let x = self.scaled(rows);
        let (me, _) = self.privacy.predict_batch(&x);
        let (mu, _) = self.utility.predict_batch(&x);
        me.iter()
            .zip(&mu)
            .map(|(&e, &u)| ((e * self.c).exp(), 1.0 / (1.0 + (-u).exp())))
            .collect()
    }

    /// Fitted (privacy, utility) GP hyperparameters.
    pub fn hypers(&self) -> (&Hyper, &Hyper) {
        (self.privacy.hyper(), self.utility.hyper())
    }

    /// The maximiser of HV-PoI inside `[lo, hi]` (untransformed), candidates from `rng`.
    pub fn maximise<R: Rng + ?Sized>(
        &self,
        lo: &[f64],
        hi: &[f64],
        candidates: usize,
        rng: &mut R,
    ) -> Result<(Vec<f64>, f64)> {
        let lo_s: Vec<f64> = lo.iter().zip(&self.scale).map(|(v, s)| v / s).collect();
        let hi_s: Vec<f64> = hi.iter().zip(&self.scale).map(|(v, s)| v / s).collect();
        let search = SearchOptions {
            candidates,
            ..SearchOptions::default()
        };
        let found = maximise(
            &lo_s,
            &hi_s,
            |rows, _| self.acquisition_scaled(rows),
            rng,
            &search,
        )?;
        let x = found
            .x
            .iter()
            .zip(&self.scale)
            .map(|(v, s)| v * s)
            .collect();
        Ok((x, found.value))
    }
}

/// One iteration: the next point to evaluate inside `[lo, hi]` (untransformed), with GP fits
/// warm-started from `warm` (the previous iteration's hyperparameters) and every random draw
/// (restarts, candidates) from `rng`.
pub fn propose<R: Rng + ?Sized>(
    obs: &Observations<'_>,
    lo: &[f64],
    hi: &[f64],
    warm: Option<(&Hyper, &Hyper)>,
    opts: &DparetoOptions,
    rng: &mut R,
) -> Result<Proposal> {
    let s = Surrogates::fit(obs, warm, opts, rng)?;
    let (x, acquisition) = s.maximise(lo, hi, opts.candidates, rng)?;
    let (privacy, utility) = s.hypers();
    Ok(Proposal {
        x,
        acquisition,
        privacy: privacy.clone(),
        utility: utility.clone(),
    })
}
