//! The L-BFGS state: iterate, gradient, search direction, the line search's trial point, and
//! the ring buffer of correction pairs with the two-loop recursion over it.

use super::{Preconditioner, axpy, dot};

/// Iterate, direction, trial buffers and the correction-pair ring buffer.
pub(super) struct Solver {
    pub(super) x: Vec<f64>,
    pub(super) g: Vec<f64>,
    pub(super) d: Vec<f64>,
    /// Scratch for `B⁻¹y`.
    work: Vec<f64>,
    pub(super) xt: Vec<f64>,
    pub(super) gt: Vec<f64>,
    s: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    rho: Vec<f64>,
    alpha: Vec<f64>,
    /// Slot of the newest pair.
    head: usize,
    /// Number of stored pairs.
    pub(super) len: usize,
}

impl Solver {
    pub(super) fn new(n: usize, m: usize) -> Self {
        Solver {
            x: vec![0.0; n],
            g: vec![0.0; n],
            d: vec![0.0; n],
            work: vec![0.0; n],
            xt: vec![0.0; n],
            gt: vec![0.0; n],
            s: vec![vec![0.0; n]; m],
            y: vec![vec![0.0; n]; m],
            rho: vec![0.0; m],
            alpha: vec![0.0; m],
            head: m - 1,
            len: 0,
        }
    }

    pub(super) fn clear_history(&mut self) {
        self.len = 0;
    }

    /// `d = −H g` by the two-loop recursion with `H₀ = γB⁻¹`.
    pub(super) fn direction(&mut self, gamma: f64, precond: &Preconditioner) {
        let m = self.s.len();
        self.d.iter_mut().zip(&self.g).for_each(|(d, g)| *d = *g);
        for k in 0..self.len {
            let i = (self.head + m - k) % m;
            let a = self.rho[i] * dot(&self.s[i], &self.d);
            self.alpha[i] = a;
            axpy(-a, &self.y[i], &mut self.d);
        }
        precond.apply_inverse(&mut self.d);
        self.d.iter_mut().for_each(|d| *d *= gamma);
        for k in (0..self.len).rev() {
            let i = (self.head + m - k) % m;
            let b = self.rho[i] * dot(&self.y[i], &self.d);
            axpy(self.alpha[i] - b, &self.s[i], &mut self.d);
        }
        self.d.iter_mut().for_each(|d| *d = -*d);
    }

    /// Stores the pair (xt − x, gt − g) if it has positive curvature; returns sᵀy.
    pub(super) fn push_pair(&mut self) -> f64 {
        let m = self.s.len();
        let slot = (self.head + 1) % m;
        for j in 0..self.x.len() {
            self.s[slot][j] = self.xt[j] - self.x[j];
            self.y[slot][j] = self.gt[j] - self.g[j];
        }
        let sy = dot(&self.s[slot], &self.y[slot]);
        // Skip pairs without usable curvature (keeps H positive definite).
        if sy > f64::EPSILON * dot(&self.y[slot], &self.y[slot]) && sy.is_finite() {
            self.rho[slot] = 1.0 / sy;
            self.head = slot;
            self.len = (self.len + 1).min(m);
            sy
        } else {
            0.0
        }
    }

    /// `yᵀB⁻¹y` of the newest pair: `γ = sᵀy / yᵀB⁻¹y` matches H₀'s scale to it.
    pub(super) fn last_y_hinv_y(&mut self, precond: &Preconditioner) -> f64 {
        self.work.copy_from_slice(&self.y[self.head]);
        precond.apply_inverse(&mut self.work);
        dot(&self.y[self.head], &self.work)
    }
}
