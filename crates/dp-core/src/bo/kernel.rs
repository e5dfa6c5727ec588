//! The Matérn-5/2 ARD kernel with a Euclidean scaled distance, as GPflow 0.5's `Matern52`
//! made "safe" by DPareto (`SafeMatern52`, `harness.py:550-554`):
//!
//! `k(x, x') = s²·(1 + √5 r + 5r²/3)·exp(−√5 r)`, `r = sqrt(Σ_d (x_d − x'_d)²/ℓ_d² + 1e-7)`.
//!
//! The 1e-7 inside the root keeps `r` away from 0, where the root's derivative blows up;
//! all derivatives below are nonetheless written in forms that stay finite at `r = 0`.

use crate::error::{Result, check_positive, ensure};
use faer::Mat;

/// Added to the squared scaled distance before the square root (`SafeMatern52`).
pub const SAFE_R2: f64 = 1e-7;

/// A Matérn-5/2 kernel with one lengthscale per input dimension (ARD).
#[derive(Clone, Debug, PartialEq)]
pub struct Matern52 {
    variance: f64,
    lengthscales: Vec<f64>,
    /// `1/ℓ_d²`, the only form the hot loops need.
    inv_ls2: Vec<f64>,
}

/// `k(x, x')` together with the factor `h = (5/3)s²(1 + √5 r)e^{−√5 r}` shared by every
/// derivative: `∂k/∂ln ℓ_d = h·Δ_d²/ℓ_d²`, `∂k/∂x_d = −h·Δ_d/ℓ_d²` (`Δ = x − x'`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelValue {
    /// `k(x, x')`.
    pub k: f64,
    /// The derivative factor `h`.
    pub h: f64,
}

impl Matern52 {
    /// A kernel with signal variance `s²` and lengthscales `ℓ`.
    pub fn new(variance: f64, lengthscales: &[f64]) -> Result<Self> {
        check_positive("variance", variance)?;
        ensure(
            !lengthscales.is_empty(),
            "lengthscales",
            0.0,
            "need at least one input dimension",
        )?;
        for &l in lengthscales {
            check_positive("lengthscale", l)?;
        }
        Ok(Matern52 {
            variance,
            lengthscales: lengthscales.to_vec(),
            inv_ls2: lengthscales.iter().map(|l| 1.0 / (l * l)).collect(),
        })
    }

    /// Signal variance `s²` (the prior variance GPflow's `Kdiag` reports).
    pub fn variance(&self) -> f64 {
        self.variance
    }

    /// Lengthscales `ℓ_d`.
    pub fn lengthscales(&self) -> &[f64] {
        &self.lengthscales
    }

    /// `1/ℓ_d²`.
    pub fn inv_lengthscales_sq(&self) -> &[f64] {
        &self.inv_ls2
    }

    /// Input dimension.
    pub fn dim(&self) -> usize {
        self.inv_ls2.len()
    }

