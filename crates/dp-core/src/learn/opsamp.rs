//! OPSamp (Neel, Roth, Vietri & Wu 2019, Alg. 2): averaged follow-the-perturbed-leader over a
//! continuous box plus Laplace output noise (`shared/reference/neel2019.md` §1.3).
//!
//! On `W = [−r, r]^d` (`D_∞ = 2r`, `D₂ = 2r√d`):
//! 1. `γ = √(ε/n)·d^{5/4}·√D₂` (Lemma 9 needs `γ ≤ 1`);
//! 2. `m = ⌈ln(2d/δ)/(2γ²)⌉` oracle calls;
//! 3. `η = √(D₂·√(2d)·ε / (250·G²·d²·D_∞²·(1 + ln(2/β))·n))`, a *rate*: `σᵏ ~ Exp(η)^d` has
//!    mean `1/η` (the paper's `Exp(z|b)` notation reads as a scale; its proofs use a rate);
//! 4. `w_k = argmin_{w∈W} L(D, w) − ⟨σᵏ, w⟩` with `L` the *sum* of per-example losses;
//! 5. release `(1/m)Σ w_k + Lap(λ/ε)^d`, `λ = 4·D_∞·γ + 250·η·G·d²·D_∞² + α/(10G)`.
//!
//! Theory only. Thm 11 needs losses in [0, 1] that are G-Lipschitz in ℓ₁ and charges the
//! oracle error α inside λ; this implementation's oracle minimises the logistic loss (not in
//! [0, 1]) as a surrogate, so no (ε, δ) is claimed and OPSamp is not a
//! [`super::mechanism::Mechanism`]. At Adult's size the Laplace scale λ/ε is ≈ 32 per
//! coordinate at ε = 1 against a box half-width of 1: the release is noise.
//!
//! The oracle is an honest box solution: L-BFGS on `u` with `w = r·sin(u)`. Unlike `tanh`, the
//! sine reaches the faces at finite `u` without saturating, and its local minima in `u` are
//! exactly the KKT points of the box problem (at a face the second derivative in `u` is
//! `−r·∂f/∂wⱼ·sin uⱼ`, positive iff the face is optimal), hence global minima of the convex
//! objective. Each solution is certified by its Frank–Wolfe gap
//! `Σⱼ gⱼwⱼ + r|gⱼ|`, an upper bound on its suboptimality, reported per run.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::Exp;
use serde::Serialize;

use super::data::GlmData;
use super::laplace::laplace;
use super::lbfgs::{LbfgsOptions, LbfgsStatus, Objective, lbfgs};
use super::loss::GlmLoss;
use super::objective::PerturbedObjective;
use crate::error::{
    DpError, Result, check_delta, check_epsilon, check_nonnegative, check_positive, ensure,
};
use crate::seed::derive_seed;

/// Default cap on the number of oracle calls `m`.
pub const DEFAULT_MAX_ORACLE_CALLS: usize = 10_000;

/// The oracle's gradient tolerance in `u`, relative to the objective's gradient scale
/// `r·(Σᵢ‖xᵢ‖₂ + ‖σ‖₂)`: well above the round-off of an n-term sum, far below any noise.
const ORACLE_REL_TOL: f64 = 1e-9;

/// OPSamp's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OpSamp {
    /// Half-width `r` of the box `W = [−r, r]^d`.
    pub radius: f64,
    /// `G`: Lipschitz constant of the losses w.r.t. ℓ₁.
    pub lipschitz: f64,
    /// Failure probability `β` of the utility bound (enters `η`).
    pub beta: f64,
    /// Oracle error `α` charged in `λ` (0 for an exact oracle).
    pub alpha: f64,
    /// Target ε.
    pub epsilon: f64,
    /// Target δ.
    pub delta: f64,
    /// Largest `m` that [`OpSamp::fit`] will run.
    pub max_oracle_calls: usize,
}

/// The quantities OPSamp derives from (n, d) and its settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OpSampParams {
    /// `γ = √(ε/n)·d^{5/4}·√D₂`.
    pub gamma: f64,
    /// Whether `γ ≤ 1`, which Lemma 9 (and so the privacy proof) needs.
    pub gamma_ok: bool,
    /// `ln(2d/δ)/(2γ²)` before rounding up.
    pub m_unrounded: f64,
    /// `m`: the number of oracle calls, at least 1.
    pub m: usize,
    /// `η`, the rate of the exponential linear noise (mean `1/η`).
    pub eta_rate: f64,
    /// `λ = 4·D_∞·γ + 250·η·G·d²·D_∞² + α/(10G)`.
    pub lambda: f64,
    /// Scale `λ/ε` of the Laplace output noise per coordinate.
    pub laplace_scale: f64,
}

