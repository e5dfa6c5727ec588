//! Logistic regression and linear SVM trained by DPareto's DP-SGD / DP-Adam on sparse rows.
//!
//! The bias is a separate parameter (as in the authors' MXNet models), so a per-example gradient
//! is `ℓ'(f)·(x, 1)` with norm `|ℓ'(f)|·√(‖x‖² + 1)`: clipping is one scalar per example and a
//! step costs one sparse dot and one sparse axpy per lot member plus `d + 1` noise draws.

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::descent::{clip_factor, descend};
use super::hyper::{Hyper, Init};
use super::noise::xavier_normal;
use crate::error::Result;
use crate::learn::data::GlmData;
use crate::learn::loss::GlmLoss;
use crate::learn::optimizer::Optimizer;

/// Rows ahead of the dot loop whose data is requested early.
const PREFETCH: usize = 8;

/// A linear model and its loss on labels `y ∈ {−1, +1}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearModel {
    /// Sigmoid cross-entropy on the logit, `ln(1 + e^{−y f})` (`lr/base.py:13-15`).
    Logistic,
    /// Hinge `max(0, 1 − y f)`, subgradient `−y·(x, 1)` where `1 − y f > 0`
    /// (`svm/dp_sgd.py:41-43`).
    Hinge,
}

impl LinearModel {
    /// `∂ℓ/∂f` at score `f` and label `y`.
    #[inline]
    fn deriv(self, f: f64, y: f64) -> f64 {
        match self {
            LinearModel::Logistic => y * GlmLoss::Logistic.margin_deriv(y * f),
            LinearModel::Hinge => {
                if 1.0 - y * f > 0.0 {
                    -y
                } else {
                    0.0
                }
            }
        }
    }
}

/// One training run: the last iterate and how the run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearRun {
    /// Weights, then the bias last (`d + 1` values).
    pub theta: Vec<f64>,
    /// Steps the mechanism is charged for.
    pub steps: u64,
    /// Steps actually taken (fewer when a score or parameter became non-finite).
    pub steps_run: u64,
}

impl LinearRun {
    /// Whether training stopped early on a non-finite value.
    pub fn diverged(&self) -> bool {
        self.steps_run < self.steps
    }

    /// Test accuracy predicting +1 iff `xᵀw + b > 0`; a non-finite score predicts −1, as the
    /// authors' `logit > 0` does with NaN parameters (`adult/base.py:43-44`).
    pub fn accuracy(&self, test: &GlmData<'_>) -> f64 {
        let d = self.theta.len() - 1;
        let (w, b) = (&self.theta[..d], self.theta[d]);
        let x = test.x();
        let correct = (0..test.n())
            .filter(|&i| (x.row(i).dot(w) + b > 0.0) == (test.y()[i] > 0.0))
            .count();
        correct as f64 / test.n() as f64
    }
}

/// Trains `model` with `opt` at hyperparameters `hyper`, every random draw from `seed`
/// (initialisation first, then each step's lot and noise).
pub fn train_linear(
    data: &GlmData<'_>,
    model: LinearModel,
    opt: Optimizer,
    hyper: &Hyper,
    init: Init,
    seed: u64,
) -> Result<LinearRun> {
    let (n, d) = (data.n(), data.d());
    hyper.validate(n)?;
    opt.validate()?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut theta = vec![0.0; d + 1];
    if init == Init::Code {
        xavier_normal(&mut theta[..d], d, 1, &mut rng);
        xavier_normal(&mut theta[d..], 1, 1, &mut rng);
    }
    let (x, y, norms) = (data.x(), data.y(), data.row_norms());
    let mut scores = Vec::with_capacity(hyper.lot);
    let steps_run = descend(n, opt, hyper, &mut theta, &mut rng, |theta, lot, grad| {
        // Three passes over the lot, each of independent iterations so that their latencies
        // overlap: the scores (the lot's rows are random in a matrix larger than L2: cache
        // misses), then each example's clipped coefficient (exp, sqrt and a division), then
        // the sums, which find the rows in L1 and add in the order of one fused loop.
        scores.clear();
        for (k, &i) in lot.iter().enumerate() {
            if let Some(&ahead) = lot.get(k + PREFETCH) {
                x.prefetch_row(ahead as usize);
            }
            scores.push(x.row(i as usize).dot(&theta[..d]) + theta[d]);
        }
        let mut finite = true;
        for (&i, f) in lot.iter().zip(scores.iter_mut()) {
            let i = i as usize;
            finite &= f.is_finite();
            let g = model.deriv(*f, y[i]);
            let norm = g.abs() * (norms[i] * norms[i] + 1.0).sqrt();
            *f = g * clip_factor(norm, hyper.clip);
        }
        grad.fill(0.0);
        for (&i, &c) in lot.iter().zip(&scores) {
            x.row(i as usize).axpy(c, &mut grad[..d]);
            grad[d] += c;
        }
        finite
    });
    Ok(LinearRun {
        theta,
        steps: hyper.steps(n),
        steps_run,
    })
}

#[cfg(test)]
#[path = "linear_tests.rs"]
mod tests;
