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

#[test]
fn a_solve_out_of_time_is_not_certified() {
    // A large instance with a time limit far below what proving optimality takes.
    let rows = data(3000, 6);
    let big = Rows::aggregate(
        &rows
            .x
            .iter()
            .enumerate()
            .map(|(i, v)| v + (i % 7) as f64 * 1e-2)
            .collect::<Vec<_>>(),
        4,
        &(0..rows.len())
            .map(|u| {
                if rows.pos[u] >= rows.neg[u] {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect::<Vec<_>>(),
    );
    let eta = vec![0.1; 5];
    let opts = OracleOptions {
        time_limit: 1e-6,
        ..OracleOptions::default()
    };
    let ans = opdisc(&big, 2, 4, &eta, &opts);
    assert!(!ans.certified(), "{:?}", ans.status);
}
