//! Degenerate inputs: noise multipliers down to 1e-300 and targets up to 1e300. The accountants
//! must answer +∞ or a clear error, promptly and in bounded memory, and never under-report ε
//! (docs/limits.md, "Calculator limits").

use std::time::{Duration, Instant};

use dp_core::DpError;
use dp_core::accounting::subsampled_gaussian::{
    MIN_CALIBRATED_NOISE, SubsampledGaussian, calibrate_dpsgd, calibrate_noise_multiplier,
    dpsgd_epsilon,
};
use dp_core::accounting::subsampled_gaussian_wor::{self, integer_orders};
use dp_core::accounting::{
    Accountant, Conversion, Event, RdpAccountant, Target, default_orders, epsilon_of, gaussian,
};
use proptest::prelude::*;

/// Noise multipliers from absurd to ordinary, increasing.
const ZS: [f64; 9] = [1e-300, 1e-200, 1e-156, 1e-154, 1e-10, 1e-5, 1e-3, 0.1, 1.0];

/// Runs `f`, failing if it takes longer than `secs` (debug builds of the tests are optimised).
fn within<T>(secs: u64, what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    let took = t.elapsed();
    assert!(took < Duration::from_secs(secs), "{what} took {took:?}");
    out
}

fn poisson(q: f64, z: f64, steps: u64) -> f64 {
    dpsgd_epsilon(q, z, steps, 1e-5, &default_orders()).unwrap()
}

fn wor(q: f64, z: f64, steps: u64) -> f64 {
    subsampled_gaussian_wor::epsilon(q, z, steps, 1e-5, Conversion::Improved)
        .unwrap()
        .0
}

/// ε over [`ZS`] is non-increasing, +∞ where 1/z² overflows, and far from 0 below z = 1e-3.
fn check_profile(name: &str, eps: &[f64]) {
    for (w, z) in eps.windows(2).zip(ZS.windows(2)) {
        assert!(
            w[0] >= w[1],
            "{name}: ε({}) = {} < ε({}) = {}",
            z[0],
            w[0],
            z[1],
            w[1]
        );
    }
    for (&e, &z) in eps.iter().zip(&ZS) {
        if z <= 1e-156 {
            assert_eq!(e, f64::INFINITY, "{name}: ε({z})");
        }
        if z <= 1e-3 {
            assert!(e > 1e3, "{name}: ε({z}) = {e}");
        }
    }
}

#[test]
fn poisson_epsilon_is_non_increasing_in_z_and_never_zero_for_tiny_z() {
    // The reported probe: q = 0.01, T = 10 printed ε = 0 for every z below ~1e-156.
    assert_eq!(poisson(0.01, 1e-200, 10), f64::INFINITY);
    for q in [1e-6, 0.01, 0.5, 0.99] {
        let eps: Vec<f64> = within(20, "Poisson profile", || {
            ZS.iter().map(|&z| poisson(q, z, 10)).collect()
        });
        check_profile(&format!("Poisson q = {q}"), &eps);
    }
}

#[test]
fn poisson_rdp_is_never_below_its_single_term_lower_bound() {
    // ln A_α ≥ α ln q + α(α − 1)/(2z²) (keep only (q e^y)^α), at every order and z.
    let orders = default_orders();
    for q in [1e-6, 0.01, 0.3, 0.9] {
        let mut sg = SubsampledGaussian::new(q, &orders).unwrap();
        for k in 0..=33 {
            let z = 10f64.powf(-160.0 + 5.0 * f64::from(k)).min(3.0);
            let eps = within(10, "one RDP curve", || sg.rdp_per_step(z).unwrap());
            for (&a, &e) in orders.iter().zip(&eps) {
                let floor = (a * q.ln() + a * (a - 1.0) / (2.0 * z * z)).max(0.0) / (a - 1.0);
                assert!(
                    e >= floor * (1.0 - 1e-12),
                    "q {q} z {z:e} α {a}: {e:e} < {floor:e}"
                );
            }
        }
    }
}

#[test]
fn without_replacement_tiny_z_is_fast_bounded_and_monotone() {
    for q in [1e-3, 0.01, 0.5, 1.0] {
        let eps: Vec<f64> = ZS
            .iter()
            .map(|&z| within(5, &format!("WOR z = {z}"), || wor(q, z, 10)))
            .collect();
        check_profile(&format!("WOR q = {q}"), &eps);
    }
    // z = 1e-5 once held 2.4 GB of quadrature panels (z = 1e-10: 840 GB).
    if let Some(peak) = peak_rss_kb() {
        assert!(peak < 1_000_000, "peak resident memory {peak} kB");
    }
}

