use super::*;
use crate::features::FeatureMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;

fn toy(n: usize) -> (FeatureMatrix, Vec<f64>) {
    // Two separable clusters along the first coordinate, a constant second feature.
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let s = if i % 2 == 0 { 1.0 } else { -1.0 };
        x.extend([s * (0.5 + (i % 7) as f64 / 14.0), 1.0]);
        y.push(s);
    }
    (FeatureMatrix::dense(x, n, 2), y)
}

fn hyper(epochs: u32, lot: usize, lr: f64, clip: f64, z: f64) -> Hyper {
    Hyper {
        epochs,
        lot,
        lr,
        clip,
        noise_multiplier: z,
    }
}

#[test]
fn one_full_lot_step_is_minus_lr_times_the_mean_clipped_gradient() {
    let (x, y) = toy(6);
    let data = GlmData::new(&x, &y).unwrap();
    // lot = n: the lot is every row whatever the order; z tiny: noise below 1e-12.
    let h = hyper(1, 6, 0.5, 0.3, 1e-14);
    for model in [LinearModel::Logistic, LinearModel::Hinge] {
        let run = train_linear(&data, model, Optimizer::sgd(0.5), &h, Init::Paper, 1).unwrap();
        assert_eq!((run.steps, run.steps_run), (1, 1));
        let mut expect = [0.0; 3];
        for (i, &yi) in y.iter().enumerate() {
            let r = [x.row(i).dot(&[1.0, 0.0]), 1.0, 1.0];
            // θ₀ = 0: f = 0, logistic ℓ' = −y/2, hinge ℓ' = −y.
            let g = match model {
                LinearModel::Logistic => -yi / 2.0,
                LinearModel::Hinge => -yi,
            };
            let norm = g.abs() * (r[0] * r[0] + 2.0).sqrt();
            let c = g * (0.3 / (norm + 1e-8)).min(1.0);
            for (e, rj) in expect.iter_mut().zip(r) {
                *e -= 0.5 * c * rj / 6.0;
            }
        }
        for (t, e) in run.theta.iter().zip(expect) {
            assert!((t - e).abs() < 1e-12, "{model:?}");
        }
    }
}

#[test]
fn low_noise_training_separates_the_clusters() {
    let (x, y) = toy(400);
    let data = GlmData::new(&x, &y).unwrap();
    for (model, opt) in [
        (LinearModel::Logistic, Optimizer::sgd(0.5)),
        (LinearModel::Hinge, Optimizer::sgd(0.1)),
        (LinearModel::Logistic, Optimizer::adam(0.05)),
    ] {
        let run = train_linear(
            &data,
            model,
            opt,
            &hyper(5, 20, opt.lr(), 1.0, 0.1),
            Init::Code,
            7,
        )
        .unwrap();
        assert!(!run.diverged());
        assert!(run.accuracy(&data) > 0.95, "{model:?} {opt:?}");
    }
}

#[test]
fn the_same_seed_gives_the_same_model_and_another_seed_does_not() {
    let (x, y) = toy(100);
    let data = GlmData::new(&x, &y).unwrap();
    let h = hyper(2, 10, 0.1, 1.0, 1.0);
    let go = |s| {
        train_linear(
            &data,
            LinearModel::Logistic,
            Optimizer::sgd(0.1),
            &h,
            Init::Code,
            s,
        )
    };
    assert_eq!(go(3).unwrap(), go(3).unwrap());
    assert_ne!(go(3).unwrap().theta, go(4).unwrap().theta);
}

#[test]
fn a_diverging_run_stops_but_is_charged_every_step() {
    let (x, y) = toy(100);
    let data = GlmData::new(&x, &y).unwrap();
    let h = hyper(50, 10, 1e308, 1.0, 1.0);
    let run = train_linear(
        &data,
        LinearModel::Hinge,
        Optimizer::sgd(1e308),
        &h,
        Init::Code,
        5,
    )
    .unwrap();
    assert!(run.diverged(), "{run:?}");
    assert_eq!(run.steps, 500);
    let acc = run.accuracy(&data);
    assert!((0.0..=1.0).contains(&acc));
}

#[test]
fn bad_hyperparameters_are_refused_by_name() {
    let (x, y) = toy(10);
    let data = GlmData::new(&x, &y).unwrap();
    let e = train_linear(
        &data,
        LinearModel::Logistic,
        Optimizer::sgd(0.1),
        &hyper(1, 11, 0.1, 1.0, 1.0),
        Init::Code,
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("lot"), "{e}");
}

/// The trainer's output bits are pinned (sparse binary rows like a1a's, lots drawn by each of
/// rand's three algorithms, both models): a faster lot sampler or loop order must leave every
/// published point as it was.
#[test]
fn trained_parameters_are_pinned_bit_for_bit() {
    use sha2::{Digest, Sha256};
    let (n, d) = (3_000usize, 123usize);
    let mut rng = StdRng::seed_from_u64(11);
    let (mut indptr, mut indices, mut y) = (vec![0usize], Vec::new(), Vec::new());
    for _ in 0..n {
        let mut row: Vec<u32> = rand::seq::index::sample(&mut rng, d, 14)
            .into_iter()
            .map(|j| j as u32)
            .collect();
        row.sort_unstable();
        let score: f64 = row.iter().map(|&j| f64::from(j % 7) - 3.0).sum();
        y.push(if score > 0.0 { 1.0 } else { -1.0 });
        indices.extend(row);
        indptr.push(indices.len());
    }
    let values = vec![1.0; indices.len()];
    let x = FeatureMatrix::Sparse(crate::features::Csr {
        nrows: n,
        ncols: d,
        indptr,
        indices,
        values,
    });
    let data = GlmData::new(&x, &y).unwrap();
    let mut digest = Sha256::new();
    for (model, lot) in [
        (LinearModel::Logistic, 60), // Floyd
        (LinearModel::Hinge, 60),
        (LinearModel::Logistic, 200), // in place
        (LinearModel::Hinge, 11),     // Floyd below rand's shortcut
    ] {
        let h = hyper(3, lot, 0.05, 1.5, 2.0);
        let run = train_linear(&data, model, Optimizer::adam(0.01), &h, Init::Code, 5).unwrap();
        for t in &run.theta {
            digest.update(t.to_bits().to_le_bytes());
        }
    }
    let hex: String = digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        hex, "0ba1bc9690595809f6835e4da61759d5cf96a306bf42245bf14516f4e31649d4",
        "the trained parameters changed"
    );
}
