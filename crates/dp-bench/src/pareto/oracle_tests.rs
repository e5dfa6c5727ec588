use std::path::Path;

use dp_core::accounting::subsampled_gaussian_wor::{self, integer_orders};
use dp_core::accounting::{Conversion, RdpAccountant, epsilon_of};
use dp_core::learn::avent::steps;

use super::*;

/// A study config of `model` on `dataset` with the given accountant option.
fn config(dataset: &str, model: &str, accountant: &str) -> StudyConfig {
    let text = format!(
        r#"
paper = "avent2020"
study = "random"
seed = 3
replications = 2
dataset = "{dataset}"

[model]
kind = "{model}"
optimizer = "sgd"

[privacy]
delta = 1e-5
accountant = "{accountant}"

[random]
points = 4
distribution = "uniform"

[random.ranges]
epochs = [1, 64]
lot = [8, 512]
lr = [1e-3, 0.1]
clip = [0.1, 4]
noise_multiplier = [0.1, 16]
"#
    );
    StudyConfig::parse(&text, Path::new("test.toml")).unwrap()
}

/// `n` training rows of `d` dense features (and a few test rows), labels ±1 and classes 0..3.
fn data(n: usize, d: usize) -> StudyData {
    let set = |rows: usize| {
        let x = (0..rows * d).map(|i| ((i * 13) % 17) as f64 / 17.0 - 0.4);
        let y: Vec<f64> = (0..rows)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        Dataset {
            name: "synthetic".into(),
            x: FeatureMatrix::dense(x.collect(), rows, d),
            y,
            classes: Some((0..rows as u32).map(|i| i % 3).collect()),
        }
    };
    let (train, test) = (set(n), set(50));
    let classes = |s: &Dataset| -> Vec<u8> {
        let c = s.classes.as_ref().unwrap();
        c.iter().map(|&v| v as u8).collect()
    };
    StudyData {
        train_classes: classes(&train),
        test_classes: classes(&test),
        train,
        test,
    }
}

/// Proposals spread over the Adult and MNIST boxes: few and many steps, small and large z.
const POINTS: [[f64; DIM]; 5] = [
    [2.0, 32.0, 0.01, 1.0, 1.0],
    [3.4, 77.6, 0.02, 0.5, 0.7],
    [63.7, 8.2, 0.001, 4.0, 0.1],
    [1.0, 511.5, 0.05, 2.0, 16.0],
    [12.5, 200.0, 0.003, 0.3, 3.3],
];

#[test]
fn the_oracles_epsilon_is_the_accountants_epsilon_of_the_learners_event() {
    let n_of = |dataset: &str| if dataset == "a1a" { 30_956 } else { 60_000 };
    for (dataset, model) in [("a1a", "logistic"), ("a1a", "svm"), ("mnist-full", "mlp2")] {
        let n = n_of(dataset);
        let study_data = data(n, 1);
        for (option, conversion) in [
            ("paper", Conversion::Classic),
            ("improved", Conversion::Improved),
        ] {
            let cfg = config(dataset, model, option);
            let oracle = Oracle::new(&cfg, &study_data).unwrap();
            assert_eq!(oracle.n(), n);
            for x in &POINTS {
                let hyper = to_hyper(x, n);
                let learner = oracle.learner(&hyper).unwrap();
                let eps = oracle.epsilon(&learner).unwrap();
                // The accountant built here, on the event built here from λ alone.
                let t = steps(n, hyper.lot, hyper.epochs);
                let rate = hyper.lot as f64 / n as f64;
                let event = Event::dpsgd_without_replacement(rate, x[4], t).unwrap();
                assert_eq!(learner.event(), event, "{model} {x:?}");
                let accountant = RdpAccountant::with_orders(&integer_orders())
                    .unwrap()
                    .with_conversion(conversion);
                let expect = epsilon_of(accountant, &event, 1e-5).unwrap();
                assert_eq!(eps.to_bits(), expect.to_bits(), "{model} {option} {x:?}");
                // And the reproduced oracle's number, bit for bit.
                let (direct, _) =
                    subsampled_gaussian_wor::epsilon(rate, x[4], t, 1e-5, conversion).unwrap();
                assert_eq!(eps.to_bits(), direct.to_bits(), "{model} {option} {x:?}");
            }
        }
    }
}

#[test]
fn the_accountant_option_picks_the_conversion() {
    let study_data = data(30_956, 1);
    let (paper, improved) = (
        config("a1a", "logistic", "paper"),
        config("a1a", "logistic", "improved"),
    );
    let (paper, improved) = (
        Oracle::new(&paper, &study_data).unwrap(),
        Oracle::new(&improved, &study_data).unwrap(),
    );
    assert_eq!(
        paper.privacy().accountant().conversion(),
        Conversion::Classic
    );
    assert_eq!(
        improved.privacy().accountant().conversion(),
        Conversion::Improved
    );
    assert_eq!(paper.privacy().accountant().orders(), &integer_orders()[..]);
    for x in &POINTS {
        let h = to_hyper(x, 30_956);
        let (a, b) = (
            paper.epsilon(&paper.learner(&h).unwrap()).unwrap(),
            improved.epsilon(&improved.learner(&h).unwrap()).unwrap(),
        );
        // The improved conversion is never larger, and strictly smaller here.
        assert!(b < a, "{x:?}: improved {b} vs classic {a}");
    }
}

#[test]
fn an_evaluated_point_is_charged_the_event_of_what_it_trained() {
    let n = 600;
    let study_data = data(n, 3);
    let cfg = config("a1a", "logistic", "paper");
    let oracle = Oracle::new(&cfg, &study_data).unwrap();
    let x = [2.0, 40.0, 0.05, 1.0, 1.5];
    let point = oracle.evaluate(0, Source::Random, x).unwrap();
    let learner = oracle.learner(&to_hyper(&x, n)).unwrap();
    let Learner::Linear(linear) = &learner else {
        panic!("a logistic study trains a linear learner")
    };
    // What trains: every replication is charged the event's steps on lots of m of these n.
    let Views::Linear(train, _) = &oracle.views else {
        unreachable!("a logistic study has linear views")
    };
    let (_, report) = linear.fit(train, 1).unwrap();
    let Event::SelfComposed { event, count } = learner.event() else {
        panic!("not a composition of steps")
    };
    assert_eq!((count, report.steps, point.steps), (30, 30, 30));
    assert_eq!(
        *event,
        Event::sampled_without_replacement(40.0 / 600.0, Event::gaussian(1.5).unwrap()).unwrap()
    );
    let expect = oracle.privacy().epsilon(&learner.event()).unwrap();
    assert_eq!(point.epsilon.to_bits(), expect.to_bits());
    assert_eq!(point.accuracies.len(), 2);
}
