use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

/// Labelled rows over a few feature patterns (so rows repeat and labels mix), d = 4: two
/// one-hot pairs and two scaled "continuous" columns, like Adult's.
fn data(n: usize, seed: u64) -> Rows {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let a = rng.random_range(0..2);
        let cont = [0.0, 0.25, 0.5][rng.random_range(0..3)];
        let row = [
            f64::from(a == 0),
            f64::from(a == 1),
            cont,
            rng.random_range(0..3) as f64 / 4.0,
        ];
        let score = row[0] - 0.5 * row[1] + row[2] - row[3];
        let flip = rng.random::<f64>() < 0.2;
        y.push(if (score > 0.1) != flip { 1.0 } else { -1.0 });
        x.extend(row);
    }
    Rows::aggregate(&x, 4, &y)
}

/// Every point of `{−b..b}^d` with ‖w‖² ≤ r.
fn grid(d: usize, b: i32, r: i64) -> Vec<Vec<i32>> {
    let mut out = vec![vec![]];
    for _ in 0..d {
        out = out
            .into_iter()
            .flat_map(|w| {
                (-b..=b).map(move |v| {
                    let mut w = w.clone();
                    w.push(v);
                    w
                })
            })
            .collect();
    }
    out.retain(|w| w.iter().map(|&v| i64::from(v * v)).sum::<i64>() <= r);
    out
}

