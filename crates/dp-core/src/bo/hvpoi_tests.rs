use super::*;
use crate::bo::pareto::hypervolume;
use crate::special::norm_cdf;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

/// A random front of about `n` points on a convex-ish curve, plus dominated clutter.
fn random_means(rng: &mut StdRng, n: usize) -> Vec<Point2> {
    let mut pts: Vec<Point2> = (0..n)
        .map(|_| {
            let t: f64 = rng.random();
            let jitter: f64 = rng.random::<f64>() * 0.3;
            (t + 0.1 * jitter, (1.0 - t).powi(2) + jitter)
        })
        .collect();
    pts.push((rng.random::<f64>() + 0.5, rng.random::<f64>() + 0.5));
    pts
}

/// Whether y lies strictly below R and no front point is ≤ y.
fn in_region(front: &[Point2], r: Point2, y: Point2) -> bool {
    y.0 < r.0 && y.1 < r.1 && !front.iter().any(|p| p.0 <= y.0 && p.1 <= y.1)
}

#[test]
fn reference_is_gpflowopt_estimate() {
    let acq = HvPoi::new(
        &[(0.0, 3.0), (1.0, 1.0), (2.0, 0.0), (2.0, 2.0)],
        Reference::Estimated,
    )
    .unwrap();
    let r = acq.reference();
    assert!((r.0 - (2.0 + 4.0 / 3.0)).abs() < 1e-15 && (r.1 - 5.0).abs() < 1e-15);
    // GPflowOpt's front keeps exact duplicates, so k = 4 here.
    let dup = HvPoi::new(
        &[(0.0, 3.0), (0.0, 3.0), (1.0, 1.0), (2.0, 0.0)],
        Reference::Estimated,
    )
    .unwrap();
    assert_eq!(dup.reference(), (3.0, 4.5));
    assert_eq!(dup.front(), &[(0.0, 3.0), (1.0, 1.0), (2.0, 0.0)]);
    // One point: R = p, and the region is the open quadrant below it.
    let one = HvPoi::new(&[(1.0, 2.0)], Reference::Estimated).unwrap();
    assert_eq!(one.reference(), (1.0, 2.0));
    assert_eq!(one.delta_hv((0.0, 0.0)), 2.0);
    assert!(HvPoi::new(&[], Reference::Estimated).is_err());
    assert!(HvPoi::new(&[(f64::INFINITY, 0.0)], Reference::Estimated).is_err());
    assert!(HvPoi::new(&[(0.0, 0.0)], Reference::Fixed((f64::NAN, 1.0))).is_err());
}

#[test]
fn closed_form_single_point() {
    // P = {(0, 0)}, R = (1, 1): cells (−∞, 0] × (−∞, 1] and [0, 1] × (−∞, 0].
    let acq = HvPoi::new(&[(0.0, 0.0)], Reference::Fixed((1.0, 1.0))).unwrap();
    let poi = acq.poi((0.0, 0.0), (1.0, 1.0));
    let expect = 0.5 * norm_cdf(1.0) + (norm_cdf(1.0) - 0.5) * 0.5;
    assert!((poi - expect).abs() < 1e-15, "{poi} vs {expect}");
    assert!((acq.delta_hv((-1.0, -1.0)) - 3.0).abs() < 1e-15);
    assert!((acq.delta_hv((0.5, -1.0)) - 0.5).abs() < 1e-15);
    let a = acq.eval((0.5, -1.0), (0.04, 0.09));
    assert!((a - 0.5 * acq.poi((0.5, -1.0), (0.04, 0.09))).abs() < 1e-15);
}

