//! The negative log marginal likelihood of the zero-mean GP and its analytic gradient in
//! `θ = (ln ℓ_1..ℓ_D, ln s², [ln σ_n²])` (Rasmussen & Williams eqs. 2.30, 5.9), as an L-BFGS
//! objective. It is `+∞` outside the box on `θ` and wherever the Cholesky factorisation
//! fails, so that the line search backtracks instead of the fit aborting.

use super::cholesky::{factor, jittered};
use crate::bo::kernel::Matern52;
use crate::features::dot;
use crate::learn::lbfgs::Objective;
use faer::linalg::solvers::{DenseSolveCore, Llt, Solve};

/// `|ln ℓ_d| ≤ 7`.
pub const LN_LENGTHSCALE_BOUND: f64 = 7.0;
/// `|ln s²| ≤ 12`.
pub const LN_VARIANCE_BOUND: f64 = 12.0;
/// `ln σ_n² ∈ [−16, 5]`.
pub const LN_NOISE_RANGE: (f64, f64) = (-16.0, 5.0);

/// Which hyperparameters `θ` holds, and how they map to the model.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) dim: usize,
    /// `Some(σ_n²)` when the noise is not a parameter.
    pub(super) fixed_noise: Option<f64>,
}

impl Layout {
    pub(super) fn len(&self) -> usize {
        self.dim + 1 + usize::from(self.fixed_noise.is_none())
    }

    fn bounds(&self, j: usize) -> (f64, f64) {
        match j {
            j if j < self.dim => (-LN_LENGTHSCALE_BOUND, LN_LENGTHSCALE_BOUND),
            j if j == self.dim => (-LN_VARIANCE_BOUND, LN_VARIANCE_BOUND),
            _ => LN_NOISE_RANGE,
        }
    }

    pub(super) fn in_box(&self, theta: &[f64]) -> bool {
        theta.iter().enumerate().all(|(j, &t)| {
            let (lo, hi) = self.bounds(j);
            t >= lo && t <= hi
        })
    }

    pub(super) fn clamp(&self, theta: &mut [f64]) {
        for (j, t) in theta.iter_mut().enumerate() {
            let (lo, hi) = self.bounds(j);
            *t = t.clamp(lo, hi);
        }
    }

    /// `θ` of the given hyperparameters (the noise is ignored when fixed).
    pub(super) fn theta(&self, lengthscales: &[f64], variance: f64, noise: f64) -> Vec<f64> {
        let mut t: Vec<f64> = lengthscales.iter().map(|l| l.ln()).collect();
        t.push(variance.ln());
        if self.fixed_noise.is_none() {
            t.push(noise.ln());
        }
        t
    }

    /// The kernel at `θ`; `None` only if `θ` is not finite.
    pub(super) fn kernel(&self, theta: &[f64]) -> Option<Matern52> {
        let ls: Vec<f64> = theta[..self.dim].iter().map(|t| t.exp()).collect();
        Matern52::new(theta[self.dim].exp(), &ls).ok()
    }

    pub(super) fn noise(&self, theta: &[f64]) -> f64 {
        self.fixed_noise
            .unwrap_or_else(|| theta[self.dim + 1].exp())
    }
}

/// The factorised model at one `θ`: `LLᵀ = K + shift·I`, `α = (K + shift·I)⁻¹y`, the NLL.
#[derive(Clone, Debug)]
pub(super) struct Posterior {
    pub(super) llt: Llt<f64>,
    pub(super) alpha: Vec<f64>,
    pub(super) nll: f64,
}

impl Posterior {
    /// `None` if `K + shift·I` does not factorise.
    pub(super) fn new(k: &faer::Mat<f64>, shift: f64, y: &[f64]) -> Option<Self> {
        Self::from_llt(factor(k, shift)?, y)
    }

    pub(super) fn from_llt(llt: Llt<f64>, y: &[f64]) -> Option<Self> {
        let n = y.len();
        let mut alpha = y.to_vec();
        llt.solve_in_place(faer::MatMut::from_column_major_slice_mut(&mut alpha, n, 1));
        let l = llt.L();
        let half_logdet: f64 = (0..n).map(|i| l[(i, i)].ln()).sum();
        let nll = 0.5 * dot(y, &alpha) + half_logdet + 0.5 * n as f64 * std::f64::consts::TAU.ln();
        nll.is_finite().then_some(Posterior { llt, alpha, nll })
    }
}

