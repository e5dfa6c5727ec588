//! The paper's two learners on the real Adult data (unit rows + bias, 80/20 split): one
//! Algorithm 1 release and one 60-epoch DP-SGD run at ε = 1, δ = 1e-5, on one core.
//!
//! `DPBENCH_DATA_MIRROR=../shared/datasets/raw cargo bench -p dp-bench --bench adult`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::alg1::Alg1Privacy;
use dp_core::accounting::default_orders;
use dp_core::accounting::subsampled_gaussian::calibrate_noise_multiplier;
use dp_core::learn::{Alg1Params, DpSgdParams, GlmData, alg1, dpsgd};
use rand::SeedableRng;
use rand::rngs::StdRng;

fn adult(c: &mut Criterion) {
    let split = dp_data::load("adult", &dp_data::Preprocess::redberg())
        .expect("Adult loads (set DPBENCH_DATA_MIRROR)");
    let data = GlmData::new(&split.train.x, &split.train.y).unwrap();
    let n = data.n();
    let sqrt2 = std::f64::consts::SQRT_2;
    let privacy = Alg1Privacy::calibrate(1.0, 1e-5, 1.3, 0.5, sqrt2, 0.01, 0.15).unwrap();
    let params = Alg1Params::paper(privacy.sigma, privacy.lambda);
    let steps = 60 * n.div_ceil(256);
    let z =
        calibrate_noise_multiplier(256.0 / n as f64, steps as u64, 1.0, 1e-5, &default_orders())
            .unwrap();
    let sgd = DpSgdParams::paper(n, 256, 60, sqrt2, z, 1e-2);

    let mut group = c.benchmark_group("adult");
    group.sample_size(20);
    group.bench_function("alg1_solve", |b| {
        b.iter(|| alg1(&data, black_box(&params), &mut StdRng::seed_from_u64(0)).unwrap())
    });
    group.bench_function("dpsgd_60_epochs", |b| {
        b.iter(|| dpsgd(&data, black_box(&sgd), &mut StdRng::seed_from_u64(0)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, adult);
criterion_main!(benches);
