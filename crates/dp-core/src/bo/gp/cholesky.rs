//! Cholesky factors of `K + cI` that can fail softly, and GPflowOpt's `jitchol_callback`
//! ladder (`gpflowopt/bo.py:30-52`): on failure, retry with `c += e·mean(diag K)` for
//! `e ∈ {1e-6, …, 1e-2}`.

use faer::Mat;
use faer::linalg::solvers::Llt;

/// The relative jitters tried in turn, as `jitchol_callback` does.
pub(crate) const JITTER_LADDER: [f64; 6] = [0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];

/// `LLᵀ = K + cI`, or `None` if it is not numerically positive definite.
///
/// Besides a non-positive pivot (faer's failure), a pivot `L_ii² ≤ n·ε·mean(diag)` counts as
/// a failure: such a pivot is pure round-off (e.g. an exactly repeated input without noise)
/// and would produce a meaningless, huge `K⁻¹`.
pub(crate) fn factor(k: &Mat<f64>, c: f64) -> Option<Llt<f64>> {
    let n = k.nrows();
    let mut a = k.clone();
    for i in 0..n {
        a[(i, i)] += c;
    }
    let mean_diag = (0..n).map(|i| a[(i, i)]).sum::<f64>() / n as f64;
    if !mean_diag.is_finite() || mean_diag <= 0.0 {
        return None;
    }
    let llt = Llt::new(a.as_ref(), faer::Side::Lower).ok()?;
    let floor = n as f64 * f64::EPSILON * mean_diag;
    let l = llt.L();
    (0..n)
        .all(|i| {
            let p = l[(i, i)];
            p.is_finite() && p * p > floor
        })
        .then_some(llt)
}

/// The first rung of [`JITTER_LADDER`] at which `K + (c + e·mean(diag K))I` factorises:
/// the factor and the extra `e·mean(diag K)` it needed.
pub(crate) fn jittered(k: &Mat<f64>, c: f64) -> Option<(Llt<f64>, f64)> {
    let n = k.nrows();
    let mean_diag = (0..n).map(|i| k[(i, i)]).sum::<f64>() / n as f64;
    JITTER_LADDER.iter().find_map(|e| {
        let extra = e * mean_diag;
        factor(k, c + extra).map(|llt| (llt, extra))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factorises_spd_matrices_unchanged() {
        let k = Mat::<f64>::from_fn(3, 3, |i, j| if i == j { 2.0 } else { 0.5 });
        let (llt, extra) = jittered(&k, 0.0).unwrap();
        assert_eq!(extra, 0.0);
        let l = llt.L();
        // Reconstruct LLᵀ by hand.
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|m| l[(i, m)] * l[(j, m)]).sum();
                assert!((v - k[(i, j)]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn singular_matrices_climb_the_ladder() {
        // Rank one: the second pivot is round-off, so the plain factorisation must fail and
        // the first retry (1e-6·mean diag = 1e-6) must succeed.
        let k = Mat::<f64>::from_fn(2, 2, |_, _| 1.0);
        assert!(factor(&k, 0.0).is_none());
        let (llt, extra) = jittered(&k, 0.0).unwrap();
        assert_eq!(extra, 1e-6);
        let c = 1e-6;
        let want = (1.0 + c) - 1.0 / (1.0 + c);
        assert!((llt.L()[(1, 1)].powi(2) - want).abs() < 1e-15);
    }

    #[test]
    fn indefinite_matrices_fail_after_all_retries() {
        // Eigenvalues 3 and −1: mean diag = 1, so even +1e-2 leaves it indefinite.
        let k = Mat::<f64>::from_fn(2, 2, |i, j| if i == j { 1.0 } else { 2.0 });
        assert!(jittered(&k, 0.0).is_none());
        // A large enough base shift makes it factorise without retries.
        assert_eq!(jittered(&k, 1.5).map(|(_, e)| e), Some(0.0));
    }
}
