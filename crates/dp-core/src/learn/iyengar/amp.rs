//! AMP, approximate minima perturbation (Iyengar et al. 2019, Algorithm 1), and its
//! hyperparameter-free variant, as `amp_run_classification` runs them
//! (`docs/reference/iyengar2019.md` §2.1–2.2) and with the privacy bugs of §2.8 fixed.
//!
//! The code minimises the averaged objective
//! `(1/n)Σℓ(θ; xᵢ, yᵢ) + (Λ/2n)‖θ‖² + b₁ᵀθ` from θ₀ = 0 until `‖∇‖₂ ≤ γ` and releases
//! `θ + b₂`. Here it is solved in sum form (× n): λ = Λ, linear noise `n·b₁ ~ N(0, (nσ₁)²I)`,
//! threshold τ = nγ, with the project's L-BFGS and the [`PerturbedObjective`] of Algorithm 1
//! clipped at C = L (a no-op on rows of norm ≤ L, since |ℓ'| ≤ 1 for both losses; it only
//! makes the gradient bound L exact when the clipping of the rows rounded a norm up).
//!
//! Privacy (`docs/derivations.md` §5): Redberg et al.'s Thm 4.1 applies to any such run, so
//! the event is `Composed[ObjPert(nσ₁, Λ, β, L), Gaussian(σ₂Λ/(2nγ))]` with the *true*
//! smoothness β = max ℓ''·L² (¼L² logistic, 5L² Huber), for add/remove neighbours as every
//! event of this project. It is `NonPrivate` when Λ ≤ β (the code's Huber calibration at large
//! ε, which uses β = L²).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::Serialize;

use super::calibration::Calibration;
use super::paper_noise::{self, AmpBudget, AmpNoise};
use super::step::{check_row_bound, check_rows, serialize_loss};
use crate::accounting::calibrate::{Bracket, Target, calibrate};
use crate::accounting::event::Event;
use crate::accounting::objpert::ObjPert;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::error::{DpError, Result, check_positive, ensure};
use crate::learn::data::GlmData;
use crate::learn::lbfgs::{LbfgsOptions, LbfgsReport, lbfgs};
use crate::learn::loss::GlmLoss;
use crate::learn::mechanism::Mechanism;
use crate::learn::objective::PerturbedObjective;

/// The `eps_out_frac` default of `amp_run_classification`: every retry falls back to it,
/// because the recursive call does not pass f (§2.1, "Bug").
pub const CODE_EPS_OUT_FRAC: f64 = 0.01;

/// Retries of a paper-mode run before it gives up (the code recurses without limit).
pub const DEFAULT_MAX_RETRIES: u32 = 40;

/// The code multiplies its objective by m (`gamma_mult`) while γ·m is below this, and only
/// then doubles γ (`approximate_minima_perturbation.py:135-140`).
const GAMMA_MULT_LIMIT: f64 = 1e-4;

/// Relative slack of [`super::step::check_row_bound`] (rows clipped to exactly L may have a
/// computed norm a few ulps above it); the event's β covers rows that long.
const ROW_BOUND_SLACK: f64 = 1e-12;

/// AMP's chosen settings (a grid point of §2.1, or H-F AMP's fixed ones).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AmpSpec {
    /// Per-example loss.
    #[serde(serialize_with = "serialize_loss")]
    pub loss: GlmLoss,
    /// L: public bound on the rows' ℓ2 norms (the code's sample clipping).
    pub lipschitz: f64,
    /// f₁: share of ε₁ spent on the linear noise (ε₃ = f₁ε₁).
    pub eps_frac: f64,
    /// f: share of ε (and δ) spent on the output noise.
    pub eps_out_frac: f64,
    /// γ: gradient-norm target of the averaged objective (the grid's 1/n²).
    pub gamma: f64,
}

