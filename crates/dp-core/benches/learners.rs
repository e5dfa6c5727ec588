//! Learner benchmarks on a deterministic Adult-shaped dataset (n = 36,178 train rows,
//! d = 105, 15 non-zeros per unit-norm row plus bias, stored dense).
//!
//! `cargo bench -p dp-core --bench learners -- --warm-up-time 1 --measurement-time 5`

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::learn::synthetic::adult_like;
use dp_core::learn::{Alg1Spec, DpSgd, GlmData, Mechanism, dpsgd};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::hint::black_box;

const N_TRAIN: usize = 36_178;

fn learners(c: &mut Criterion) {
    let (x, y) = adult_like(N_TRAIN, 2024);
    let mut group = c.benchmark_group("learners");
    group.sample_size(20);
    // One-time, per-dataset preparation (norms, CSR copy of the one-hot rows, Gram matrix).
    group.bench_function("glm_data_prepare", |b| {
        b.iter(|| {
            let data = GlmData::new(black_box(&x), &y).unwrap();
            black_box(data.gram().is_some())
        })
    });
    let data = GlmData::new(&x, &y).unwrap();
    assert!(data.gram().is_some());
    // ε = 1, δ = 1e-5 calibration of the paper's setting (σ ≈ 1.3·σ_G, λ from Theorem 4.1).
    let params = Alg1Spec::paper().with_noise(6.86, 4.02).unwrap();
    let (_, probe) = params.fit(&data, 0).unwrap();
    eprintln!(
        "alg1_solve: {} L-BFGS iterations, {} evaluations",
        probe.iterations, probe.evaluations
    );
    group.bench_function("alg1_solve", |b| {
        b.iter(|| black_box(&params).fit(&data, 0).unwrap())
    });
    let sgd = DpSgd::paper(N_TRAIN, 256, 60, std::f64::consts::SQRT_2, 1.0, 1e-3);
    eprintln!(
        "dpsgd_60_epochs: {} steps, q = {:.5}",
        sgd.steps, sgd.sampling_rate
    );
    group.bench_function("dpsgd_60_epochs", |b| {
        b.iter(|| dpsgd(&data, black_box(&sgd), &mut StdRng::seed_from_u64(0)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, learners);
criterion_main!(benches);