#[test]
fn cells_tile_the_bounded_non_dominated_region() {
    let mut rng = StdRng::seed_from_u64(21);
    for trial in 0..100 {
        let means = random_means(&mut rng, 1 + trial % 20);
        let reference = if trial % 2 == 0 {
            Reference::Estimated
        } else {
            // Some front points fall beyond this one.
            Reference::Fixed((0.8, 0.7))
        };
        let acq = HvPoi::new(&means, reference).unwrap();
        let r = acq.reference();
        let cells = acq.cells();
        let inside: Vec<Point2> = acq
            .front()
            .iter()
            .copied()
            .filter(|p| p.0 < r.0 && p.1 < r.1)
            .collect();
        assert_eq!(cells.len(), inside.len() + 1);
        // Σ area identity with cells 1..k clipped to y ≥ b_k.
        if let (Some(first), Some(last)) = (inside.first(), inside.last()) {
            let area: f64 = cells[1..]
                .iter()
                .map(|c| (c.x_hi - c.x_lo) * (c.y_hi - last.1))
                .sum();
            let expect = (r.0 - first.0) * (r.1 - last.1) - hypervolume(&means, r).unwrap();
            assert!((area - expect).abs() < 1e-12, "{area} vs {expect}");
        }
        // Every point below R lies in exactly one cell iff it is non-dominated.
        for _ in 0..500 {
            let y = (
                -0.2 + 1.4 * rng.random::<f64>(),
                -0.2 + 1.6 * rng.random::<f64>(),
            );
            let covering = cells
                .iter()
                .filter(|c| c.x_lo < y.0 && y.0 < c.x_hi && y.1 < c.y_hi)
                .count();
            assert_eq!(covering, in_region(acq.front(), r, y) as usize, "{y:?}");
        }
    }
}

#[test]
fn delta_hv_is_the_hypervolume_gain() {
    let mut rng = StdRng::seed_from_u64(22);
    for trial in 0..200 {
        let means = random_means(&mut rng, 1 + trial % 25);
        let reference = if trial % 3 == 0 {
            Reference::Fixed((0.9, 0.9))
        } else {
            Reference::Estimated
        };
        let acq = HvPoi::new(&means, reference).unwrap();
        let r = acq.reference();
        let base = hypervolume(&means, r).unwrap();
        for _ in 0..20 {
            let mu = (
                -0.3 + 1.8 * rng.random::<f64>(),
                -0.3 + 1.8 * rng.random::<f64>(),
            );
            let mut with = means.clone();
            with.push(mu);
            let gain = hypervolume(&with, r).unwrap() - base;
            assert!((acq.delta_hv(mu) - gain).abs() < 1e-12, "{mu:?}");
        }
    }
}

#[test]
fn poi_tends_to_the_indicator() {
    let mut rng = StdRng::seed_from_u64(23);
    let means = random_means(&mut rng, 15);
    let acq = HvPoi::new(&means, Reference::Estimated).unwrap();
    let r = acq.reference();
    let mut checked = [0, 0];
    for _ in 0..2000 {
        let mu = (
            -0.2 + 1.6 * rng.random::<f64>(),
            -0.2 + 1.6 * rng.random::<f64>(),
        );
        // At s = 1e-3 (the floor) points 0.01 away from every edge are 10 s away.
        let near_edge = acq.cells().iter().any(|c| {
            (mu.0 - c.x_lo).abs() < 0.01
                || (mu.0 - c.x_hi).abs() < 0.01
                || (mu.1 - c.y_hi).abs() < 0.01
        });
        if near_edge {
            continue;
        }
        let inside = in_region(acq.front(), r, mu);
        checked[inside as usize] += 1;
        let poi = acq.poi(mu, (1e-8, 0.0));
        assert!((poi - inside as u8 as f64).abs() < 1e-15, "{mu:?}: {poi}");
        assert_eq!(poi, acq.poi(mu, (VARIANCE_FLOOR, VARIANCE_FLOOR)), "floor");
        if inside {
            let dhv = acq.delta_hv(mu);
            assert!(dhv > 0.0 && (acq.eval(mu, (0.0, 0.0)) - dhv).abs() < 1e-15 * dhv.max(1.0));
        }
    }
    assert!(checked[0] > 100 && checked[1] > 100, "{checked:?}");
}