impl AmpSpec {
    /// H-F AMP: L = 1, f = 0.01, f₁ = [`paper_noise::hf_amp_eps_frac`] of ε, γ = 1/n².
    pub fn hyperparameter_free(loss: GlmLoss, epsilon: f64, n: usize) -> Result<AmpSpec> {
        ensure(n > 0, "n", n as f64, "must be > 0")?;
        let n = n as f64;
        Ok(AmpSpec {
            loss,
            lipschitz: 1.0,
            eps_frac: paper_noise::hf_amp_eps_frac(epsilon)?,
            eps_out_frac: CODE_EPS_OUT_FRAC,
            gamma: 1.0 / (n * n),
        })
    }

    /// Checks every field.
    pub fn check(&self) -> Result<()> {
        self.loss.validate()?;
        check_positive("lipschitz", self.lipschitz)?;
        check_positive("gamma", self.gamma)?;
        let unit = |name, v: f64| ensure(v > 0.0 && v < 1.0, name, v, "must be in (0, 1)");
        unit("eps_frac", self.eps_frac)?;
        unit("eps_out_frac", self.eps_out_frac)
    }

    /// The true per-example smoothness β = max ℓ''·L² (the code uses L² for both losses).
    pub fn beta(&self) -> f64 {
        self.loss.max_second_deriv() * self.lipschitz * self.lipschitz
    }

    /// AMP for `n` training rows at `target`.
    ///
    /// Paper: the code's noise ([`paper_noise::amp`] with β = L²). Certified (§2.8 items 1–3):
    /// Λ = 2β/(ε₁ − ε₃) with the true β, output noise for sensitivity 2nγ/Λ (Lemma III.1 at
    /// (ε₂, δ₂)), then the smallest σ₁ whose event `accountant` certifies at `target`; errors
    /// when no σ₁ does (the Λ term alone exceeds the target).
    pub fn build(
        &self,
        calibration: Calibration,
        n: usize,
        target: Target,
        accountant: &RdpAccountant,
    ) -> Result<Amp> {
        self.check()?;
        let target = Target::new(target.epsilon(), target.delta())?;
        ensure(n > 0, "n", n as f64, "must be > 0")?;
        let mut amp = Amp {
            spec: *self,
            calibration,
            n,
            target,
            first: AmpParams::zero(self.gamma, self.eps_out_frac),
            solver: LbfgsOptions::default(),
            max_retries: DEFAULT_MAX_RETRIES,
        };
        amp.first = match calibration {
            Calibration::Paper => amp.paper_params(self.gamma, self.eps_out_frac)?,
            Calibration::Certified => amp.certified_params(accountant)?,
        };
        Ok(amp)
    }
}

/// The noise and threshold of one AMP attempt.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AmpParams {
    /// γ of the averaged objective.
    pub gamma: f64,
    /// f of this attempt (the spec's, or 0.01 after a paper-mode retry).
    pub eps_out_frac: f64,
    /// Λ (the sum objective's λ).
    pub lambda: f64,
    /// Std of the sum objective's linear noise, nσ₁.
    pub sigma_sum: f64,
    /// σ₂, std of the output noise.
    pub sigma_out: f64,
    /// ε₁ − ε₃ ≥ 1: the code returns θ = 0 without looking at the data (never on the grid).
    pub zero_output: bool,
}

impl AmpParams {
    fn zero(gamma: f64, eps_out_frac: f64) -> Self {
        AmpParams {
            gamma,
            eps_out_frac,
            lambda: 0.0,
            sigma_sum: 0.0,
            sigma_out: 0.0,
            zero_output: true,
        }
    }
}

/// AMP with its calibration fixed: build with [`AmpSpec::build`].
#[derive(Clone, Debug, PartialEq)]
pub struct Amp {
    spec: AmpSpec,
    calibration: Calibration,
    n: usize,
    target: Target,
    first: AmpParams,
    solver: LbfgsOptions,
    max_retries: u32,
}

