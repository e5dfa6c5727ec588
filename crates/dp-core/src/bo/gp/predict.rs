//! Latent predictions of a conditioned GP, as GPflow's `predict_f`: `μ(x) = k*ᵀα` and
//! `s²(x) = s² − ‖L⁻¹k*‖²` (the prior variance is `Kdiag = s²`, not the safe kernel's
//! `k(x, x)`), clamped at 0; for one point, for many at once, and with gradients in `x`.

use super::Gp;
use crate::features::dot;
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{MatMut, Par};

/// Points per triangular solve in [`Gp::predict_batch`]: enough right-hand sides for faer's
/// blocked kernels to pay, few enough that the `n × BLOCK` panel stays in cache.
const BLOCK: usize = 256;

/// Mean and variance of the latent function at a point, and their gradients in the point.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictionGrad {
    /// `μ(x)`.
    pub mean: f64,
    /// `s²(x)`.
    pub var: f64,
    /// `∂μ/∂x`.
    pub mean_grad: Vec<f64>,
    /// `∂s²/∂x` (zero where the variance is clamped at 0).
    pub var_grad: Vec<f64>,
}

impl Gp {
    /// Writes `k*_i = k(x_i, x)` for every training point.
    fn cross_cov(&self, x: &[f64], out: &mut [f64]) {
        let d = self.dim;
        for (o, xi) in out.iter_mut().zip(self.x.chunks_exact(d)) {
            *o = self.kernel.eval(xi, x);
        }
    }

    fn check_point(&self, x: &[f64]) {
        assert_eq!(x.len(), self.dim, "point has the wrong dimension");
    }

    /// `(μ(x), s²(x))` at one point; allocates one vector of the training size.
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        self.check_point(x);
        let n = self.len();
        let mut w = vec![0.0; n];
        self.cross_cov(x, &mut w);
        let mean = dot(&w, &self.post.alpha);
        let l = self.post.llt.L();
        solve_lower_triangular_in_place(
            l,
            MatMut::from_column_major_slice_mut(&mut w, n, 1),
            Par::Seq,
        );
        (mean, (self.kernel.variance() - dot(&w, &w)).max(0.0))
    }

    /// `(μ, s²)` at every row of the row-major `rows`, one triangular solve with many
    /// right-hand sides per block of points.
    pub fn predict_batch(&self, rows: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (n, d) = (self.len(), self.dim);
        assert_eq!(rows.len() % d, 0, "rows is not a whole number of points");
        let m = rows.len() / d;
        let (mut mean, mut var) = (vec![0.0; m], vec![0.0; m]);
        let mut panel = vec![0.0; n * BLOCK.min(m)];
        let l = self.post.llt.L();
        let s2 = self.kernel.variance();
        for (b, block) in rows.chunks(BLOCK * d).enumerate() {
            let cols = block.len() / d;
            let panel = &mut panel[..n * cols];
            let at = b * BLOCK;
            for ((col, x), mu) in panel
                .chunks_exact_mut(n)
                .zip(block.chunks_exact(d))
                .zip(&mut mean[at..at + cols])
            {
                self.cross_cov(x, col);
                *mu = dot(col, &self.post.alpha);
            }
            solve_lower_triangular_in_place(
                l,
                MatMut::from_column_major_slice_mut(panel, n, cols),
                Par::Seq,
            );
            for (col, v) in panel.chunks_exact(n).zip(&mut var[at..at + cols]) {
                *v = (s2 - dot(col, col)).max(0.0);
            }
        }
        (mean, var)
    }

    /// `μ`, `s²` and their gradients at `x`: with `∂k*_i/∂x = −h_i(x − x_i)/ℓ²`,
    /// `∂μ/∂x = Σ_i α_i ∂k*_i/∂x` and `∂s²/∂x = −2 Σ_i v_i ∂k*_i/∂x`, `v = K_y⁻¹k*`.
    pub fn predict_with_grad(&self, x: &[f64]) -> PredictionGrad {
        self.check_point(x);
        let (n, d) = (self.len(), self.dim);
        let mut kstar = vec![0.0; n];
        let mut h = vec![0.0; n];
        for ((k, h), xi) in kstar.iter_mut().zip(&mut h).zip(self.x.chunks_exact(d)) {
            let v = self.kernel.eval_with_factor(x, xi);
            (*k, *h) = (v.k, v.h);
        }
        let mean = dot(&kstar, &self.post.alpha);
        let l = self.post.llt.L();
        // v = L⁻ᵀL⁻¹k*, reusing k*'s buffer; ‖L⁻¹k*‖² is read off half-way.
        let mut v = kstar;
        solve_lower_triangular_in_place(
            l,
            MatMut::from_column_major_slice_mut(&mut v, n, 1),
            Par::Seq,
        );
        let raw_var = self.kernel.variance() - dot(&v, &v);
        solve_upper_triangular_in_place(
            l.transpose(),
            MatMut::from_column_major_slice_mut(&mut v, n, 1),
            Par::Seq,
        );
        let (mut mean_grad, mut var_grad) = (vec![0.0; d], vec![0.0; d]);
        let mut dk = vec![0.0; d];
        for (i, xi) in self.x.chunks_exact(d).enumerate() {
            self.kernel.grad_x(x, xi, h[i], &mut dk);
            for ((gm, gv), dk) in mean_grad.iter_mut().zip(&mut var_grad).zip(&dk) {
                *gm += self.post.alpha[i] * dk;
                *gv -= 2.0 * v[i] * dk;
            }
        }
        if raw_var <= 0.0 {
            var_grad.fill(0.0);
        }
        PredictionGrad {
            mean,
            var: raw_var.max(0.0),
            mean_grad,
            var_grad,
        }
    }
}
