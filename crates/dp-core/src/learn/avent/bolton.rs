//! Output-perturbation logistic regression, DPareto's first illustrative problem (P §2.2,
//! Fig. 1): Bolt-on private PSGD (Wu et al. 2017, Alg. 2) as the authors' scikit-learn fork
//! runs it (`output_perturbation/scikit-learn/psgd.py`, `proj_sgd_fast.pyx:689-690`; reference
//! notes §2.5): log loss plus `γ/2‖θ‖²`, projection onto the ball of radius `1/γ`, one row per
//! step, [`EPOCHS`] shuffled passes, no intercept, `η_t = min(1/(1+γ), 1/(γt))`; the release
//! is `θ + N(0, σ²I)`.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use crate::accounting::gaussian;
use crate::error::{DpError, Result, check_positive};
use crate::learn::data::GlmData;
use crate::learn::loss::GlmLoss;

/// Passes over the data (the authors' setting).
pub const EPOCHS: usize = 10;

/// L2 sensitivity of the PSGD output on `n` rows of norm at most 1 at penalty `γ`: `2L/(nγ)`
/// (Wu et al. 2017, strongly convex case) with `L = 2`, the log loss's `‖x‖ ≤ 1` plus the
/// penalty's `γ‖θ‖ ≤ 1` on the ball.
pub fn sensitivity(n: usize, gamma: f64) -> f64 {
    4.0 / (n as f64 * gamma)
}

/// ε of the release `θ + N(0, σ²I)` at `delta`: the exact (analytic) Gaussian mechanism of
/// Balle & Wang 2018, as the paper's privacy oracle.
pub fn epsilon(n: usize, gamma: f64, sigma: f64, delta: f64) -> Result<f64> {
    check_positive("gamma", gamma)?;
    gaussian::epsilon(delta, sigma, sensitivity(n, gamma))
}

/// The non-private PSGD model at penalty `gamma`, each epoch's order drawn from `seed`.
/// Rows must have norm at most 1 (the sensitivity assumes it).
pub fn train_psgd(data: &GlmData<'_>, gamma: f64, seed: u64) -> Result<Vec<f64>> {
    check_positive("gamma", gamma)?;
    if let Some(r) = data.row_norms().iter().position(|&v| v > 1.0 + 1e-12) {
        return Err(DpError::Invalid(format!(
            "Bolt-on PSGD needs rows of norm <= 1; row {r} has norm {} (divide the rows by the \
             largest norm first)",
            data.row_norms()[r]
        )));
    }
    let (n, d) = (data.n(), data.d());
    let (x, y) = (data.x(), data.y());
    let radius = 1.0 / gamma;
    let eta0 = 1.0 / (1.0 + gamma);
    // θ = a·v: the penalty's shrink is a scalar update, so a step costs O(nnz) not O(d).
    let (mut a, mut v, mut v_sq) = (1.0f64, vec![0.0; d], 0.0f64);
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut t = 1.0f64;
    for _ in 0..EPOCHS {
        order.shuffle(&mut rng);
        for &i in &order {
            let eta = eta0.min(1.0 / (gamma * t));
            let row = x.row(i);
            let dot = row.dot(&v);
            let g = y[i] * GlmLoss::Logistic.margin_deriv(y[i] * a * dot);
            a *= 1.0 - eta * gamma;
            let c = -eta * g / a;
            v_sq += 2.0 * c * dot + c * c * row.norm_sq();
            row.axpy(c, &mut v);
            let norm = a * v_sq.max(0.0).sqrt();
            if norm > radius {
                a *= radius / norm;
            }
            if a < 1e-100 {
                v.iter_mut().for_each(|w| *w *= a);
                (a, v_sq) = (1.0, v.iter().map(|w| w * w).sum());
            }
            t += 1.0;
        }
    }
    Ok(v.iter().map(|w| w * a).collect())
}

#[cfg(test)]
#[path = "bolton_tests.rs"]
mod tests;
