//! Non-private L2-regularised GLM fit (the accuracy ceiling the private learners approach).

use super::data::GlmData;
use super::lbfgs::{LbfgsOptions, LbfgsReport, lbfgs};
use super::loss::GlmLoss;
use super::objective::PerturbedObjective;
use crate::error::{DpError, Result, check_positive};

/// Default L2 strength of [`logistic_regression`] on the mean loss.
pub const DEFAULT_L2: f64 = 1e-4;

/// `argmin (1/n) Σ f(xᵢᵀθ; yᵢ) + (l2/2)‖θ‖²`, to a gradient norm of the *mean* objective
/// of at most `grad_tol`. Errors if the tolerance is not reached.
pub fn fit_glm(data: &GlmData<'_>, loss: GlmLoss, l2: f64, grad_tol: f64) -> Result<LbfgsReport> {
    loss.validate()?;
    check_positive("l2", l2)?;
    check_positive("grad-tol", grad_tol)?;
    let n = data.n() as f64;
    // n × (mean objective) = the sum objective with λ = n·l2, no clipping, no perturbation.
    let mut obj = PerturbedObjective::new(data, loss, f64::INFINITY, n * l2, vec![0.0; data.d()]);
    let mut report = lbfgs(
        &mut obj,
        &vec![0.0; data.d()],
        n * grad_tol,
        &LbfgsOptions::default(),
    );
    if !report.converged() {
        return Err(DpError::NoConvergence(format!(
            "baseline L-BFGS stopped ({:?}) at mean-gradient norm {:e}",
            report.status,
            report.grad_norm / n
        )));
    }
    report.value /= n;
    report.grad_norm /= n;
    Ok(report)
}

/// Non-private logistic regression with L2 strength `l2` on the mean loss (e.g.
/// [`DEFAULT_L2`]), solved to mean-gradient norm 1e-8.
pub fn logistic_regression(data: &GlmData<'_>, l2: f64) -> Result<Vec<f64>> {
    Ok(fit_glm(data, GlmLoss::Logistic, l2, 1e-8)?.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureMatrix;

    #[test]
    fn first_order_conditions_hold_at_the_fit() {
        let (x, y) = crate::learn::synthetic::halfspace(400, 4, 0.2, 8);
        let data = GlmData::new(&x, &y).unwrap();
        let l2 = 0.01;
        let fit = fit_glm(&data, GlmLoss::Logistic, l2, 1e-10).unwrap();
        // Independent gradient of the mean objective.
        let mut g = vec![0.0; 4];
        for (i, &yi) in y.iter().enumerate() {
            let fp = GlmLoss::Logistic.deriv(x.row(i).dot(&fit.x), yi);
            x.row(i).axpy(fp / 400.0, &mut g);
        }
        for j in 0..4 {
            g[j] += l2 * fit.x[j];
            assert!(g[j].abs() < 1e-9, "{g:?}");
        }
        assert!(fit.grad_norm <= 1e-10);
    }

    #[test]
    fn one_dimensional_closed_form() {
        // One feature, k positives and m negatives at x = 1: the optimum solves
        // −k σ(−θ) + m σ(θ) + n·l2·θ = 0 — check the residual of that scalar equation.
        let (k, m) = (30usize, 10usize);
        let x = FeatureMatrix::dense(vec![1.0; k + m], k + m, 1);
        let y: Vec<f64> = (0..k + m).map(|i| if i < k { 1.0 } else { -1.0 }).collect();
        let data = GlmData::new(&x, &y).unwrap();
        let th = logistic_regression(&data, 0.05).unwrap()[0];
        let s = |t: f64| 1.0 / (1.0 + (-t).exp());
        let resid = -(k as f64) * s(-th) + m as f64 * s(th) + 40.0 * 0.05 * th;
        assert!(resid.abs() < 1e-6, "{resid}");
        assert!(th > 0.0 && th < 3f64.ln());
        assert!(logistic_regression(&data, 0.0).is_err());
    }
}
