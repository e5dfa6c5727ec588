//! RDP-side accountant timings: DP-SGD ε and noise calibration on the default order grid,
//! DPareto's sampling-without-replacement ε, objective-perturbation bounds, and Algorithm 1
//! calibration.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::objpert::ObjPert;
use dp_core::accounting::rdp_curve::default_orders;
use dp_core::accounting::subsampled_gaussian::{calibrate_noise_multiplier, dpsgd_epsilon};
use dp_core::accounting::subsampled_gaussian_wor::{self, WorGaussian};
use dp_core::accounting::{Conversion, RdpAccountant, Target};
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

fn without_replacement(c: &mut Criterion) {
    // Avent et al. §3.1 rows 1 and 5 (Adult, n = 30,956): optimal orders 13 and 410.
    for (name, m, z, steps) in [("z1", 32.0, 1.0, 1934), ("z8", 32.0, 8.0, 1934)] {
        let rate = m / 30956.0;
        c.bench_function(&format!("wor_epsilon_{name}"), |b| {
            b.iter(|| {
                subsampled_gaussian_wor::epsilon(
                    black_box(rate),
                    black_box(z),
                    steps,
                    1e-5,
                    Conversion::Classic,
                )
                .unwrap()
            })
        });
        c.bench_function(&format!("wor_z_tables_{name}"), |b| {
            b.iter(|| WorGaussian::new(black_box(z)).unwrap())
        });
        let w = WorGaussian::new(z).unwrap();
        c.bench_function(&format!("wor_integer_curve_{name}"), |b| {
            b.iter(|| w.integer_curve(black_box(rate)).unwrap())
        });
    }
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

criterion_group!(benches, dpsgd, without_replacement, objpert, alg1);
criterion_main!(benches);
