//! Honest tuning of an Iyengar grid is dp-core's [`HonestTuning`] on the mixture of the live
//! points, and lands on the safe side of the cell's target.

use std::path::Path;

use dp_core::features::FeatureMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use dp_core::accounting::honest_tuning::RUN_TARGET_REL;

use super::super::common::Common;
use super::super::sgd::PsgdGrid;
use super::*;
use crate::experiment::config::Config;
use crate::methods::{Prepared, parse_table};

/// Two Gaussian blobs around ±e₀ in 3 dimensions.
fn blobs(n: usize, seed: u64) -> dp_data::Dataset {
    let mut rng = StdRng::seed_from_u64(seed);
    let (d, mut x, mut y) = (3, Vec::new(), Vec::new());
    for i in 0..n {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        let mut row: Vec<f64> = (0..d).map(|_| 0.4 * (rng.random::<f64>() - 0.5)).collect();
        row[0] += 0.5 * label;
        x.extend(row);
        y.push(label);
    }
    dp_data::Dataset {
        name: "blobs".into(),
        x: FeatureMatrix::dense(x, n, d),
        y,
        classes: None,
    }
}

const CONFIG: &str = r#"
seed = 3
trials = 1
epsilons = [1.0]
delta = 1e-5

[dataset]
name = "adult"
normalize_rows = false
bias = 0

[methods.np]
kind = "np"
"#;

#[test]
fn the_plan_is_dp_cores_calibration_and_certifies_the_target() {
    let cfg = Config::parse(CONFIG, Path::new("honest.toml")).unwrap();
    let split = dp_data::Split {
        train: blobs(400, 1),
        test: blobs(100, 2),
    };
    let prepared = Prepared::from_split(&cfg, split).unwrap();
    let ctx = prepared.context().unwrap();
    let mut t: toml::Table = "calibration = \"certified\"\ntuning = \"honest\"\ngrid_size = 2"
        .parse()
        .unwrap();
    let common = Common::take(&mut t).unwrap();
    let grid: PsgdGrid = parse_table(
        "steps = [50]\nradius = [0, 10]\nrow_clip = [1.0]"
            .parse()
            .unwrap(),
    )
    .unwrap();
    let m = GridMethod::new(common, grid);

    for eps in [0.3, 1.0] {
        let p = plan(&m, &ctx, eps).unwrap();
        let target = Target::new(eps, ctx.cfg.delta).unwrap();
        let tuning = HonestTuning::poisson_tail(2, m.common.tail_prob).unwrap();
        assert_eq!(p.tuning, tuning);
        // The same calibration called directly on the same base mechanism.
        let points = m.grid.points(ctx.train.n(), eps);
        let base_of = |t: Target| base_event(&m, &ctx, &p.live, &points, t);
        let run = tuning
            .calibrate_run_target(|e| ctx.certify(e), |t| Ok(base_of(t)), target)
            .unwrap();
        assert_eq!(p.run_target, run);
        // Safe side, and within dp-core's bracket of the largest safe per-run ε.
        assert!(p.epsilon <= eps, "eps {eps}: tuned {}", p.epsilon);
        assert!(run.epsilon() < eps, "tuning must cost something");
        let above = Target::new(run.epsilon() * (1.0 + RUN_TARGET_REL), target.delta()).unwrap();
        assert!(ctx.certify(&tuning.event(base_of(above))).unwrap() > eps);

        // A cell reports the plan's ε and draws its runs as dp-core does.
        let c = Cell {
            method: "psgd".into(),
            epsilon: eps,
            trial: 0,
            seed: 17,
            fingerprint: String::new(),
        };
        let out = cell(&m, &ctx, &c).unwrap();
        assert_eq!(ctx.certify(&out.event).unwrap(), p.epsilon);
        let slots = Candidates::List((0..p.live.len()).map(|j| j as f64).collect());
        let k = draw_runs(&tuning.selection, &slots, c.seed).unwrap().len();
        assert_eq!(out.details["runs"].as_u64(), Some(k as u64));
    }
}
