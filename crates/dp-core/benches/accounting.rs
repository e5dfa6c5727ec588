//! RDP-side accountant timings: DP-SGD ε and noise calibration on the default order grid,
//! objective-perturbation bounds, and Algorithm 1 calibration.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::objpert::ObjPert;
use dp_core::accounting::rdp_curve::default_orders;
use dp_core::accounting::subsampled_gaussian::{calibrate_noise_multiplier, dpsgd_epsilon};
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::Alg1Spec;

fn dpsgd(c: &mut Criterion) {
    let orders = default_orders();
    // Anchor case: q = 0.00708, z = 2.75, T = 8478, δ = 1e-5 (ε ≈ 1).
    c.bench_function("dpsgd_epsilon_rdp", |b| {
        b.iter(|| dpsgd_epsilon(black_box(0.00708), black_box(2.75), 8478, 1e-5, &orders).unwrap())
    });
    c.bench_function("calibrate_noise_multiplier", |b| {
        b.iter(|| {
            calibrate_noise_multiplier(black_box(0.00708), 8478, black_box(1.0), 1e-5, &orders)
                .unwrap()
        })
    });
}

fn objpert(c: &mut Criterion) {
    let orders = default_orders();
    // Redberg et al. Fig. 1 (left): σ = 5, β = 1, λ = 20, L = 1.
    let p = ObjPert::new(5.0, 20.0, 1.0, 1.0).unwrap();
    c.bench_function("objpert_bounds", |b| {
        b.iter(|| {
            let p = black_box(p);
            let rdp_eps = p.rdp_curve(&orders).unwrap().epsilon(1e-5).unwrap().0;
            let profile_delta = p.profile_delta(black_box(1.0)).unwrap();
            let profile_eps = p.profile_epsilon(1e-5).unwrap();
            (rdp_eps, profile_delta, profile_eps)
        })
    });
}

fn alg1(c: &mut Criterion) {
    // Adult, ε = 1 (docs/derivations.md §5).
    let rdp = RdpAccountant::new();
    c.bench_function("alg1_calibrate", |b| {
        b.iter(|| {
            let target = Target::new(black_box(1.0), 1e-5).unwrap();
            Alg1Spec::paper().calibrate(1.3, target, &rdp).unwrap()
        })
    });
}

criterion_group!(benches, dpsgd, objpert, alg1);
criterion_main!(benches);
