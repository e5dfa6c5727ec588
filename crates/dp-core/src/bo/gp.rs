//! Gaussian-process regression as DPareto's surrogates run it (GPflow 0.5 `GPR` under
//! GPflowOpt): zero mean, the Matérn-5/2 ARD kernel of [`crate::bo::kernel`], Gaussian noise
//! learned or fixed, hyperparameters by ML-II with restarts, latent predictions.
//!
//! Design (the hand-written GP prototyped for the Avent et al. 2020 reproduction): ML-II in
//! `θ = (ln ℓ, ln s², [ln σ_n²])` with the analytic gradient and the project's L-BFGS, a box
//! on `θ` enforced by returning `+∞` outside it, GPflowOpt's jitter ladder on Cholesky
//! failures, restart 0 warm-started and the others drawn as GPflow's `randomize()` does.
//! Where GPflow optimises `softplus⁻¹` of each parameter, this fit uses logs: the optimum is
//! the same, the path to it is not.

mod cholesky;
mod likelihood;
mod predict;

pub use likelihood::{LN_LENGTHSCALE_BOUND, LN_NOISE_RANGE, LN_VARIANCE_BOUND};
pub use predict::PredictionGrad;

use crate::bo::kernel::Matern52;
use crate::error::{DpError, Result, check_nonnegative, check_positive, ensure};
use crate::learn::lbfgs::{LbfgsOptions, LbfgsStatus, lbfgs};
use likelihood::{Layout, Likelihood, Posterior};
use rand::Rng;
use rand_distr::StandardNormal;

/// The likelihood variance `σ_n²`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Noise {
    /// A hyperparameter, starting at `init` when there is no warm start (GPflowOpt's utility GP:
    /// 0.01).
    Learned {
        /// Initial `σ_n²`.
        init: f64,
    },
    /// A constant (the privacy GP: GPflow fixes 0 and relies on jitter; 1e-6 here).
    Fixed(f64),
}

/// How [`Gp::fit`] models the noise and runs ML-II.
#[derive(Clone, Debug, PartialEq)]
pub struct GpConfig {
    /// Learned or fixed noise.
    pub noise: Noise,
    /// Diagonal jitter relative to the signal variance: `K_y = K + (σ_n² + jitter·s²)I`.
    pub jitter: f64,
    /// Optimisation runs: run 0 starts from the warm start, the others from random draws
    /// (GPflowOpt's `optimize_restarts = 5`).
    pub restarts: usize,
    /// Gradient-norm tolerance of each run (scipy's `pgtol = 1e-5`, but on the 2-norm).
    pub grad_tol: f64,
    /// Solver settings (scipy's `maxiter = 1000`, `factr = 1e7` by default).
    pub lbfgs: LbfgsOptions,
}

impl GpConfig {
    /// A GP that learns its noise, starting from `init`.
    pub fn learned_noise(init: f64) -> Self {
        GpConfig {
            noise: Noise::Learned { init },
            jitter: 1e-8,
            restarts: 5,
            grad_tol: 1e-5,
            lbfgs: LbfgsOptions {
                max_iter: 1000,
                ftol: Some(1e7 * f64::EPSILON),
                ..LbfgsOptions::default()
            },
        }
    }

    /// A GP with the constant noise variance `noise`.
    pub fn fixed_noise(noise: f64) -> Self {
        GpConfig {
            noise: Noise::Fixed(noise),
            ..Self::learned_noise(0.01)
        }
    }

    fn validate(&self) -> Result<()> {
        match self.noise {
            Noise::Learned { init } => check_positive("noise init", init)?,
            Noise::Fixed(v) => check_nonnegative("fixed noise", v)?,
        }
        check_nonnegative("jitter", self.jitter)?;
        ensure(
            self.restarts >= 1,
            "restarts",
            self.restarts as f64,
            "must be >= 1",
        )?;
        check_nonnegative("grad_tol", self.grad_tol)
    }
}

impl Default for GpConfig {
    /// GPflowOpt's utility GP: learned noise from 0.01.
    fn default() -> Self {
        Self::learned_noise(0.01)
    }
}

