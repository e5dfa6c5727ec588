//! Unit tests of `subsampled_gaussian` (kept in a sibling file so the accountant stays short).

use super::*;
use crate::accounting::quadrature::log_integrate;
use crate::special::LN_SQRT_2PI;

/// ln A_α by direct quadrature of E_{N(0,z²)}[(1 − q + q e^{(2x−1)/(2z²)})^α]; accurate to
/// ~1e-14 absolute in ln A_α (it does not resolve A_α − 1 below that).
fn log_a_quadrature(q: f64, z: f64, alpha: f64) -> f64 {
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    let g = |x: f64| {
        let y = (2.0 * x - 1.0) / (2.0 * z * z);
        let mix = if q == 1.0 {
            y
        } else {
            log_add_exp(l1q, lq + y)
        };
        -0.5 * (x / z).powi(2) - LN_SQRT_2PI - z.ln() + alpha * mix
    };
    // The tilted integrand peaks between 0 and α; cover 40 noise scales either side.
    let (lo, hi) = (-40.0 * z - 1.0, alpha + 40.0 * z + 1.0);
    let panels = (((hi - lo) / (0.25 * z).min(z * z)).ceil() as usize).max(200);
    log_integrate(g, lo, hi, panels)
}

fn frac_series(q: f64, z: f64, alpha: f64) -> f64 {
    let mut t = FracTerms::new(alpha, q.ln(), (-q).ln_1p());
    log_a_fractional(&mut t, q.ln(), (-q).ln_1p(), z).unwrap() / (alpha - 1.0)
}

#[test]
fn full_batch_is_the_gaussian_mechanism() {
    for &a in &[1.01, 1.5, 2.0, 7.25, 64.0] {
        for &z in &[0.3, 1.0, 5.0] {
            let e = rdp(1.0, z, a).unwrap();
            assert!(
                (e - a / (2.0 * z * z)).abs() < 1e-15 * e.max(1.0),
                "a {a} z {z}"
            );
        }
    }
    // Near q = 1 the general formulas approach the same value.
    for &a in &[2.0, 3.5, 10.0] {
        let e = rdp(1.0 - 1e-12, 1.0, a).unwrap();
        assert!((e - a / 2.0).abs() < 1e-9, "a {a}: {e}");
    }
}

#[test]
fn order_two_closed_form() {
    // A_2 = 1 + q²(e^{1/z²} − 1) exactly.
    for &(q, z) in &[(1e-5, 1.0), (0.01, 0.7), (0.3, 3.0), (1e-3, 1000.0)] {
        let e = rdp(q, z, 2.0).unwrap();
        let expect = (q * q * (1.0 / (z * z)).exp_m1()).ln_1p();
        assert!(
            (e - expect).abs() <= 1e-13 * expect,
            "q {q} z {z}: {e} vs {expect}"
        );
    }
}

#[test]
fn fractional_series_agrees_with_integer_formula() {
    for &q in &[1e-5, 1e-3, 0.01, 0.2, 0.7] {
        for &z in &[0.5, 1.0, 2.75, 20.0] {
            for &a in &[2.0, 3.0, 8.0, 32.0] {
                let int = rdp(q, z, a).unwrap();
                let frac = frac_series(q, z, a);
                assert!(
                    frac >= int * (1.0 - 1e-12) && frac <= int * (1.0 + 1e-9),
                    "q {q} z {z} a {a}: {frac} vs {int}"
                );
                // Continuity across the integer.
                let near = rdp(q, z, a + 1e-9).unwrap();
                assert!(
                    (near - int).abs() <= 1e-6 * int + 1e-12,
                    "q {q} z {z} a {a}: {near} vs {int}"
                );
            }
        }
    }
}

#[test]
fn matches_direct_quadrature() {
    for &q in &[1e-5, 1e-3, 0.00708, 0.1, 0.5, 0.95] {
        for &z in &[0.3, 0.8, 2.75, 10.0, 1000.0] {
            for &a in &[1.01, 1.5, 2.5, 7.25, 19.5, 64.0] {
                let e = rdp(q, z, a).unwrap();
                // Direct quadrature of A_α: absolute accuracy in ln A_α only.
                let quad = log_a_quadrature(q, z, a) / (a - 1.0);
                let tol = 1e-8 * quad.abs() + 1e-13 / (a - 1.0);
                assert!(
                    (e - quad).abs() <= tol,
                    "q {q} z {z} a {a}: {e} vs quadrature {quad}"
                );
                // Non-negative-integrand quadrature of A_α − 1: relative accuracy (the series
                // rounds up by at most 1e-9 relative).
                let fine = log_add_exp(0.0, log_a_minus_one_quadrature(a, q, z)) / (a - 1.0);
                let tol = 2e-9;
                assert!(
                    (e - fine).abs() <= tol * fine,
                    "q {q} z {z} a {a}: {e} vs {fine}"
                );
                assert!(
                    e >= fine * (1.0 - 1e-11),
                    "under-reports: q {q} z {z} a {a}: {e} vs {fine}"
                );
            }
        }
    }
}

#[test]
fn small_q_limit() {
    // A_α = 1 + C(α,2) q² (e^{1/z²} − 1) + O(q³), so ε(α) ≈ α q² (e^{1/z²} − 1)/2.
    for a in [1.5f64, 2.5, 4.0, 10.5] {
        for z in [0.8f64, 2.0, 10.0] {
            let q = 1e-6;
            let lead = a * q * q * (1.0 / (z * z)).exp_m1() / 2.0;
            let e = rdp(q, z, a).unwrap();
            assert!((e / lead - 1.0).abs() < 1e-3, "a {a} z {z}: {e} vs {lead}");
            // and below the textbook bound 2 q² α / z² for z ≥ 1 in this regime
            if z >= 1.0 {
                assert!(e <= 2.0 * q * q * a / (z * z));
            }
        }
    }
}

