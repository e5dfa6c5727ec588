use super::*;
use crate::accounting::subsampled_gaussian_wor::{self, integer_orders};
use crate::accounting::{Conversion, Neighbours, RdpAccountant, epsilon_of};
use crate::features::FeatureMatrix;

fn hyper(epochs: u32, lot: usize, z: f64) -> Hyper {
    Hyper {
        epochs,
        lot,
        lr: 0.05,
        clip: 1.5,
        noise_multiplier: z,
    }
}

fn recipe(h: Hyper, n: usize) -> Recipe {
    Recipe::new(h, n, Optimizer::sgd(h.lr), Init::Code).unwrap()
}

#[test]
fn the_event_is_steps_gaussians_on_lots_drawn_without_replacement() {
    // The reference's vector: n = 30,956, m = 78, 3 epochs: T = 3·round(396.9) = 1191.
    let r = recipe(hyper(3, 78, 1.3), 30_956);
    let expect = Event::dpsgd_without_replacement(78.0 / 30_956.0, 1.3, 1191).unwrap();
    assert_eq!(r.event(), expect);
    let Event::SelfComposed { event, count } = r.event() else {
        panic!("{:?}", r.event())
    };
    assert_eq!(count, 1191);
    let Event::SampledWithoutReplacement { rate, event } = *event else {
        panic!("not sampled without replacement")
    };
    assert_eq!(rate, 78.0 / 30_956.0);
    assert_eq!(
        *event,
        Event::Gaussian {
            noise_multiplier: 1.3
        }
    );
    assert_eq!(r.event().neighbours(), Ok(Some(Neighbours::ReplaceOne)));
    // Rounding of n/m to even: 100/40 = 2.5 → 2 steps per epoch.
    assert_eq!(
        recipe(hyper(5, 40, 2.0), 100).event(),
        Event::dpsgd_without_replacement(0.4, 2.0, 10).unwrap()
    );
}

#[test]
fn a_recipe_refuses_what_has_no_valid_event() {
    let n = 100;
    for h in [
        hyper(1, 101, 1.0),
        hyper(1, 0, 1.0),
        hyper(1, 10, 0.0),
        hyper(0, 10, 1.0),
    ] {
        assert!(
            Recipe::new(h, n, Optimizer::sgd(0.1), Init::Code).is_err(),
            "{h:?}"
        );
    }
    assert!(Recipe::new(hyper(1, 10, 1.0), n, Optimizer::sgd(-1.0), Init::Code).is_err());
}

/// The study's accountant: integer orders 2..=1000 and the given conversion.
fn study_accountant(conversion: Conversion) -> RdpAccountant {
    RdpAccountant::with_orders(&integer_orders())
        .unwrap()
        .with_conversion(conversion)
}

#[test]
fn the_events_epsilon_is_the_reproduced_oracles_bit_for_bit() {
    // DPareto's ε is a reproduced quantity (WBK19 on integer orders ≤ 1000, classic or improved
    // conversion); accounting the learner's event must not move a bit of it, across the
    // Adult and MNIST ranges of λ (small and large z, few and many steps, α* near 1000).
    let mut checked = 0;
    for (n, lot, epochs, z) in [
        (30_956, 32, 2, 1.0),
        (30_956, 78, 3, 0.7),
        (30_956, 8, 64, 0.1),
        (30_956, 512, 1, 16.0),
        (1_605, 64, 3, 0.5),
        (1_605, 500, 1, 12.3),
        (1_605, 9, 40, 3.3),
        (60_000, 4000, 400, 0.9),
        (60_000, 16, 1, 7.7),
    ] {
        let r = recipe(hyper(epochs, lot, z), n);
        let h = r.hyper();
        for conversion in [Conversion::Classic, Conversion::Improved] {
            let via_event = epsilon_of(study_accountant(conversion), &r.event(), 1e-5).unwrap();
            let direct =
                subsampled_gaussian_wor::epsilon(h.rate(n), z, h.steps(n), 1e-5, conversion)
                    .unwrap()
                    .0;
            assert_eq!(
                via_event.to_bits(),
                direct.to_bits(),
                "n {n} m {lot} epochs {epochs} z {z} {conversion:?}: {via_event} vs {direct}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 18);
}

fn toy(n: usize) -> (FeatureMatrix, Vec<f64>) {
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let s = if i % 3 == 0 { 1.0 } else { -1.0 };
        x.extend([s * (0.5 + (i % 5) as f64 / 10.0), 1.0]);
        y.push(s);
    }
    (FeatureMatrix::dense(x, n, 2), y)
}

#[test]
fn the_linear_learner_runs_its_recipe_and_is_charged_its_event() {
    let (x, y) = toy(120);
    let data = GlmData::new(&x, &y).unwrap();
    let h = hyper(2, 16, 1.1);
    let r = Recipe::new(h, 120, Optimizer::adam(h.lr), Init::Code).unwrap();
    let learner = LinearLearner {
        model: LinearModel::Hinge,
        recipe: r,
    };
    assert_eq!(learner.name(), "avent-svm");
    let direct = train_linear(
        &data,
        LinearModel::Hinge,
        Optimizer::adam(h.lr),
        &h,
        Init::Code,
        9,
    )
    .unwrap();
    let (theta, report) = learner.fit(&data, 9).unwrap();
    assert_eq!(theta, direct.theta);
    assert_eq!(
        (report.steps, report.steps_run),
        (direct.steps, direct.steps_run)
    );
    // The steps it is charged for are the event's.
    let Event::SelfComposed { count, .. } = Mechanism::event(&learner) else {
        panic!("not a composition")
    };
    assert_eq!((count, report.steps), (16, 16));
    // Data of another size would run at another rate than the event's.
    let (x2, y2) = toy(121);
    let other = GlmData::new(&x2, &y2).unwrap();
    let e = learner.fit(&other, 9).unwrap_err();
    assert!(e.to_string().contains("rows"), "{e}");
}

#[test]
fn the_mlp_learner_runs_its_recipe_and_is_charged_its_event() {
    let (n, d) = (60, 3);
    let x: Vec<f64> = (0..n * d).map(|i| ((i * 7) % 11) as f64 / 11.0).collect();
    let y: Vec<u8> = (0..n).map(|i| (i % 3) as u8).collect();
    let data = DenseData::new(&x, d, &y).unwrap();
    let h = hyper(3, 12, 0.8);
    let sizes = [3, 5, 3];
    let learner = MlpLearner::new(&sizes, recipe(h, n)).unwrap();
    assert_eq!(learner.name(), "avent-mlp");
    let direct = train_mlp(&data, &sizes, Optimizer::sgd(h.lr), &h, Init::Code, 4).unwrap();
    let (params, report) = learner.fit(&data, 4).unwrap();
    assert_eq!(params, direct.params);
    assert_eq!(learner.train(&data, 4).unwrap(), direct);
    assert_eq!(report.steps, 15);
    assert_eq!(
        learner.event(),
        Event::dpsgd_without_replacement(0.2, 0.8, 15).unwrap()
    );
    let short = DenseData::new(&x[..(n - 1) * d], d, &y[..n - 1]).unwrap();
    assert!(learner.train(&short, 4).is_err());
    assert!(MlpLearner::new(&[3], recipe(h, n)).is_err());
}