/// Kernel and likelihood hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Hyper {
    /// ARD lengthscales `ℓ_d`.
    pub lengthscales: Vec<f64>,
    /// Signal variance `s²`.
    pub variance: f64,
    /// Noise variance `σ_n²`.
    pub noise: f64,
}

impl Hyper {
    /// GPflow's initial values: unit lengthscales and variance.
    pub fn initial(dim: usize, noise: f64) -> Self {
        Hyper {
            lengthscales: vec![1.0; dim],
            variance: 1.0,
            noise,
        }
    }
}

/// How the ML-II fit went.
#[derive(Clone, Debug, PartialEq)]
pub struct FitReport {
    /// The run whose optimum was kept (0 = warm start).
    pub restart: usize,
    /// Final NLL of every run (`+∞` if its start could not be factorised).
    pub nlls: Vec<f64>,
    /// Stopping reason of the kept run.
    pub status: LbfgsStatus,
    /// Likelihood evaluations over all runs.
    pub evaluations: usize,
}

/// A GP conditioned on training data.
#[derive(Clone, Debug)]
pub struct Gp {
    x: Vec<f64>,
    dim: usize,
    kernel: Matern52,
    hyper: Hyper,
    /// Everything added to the diagonal beyond `σ_n²`.
    diag_jitter: f64,
    post: Posterior,
    report: Option<FitReport>,
}

impl Gp {
    /// Fits the hyperparameters to row-major inputs `x` (`y.len()` rows of `dim`) and targets
    /// `y` by ML-II, then conditions on the data.
    ///
    /// Run 0 starts from `warm` (else GPflow's initial values); with fixed noise `warm.noise`
    /// is ignored. Runs `1..restarts` draw every free parameter as `softplus(N(0,1)) + 1e-6`
    /// from `rng` (GPflow's `randomize()`). The run with the lowest NLL is kept; a run need
    /// not meet its gradient tolerance (GPflow does not check either).
    pub fn fit<R: Rng + ?Sized>(
        x: &[f64],
        dim: usize,
        y: &[f64],
        cfg: &GpConfig,
        warm: Option<&Hyper>,
        rng: &mut R,
    ) -> Result<Gp> {
        check_data(x, dim, y)?;
        cfg.validate()?;
        let (fixed_noise, init_noise) = match cfg.noise {
            Noise::Learned { init } => (None, init),
            Noise::Fixed(v) => (Some(v), v),
        };
        let layout = Layout { dim, fixed_noise };
        let start = match warm {
            Some(h) => {
                check_hyper(h, dim, fixed_noise.is_none())?;
                h.clone()
            }
            None => Hyper::initial(dim, init_noise),
        };
        let mut warm_theta = layout.theta(&start.lengthscales, start.variance, start.noise);
        layout.clamp(&mut warm_theta);

        let mut lik = Likelihood::new(layout, x, y, cfg.jitter);
        let mut best: Option<(Vec<f64>, f64, LbfgsStatus)> = None;
        let mut nlls = Vec::with_capacity(cfg.restarts);
        let (mut evaluations, mut kept, mut best_nll) = (0, 0, f64::INFINITY);
        for run in 0..cfg.restarts {
            let theta0 = if run == 0 {
                warm_theta.clone()
            } else {
                random_theta(&layout, rng)
            };
            if !lik.calibrate(&theta0) {
                nlls.push(f64::INFINITY);
                continue;
            }
            let r = lbfgs(&mut lik, &theta0, cfg.grad_tol, &cfg.lbfgs);
            evaluations += r.evaluations;
            nlls.push(r.value);
            if r.value < best_nll {
                (kept, best_nll) = (run, r.value);
                best = Some((r.x, lik.extra, r.status));
            }
        }
        let Some((theta, extra, status)) = best else {
            return Err(DpError::NoConvergence(format!(
                "GP fit: no restart could factorise its kernel matrix, even with jitter \
                 (n = {}, dim = {dim})",
                y.len()
            )));
        };
        lik.extra = extra;
        let (kernel, post) = lik.posterior(&theta).ok_or_else(|| {
            DpError::NoConvergence("GP fit: the optimum no longer factorises".into())
        })?;
        let diag_jitter = cfg.jitter * kernel.variance() + extra;
        let hyper = Hyper {
            lengthscales: kernel.lengthscales().to_vec(),
            variance: kernel.variance(),
            noise: layout.noise(&theta),
        };
        Ok(Gp {
            x: x.to_vec(),
            dim,
            kernel,
            hyper,
            diag_jitter,
            post,
            report: Some(FitReport {
                restart: kept,
                nlls,
                status,
                evaluations,
            }),
        })
    }