/// Diagnostics of one [`OpSamp::fit_report`] run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpSampReport {
    /// The derived parameters.
    pub params: OpSampParams,
    /// The largest Frank–Wolfe gap of an oracle solution (its surrogate suboptimality bound).
    pub max_oracle_gap: f64,
    /// Objective evaluations over all oracle calls.
    pub oracle_evaluations: usize,
    /// Oracle calls whose L-BFGS stopped short of its gradient tolerance (the gap still
    /// bounds their error).
    pub oracle_unconverged: usize,
}

impl OpSamp {
    /// OPSamp at (ε, δ) on `[−1, 1]^d` with `G = 1`, `β = 0.05`, `α = 0` (reference §1.3).
    pub fn new(epsilon: f64, delta: f64) -> Self {
        OpSamp {
            radius: 1.0,
            lipschitz: 1.0,
            beta: 0.05,
            alpha: 0.0,
            epsilon,
            delta,
            max_oracle_calls: DEFAULT_MAX_ORACLE_CALLS,
        }
    }

    /// Checks every setting.
    pub fn check(&self) -> Result<()> {
        check_positive("radius", self.radius)?;
        check_positive("lipschitz", self.lipschitz)?;
        ensure(
            self.beta > 0.0 && self.beta < 1.0,
            "beta",
            self.beta,
            "must be in (0, 1)",
        )?;
        check_nonnegative("alpha", self.alpha)?;
        check_epsilon(self.epsilon)?;
        check_delta(self.delta)?;
        ensure(
            self.max_oracle_calls >= 1,
            "max_oracle_calls",
            0.0,
            "must be >= 1",
        )
    }

    /// The parameters of Alg. 2 for `n` examples in `d` dimensions (settings unchecked).
    pub fn params(&self, n: usize, d: usize) -> OpSampParams {
        let (nf, df) = (n as f64, d as f64);
        let (r, g, eps) = (self.radius, self.lipschitz, self.epsilon);
        let (d_inf, d_2) = (2.0 * r, 2.0 * r * df.sqrt());
        let gamma = (eps / nf).sqrt() * df.powf(1.25) * d_2.sqrt();
        let m_unrounded = (2.0 * df / self.delta).ln() / (2.0 * gamma * gamma);
        let eta_rate = (d_2 * (2.0 * df).sqrt() * eps
            / (250.0 * g * g * df * df * d_inf * d_inf * (1.0 + (2.0 / self.beta).ln()) * nf))
            .sqrt();
        let lambda = 4.0 * d_inf * gamma
            + 250.0 * eta_rate * g * df * df * d_inf * d_inf
            + self.alpha / (10.0 * g);
        OpSampParams {
            gamma,
            gamma_ok: gamma <= 1.0,
            m_unrounded,
            // A saturating cast: an m beyond usize is refused by `fit` like any m over the cap.
            m: (m_unrounded.ceil() as usize).max(1),
            eta_rate,
            lambda,
            laplace_scale: lambda / eps,
        }
    }

    /// Runs OPSamp on `data` with all randomness drawn from `seed`; returns the release and the
    /// parameters.
    pub fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, OpSampParams)> {
        self.fit_report(data, seed).map(|(w, rep)| (w, rep.params))
    }

    /// The parameters on `n` rows of dimension `d`, or an error when the settings are invalid
    /// or need more than `max_oracle_calls` oracle calls: what [`OpSamp::fit`] checks first,
    /// and what a harness can check before any data is fitted.
    pub fn planned(&self, n: usize, d: usize) -> Result<OpSampParams> {
        self.check()?;
        ensure(n >= 1, "n", n as f64, "must be >= 1")?;
        let params = self.params(n, d);
        if params.m > self.max_oracle_calls {
            return Err(DpError::Invalid(format!(
                "OPSamp needs m = {} oracle calls (γ = {:.3e}), more than max_oracle_calls = {}",
                params.m, params.gamma, self.max_oracle_calls
            )));
        }
        Ok(params)
    }

    /// [`OpSamp::fit`] with the oracle diagnostics.
    pub fn fit_report(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, OpSampReport)> {
        let (n, d) = (data.n(), data.d());
        let params = self.planned(n, d)?;
        let exp = Exp::new(params.eta_rate).map_err(|_| DpError::OutOfRange {
            name: "eta",
            value: params.eta_rate,
            allowed: "must be > 0 and finite",
        })?;
        let mut report = OpSampReport {
            params,
            max_oracle_gap: 0.0,
            oracle_evaluations: 0,
            oracle_unconverged: 0,
        };
        let mut mean = vec![0.0; d];
        for k in 0..params.m {
            // One stream per call, so call k's noise does not depend on how the others ran.
            let mut rng = StdRng::seed_from_u64(derive_seed(&[
                b"opsamp linear noise",
                &seed.to_le_bytes(),
                &(k as u64).to_le_bytes(),
            ]));
            let sigma: Vec<f64> = (0..d).map(|_| rng.sample(exp)).collect();
            let sol = box_oracle(data, self.radius, &sigma)?;
            report.max_oracle_gap = report.max_oracle_gap.max(sol.gap);
            report.oracle_evaluations += sol.evaluations;
            report.oracle_unconverged += usize::from(!sol.converged);
            mean.iter_mut().zip(&sol.w).for_each(|(m, w)| *m += w);
        }
        let mut rng =
            StdRng::seed_from_u64(derive_seed(&[b"opsamp output noise", &seed.to_le_bytes()]));
        let inv_m = 1.0 / params.m as f64;
        for v in &mut mean {
            *v = *v * inv_m + laplace(&mut rng, params.laplace_scale);
        }
        Ok((mean, report))
    }
}

