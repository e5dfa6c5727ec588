//! DPareto's two costs on the real a1a data: one LR + DP-SGD training at the median of the
//! paper's Adult sampling distribution (Table 4), and one BO iteration (two GP fits with five
//! restarts and the HV-PoI search over 5,000 candidates) with 271 points observed, the last
//! iteration of the paper's 16 + 256 budget. The observations carry real ε from the paper's
//! accountant and a smooth synthetic error, so the GP sees a front of the right shape.
//!
//! `DPBENCH_DATA_MIRROR=../shared/datasets/raw cargo bench -p dp-bench --bench avent`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::rdp_curve::Conversion;
use dp_core::accounting::subsampled_gaussian_wor;
use dp_core::bo::dpareto::{DparetoOptions, Observations, propose};
use dp_core::learn::avent::{Hyper, Init, LinearModel, train_linear};
use dp_core::learn::{GlmData, Optimizer};
use dp_data::{DataConfig, DatasetId};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The median of 512 draws of Table 4 (seed 2020): 34 epochs, lot 124, η 0.038, L 1.82, z 5.08.
const MEDIAN: Hyper = Hyper {
    epochs: 34,
    lot: 124,
    lr: 0.038,
    clip: 1.82,
    noise_multiplier: 5.08,
};

fn training(c: &mut Criterion) {
    let id = DatasetId::A1a;
    let all = DataConfig::from_env()
        .dataset(id)
        .expect("a1a loads (set DPBENCH_DATA_MIRROR)");
    let split = id.fixed_train_rows().unwrap();
    let train = all.select(&(0..split).collect::<Vec<_>>());
    let data = GlmData::new(&train.x, &train.y).unwrap();
    let mut group = c.benchmark_group("avent2020");
    group.sample_size(10);
    group.bench_function("a1a_lr_sgd_median", |b| {
        b.iter(|| {
            let opt = Optimizer::sgd(MEDIAN.lr);
            train_linear(
                &data,
                LinearModel::Logistic,
                opt,
                black_box(&MEDIAN),
                Init::Code,
                1,
            )
            .unwrap()
        })
    });
    group.finish();
}

fn bo_iteration(c: &mut Criterion) {
    let (n, points) = (30_956usize, 271);
    let (lo, hi) = ([1.0, 8.0, 5e-4, 0.1, 0.1], [64.0, 512.0, 5e-2, 4.0, 16.0]);
    let mut rng = StdRng::seed_from_u64(7);
    let x: Vec<f64> = (0..points)
        .flat_map(|_| {
            (0..5)
                .map(|d| rng.random_range(lo[d]..hi[d]))
                .collect::<Vec<_>>()
        })
        .collect();
    let (mut epsilon, mut error) = (Vec::new(), Vec::new());
    for r in x.chunks_exact(5) {
        let (epochs, lot, z) = (r[0].round() as u32, r[1].round() as usize, r[4]);
        let steps = dp_core::learn::avent::steps(n, lot, epochs);
        let rate = lot as f64 / n as f64;
        let (eps, _) =
            subsampled_gaussian_wor::epsilon(rate, z, steps, 1e-5, Conversion::Classic).unwrap();
        epsilon.push(eps);
        // Error falls with ε towards 0.16 and rises with a poor learning rate.
        let lr_gap = (r[2].ln() - 0.02f64.ln()).powi(2) * 0.01;
        error.push(0.16 + 0.6 / (1.0 + 3.0 * eps) + lr_gap + 0.01 * rng.random::<f64>());
    }
    let obs = Observations {
        x: &x,
        dim: 5,
        epsilon: &epsilon,
        error: &error,
        k0: 16,
    };
    let opts = DparetoOptions {
        restarts: 5,
        candidates: 5000,
        estimated_reference: true,
    };
    let mut group = c.benchmark_group("avent2020");
    group.sample_size(10);
    group.bench_function("bo_iteration_271_points", |b| {
        b.iter(|| {
            let mut rng = StdRng::seed_from_u64(8);
            propose(black_box(&obs), &lo, &hi, None, &opts, &mut rng).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, training, bo_iteration);
criterion_main!(benches);
