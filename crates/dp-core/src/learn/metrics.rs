//! Evaluation of a linear classifier.

use super::loss::GlmLoss;
use crate::features::FeatureMatrix;

/// Fraction of rows with `sign(xᵢᵀθ) = yᵢ`, predicting +1 iff `xᵢᵀθ > 0` (as scikit-learn does).
pub fn accuracy(x: &FeatureMatrix, y: &[f64], theta: &[f64]) -> f64 {
    assert_eq!(x.nrows(), y.len(), "one label per row");
    if y.is_empty() {
        return f64::NAN;
    }
    let correct = (0..x.nrows())
        .filter(|&i| (x.row(i).dot(theta) > 0.0) == (y[i] > 0.0))
        .count();
    correct as f64 / y.len() as f64
}

/// [`accuracy`] with a tie (`xᵢᵀθ = 0`) counted as half correct: the expected accuracy of
/// Iyengar et al.'s rule that breaks ties uniformly at random (`common/common.py:38-63`), so
/// that θ = 0 (a refused or empty release) scores 50% rather than the negative-class rate.
pub fn accuracy_random_ties(x: &FeatureMatrix, y: &[f64], theta: &[f64]) -> f64 {
    assert_eq!(x.nrows(), y.len(), "one label per row");
    if y.is_empty() {
        return f64::NAN;
    }
    let credit: f64 = (0..x.nrows())
        .map(|i| {
            let s = x.row(i).dot(theta);
            if s == 0.0 {
                0.5
            } else if (s > 0.0) == (y[i] > 0.0) {
                1.0
            } else {
                0.0
            }
        })
        .sum();
    credit / y.len() as f64
}

/// Mean loss `(1/n) Σ f(xᵢᵀθ; yᵢ)`.
pub fn mean_loss(x: &FeatureMatrix, y: &[f64], theta: &[f64], loss: GlmLoss) -> f64 {
    assert_eq!(x.nrows(), y.len(), "one label per row");
    let total: f64 = (0..x.nrows())
        .map(|i| loss.value(x.row(i).dot(theta), y[i]))
        .sum();
    total / y.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_correct_signs() {
        let x = FeatureMatrix::dense(vec![1.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0], 4, 2);
        let theta = [2.0, -1.0];
        // Scores 2, −2, −1, 0 → predictions +, −, −, − (a zero score predicts −1).
        assert_eq!(accuracy(&x, &[1.0, -1.0, -1.0, -1.0], &theta), 1.0);
        assert_eq!(accuracy(&x, &[1.0, 1.0, -1.0, 1.0], &theta), 0.5);
        let half = accuracy_random_ties(&x, &[1.0, -1.0, -1.0, -1.0], &theta);
        assert_eq!(half, 3.5 / 4.0, "the zero score earns half a point");
        let zero = accuracy_random_ties(&x, &[1.0, -1.0, -1.0, -1.0], &[0.0, 0.0]);
        assert_eq!(zero, 0.5);
        let l = mean_loss(&x, &[1.0, -1.0, -1.0, -1.0], &[0.0, 0.0], GlmLoss::Logistic);
        assert!((l - 2f64.ln()).abs() < 1e-15);
    }
}