/// Diagnostics of one AMP run (of its last, released attempt unless said otherwise).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AmpReport {
    /// σ₁: std of b₁ in the averaged objective.
    pub noise: f64,
    /// σ₂: std of the output noise.
    pub sigma_out: f64,
    /// The γ reached (the spec's unless a paper-mode retry doubled it).
    pub gamma: f64,
    /// f used (0.01 after any paper-mode retry: the code's bug).
    pub eps_out_frac: f64,
    /// Λ.
    pub lambda: f64,
    /// Restarts after a solver failure (paper mode only; certified mode refuses instead).
    pub retries: u32,
    /// L-BFGS iterations of the released attempt.
    pub iterations: usize,
    /// L-BFGS iterations over all attempts.
    pub total_iterations: usize,
    /// Objective evaluations of the released attempt.
    pub evaluations: usize,
    /// ‖∇‖₂ of the averaged objective at the unreleased minimiser (data-dependent: do not
    /// publish); 0 for a zero output.
    pub grad_norm: f64,
    /// θ = 0 was returned because ε₁ − ε₃ ≥ 1.
    pub zero_output: bool,
    /// The privacy event of the parameters actually used (see [`Amp::event_of`]).
    pub event: Event,
}

impl Amp {
    /// The chosen settings.
    pub fn spec(&self) -> &AmpSpec {
        &self.spec
    }

    /// Paper or certified.
    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    /// Training rows the noise is calibrated for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The target the noise was set for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// Parameters of the first attempt (the only one in certified mode).
    pub fn params(&self) -> &AmpParams {
        &self.first
    }

    /// Λ of the first attempt.
    pub fn lambda(&self) -> f64 {
        self.first.lambda
    }

    /// σ₁ of the first attempt (averaged objective).
    pub fn sigma1(&self) -> f64 {
        self.first.sigma_sum / self.n as f64
    }

    /// σ₂ of the first attempt.
    pub fn sigma_out(&self) -> f64 {
        self.first.sigma_out
    }

    /// The same mechanism with other L-BFGS settings (the certified privacy does not depend
    /// on them; paper mode's retries do).
    pub fn with_solver(mut self, solver: LbfgsOptions) -> Self {
        self.solver = solver;
        self
    }

    /// The same mechanism with another cap on paper-mode retries.
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// The code's parameters at (γ, f): the budget split, Λ = 2L²/(ε₁ − ε₃), σ₁, σ₂.
    pub fn paper_params(&self, gamma: f64, eps_out_frac: f64) -> Result<AmpParams> {
        let s = &self.spec;
        let (t, l) = (self.target, s.lipschitz);
        let budget = AmpBudget::split(t.epsilon(), t.delta(), eps_out_frac, s.eps_frac)?;
        if budget.eps1 - budget.eps3 >= 1.0 {
            return Ok(AmpParams::zero(gamma, eps_out_frac));
        }
        let noise = paper_noise::amp(budget, self.n, l, l * l, gamma)?;
        Ok(AmpParams {
            gamma,
            eps_out_frac,
            lambda: noise.lambda,
            sigma_sum: self.n as f64 * noise.sigma1,
            sigma_out: noise.sigma2,
            zero_output: false,
        })
    }

    fn certified_params(&self, accountant: &RdpAccountant) -> Result<AmpParams> {
        let s = &self.spec;
        let (t, n) = (self.target, self.n);
        let budget = AmpBudget::split(t.epsilon(), t.delta(), s.eps_out_frac, s.eps_frac)?;
        if budget.eps1 - budget.eps3 >= 1.0 {
            return Ok(AmpParams::zero(s.gamma, s.eps_out_frac));
        }
        // With β = the true smoothness, `amp` gives Λ = 2β/(ε₁ − ε₃) and σ₂ for sensitivity
        // nγ/Λ; θ̃ − θᴾ has sensitivity 2nγ/Λ (§2.8 item 1), hence twice its σ₂.
        let AmpNoise {
            lambda,
            sigma1,
            sigma2,
            ..
        } = paper_noise::amp(budget, n, s.lipschitz, s.beta(), s.gamma)?;
        let mut params = AmpParams {
            gamma: s.gamma,
            eps_out_frac: s.eps_out_frac,
            lambda,
            sigma_sum: n as f64 * sigma1,
            sigma_out: 2.0 * sigma2,
            zero_output: false,
        };
        let bracket = Bracket {
            name: "AMP objective noise n*sigma1",
            start: params.sigma_sum,
            lo: 0.0,
            hi: f64::INFINITY,
        };
        let event_of = |sigma_sum: f64| {
            let p = AmpParams {
                sigma_sum,
                ..params
            };
            match self.event_of(&p) {
                Event::NonPrivate => Err(DpError::Calibration(format!(
                    "lambda = {lambda} does not exceed beta = {}",
                    s.beta()
                ))),
                e => Ok(e),
            }
        };
        params.sigma_sum = calibrate(|| accountant.fresh(), event_of, t, bracket)?;
        Ok(params)
    }

