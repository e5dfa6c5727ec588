//! DPareto acquisition timings: HV-PoI on GPflowOpt's 5000 candidates against a 50-point
//! front, and the staged search around it.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::bo::hvpoi::{HvPoi, Reference};
use dp_core::bo::pareto::Point2;
use dp_core::bo::search::{SearchOptions, maximise};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A 50-point front on a convex curve and 5000 candidate (mean, variance) pairs around it.
fn setup() -> (HvPoi, Vec<Point2>, Vec<Point2>) {
    let front: Vec<Point2> = (0..50)
        .map(|i| {
            let t = i as f64 / 49.0;
            (t, (1.0 - t).powi(2))
        })
        .collect();
    let acq = HvPoi::new(&front, Reference::Estimated).unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    let means = (0..5000)
        .map(|_| (rng.random::<f64>() * 1.2, rng.random::<f64>() * 1.2))
        .collect();
    let vars = (0..5000)
        .map(|_| (rng.random::<f64>() * 0.05, rng.random::<f64>() * 0.05))
        .collect();
    (acq, means, vars)
}

fn hvpoi(c: &mut Criterion) {
    let (acq, means, vars) = setup();
    c.bench_function("hvpoi_eval_5000x50", |b| {
        b.iter(|| {
            means
                .iter()
                .zip(&vars)
                .map(|(&m, &v)| acq.eval(black_box(m), v))
                .sum::<f64>()
        })
    });
    c.bench_function("hvpoi_poi_5000x50", |b| {
        b.iter(|| {
            means
                .iter()
                .zip(&vars)
                .map(|(&m, &v)| acq.poi(black_box(m), v))
                .sum::<f64>()
        })
    });
    c.bench_function("hvpoi_eval_grad_5000x50", |b| {
        b.iter(|| {
            means
                .iter()
                .zip(&vars)
                .map(|(&m, &v)| acq.eval_grad(black_box(m), v).0)
                .sum::<f64>()
        })
    });
}

fn search(c: &mut Criterion) {
    // μ(x) = (x₀, x₁) and fixed variances: the search cost without a GP behind it.
    let (acq, _, _) = setup();
    let alpha = |rows: &[f64], dim: usize| -> Vec<f64> {
        rows.chunks(dim)
            .map(|x| acq.eval((x[0], x[1]), (0.01, 0.01)))
            .collect()
    };
    let (lo, hi) = ([0.0; 5], [1.2; 5]);
    c.bench_function("search_hvpoi_5000_d5", |b| {
        b.iter(|| {
            let mut rng = StdRng::seed_from_u64(2);
            maximise(&lo, &hi, alpha, &mut rng, &SearchOptions::default()).unwrap()
        })
    });
}

criterion_group!(benches, hvpoi, search);
criterion_main!(benches);