#[test]
fn monotone_in_q_z_and_alpha() {
    let orders = crate::accounting::rdp_curve::default_orders();
    let mut sg = SubsampledGaussian::new(0.01, &orders).unwrap();
    let e1 = sg.rdp_per_step(1.0).unwrap();
    let e2 = sg.rdp_per_step(1.3).unwrap();
    assert!(
        e1.iter().zip(&e2).all(|(a, b)| b <= a),
        "not decreasing in z"
    );
    assert!(
        e1.windows(2).all(|w| w[0] <= w[1] * (1.0 + 1e-12)),
        "not increasing in alpha"
    );
    let mut sg2 = SubsampledGaussian::new(0.02, &orders).unwrap();
    let e3 = sg2.rdp_per_step(1.0).unwrap();
    assert!(
        e1.iter().zip(&e3).all(|(a, b)| b >= a),
        "not increasing in q"
    );
}

#[test]
fn stable_over_the_supported_range() {
    let orders = crate::accounting::rdp_curve::default_orders();
    for &q in &[1e-5, 1e-3, 0.1, 0.5, 0.99, 1.0] {
        for &z in &[0.3, 1.0, 30.0, 1000.0] {
            let eps = SubsampledGaussian::new(q, &orders)
                .unwrap()
                .rdp_per_step(z)
                .unwrap();
            assert!(
                eps.iter().all(|e| e.is_finite() && *e >= 0.0),
                "q {q} z {z}"
            );
            assert!(
                eps.windows(2).all(|w| w[0] <= w[1] * (1.0 + 1e-9) + 1e-15),
                "q {q} z {z}: {eps:?}"
            );
        }
    }
}

#[test]
fn calibration_is_on_the_safe_side() {
    let orders = crate::accounting::rdp_curve::default_orders();
    let z = calibrate_noise_multiplier(0.01, 1000, 1.0, 1e-5, &orders).unwrap();
    let e = dpsgd_epsilon(0.01, z, 1000, 1e-5, &orders).unwrap();
    assert!(e <= 1.0 && e > 1.0 - 1e-8, "{e}");
    assert!(dpsgd_epsilon(0.01, z * (1.0 - 1e-9), 1000, 1e-5, &orders).unwrap() > 1.0 - 1e-8);
}

#[test]
fn input_validation() {
    assert!(matches!(
        rdp(0.0, 1.0, 2.0),
        Err(DpError::OutOfRange {
            name: "sampling-rate",
            ..
        })
    ));
    assert!(matches!(
        rdp(1.5, 1.0, 2.0),
        Err(DpError::OutOfRange {
            name: "sampling-rate",
            ..
        })
    ));
    assert!(matches!(
        rdp(0.1, 0.0, 2.0),
        Err(DpError::OutOfRange {
            name: "noise-multiplier",
            ..
        })
    ));
    assert!(matches!(
        rdp(0.1, 1.0, 1.0),
        Err(DpError::OutOfRange { name: "order", .. })
    ));
    assert!(matches!(
        calibrate_noise_multiplier(0.1, 0, 1.0, 1e-5, &[2.0]),
        Err(DpError::OutOfRange { name: "steps", .. })
    ));
}

/// The single-term bounds on ln A_α: α ln q + α(α−1)/(2z²) below (floored at 0), Minkowski's
/// α ln(1 − q + q e^{(α−1)/(2z²)}) above.
fn single_term_bounds(q: f64, z: f64, alpha: f64) -> (f64, f64) {
    let s = 0.5 / (z * z);
    let lower = (alpha * q.ln() + alpha * (alpha - 1.0) * s).max(0.0);
    let upper = alpha * log_add_exp((-q).ln_1p(), q.ln() + (alpha - 1.0) * s);
    (lower, upper)
}

#[test]
fn small_noise_fractional_orders_sit_between_the_single_term_bounds() {
    for q in [1e-3, 0.01, 0.5, 0.99] {
        for z in [1e-300, 1e-160, 1e-100, 1e-5, 1e-3, 0.0099, 0.01, 0.03] {
            for alpha in [1.5, 2.5, 12.3, 19.5] {
                let v = rdp(q, z, alpha).unwrap() * (alpha - 1.0);
                let (lower, upper) = single_term_bounds(q, z, alpha);
                let at = format!("q {q} z {z:e} α {alpha}");
                assert!(v >= lower * (1.0 - 1e-12), "{at}: {v:e} < {lower:e}");
                if z < MIN_SERIES_NOISE {
                    assert!(v <= upper * (1.0 + 1e-12), "{at}: {v:e} > {upper:e}");
                }
            }
        }
    }
}

#[test]
fn the_series_and_the_closed_forms_agree_at_their_threshold() {
    let (above, below) = (
        MIN_SERIES_NOISE * (1.0 + 1e-9),
        MIN_SERIES_NOISE * (1.0 - 1e-9),
    );
    for q in [1e-3, 0.01, 0.5] {
        for alpha in [1.5, 2.5, 12.3] {
            let (a, b) = (rdp(q, above, alpha).unwrap(), rdp(q, below, alpha).unwrap());
            assert!(
                b >= a * (1.0 - 1e-12),
                "q {q} α {alpha}: ε went down, {b} < {a}"
            );
            assert!((b - a) / a < 1e-6, "q {q} α {alpha}: {a} vs {b}");
        }
    }
}