    /// What the accountant needs for a run with parameters `p`: Redberg et al.'s Thm 4.1 with
    /// the true β, whatever β the calibration used; `NonPrivate` when Λ ≤ β, `NoOp` for the
    /// data-independent θ = 0. β is taken at the largest row norm [`Amp`] accepts,
    /// L·(1 + 10⁻¹²), so the rounding allowance of the row check is covered too.
    pub fn event_of(&self, p: &AmpParams) -> Event {
        if p.zero_output {
            return Event::NoOp;
        }
        let n = self.n as f64;
        let Some(op) = self.objpert(p) else {
            return Event::NonPrivate;
        };
        match Event::gaussian(p.sigma_out * p.lambda / (2.0 * n * p.gamma)) {
            Ok(out) => Event::Composed(vec![Event::ObjPert(op), out]),
            Err(_) => Event::NonPrivate,
        }
    }

    /// The objective-perturbation part of [`Amp::event_of`] (`None` when Λ ≤ β).
    fn objpert(&self, p: &AmpParams) -> Option<ObjPert> {
        let beta = self.spec.beta() * (1.0 + ROW_BOUND_SLACK).powi(2);
        ObjPert::new(p.sigma_sum, p.lambda, beta, self.spec.lipschitz).ok()
    }

    /// The event of the minimiser before its output noise, at the spec's parameters: what a
    /// white-box auditor sees.
    pub fn objpert_event(&self) -> Event {
        if self.first.zero_output {
            return Event::NoOp;
        }
        self.objpert(&self.first)
            .map_or(Event::NonPrivate, Event::ObjPert)
    }

    /// L-BFGS from θ₀ = 0 on the sum-form objective with linear noise `b`, to ‖∇‖₂ ≤ `tau`.
    fn solve(&self, data: &GlmData<'_>, p: &AmpParams, b: Vec<f64>, tau: f64) -> LbfgsReport {
        let (loss, lipschitz) = (self.spec.loss, self.spec.lipschitz);
        let mut obj = PerturbedObjective::new(data, loss, lipschitz, p.lambda, b);
        lbfgs(&mut obj, &vec![0.0; data.d()], tau, &self.solver)
    }

    /// The spec's attempt without its output noise: draws b₁ (coordinate by coordinate) and
    /// solves to `tau`; `Err(DpError::NoConvergence)` if the solver misses it.
    pub(crate) fn minimiser(
        &self,
        data: &GlmData<'_>,
        tau: f64,
        rng: &mut StdRng,
    ) -> Result<LbfgsReport> {
        let p = &self.first;
        ensure(
            !p.zero_output,
            "epsilon",
            self.target.epsilon(),
            "gives theta = 0: nothing to audit",
        )?;
        let (loss, lipschitz) = (self.spec.loss, self.spec.lipschitz);
        PerturbedObjective::drawn(data, loss, lipschitz, p.lambda, p.sigma_sum, rng)
            .minimise(tau, &self.solver)
    }

