//! Deterministic synthetic classification data for tests and benchmarks, preprocessed like
//! the paper's datasets: each feature row scaled to unit ℓ₂ norm, then a bias feature 1
//! appended, so `‖x‖² = 2` for every row.

use crate::features::FeatureMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

/// Sizes of the one-hot groups of [`adult_like`] (98 columns, like Adult's categoricals).
const ADULT_GROUPS: [usize; 8] = [9, 16, 7, 15, 6, 5, 2, 38];
/// Number of continuous columns of [`adult_like`].
const ADULT_CONTINUOUS: usize = 6;
/// Expected fraction of positive labels of [`adult_like`] (Adult: 24%).
const ADULT_POSITIVE_RATE: f64 = 0.24;

/// An Adult-shaped dataset: 6 continuous features in [0, 1] and 8 one-hot groups with
/// Zipf-like category frequencies (104 columns, 14 non-zeros per row), unit-normalised,
/// plus a bias column (d = 105, 15 non-zeros), stored dense. Labels follow a logistic
/// model whose intercept gives 24% positives in expectation.
pub fn adult_like(n: usize, seed: u64) -> (FeatureMatrix, Vec<f64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let p = ADULT_CONTINUOUS + ADULT_GROUPS.iter().sum::<usize>();
    let truth: Vec<f64> = (0..p)
        .map(|_| 2.5 * rng.sample::<f64, _>(StandardNormal))
        .collect();
    // Cumulative Zipf(1.2) weights per group, for inverse-CDF sampling.
    let cdfs: Vec<Vec<f64>> = ADULT_GROUPS
        .iter()
        .map(|&k| {
            let w: Vec<f64> = (0..k).map(|r| (r as f64 + 1.0).powf(-1.2)).collect();
            let total: f64 = w.iter().sum();
            w.iter()
                .scan(0.0, |acc, v| {
                    *acc += v / total;
                    Some(*acc)
                })
                .collect()
        })
        .collect();
    let d = p + 1;
    let mut data = vec![0.0; n * d];
    for row in data.chunks_mut(d) {
        for v in &mut row[..ADULT_CONTINUOUS] {
            *v = rng.random::<f64>().powi(2);
        }
        let mut offset = ADULT_CONTINUOUS;
        for (k, cdf) in ADULT_GROUPS.iter().zip(&cdfs) {
            let u: f64 = rng.random();
            let cat = cdf.iter().position(|&c| u < c).unwrap_or(k - 1);
            row[offset + cat] = 1.0;
            offset += k;
        }
        normalise_and_bias(row);
    }
    let logits: Vec<f64> = data
        .chunks(d)
        .map(|row| crate::features::dot(&row[..p], &truth))
        .collect();
    // Intercept such that the expected positive rate is Adult's 24% (bisection; the mean of
    // σ(logit + c) is increasing in c).
    let rate = |c: f64| {
        logits
            .iter()
            .map(|l| 1.0 / (1.0 + (-(l + c)).exp()))
            .sum::<f64>()
            / n.max(1) as f64
    };
    let (mut lo, mut hi) = (-50.0, 50.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if rate(mid) < ADULT_POSITIVE_RATE {
            lo = mid
        } else {
            hi = mid
        }
    }
    let intercept = 0.5 * (lo + hi);
    let y = logits
        .iter()
        .map(|l| {
            if rng.random::<f64>() < 1.0 / (1.0 + (-(l + intercept)).exp()) {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    (FeatureMatrix::dense(data, n, d), y)
}

/// Gaussian features in `d − 1` dimensions (unit-normalised, plus bias, so `d` columns)
/// labelled by a random halfspace through a shifted origin; each label is flipped with
/// probability `flip` (0 gives separable data).
pub fn halfspace(n: usize, d: usize, flip: f64, seed: u64) -> (FeatureMatrix, Vec<f64>) {
    assert!(d >= 2, "need at least one feature plus the bias");
    let mut rng = StdRng::seed_from_u64(seed);
    let truth: Vec<f64> = (0..d).map(|_| rng.sample(StandardNormal)).collect();
    let mut data = vec![0.0; n * d];
    let mut y = Vec::with_capacity(n);
    for row in data.chunks_mut(d) {
        for v in &mut row[..d - 1] {
            *v = rng.sample(StandardNormal);
        }
        normalise_and_bias(row);
        let sign = if crate::features::dot(row, &truth) > 0.0 {
            1.0
        } else {
            -1.0
        };
        y.push(if rng.random::<f64>() < flip {
            -sign
        } else {
            sign
        });
    }
    (FeatureMatrix::dense(data, n, d), y)
}

/// Scales all but the last entry to unit norm and sets the last (bias) entry to 1.
fn normalise_and_bias(row: &mut [f64]) {
    let (feat, bias) = row.split_at_mut(row.len() - 1);
    let norm = crate::features::dot(feat, feat).sqrt();
    if norm > 0.0 {
        feat.iter_mut().for_each(|v| *v /= norm);
    }
    bias[0] = 1.0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adult_like_has_the_promised_shape() {
        let (x, y) = adult_like(2000, 7);
        assert_eq!((x.nrows(), x.ncols()), (2000, 105));
        for r in x.row_norms() {
            assert!((r * r - 2.0).abs() < 1e-12);
        }
        assert_eq!(x.nnz(), 2000 * 15);
        for seed in 0..5 {
            let (_, y) = adult_like(2000, seed);
            let pos = y.iter().filter(|&&v| v > 0.0).count() as f64 / 2000.0;
            assert!((0.24 - pos).abs() < 0.04, "{pos}");
        }
        assert_eq!(adult_like(2000, 7), (x, y));
    }

    #[test]
    fn halfspace_is_separable_without_flips() {
        let (x, y) = halfspace(500, 5, 0.0, 3);
        assert_eq!((x.nrows(), x.ncols()), (500, 5));
        let (_, y2) = halfspace(500, 5, 0.5, 3);
        let flipped = y.iter().zip(&y2).filter(|(a, b)| a != b).count();
        assert!((150..350).contains(&flipped), "{flipped}");
    }
}
