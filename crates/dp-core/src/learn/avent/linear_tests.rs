use super::*;
use crate::features::FeatureMatrix;

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
        for (i, yi) in y.iter().enumerate() {
            let r = [x.row(i).dot(&[1.0, 0.0]), 1.0, 1.0];
            // θ₀ = 0: f = 0, logistic ℓ' = −y/2, hinge ℓ' = −y.
            let g = match model {
                LinearModel::Logistic => -yi / 2.0,
                LinearModel::Hinge => -yi,
            };
            let norm = g.abs() * (r[0] * r[0] + 2.0).sqrt();
            let c = g * (0.3 / (norm + 1e-8)).min(1.0);
            expect
                .iter_mut()
                .zip(r)
                .for_each(|(e, rj)| *e -= 0.5 * c * rj / 6.0);
        }
        for (j, (t, e)) in run.theta.iter().zip(expect).enumerate() {
            assert!((t - e).abs() < 1e-12, "{model:?} {j}");
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