/// One oracle solution.
#[derive(Clone, Debug)]
pub(crate) struct OracleSolution {
    /// The minimiser, inside the box.
    pub w: Vec<f64>,
    /// Frank–Wolfe gap at `w`: `f(w) − min_W f ≤ gap` for the convex surrogate.
    pub gap: f64,
    /// Objective evaluations used.
    pub evaluations: usize,
    /// Whether L-BFGS met its gradient tolerance.
    pub converged: bool,
}

/// `argmin_{w ∈ [−r, r]^d} Σᵢ logistic(yᵢ·xᵢᵀw) − ⟨σ, w⟩` by L-BFGS on `w = r·sin(u)`.
pub(crate) fn box_oracle(data: &GlmData<'_>, r: f64, sigma: &[f64]) -> Result<OracleSolution> {
    let d = data.d();
    assert_eq!(sigma.len(), d, "one linear weight per feature");
    let b: Vec<f64> = sigma.iter().map(|s| -s).collect();
    let inner = PerturbedObjective::new(data, GlmLoss::Logistic, f64::INFINITY, 0.0, b);
    let mut obj = SineBox {
        inner,
        r,
        w: vec![0.0; d],
        gw: vec![0.0; d],
    };
    let scale =
        r * (data.row_norms().iter().sum::<f64>() + crate::features::dot(sigma, sigma).sqrt());
    let rep = lbfgs(
        &mut obj,
        &vec![0.0; d],
        ORACLE_REL_TOL * scale,
        &LbfgsOptions::default(),
    );
    if rep.status == LbfgsStatus::NonFinite {
        return Err(DpError::NoConvergence(
            "OPSamp oracle: non-finite objective at the start".into(),
        ));
    }
    let w: Vec<f64> = rep.x.iter().map(|u| r * u.sin()).collect();
    let mut g = vec![0.0; d];
    obj.inner.value_grad(&w, &mut g);
    // max over the box of ⟨g, w − s⟩ is attained at s = −r·sign(g).
    let gap = g
        .iter()
        .zip(&w)
        .map(|(g, w)| g * w + r * g.abs())
        .sum::<f64>()
        .max(0.0);
    Ok(OracleSolution {
        w,
        gap,
        evaluations: rep.evaluations,
        converged: rep.converged(),
    })
}

/// `u ↦ J(r·sin u)` with `∇ᵤ = ∇_w J ⊙ r·cos u`.
struct SineBox<'d, 'a> {
    inner: PerturbedObjective<'d, 'a>,
    r: f64,
    w: Vec<f64>,
    gw: Vec<f64>,
}

impl Objective for SineBox<'_, '_> {
    fn dim(&self) -> usize {
        self.w.len()
    }

    fn eval(&mut self, u: &[f64], grad: &mut [f64]) -> f64 {
        for (w, u) in self.w.iter_mut().zip(u) {
            *w = self.r * u.sin();
        }
        let f = self.inner.value_grad(&self.w, &mut self.gw);
        for ((g, gw), u) in grad.iter_mut().zip(&self.gw).zip(u) {
            *g = gw * self.r * u.cos();
        }
        f
    }
}

#[cfg(test)]
#[path = "opsamp_tests.rs"]
mod tests;