fn brute_force(points: &[Vec<i32>], f: impl Fn(&[i32]) -> f64) -> (Vec<i32>, f64) {
    points
        .iter()
        .map(|w| (w.clone(), f(w)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
}

#[test]
fn aggregation_keeps_the_objective() {
    let mut rng = StdRng::seed_from_u64(1);
    let x: Vec<f64> = (0..40).map(|_| rng.random_range(0..2) as f64).collect();
    let y: Vec<f64> = (0..20)
        .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
        .collect();
    let agg = Rows::aggregate(&x, 2, &y);
    assert!(agg.len() <= 4);
    let single = Rows {
        d: 2,
        x: x.clone(),
        pos: y.iter().map(|&v| u32::from(v > 0.0)).collect(),
        neg: y.iter().map(|&v| u32::from(v < 0.0)).collect(),
    };
    for w in [[1.0, -1.0], [0.0, 2.0], [-1.0, 0.0], [0.0, 0.0]] {
        assert_eq!(agg.loss(&w, 1e-3), single.loss(&w, 1e-3));
    }
}

#[test]
fn opdisc_returns_the_brute_force_argmin_for_noise_of_either_sign() {
    let rows = data(60, 2);
    let (b, r) = (2, 4);
    let points = grid(4, b, r);
    let mut rng = StdRng::seed_from_u64(3);
    let mut negative_last = 0;
    for trial in 0..40 {
        // Noise from negligible to dominant, so both the loss and the noise decide.
        let scale = [0.5, 3.0, 10.0, 40.0][trial % 4];
        let eta: Vec<f64> = (0..5)
            .map(|_| scale * (rng.random::<f64>() * 2.0 - 1.0))
            .collect();
        negative_last += usize::from(eta[4] < 0.0);
        let ans = opdisc(&rows, b, r, &eta, &OracleOptions::default());
        assert!(ans.certified(), "trial {trial}: {:?}", ans.status);
        let (w, best) = brute_force(&points, |w| opdisc_objective(&rows, w, &eta, r, 1e-3));
        assert!(
            (ans.objective - best).abs() < 1e-9,
            "trial {trial}: {:?} {} vs {w:?} {best}",
            ans.w,
            ans.objective
        );
    }
    assert!(negative_last > 10, "the sign of η_(d+1) must vary");
}

#[test]
fn rspm_returns_the_brute_force_argmin() {
    let rows = data(60, 4);
    let points = grid(4, 1, 4);
    let mut rng = StdRng::seed_from_u64(5);
    for trial in 0..40 {
        let scale = [0.5, 3.0, 10.0, 40.0][trial % 4];
        let eta: Vec<f64> = (0..8)
            .map(|_| scale * (rng.random::<f64>() * 2.0 - 1.0))
            .collect();
        let ans = rspm(&rows, &eta, &OracleOptions::default());
        assert!(ans.certified(), "trial {trial}: {:?}", ans.status);
        let (w, best) = brute_force(&points, |w| rspm_objective(&rows, w, &eta, 1e-3));
        assert!(
            (ans.objective - best).abs() < 1e-9,
            "trial {trial}: {:?} {} vs {w:?} {best}",
            ans.w,
            ans.objective
        );
    }
}

/// Distinct rows on a 9-level grid in d = 5 with 25% label noise, and noise η: an OPDisc
/// instance over {−2..2}^5 that takes a few dozen branch-and-bound nodes (under a second).
fn hard() -> (Rows, Vec<f64>) {
    let (n, d) = (30, 5);
    let mut rng = StdRng::seed_from_u64(11);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let row: Vec<f64> = (0..d)
            .map(|_| f64::from(rng.random_range(-4..=4)) / 4.0)
            .collect();
        let score: f64 = row
            .iter()
            .enumerate()
            .map(|(j, v)| if j % 2 == 0 { *v } else { -0.5 * v })
            .sum();
        let flip = rng.random::<f64>() < 0.25;
        y.push(if (score > 0.0) != flip { 1.0 } else { -1.0 });
        x.extend(row);
    }
    let eta = (0..=d)
        .map(|_| 5.0 * (rng.random::<f64>() * 2.0 - 1.0))
        .collect();
    (Rows::aggregate(&x, d, &y), eta)
}

#[test]
fn a_solve_out_of_budget_is_not_certified_but_reproducible() {
    let (rows, eta) = hard();
    let unlimited = opdisc(&rows, 2, 5, &eta, &OracleOptions::default());
    assert!(unlimited.certified(), "{:?}", unlimited.status);
    assert!(
        unlimited.nodes > 1,
        "needs branching: {} nodes",
        unlimited.nodes
    );
    let opts = OracleOptions {
        node_limit: 1,
        ..OracleOptions::default()
    };
    let ans = opdisc(&rows, 2, 5, &eta, &opts);
    assert!(!ans.certified() && ans.reproducible(), "{:?}", ans.status);
    assert!(ans.nodes <= 1, "{} nodes", ans.nodes);
}

#[test]
fn the_same_solve_does_the_same_work() {
    let (rows, eta) = hard();
    let a = opdisc(&rows, 2, 5, &eta, &OracleOptions::default());
    assert!(
        a.certified() && a.nodes > 1,
        "{:?} in {} nodes",
        a.status,
        a.nodes
    );
    // Neither a budget the solve does not reach nor a wall-clock cap it does not reach (or
    // none at all) changes its path.
    for (node_limit, wall_cap) in [
        (100_000, 3600.0),
        (a.nodes as u64 + 1, 3600.0),
        (100_000, 60.0),
        (100_000, f64::INFINITY),
    ] {
        let opts = OracleOptions {
            node_limit,
            wall_cap,
            ..OracleOptions::default()
        };
        let b = opdisc(&rows, 2, 5, &eta, &opts);
        assert_eq!(
            (&b.w, b.nodes, b.lp_iterations, &b.status),
            (&a.w, a.nodes, a.lp_iterations, &a.status),
            "budget {node_limit}, cap {wall_cap}"
        );
    }
}

#[test]
fn the_wall_clock_cap_is_never_a_silent_refusal() {
    let opts = OracleOptions {
        wall_cap: 1e-6,
        ..OracleOptions::default()
    };
    let (rows, eta) = hard();
    let ans = opdisc(&rows, 2, 5, &eta, &opts);
    assert!(!ans.certified() && !ans.reproducible(), "{:?}", ans.status);
}