#[test]
fn acquisition_vanishes_at_dominated_means() {
    let mut rng = StdRng::seed_from_u64(24);
    let means = random_means(&mut rng, 12);
    let acq = HvPoi::new(&means, Reference::Estimated).unwrap();
    let front = acq.front().to_vec();
    for p in &front {
        for mu in [*p, (p.0 + 0.01, p.1), (p.0 + 0.05, p.1 + 0.02)] {
            assert_eq!(acq.delta_hv(mu), 0.0);
            for var in [0.0, 1e-12, 1e-6, 1e-2, 1.0] {
                assert_eq!(acq.eval(mu, (var, var)), 0.0);
                assert_eq!(acq.eval_grad(mu, (var, var)).0, 0.0);
            }
            // PoI itself is not zero at a moderate variance: α vanishes through ΔHV.
            assert!(acq.poi(mu, (1e-2, 1e-2)) > 0.0);
        }
    }
}

#[test]
fn poi_matches_monte_carlo() {
    let mut rng = StdRng::seed_from_u64(25);
    let means = random_means(&mut rng, 10);
    let acq = HvPoi::new(&means, Reference::Estimated).unwrap();
    let r = acq.reference();
    let n = 1_000_000;
    let cases: [(Point2, Point2); 5] = [
        ((0.3, 0.4), (0.01, 0.02)),
        ((0.5, 0.2), (0.1, 0.05)),
        ((0.9, 0.9), (0.25, 0.25)),
        ((0.0, 1.2), (1.0, 0.5)),
        ((1.0, -0.1), (0.04, 1e-8)),
    ];
    for (mu, var) in cases {
        let (s1, s2) = (
            var.0.max(VARIANCE_FLOOR).sqrt(),
            var.1.max(VARIANCE_FLOOR).sqrt(),
        );
        let hits = (0..n)
            .filter(|_| {
                let z1: f64 = rng.sample(StandardNormal);
                let z2: f64 = rng.sample(StandardNormal);
                in_region(acq.front(), r, (mu.0 + s1 * z1, mu.1 + s2 * z2))
            })
            .count();
        let p = acq.poi(mu, var);
        let se = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
        let est = hits as f64 / n as f64;
        assert!(
            (est - p).abs() < 4.0 * se,
            "{mu:?} {var:?}: MC {est} vs {p} (se {se})"
        );
        assert!(
            p > 1e-3 && p < 1.0 - 1e-3,
            "case should be informative: {p}"
        );
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let mut rng = StdRng::seed_from_u64(26);
    let mut checked = 0;
    for trial in 0..60 {
        let means = random_means(&mut rng, 2 + trial % 15);
        let acq = HvPoi::new(&means, Reference::Estimated).unwrap();
        let mu = (rng.random::<f64>(), 0.8 * rng.random::<f64>());
        let var = (
            0.001 + 0.1 * rng.random::<f64>(),
            0.001 + 0.1 * rng.random::<f64>(),
        );
        let (a, g) = acq.eval_grad(mu, var);
        assert_eq!(a, acq.eval(mu, var));
        if a == 0.0 {
            continue;
        }
        checked += 1;
        let f = |x: [f64; 4]| acq.eval((x[0], x[1]), (x[2], x[3]));
        let x = [mu.0, mu.1, var.0, var.1];
        for d in 0..4 {
            let h = 1e-6 * x[d].abs().max(1e-3);
            let (mut up, mut dn) = (x, x);
            up[d] += h;
            dn[d] -= h;
            let fd = (f(up) - f(dn)) / (2.0 * h);
            assert!(
                (fd - g[d]).abs() < 1e-5 * (g[d].abs() + a),
                "trial {trial} d {d}: {} vs fd {fd}",
                g[d]
            );
        }
    }
    assert!(checked > 20);
    // Below the floor the variance has no effect.
    let acq = HvPoi::new(&[(0.0, 1.0), (1.0, 0.0)], Reference::Estimated).unwrap();
    let (_, g) = acq.eval_grad((0.2, 0.2), (1e-8, 1e-7));
    assert_eq!((g[2], g[3]), (0.0, 0.0));
}
