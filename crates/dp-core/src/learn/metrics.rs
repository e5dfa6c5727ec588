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

/// One-vs-all accuracy: row i is predicted as argmax_k xᵢᵀθ_k (Iyengar et al.'s multiclass
/// rule, `common/common.py:66-92`), a tie among m top classes that holds the true one counting
/// 1/m (uniform tie-breaking in expectation, so all-zero releases score 1/K).
pub fn multiclass_accuracy(x: &FeatureMatrix, classes: &[u32], thetas: &[Vec<f64>]) -> f64 {
    assert_eq!(x.nrows(), classes.len(), "one label per row");
    if classes.is_empty() || thetas.is_empty() {
        return f64::NAN;
    }
    let mut scores = vec![0.0; thetas.len()];
    let credit: f64 = (0..x.nrows())
        .map(|i| {
            let row = x.row(i);
            scores
                .iter_mut()
                .zip(thetas)
                .for_each(|(s, t)| *s = row.dot(t));
            let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let tied = scores.iter().filter(|&&s| s == top).count();
            match scores.get(classes[i] as usize) {
                Some(&s) if s == top => 1.0 / tied as f64,
                _ => 0.0,
            }
        })
        .sum();
    credit / classes.len() as f64
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

    #[test]
    fn multiclass_takes_the_argmax_and_shares_ties() {
        // Rows e₁, e₂, e₁ + e₂; classes 0, 1, 2 with θ₀ = e₁, θ₁ = e₂, θ₂ = 0.
        let x = FeatureMatrix::dense(vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0], 3, 2);
        let thetas = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.0, 0.0]];
        assert_eq!(multiclass_accuracy(&x, &[0, 1, 2], &thetas), 2.0 / 3.0);
        // Row 3 ties classes 0 and 1 (score 1 each): half a point when its class is either.
        assert_eq!(multiclass_accuracy(&x, &[0, 1, 1], &thetas), 2.5 / 3.0);
        let zeros = vec![vec![0.0; 2]; 4];
        assert_eq!(multiclass_accuracy(&x, &[0, 1, 2], &zeros), 0.25);
        assert_eq!(multiclass_accuracy(&x, &[1, 0, 0], &thetas), 0.5 / 3.0);
    }
}