/// Peak resident set size of this process (Linux), in kB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn calibration_to_huge_targets_is_refused_promptly() {
    let no_long_numbers = |msg: &str| {
        let longest = msg.split(|c: char| !c.is_ascii_digit()).map(str::len).max();
        assert!(longest < Some(20), "a long number in: {msg}");
    };
    let r = within(20, "Poisson calibration to 1e300", || {
        calibrate_noise_multiplier(0.01, 10, 1e300, 1e-5, &default_orders())
    });
    match r {
        Err(DpError::Calibration(msg)) => {
            assert!(msg.contains("beyond") && msg.contains("1e-3"), "{msg}");
            no_long_numbers(&msg);
        }
        other => panic!("{other:?}"),
    }
    let rdp = RdpAccountant::with_orders(&integer_orders()).unwrap();
    let wor_run = |z| Event::dpsgd_without_replacement(0.01, z, 10);
    let r = within(20, "WOR calibration to 1e30", || {
        calibrate_dpsgd(
            || rdp.fresh(),
            wor_run,
            Target::new(1e30, 1e-5).unwrap(),
            0.01,
            10,
        )
    });
    assert!(
        matches!(&r, Err(DpError::Calibration(m)) if m.contains("beyond")),
        "{r:?}"
    );
    // Just above what z = 1e-3 reaches, the answer is at least that floor.
    let floor_eps = epsilon_of(rdp.fresh(), &wor_run(MIN_CALIBRATED_NOISE).unwrap(), 1e-5);
    let target = Target::new(0.5 * floor_eps.unwrap(), 1e-5).unwrap();
    let z = calibrate_dpsgd(|| rdp.fresh(), wor_run, target, 0.01, 10).unwrap();
    assert!(z >= MIN_CALIBRATED_NOISE, "{z}");
}

#[test]
fn an_unreachable_target_names_the_target_not_an_infinite_noise_multiplier() {
    // Classic conversion on orders ≤ 1000: ε ≥ ln(1/δ)/999 ≈ 0.0115 however large z is.
    let rdp = RdpAccountant::with_orders(&integer_orders())
        .unwrap()
        .with_conversion(Conversion::Classic);
    let r = within(20, "unreachable calibration", || {
        calibrate_dpsgd(
            || rdp.fresh(),
            |z| Event::dpsgd_without_replacement(0.01, z, 1_000_000_000),
            Target::new(1e-6, 1e-5).unwrap(),
            0.01,
            1_000_000_000,
        )
    });
    match r {
        Err(DpError::Calibration(msg)) => {
            assert!(msg.contains("epsilon = 1e-6"), "{msg}");
            assert!(!msg.contains("inf"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn gaussian_epsilon_of_tiny_sigma_is_infinite_and_monotone() {
    let sigmas = [1e-300, 1e-160, 1e-154, 1e-100, 1e-10, 0.1, 1.0];
    let eps: Vec<f64> = sigmas
        .iter()
        .map(|&s| gaussian::epsilon(1e-5, s, 1.0).unwrap())
        .collect();
    assert_eq!(eps[0], f64::INFINITY);
    assert_eq!(eps[1], f64::INFINITY);
    assert!(eps.windows(2).all(|w| w[0] >= w[1]), "{eps:?}");
    let mut rdp = RdpAccountant::new();
    rdp.compose(&Event::gaussian(1e-160).unwrap(), 1).unwrap();
    assert_eq!(rdp.epsilon(1e-5).unwrap(), f64::INFINITY);
}

/// ε at z below z' ≤ 1e-3 is at least ε at z', and ε at z' is large: the body of the
/// random-tiny-z properties, for either sampling scheme's ε(q, z, steps).
fn tiny_z_pair(
    eps: fn(f64, f64, u64) -> f64,
    log_z: f64,
    gap: f64,
    log_q: f64,
) -> Result<(), TestCaseError> {
    let (z, q) = (10f64.powf(log_z), 10f64.powf(log_q));
    prop_assume!(z > 0.0);
    let z2 = (10f64.powf(log_z + gap)).min(1e-3);
    let (e, e2) = (eps(q, z, 100), eps(q, z2, 100));
    prop_assert!(e >= e2, "ε({z:e}) = {e} < ε({z2:e}) = {e2}");
    prop_assert!(e2 > 1e3, "ε({z2:e}) = {e2}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Over random tiny noise: ε(z) ≥ ε(z') for z < z', and never small below z = 1e-3.
    #[test]
    fn poisson_epsilon_is_monotone_and_large_for_random_tiny_z(
        log_z in -320.0f64..-3.0,
        gap in 0.0f64..40.0,
        log_q in -6.0f64..0.0,
    ) {
        tiny_z_pair(poisson, log_z, gap, log_q)?;
    }

    /// The same for sampling without replacement, whose bound once hung or aborted here.
    #[test]
    fn without_replacement_epsilon_is_monotone_and_large_for_random_tiny_z(
        log_z in -320.0f64..-3.0,
        gap in 0.0f64..40.0,
        log_q in -6.0f64..0.0,
    ) {
        tiny_z_pair(wor, log_z, gap, log_q)?;
    }
}