    /// `k(a, b)`.
    #[inline]
    pub fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        self.of_r2(self.scaled_dist2(a, b)).k
    }

    /// `k(a, b)` and the derivative factor `h`.
    #[inline]
    pub fn eval_with_factor(&self, a: &[f64], b: &[f64]) -> KernelValue {
        self.of_r2(self.scaled_dist2(a, b))
    }

    /// `k(x, x) = s²·f(√1e-7)`: the diagonal of a Gram matrix, slightly below `s²`.
    pub fn self_value(&self) -> f64 {
        self.of_r2(SAFE_R2).k
    }

    /// Writes `∂k(x, x')/∂x` into `out`, given the factor `h` of this pair.
    #[inline]
    pub fn grad_x(&self, x: &[f64], xp: &[f64], h: f64, out: &mut [f64]) {
        for (((o, a), b), w) in out.iter_mut().zip(x).zip(xp).zip(&self.inv_ls2) {
            *o = -h * (a - b) * w;
        }
    }

    /// The Gram matrix `K_ij = k(x_i, x_j)` of the row-major points `x`.
    pub fn gram(&self, x: &[f64]) -> Mat<f64> {
        self.gram_impl(x, None)
    }

    /// The Gram matrix and the matrix of derivative factors `h_ij` (see [`KernelValue`]).
    pub fn gram_with_factors(&self, x: &[f64]) -> (Mat<f64>, Mat<f64>) {
        let n = x.len() / self.dim();
        let mut h = Mat::zeros(n, n);
        let k = self.gram_impl(x, Some(&mut h));
        (k, h)
    }

    fn gram_impl(&self, x: &[f64], mut factors: Option<&mut Mat<f64>>) -> Mat<f64> {
        let d = self.dim();
        assert_eq!(x.len() % d, 0, "x is not a whole number of rows");
        let n = x.len() / d;
        let mut k = Mat::zeros(n, n);
        for j in 0..n {
            let xj = &x[j * d..(j + 1) * d];
            for i in j..n {
                let v = self.eval_with_factor(&x[i * d..(i + 1) * d], xj);
                k[(i, j)] = v.k;
                k[(j, i)] = v.k;
                if let Some(h) = factors.as_deref_mut() {
                    h[(i, j)] = v.h;
                    h[(j, i)] = v.h;
                }
            }
        }
        k
    }

    /// `r² = Σ_d (a_d − b_d)²/ℓ_d² + 1e-7`.
    #[inline]
    pub fn scaled_dist2(&self, a: &[f64], b: &[f64]) -> f64 {
        debug_assert!(a.len() == self.dim() && b.len() == self.dim());
        let mut s = SAFE_R2;
        for ((a, b), w) in a.iter().zip(b).zip(&self.inv_ls2) {
            let d = a - b;
            s += d * d * w;
        }
        s
    }

    #[inline]
    fn of_r2(&self, r2: f64) -> KernelValue {
        let r5 = (5.0 * r2).sqrt();
        let e = self.variance * (-r5).exp();
        KernelValue {
            k: e * (1.0 + r5 + 5.0 / 3.0 * r2),
            h: 5.0 / 3.0 * e * (1.0 + r5),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn kernel() -> Matern52 {
        Matern52::new(1.7, &[0.4, 2.5, 1.1]).unwrap()
    }

    #[test]
    fn closed_forms() {
        let k = kernel();
        // At x = x': r = √1e-7 exactly.
        let r = SAFE_R2.sqrt();
        let want = 1.7 * (1.0 + 5f64.sqrt() * r + 5.0 * r * r / 3.0) * (-5f64.sqrt() * r).exp();
        let x = [0.3, -1.0, 2.0];
        assert_eq!(k.eval(&x, &x), k.self_value());
        assert!((k.self_value() - want).abs() <= 1e-15 * want);
        // Its Taylor expansion: s²(1 − (5/6)r² + O(r³)).
        assert!((k.self_value() - 1.7 * (1.0 - 5.0 / 6.0 * SAFE_R2)).abs() < 1e-12);
        // Unit scaled distance along one axis: r² = 1 + 1e-7.
        let y = [0.3 + 0.4, -1.0, 2.0];
        let r = (1.0 + SAFE_R2).sqrt();
        let want = 1.7 * (1.0 + 5f64.sqrt() * r + 5.0 / 3.0 * r * r) * (-5f64.sqrt() * r).exp();
        assert!((k.eval(&x, &y) - want).abs() < 1e-15);
        // Euclidean, not a product of 1-D kernels: (0.4, 2.5·0) and (0.4·0.6, 2.5·0.8) are both
        // at scaled distance 1.
        let z = [0.3 + 0.4 * 0.6, -1.0 + 2.5 * 0.8, 2.0];
        assert!((k.eval(&x, &z) - k.eval(&x, &y)).abs() < 1e-15);
        let h = k.eval_with_factor(&x, &y).h;
        let want_h = 5.0 / 3.0 * 1.7 * (1.0 + 5f64.sqrt() * r) * (-5f64.sqrt() * r).exp();
        assert!((h - want_h).abs() < 1e-15);
    }

    #[test]
    fn symmetric_and_positive_definite() {
        let k = kernel();
        let mut rng = StdRng::seed_from_u64(3);
        let n = 30;
        let pts: Vec<Vec<f64>> = (0..n)
            .map(|_| (0..3).map(|_| rng.random_range(-2.0..2.0)).collect())
            .collect();
        let gram = faer::Mat::<f64>::from_fn(n, n, |i, j| k.eval(&pts[i], &pts[j]));
        for i in 0..n {
            for j in 0..n {
                assert_eq!(gram[(i, j)], gram[(j, i)]);
            }
        }
        let eig = gram.self_adjoint_eigenvalues(faer::Side::Lower).unwrap();
        let min = eig.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(min > 0.0, "{eig:?}");
        // Quadratic forms with random weights are positive too.
        for _ in 0..20 {
            let v: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let q: f64 = (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .map(|(i, j)| v[i] * gram[(i, j)] * v[j])
                .sum();
            assert!(q > 0.0);
        }
    }

    #[test]
    fn derivatives_match_central_differences() {
        let mut rng = StdRng::seed_from_u64(4);
        let ls = [0.4, 2.5, 1.1];
        let k = Matern52::new(1.7, &ls).unwrap();
        for _ in 0..10 {
            let x: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
            let xp: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
            let KernelValue { h, .. } = k.eval_with_factor(&x, &xp);
            let mut g = [0.0; 3];
            k.grad_x(&x, &xp, h, &mut g);
            let step = 1e-6;
            for d in 0..3 {
                let (mut a, mut b) = (x.clone(), x.clone());
                a[d] += step;
                b[d] -= step;
                let fd = (k.eval(&a, &xp) - k.eval(&b, &xp)) / (2.0 * step);
                assert!((fd - g[d]).abs() < 1e-8, "x_{d}: {fd} vs {}", g[d]);
                // ∂k/∂ln ℓ_d = h·Δ_d²/ℓ_d².
                let shifted = |t: f64| {
                    let mut l = ls;
                    l[d] *= t.exp();
                    Matern52::new(1.7, &l).unwrap().eval(&x, &xp)
                };
                let fd = (shifted(step) - shifted(-step)) / (2.0 * step);
                let an = h * (x[d] - xp[d]).powi(2) / (ls[d] * ls[d]);
                assert!((fd - an).abs() < 1e-8, "ln l_{d}: {fd} vs {an}");
            }
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(Matern52::new(0.0, &[1.0]).is_err());
        assert!(Matern52::new(1.0, &[]).is_err());
        assert!(Matern52::new(1.0, &[1.0, f64::NAN]).is_err());
    }
}
