//! Algorithm 1 of Redberg et al. (2023): approximate minima perturbation with gradient
//! clipping, one type for what runs and what is accounted.
//!
//! 1. Clip per-example gradients at `C` (the clipped-gradient loss `f_C`, [`super::clipped`]).
//! 2. Draw `b ~ N(0, σ²I_d)`.
//! 3. `J(θ) = Σᵢ f_C(xᵢᵀθ; yᵢ) + (λ/2)‖θ‖² + bᵀθ` ([`super::objective`]).
//! 4. Find `θ̃` with `‖∇J(θ̃)‖₂ ≤ τ` (L-BFGS, [`super::lbfgs`]); refuse to release otherwise.
//! 5. Release `θ̃ + N(0, σ_out²I_d)`.
//!
//! Privacy (Thm 4.1, `docs/derivations.md` §5): an adaptive composition of objective
//! perturbation (gradient bound L = C, smoothness β) and a Gaussian release of θ̃ − θᴾ, whose
//! sensitivity is 2τ/λ (stopping rule plus λ-strong convexity): the event
//! `Composed[ObjPert(σ, λ, β, C), Gaussian(σ_out·λ/(2τ))]`. The guarantee holds for any
//! optimiser and start point as long as the returned point meets the gradient condition,
//! which is checked on the exact gradient before anything is released.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::Serialize;

use super::data::GlmData;
use super::lbfgs::{LbfgsOptions, LbfgsReport};
use super::loss::{GlmLoss, beta};
use super::mechanism::Mechanism;
use super::objective::PerturbedObjective;
use crate::accounting::calibrate::{Bracket, Target, calibrate};
use crate::accounting::event::Event;
use crate::accounting::gaussian;
use crate::accounting::objpert::ObjPert;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::error::{DpError, Result, check_nonnegative, check_positive, ensure};

/// The settings of Algorithm 1 that are chosen, not calibrated (unchecked until used).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Alg1Spec {
    /// Per-example loss (before clipping).
    pub loss: GlmLoss,
    /// Per-example gradient clipping norm `C` (the L of the ObjPert bound).
    pub clip: f64,
    /// Gradient-norm threshold `τ` (0 means an exact minimiser).
    pub tau: f64,
    /// Standard deviation `σ_out` of the output perturbation.
    pub sigma_out: f64,
    /// Public per-example Hessian bound β = f''max · (public bound on ‖x‖)², never read off the
    /// rows.
    pub beta: f64,
}

impl Alg1Spec {
    /// The paper's settings (Section 5): logistic loss, `C = √2`, `τ = 0.01`, `σ_out = 0.15`,
    /// unit rows plus a bias of 1 (β = 1/2).
    pub fn paper() -> Self {
        Alg1Spec {
            loss: GlmLoss::Logistic,
            clip: std::f64::consts::SQRT_2,
            tau: 0.01,
            sigma_out: 0.15,
            beta: 0.5,
        }
    }

    /// Checks every field; errors name the parameter (`clip`, `tau`, `sigma-out`, `beta`).
    pub fn check(&self) -> Result<()> {
        self.loss.validate()?;
        check_positive("clip", self.clip)?;
        check_nonnegative("tau", self.tau)?;
        check_nonnegative("sigma-out", self.sigma_out)?;
        check_nonnegative("beta", self.beta)
    }

    /// Algorithm 1 with the given noise σ and regulariser λ > β.
    pub fn with_noise(&self, sigma: f64, lambda: f64) -> Result<Alg1> {
        self.check()?;
        check_nonnegative("sigma", sigma)?;
        ensure(
            lambda > self.beta && lambda.is_finite(),
            "lambda",
            lambda,
            "must be > beta and finite",
        )?;
        Ok(Alg1 {
            spec: *self,
            sigma,
            lambda,
            solver: LbfgsOptions::default(),
        })
    }

    /// Calibration (`docs/derivations.md` §5): σ = `noise_factor`·σ_G(ε, δ; Δ = C), then the
    /// smallest λ > β whose RDP (Thm 4.1) converts to at most ε at δ, on `accountant`'s orders.
    pub fn calibrate(
        &self,
        noise_factor: f64,
        target: Target,
        accountant: &RdpAccountant,
    ) -> Result<Alg1> {
        let target = Target::new(target.epsilon(), target.delta())?;
        check_positive("noise-factor", noise_factor)?;
        self.check()?;
        check_positive("sigma-out", self.sigma_out)?;
        let sigma = noise_factor * gaussian::sigma(target.epsilon(), target.delta(), self.clip)?;
        let beta = self.beta;
        // ε is decreasing in λ: both c = −ln(1 − β/λ) and the output-noise term shrink.
        let bracket = Bracket {
            name: "lambda",
            start: if beta > 0.0 { 2.0 * beta } else { 1.0 },
            lo: beta,
            hi: f64::INFINITY,
        };
        let event_of = |lambda: f64| Ok(self.with_noise(sigma, lambda)?.event());
        let lambda =
            calibrate(|| accountant.fresh(), event_of, target, bracket).map_err(|e| match e {
                DpError::Calibration(msg) => DpError::Calibration(format!(
                    "no lambda > beta = {beta:e} makes Algorithm 1 ({:e}, {:e})-DP with sigma = \
                     {sigma:e} (noise factor {noise_factor:e}): {msg}",
                    target.epsilon(),
                    target.delta()
                )),
                other => other,
            })?;
        self.with_noise(sigma, lambda)
    }
}