/// The NLL of row-major inputs `x` and targets `y` as a function of `θ`.
///
/// The diagonal of `K_y` is shifted by `σ_n² + jitter·s² + extra`: `jitter` is relative to
/// `s²` (so the shift scales with the kernel), `extra` is the absolute amount the jitter
/// ladder needed at the start of one optimisation, held fixed during it so that the
/// objective stays smooth.
pub(super) struct Likelihood<'a> {
    pub(super) layout: Layout,
    x: &'a [f64],
    y: &'a [f64],
    jitter: f64,
    pub(super) extra: f64,
}

impl<'a> Likelihood<'a> {
    pub(super) fn new(layout: Layout, x: &'a [f64], y: &'a [f64], jitter: f64) -> Self {
        Likelihood {
            layout,
            x,
            y,
            jitter,
            extra: 0.0,
        }
    }

    /// The total diagonal shift at `θ` (without the ladder's extra).
    pub(super) fn base_shift(&self, kern: &Matern52, theta: &[f64]) -> f64 {
        self.layout.noise(theta) + self.jitter * kern.variance()
    }

    /// Climbs the jitter ladder at `θ₀` and keeps the extra it needed; false if even the last
    /// rung fails (or `θ₀` is outside the box).
    pub(super) fn calibrate(&mut self, theta0: &[f64]) -> bool {
        let Some(kern) = self
            .layout
            .kernel(theta0)
            .filter(|_| self.layout.in_box(theta0))
        else {
            return false;
        };
        match jittered(&kern.gram(self.x), self.base_shift(&kern, theta0)) {
            Some((_, extra)) => {
                self.extra = extra;
                true
            }
            None => false,
        }
    }

    /// The model at `θ` with the current extra, or `None` outside the box or on failure.
    pub(super) fn posterior(&self, theta: &[f64]) -> Option<(Matern52, Posterior)> {
        if !self.layout.in_box(theta) {
            return None;
        }
        let kern = self.layout.kernel(theta)?;
        let shift = self.base_shift(&kern, theta) + self.extra;
        let post = Posterior::new(&kern.gram(self.x), shift, self.y)?;
        Some((kern, post))
    }

    /// NLL at `θ` (`+∞` outside the box or on failure); writes `∇_θ NLL` into `grad`.
    ///
    /// `∂NLL/∂θ_j = ½ Σ_ik W_ik ∂(K_y)_ik/∂θ_j` with `W = K_y⁻¹ − ααᵀ`, where
    /// `∂K_ik/∂ln ℓ_d = h_ik·Δ_d²/ℓ_d²`, `∂K_y/∂ln s² = K + jitter·s²·I` and
    /// `∂K_y/∂ln σ_n² = σ_n²·I`.
    pub(super) fn value_and_grad(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        grad.fill(0.0);
        let Some(kern) = self
            .layout
            .kernel(theta)
            .filter(|_| self.layout.in_box(theta))
        else {
            return f64::INFINITY;
        };
        let (k, h) = kern.gram_with_factors(self.x);
        let shift = self.base_shift(&kern, theta) + self.extra;
        let Some(post) = Posterior::new(&k, shift, self.y) else {
            return f64::INFINITY;
        };
        let kinv = post.llt.inverse();
        let alpha = &post.alpha;
        let (n, dim) = (self.y.len(), self.layout.dim);
        let (mut tr_w, mut w_dot_k) = (0.0, 0.0);
        for c in 0..n {
            let w_cc = kinv[(c, c)] - alpha[c] * alpha[c];
            tr_w += w_cc;
            w_dot_k += w_cc * k[(c, c)];
            let xc = &self.x[c * dim..(c + 1) * dim];
            // The lower triangle counts each off-diagonal pair once; the ½ and the pair's two
            // copies cancel. The diagonal has Δ = 0, so it adds nothing to the ℓ derivatives.
            for r in c + 1..n {
                let w = kinv[(r, c)] - alpha[r] * alpha[c];
                w_dot_k += 2.0 * w * k[(r, c)];
                let wh = w * h[(r, c)];
                let xr = &self.x[r * dim..(r + 1) * dim];
                for ((g, a), b) in grad[..dim].iter_mut().zip(xr).zip(xc) {
                    let d = a - b;
                    *g += wh * d * d;
                }
            }
        }
        for (g, w) in grad[..dim].iter_mut().zip(kern.inv_lengthscales_sq()) {
            *g *= w;
        }
        grad[dim] = 0.5 * (w_dot_k + self.jitter * kern.variance() * tr_w);
        if self.layout.fixed_noise.is_none() {
            grad[dim + 1] = 0.5 * self.layout.noise(theta) * tr_w;
        }
        post.nll
    }
}

impl Objective for Likelihood<'_> {
    fn dim(&self) -> usize {
        self.layout.len()
    }

    fn eval(&mut self, x: &[f64], grad: &mut [f64]) -> f64 {
        self.value_and_grad(x, grad)
    }
}
