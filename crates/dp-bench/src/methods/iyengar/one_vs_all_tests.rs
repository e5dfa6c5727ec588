//! One-vs-all end to end on a small three-class problem: every class trained, argmax scored,
//! and the certified ε of the K releases within the target.

use std::path::Path;

use dp_core::features::FeatureMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::experiment::config::Config;
use crate::experiment::grid::Cell;
use crate::methods::Prepared;

/// Three Gaussian blobs around 2·e_c in 4 dimensions, rows clipped to norm ≤ 3.
fn blobs(n: usize, seed: u64) -> dp_data::Dataset {
    let mut rng = StdRng::seed_from_u64(seed);
    let (d, mut x, mut classes) = (4, Vec::new(), Vec::new());
    for i in 0..n {
        let c = (i % 3) as u32;
        let mut row: Vec<f64> = (0..d).map(|_| 0.5 * (rng.random::<f64>() - 0.5)).collect();
        row[c as usize] += 2.0;
        x.extend(row);
        classes.push(c);
    }
    dp_data::Dataset {
        name: "blobs".into(),
        x: FeatureMatrix::dense(x, n, d),
        y: classes
            .iter()
            .map(|&c| if c == 0 { 1.0 } else { -1.0 })
            .collect(),
        classes: Some(classes),
    }
}

const CONFIG: &str = r#"
seed = 7
trials = 1
epsilons = [1.0]
delta = 1e-5

[dataset]
name = "mnist"
normalize_rows = false
bias = 0
one_vs_all = true

[methods.np]
kind = "np"

[methods.psgd]
kind = "psgd"
calibration = "certified"
steps = [100]
radius = [0, 10]
row_clip = [3.0]

[methods.ppsgd]
kind = "ppsgd"
calibration = "paper"
lambda = [0.001]
passes = [2]
row_clip = [3.0]
"#;

/// One cell through the engine (which certifies its event).
fn run(prepared: &Prepared, method: &str) -> crate::experiment::record::CellRecord {
    let ctx = prepared.context().unwrap();
    let cell = Cell {
        method: method.into(),
        epsilon: 1.0,
        trial: 0,
        seed: 11,
        fingerprint: String::new(),
    };
    crate::experiment::runner::run_cell(&ctx, &cell).unwrap()
}

#[test]
fn one_vs_all_trains_every_class_and_certifies_the_composition() {
    let cfg = Config::parse(CONFIG, Path::new("one-vs-all.toml")).unwrap();
    let split = dp_data::Split {
        train: blobs(600, 1),
        test: blobs(150, 2),
    };
    let prepared = Prepared::from_split(&cfg, split).unwrap();
    assert_eq!(prepared.context().unwrap().classes.len(), 3);

    let np = run(&prepared, "np");
    assert!(np.accuracy > 95.0, "{}", np.accuracy);
    assert_eq!(np.details["iterations"].as_array().map(Vec::len), Some(3));

    // Certified: each class at (ε/3, δ/3), so the three releases certify within ε = 1; and
    // they learn (chance is 33%).
    let psgd = run(&prepared, "psgd");
    assert!(psgd.epsilon_accounted <= 1.0, "{}", psgd.epsilon_accounted);
    assert!(psgd.epsilon_accounted > 0.1, "{}", psgd.epsilon_accounted);
    assert!(psgd.accuracy > 60.0, "{}", psgd.accuracy);

    // Paper mode reports what its composition certifies, finite here (a Gaussian per class).
    let ppsgd = run(&prepared, "ppsgd");
    assert!(ppsgd.epsilon_accounted.is_finite() && ppsgd.epsilon_accounted > 0.0);
    assert!(ppsgd.accuracy > 60.0, "{}", ppsgd.accuracy);
}

#[test]
fn binary_data_refuse_one_vs_all() {
    let cfg = Config::parse(CONFIG, Path::new("one-vs-all.toml")).unwrap();
    let mut train = blobs(60, 1);
    train.classes = None;
    let split = dp_data::Split {
        train,
        test: blobs(30, 2),
    };
    let err = Prepared::from_split(&cfg, split).err().unwrap().to_string();
    assert!(err.contains("one_vs_all"), "{err}");
}