/// Algorithm 1 with every parameter fixed and checked: build it with [`Alg1Spec::with_noise`]
/// or [`Alg1Spec::calibrate`].
#[derive(Clone, Debug, PartialEq)]
pub struct Alg1 {
    spec: Alg1Spec,
    sigma: f64,
    lambda: f64,
    solver: LbfgsOptions,
}

/// Solver diagnostics of one Algorithm 1 run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Alg1Report {
    /// L-BFGS iterations.
    pub iterations: usize,
    /// Objective evaluations.
    pub evaluations: usize,
    /// `‖∇J(θ̃)‖₂ ≤ τ` at the unreleased minimiser (data-dependent: do not publish).
    pub grad_norm: f64,
}

impl Alg1 {
    /// The chosen settings.
    pub fn spec(&self) -> &Alg1Spec {
        &self.spec
    }

    /// Objective-perturbation noise σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Regulariser λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The same mechanism with other L-BFGS settings (the privacy does not depend on them).
    pub fn with_solver(mut self, solver: LbfgsOptions) -> Self {
        self.solver = solver;
        self
    }

    /// Draws `b` (one coordinate at a time, in order) and finds θ̃ with ‖∇J(θ̃)‖₂ ≤ `tau`;
    /// `Err(DpError::NoConvergence)` if L-BFGS does not get there.
    pub(crate) fn minimiser(
        &self,
        data: &GlmData<'_>,
        tau: f64,
        rng: &mut StdRng,
    ) -> Result<LbfgsReport> {
        let s = &self.spec;
        // The rows must respect the public norm bound behind β (Thm 4.1 needs λ > β; clipping
        // keeps β, Thm F.3).
        ensure(
            self.lambda > beta(s.loss, data.max_row_norm()),
            "lambda",
            self.lambda,
            "must exceed beta = f''max * max row norm^2",
        )?;
        let (loss, clip, lambda) = (s.loss, s.clip, self.lambda);
        PerturbedObjective::drawn(data, loss, clip, lambda, self.sigma, rng)
            .minimise(tau, &self.solver)
    }

    /// The objective-perturbation part of the event (`None` when σ = 0: not private).
    pub fn objpert(&self) -> Option<ObjPert> {
        let s = &self.spec;
        ObjPert::new(self.sigma, self.lambda, s.beta, s.clip).ok()
    }
}

impl Mechanism for Alg1 {
    type Report = Alg1Report;

    fn name(&self) -> &'static str {
        "alg1"
    }

    fn event(&self) -> Event {
        let s = &self.spec;
        let Some(op) = self.objpert() else {
            return Event::NonPrivate;
        };
        let output = if s.tau == 0.0 {
            Event::NoOp // θ̃ = θᴾ: nothing beyond objective perturbation is released
        } else if s.sigma_out == 0.0 {
            return Event::NonPrivate; // θ̃ itself is released
        } else {
            // θ̃ − θᴾ has ℓ2 sensitivity 2τ/λ; noise σ_out.
            Event::Gaussian {
                noise_multiplier: s.sigma_out * self.lambda / (2.0 * s.tau),
            }
        };
        Event::Composed(vec![Event::ObjPert(op), output])
    }

    /// Runs Algorithm 1 from `θ₀ = 0`, drawing `b` first, then the output noise.
    ///
    /// Returns `Err(DpError::NoConvergence)` (releasing nothing) if `‖∇J‖₂ ≤ τ` is not reached.
    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, Alg1Report)> {
        let s = &self.spec;
        check_positive("tau", s.tau)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let report = self.minimiser(data, s.tau, &mut rng)?;
        let mut theta = report.x;
        for t in theta.iter_mut() {
            *t += s.sigma_out * rng.sample::<f64, _>(StandardNormal);
        }
        Ok((
            theta,
            Alg1Report {
                iterations: report.iterations,
                evaluations: report.evaluations,
                grad_norm: report.grad_norm,
            },
        ))
    }
}

#[cfg(test)]
#[path = "alg1_tests.rs"]
mod tests;