    fn report(
        &self,
        p: &AmpParams,
        retries: u32,
        total_iterations: usize,
        solve: Option<&LbfgsReport>,
    ) -> AmpReport {
        let n = self.n as f64;
        AmpReport {
            noise: p.sigma_sum / n,
            sigma_out: p.sigma_out,
            gamma: p.gamma,
            eps_out_frac: p.eps_out_frac,
            lambda: p.lambda,
            retries,
            iterations: solve.map_or(0, |r| r.iterations),
            total_iterations,
            evaluations: solve.map_or(0, |r| r.evaluations),
            grad_norm: solve.map_or(0.0, |r| r.grad_norm / n),
            zero_output: p.zero_output,
            event: self.event_of(p),
        }
    }

    pub(crate) fn check_data(&self, data: &GlmData<'_>) -> Result<()> {
        check_rows(data, self.n)?;
        check_row_bound(data, self.spec.lipschitz)
    }
}

/// The code's retry schedule after a failed solve: (γ, m) → (γ, 10m) while γm < 10⁻⁴, else
/// (2γ, 1). The factor m only rescales the code's objective, which changes nothing for a
/// solver with an absolute gradient tolerance, so only the schedule is kept.
pub fn next_gamma(gamma: f64, gamma_mult: f64) -> (f64, f64) {
    if gamma * gamma_mult < GAMMA_MULT_LIMIT {
        (gamma, 10.0 * gamma_mult)
    } else {
        (2.0 * gamma, 1.0)
    }
}

impl Mechanism for Amp {
    type Report = AmpReport;

    fn name(&self) -> &'static str {
        "amp"
    }

    /// The event at the spec's γ and f. In paper mode a failed solve restarts with 2γ and
    /// f = 0.01 (§2.1): that choice depends on the data, so paper-mode AMP as run is not
    /// covered by any event (§2.8 item 3); [`AmpReport::event`] holds the event of the
    /// parameters the released attempt used, whose ε is what a cell can report.
    fn event(&self) -> Event {
        self.event_of(&self.first)
    }

    /// Runs AMP from θ₀ = 0, drawing b₁ then b₂ for each attempt (as the code, up front).
    ///
    /// Certified mode returns `Err(DpError::NoConvergence)` (releasing nothing) if the solver
    /// misses τ = nγ; paper mode retries as the code does, up to its retry cap.
    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, AmpReport)> {
        self.check_data(data)?;
        let (d, n) = (data.d(), self.n as f64);
        let mut rng = StdRng::seed_from_u64(seed);
        let mut params = self.first;
        let (mut gamma_mult, mut retries, mut total_iterations) = (1.0, 0, 0);
        loop {
            if params.zero_output {
                let rep = self.report(&params, retries, total_iterations, None);
                return Ok((vec![0.0; d], rep));
            }
            let mut normal = |sd: f64| -> Vec<f64> {
                (0..d)
                    .map(|_| sd * rng.sample::<f64, _>(StandardNormal))
                    .collect()
            };
            let b = normal(params.sigma_sum);
            let b_out = normal(params.sigma_out);
            let tau = n * params.gamma;
            let r = self.solve(data, &params, b, tau);
            total_iterations += r.iterations;
            if r.converged() && r.grad_norm <= tau {
                let theta = r.x.iter().zip(&b_out).map(|(t, o)| t + o).collect();
                let rep = self.report(&params, retries, total_iterations, Some(&r));
                return Ok((theta, rep));
            }
            let failure = || {
                DpError::NoConvergence(format!(
                    "AMP: L-BFGS stopped ({:?}) after {} iterations at gradient norm {:e} of the \
                     averaged objective, above gamma = {:e} ({retries} retries)",
                    r.status,
                    r.iterations,
                    r.grad_norm / n,
                    params.gamma
                ))
            };
            if self.calibration == Calibration::Certified || retries >= self.max_retries {
                return Err(failure());
            }
            retries += 1;
            let gamma;
            (gamma, gamma_mult) = next_gamma(params.gamma, gamma_mult);
            params = self.paper_params(gamma, CODE_EPS_OUT_FRAC)?;
        }
    }
}

#[cfg(test)]
#[path = "amp_tests.rs"]
mod tests;
