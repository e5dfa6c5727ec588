//! PLD accountant timings: DP-SGD over 10⁴ steps and k-fold ObjPert composition.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use dp_core::accounting::pld::{Pld, PldConfig, dpsgd_epsilon_pld};

fn dpsgd(c: &mut Criterion) {
    c.bench_function("pld_dpsgd_1e4_steps", |b| {
        b.iter(|| dpsgd_epsilon_pld(black_box(0.00708), black_box(2.75), 10_000, 1e-5).unwrap())
    });
}

fn objpert(c: &mut Criterion) {
    // Adult, ε = 1 check values of docs/derivations.md §5: σ ≈ 6.859, λ ≈ 4.02, β = 1/2, L = √2.
    let cfg = PldConfig::default();
    let mut group = c.benchmark_group("pld_objpert_compose_k");
    for k in [2u64, 10, 100] {
        group.bench_with_input(BenchmarkId::from_parameter(k), &k, |b, &k| {
            b.iter(|| {
                Pld::objpert(black_box(6.859), 4.02, 0.5, 2f64.sqrt(), &cfg)
                    .unwrap()
                    .self_compose(k)
                    .unwrap()
                    .epsilon(1e-5)
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, dpsgd, objpert);
criterion_main!(benches);
