use rand::Rng;

use super::*;
use crate::features::FeatureMatrix;
use crate::learn::synthetic::halfspace;

/// `halfspace` rows divided by the largest norm, as the authors normalise a1a.
fn unit_rows(n: usize, seed: u64) -> (FeatureMatrix, Vec<f64>) {
    let (x, y) = halfspace(n, 5, 0.1, seed);
    let max = GlmData::new(&x, &y).unwrap().max_row_norm();
    let FeatureMatrix::Dense { data, nrows, ncols } = x else {
        unreachable!()
    };
    let data = data.iter().map(|v| v / max).collect();
    (FeatureMatrix::dense(data, nrows, ncols), y)
}

/// The update as written, θ ← Π(θ − η(∇ℓ + γθ)), on dense θ with the same shuffles.
fn naive(data: &GlmData<'_>, gamma: f64, seed: u64) -> Vec<f64> {
    let (n, d) = (data.n(), data.d());
    let mut theta = vec![0.0; d];
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut t = 1.0;
    for _ in 0..EPOCHS {
        order.shuffle(&mut rng);
        for &i in &order {
            let eta = (1.0 / (1.0 + gamma)).min(1.0 / (gamma * t));
            let row = data.x().row(i);
            let y = data.y()[i];
            let g = y * GlmLoss::Logistic.margin_deriv(y * row.dot(&theta));
            theta.iter_mut().for_each(|w| *w *= 1.0 - eta * gamma);
            row.axpy(-eta * g, &mut theta);
            let norm = theta.iter().map(|w| w * w).sum::<f64>().sqrt();
            if norm > 1.0 / gamma {
                theta.iter_mut().for_each(|w| *w *= 1.0 / (gamma * norm));
            }
            t += 1.0;
        }
    }
    theta
}

#[test]
fn scaled_updates_match_the_update_as_written() {
    let (x, y) = unit_rows(300, 1);
    let data = GlmData::new(&x, &y).unwrap();
    // Large γ: the projection binds; small γ: it never does.
    for gamma in [1e-3, 0.05, 1.0, 20.0] {
        let fast = train_psgd(&data, gamma, 9).unwrap();
        let slow = naive(&data, gamma, 9);
        let scale = slow.iter().map(|w| w.abs()).fold(0.0, f64::max);
        for (a, b) in fast.iter().zip(&slow) {
            assert!((a - b).abs() <= 1e-9 * scale, "γ = {gamma}: {a} vs {b}");
        }
        let norm = fast.iter().map(|w| w * w).sum::<f64>().sqrt();
        assert!(norm <= 1.0 / gamma * (1.0 + 1e-12));
    }
}

#[test]
fn replacing_one_row_moves_the_model_by_at_most_the_sensitivity() {
    // Wu et al.'s bound couples the two runs through the same permutation: the seed.
    let (x, y) = unit_rows(200, 2);
    let mut rng = StdRng::seed_from_u64(3);
    let FeatureMatrix::Dense { data, nrows, ncols } = &x else {
        unreachable!()
    };
    for gamma in [0.01, 0.1, 1.0] {
        let mut worst: f64 = 0.0;
        for trial in 0..20 {
            let (mut data2, mut y2) = (data.clone(), y.clone());
            let i = rng.random_range(0..*nrows);
            // The replacement: a unit row pointing anywhere, with the other label.
            let v: Vec<f64> = (0..*ncols).map(|_| rng.random::<f64>() - 0.5).collect();
            let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            for (j, a) in v.iter().enumerate() {
                data2[i * ncols + j] = a / norm;
            }
            y2[i] = -y2[i];
            let x2 = FeatureMatrix::dense(data2, *nrows, *ncols);
            let a = train_psgd(&GlmData::new(&x, &y).unwrap(), gamma, trial).unwrap();
            let b = train_psgd(&GlmData::new(&x2, &y2).unwrap(), gamma, trial).unwrap();
            let dist = a.iter().zip(&b).map(|(p, q)| (p - q).powi(2)).sum::<f64>();
            worst = worst.max(dist.sqrt());
        }
        let bound = sensitivity(*nrows, gamma);
        assert!(worst <= bound, "γ = {gamma}: moved {worst} > {bound}");
        // The bound is not vacuous: a replaced row moves the model by a visible fraction.
        assert!(
            worst > 0.01 * bound,
            "γ = {gamma}: moved only {worst} of {bound}"
        );
    }
}

#[test]
fn epsilon_is_the_exact_gaussian_at_the_sensitivity() {
    let (n, gamma, sigma, delta) = (30_956, 1e-2, 0.5, 1e-6);
    let eps = epsilon(n, gamma, sigma, delta).unwrap();
    let back = gaussian::delta(eps, sigma, sensitivity(n, gamma)).unwrap();
    assert!((back / delta - 1.0).abs() < 1e-6, "{back}");
    // More noise or more regularisation: more private.
    assert!(epsilon(n, gamma, 2.0 * sigma, delta).unwrap() < eps);
    assert!(epsilon(n, 2.0 * gamma, sigma, delta).unwrap() < eps);
    // Δ/σ scaling: ε depends on (γ, σ) through σγ only.
    let same = epsilon(n, 2.0 * gamma, sigma / 2.0, delta).unwrap();
    assert!((same / eps - 1.0).abs() < 1e-9);
}

#[test]
fn rows_outside_the_unit_ball_are_refused() {
    let x = FeatureMatrix::dense(vec![0.6, 0.9, 0.1, 0.1], 2, 2);
    let y = [1.0, -1.0];
    let err = train_psgd(&GlmData::new(&x, &y).unwrap(), 0.1, 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("norm <= 1"), "{err}");
}
