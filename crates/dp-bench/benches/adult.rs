//! The paper's two learners on the real Adult data (unit rows + bias, 80/20 split): one
//! Algorithm 1 release and one 60-epoch DP-SGD run at ε = 1, δ = 1e-5, on one core.
//!
//! `DPBENCH_DATA_MIRROR=../shared/datasets/raw cargo bench -p dp-bench --bench adult`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::subsampled_gaussian::calibrate_dpsgd;
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::{Alg1Spec, DpSgd, GlmData, Mechanism};

fn adult(c: &mut Criterion) {
    let split = dp_data::load("adult", &dp_data::Preprocess::redberg())
        .expect("Adult loads (set DPBENCH_DATA_MIRROR)");
    let data = GlmData::new(&split.train.x, &split.train.y).unwrap();
    let n = data.n();
    let sqrt2 = std::f64::consts::SQRT_2;
    let rdp = RdpAccountant::new();
    let target = Target::new(1.0, 1e-5).unwrap();
    let alg1 = Alg1Spec::paper().calibrate(1.3, target, &rdp).unwrap();
    // The same calibration the experiment runner does: z for one 60-epoch run.
    let sgd_with = |z: f64| DpSgd::paper(n, 256, 60, sqrt2, z, 1e-2);
    let probe = sgd_with(1.0);
    let (q, steps) = (probe.sampling_rate, probe.steps as u64);
    let event_of = |z: f64| Ok(sgd_with(z).event());
    let z = calibrate_dpsgd(|| rdp.fresh(), event_of, target, q, steps).unwrap();
    let sgd = sgd_with(z);

    let mut group = c.benchmark_group("adult");
    group.sample_size(20);
    group.bench_function("alg1_solve", |b| {
        b.iter(|| black_box(&alg1).fit(&data, 0).unwrap())
    });
    group.bench_function("dpsgd_60_epochs", |b| {
        b.iter(|| black_box(&sgd).fit(&data, 0).unwrap())
    });
    group.finish();
}

criterion_group!(benches, adult);
criterion_main!(benches);