    /// Conditions on the data with the given hyperparameters (no fit); `jitter` as in
    /// [`GpConfig::jitter`], with the jitter ladder on failure.
    pub fn with_hyper(x: &[f64], dim: usize, y: &[f64], hyper: &Hyper, jitter: f64) -> Result<Gp> {
        check_data(x, dim, y)?;
        check_hyper(hyper, dim, false)?;
        check_nonnegative("jitter", jitter)?;
        let kernel = Matern52::new(hyper.variance, &hyper.lengthscales)?;
        let base = jitter * kernel.variance();
        let (llt, extra) =
            cholesky::jittered(&kernel.gram(x), hyper.noise + base).ok_or_else(|| {
                DpError::NoConvergence("GP: the kernel matrix does not factorise".into())
            })?;
        let post = Posterior::from_llt(llt, y)
            .ok_or_else(|| DpError::NoConvergence("GP: non-finite likelihood".into()))?;
        Ok(Gp {
            x: x.to_vec(),
            dim,
            kernel,
            hyper: hyper.clone(),
            diag_jitter: base + extra,
            post,
            report: None,
        })
    }

    /// The hyperparameters the model is conditioned on.
    pub fn hyper(&self) -> &Hyper {
        &self.hyper
    }

    /// Negative log marginal likelihood of the training data.
    pub fn nll(&self) -> f64 {
        self.post.nll
    }

    /// What was added to the diagonal beyond `σ_n²` (relative jitter plus any ladder rung).
    pub fn diag_jitter(&self) -> f64 {
        self.diag_jitter
    }

    /// The kernel.
    pub fn kernel(&self) -> &Matern52 {
        &self.kernel
    }

    /// Input dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of training points.
    pub fn len(&self) -> usize {
        self.post.alpha.len()
    }

    /// Always false: a GP holds at least one training point.
    pub fn is_empty(&self) -> bool {
        self.post.alpha.is_empty()
    }

    /// The ML-II report (`None` for [`Gp::with_hyper`]).
    pub fn fit_report(&self) -> Option<&FitReport> {
        self.report.as_ref()
    }
}

/// `ln(softplus(z) + 1e-6)` for `z ~ N(0, 1)` per free parameter, clamped into the box.
fn random_theta<R: Rng + ?Sized>(layout: &Layout, rng: &mut R) -> Vec<f64> {
    let mut t: Vec<f64> = (0..layout.len())
        .map(|_| {
            let z: f64 = rng.sample(StandardNormal);
            let softplus = z.max(0.0) + (-z.abs()).exp().ln_1p();
            (softplus + 1e-6).ln()
        })
        .collect();
    layout.clamp(&mut t);
    t
}

fn check_data(x: &[f64], dim: usize, y: &[f64]) -> Result<()> {
    ensure(dim >= 1, "dim", dim as f64, "must be >= 1")?;
    ensure(!y.is_empty(), "n", 0.0, "need at least one training point")?;
    ensure(
        x.len() == y.len() * dim,
        "x.len()",
        x.len() as f64,
        "must be y.len() * dim",
    )?;
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(DpError::Invalid("GP: non-finite training data".into()));
    }
    Ok(())
}

fn check_hyper(h: &Hyper, dim: usize, noise_positive: bool) -> Result<()> {
    ensure(
        h.lengthscales.len() == dim,
        "lengthscales.len()",
        h.lengthscales.len() as f64,
        "must equal dim",
    )?;
    for &l in &h.lengthscales {
        check_positive("lengthscale", l)?;
    }
    check_positive("variance", h.variance)?;
    if noise_positive {
        check_positive("noise", h.noise)
    } else {
        check_nonnegative("noise", h.noise)
    }
}

#[cfg(test)]
#[path = "gp_tests.rs"]
mod tests;
