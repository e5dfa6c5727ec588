//! Unit tests of `subsampled_gaussian_wor` (the reference values of Avent et al. and the
//! high-precision table are in `tests/wor_reference_values.rs`).

use super::*;

/// The theorem written out for α = 3 with the closed-form differences
/// M₂ = a₂ − 1 and M₄ = a₄ − 4a₃ + 6a₂ − 3 (a_i = e^{i(i−1)/(2z²)}).
fn theorem_at_three(gamma: f64, z: f64) -> f64 {
    let a = |i: f64| (i * (i - 1.0) / (2.0 * z * z)).exp();
    let m2 = a(2.0) - 1.0;
    let m4 = a(4.0) - 4.0 * a(3.0) + 6.0 * a(2.0) - 3.0;
    let j2 = 3.0 * gamma * gamma * (4.0 * m2).min(2.0 * a(2.0));
    let j3 = gamma.powi(3) * (4.0 * (m2 * m4).sqrt()).min(2.0 * a(3.0));
    (j2 + j3).ln_1p() / 2.0
}

#[test]
fn order_three_matches_the_theorem_written_out() {
    for (gamma, z) in [(0.01, 0.8), (0.2, 1.0), (0.5, 2.0), (1e-3, 3.0)] {
        let w = WorGaussian::new(z).unwrap();
        let got = w.theorem_bound(gamma, 3).unwrap();
        let expect = theorem_at_three(gamma, z);
        assert!(
            (got / expect - 1.0).abs() < 1e-11,
            "γ {gamma} z {z}: {got} vs {expect}"
        );
        assert_eq!(w.rdp(gamma, 3.0).unwrap(), got.min(1.5 / (z * z)));
    }
}

#[test]
fn whole_dataset_is_the_plain_gaussian_which_the_theorem_alone_overstates() {
    for z in [0.7, 1.0, 5.0] {
        let w = WorGaussian::new(z).unwrap();
        for alpha in [2u32, 3, 10, 200, 1000] {
            let a = f64::from(alpha);
            let exact = a / (2.0 * z * z);
            assert_eq!(w.rdp(1.0, a).unwrap(), exact);
            // The theorem at γ = 1 dominates the exact expansion A = a_α term by term.
            let theorem = w.theorem_bound(1.0, alpha).unwrap();
            assert!(theorem >= exact, "z {z} α {alpha}: {theorem} < {exact}");
            // Just below γ = 1 the cap is what binds.
            assert_eq!(w.rdp(1.0 - 1e-9, a).unwrap(), exact);
        }
    }
}

#[test]
fn tiny_rates_give_the_quadratic_leading_term() {
    // ε'(α) = ln(1 + γ² C(α,2) min(4(e^{1/z²} − 1), 2e^{1/z²}) + O(γ³))/(α − 1).
    for z in [0.9, 4.0] {
        let w = WorGaussian::new(z).unwrap();
        let c2 = (4.0 * (1.0 / (z * z)).exp_m1()).min(2.0 * (1.0 / (z * z)).exp());
        // (At larger α the j = α term γ^α e^{(α−1)α/(2z²)} takes over unless γ is smaller still.)
        for alpha in [2.0, 5.0, 20.0] {
            let gamma = 1e-9;
            let expect = gamma * gamma * alpha / 2.0 * c2;
            let got = w.rdp(gamma, alpha).unwrap();
            assert!(
                (got / expect - 1.0).abs() < 1e-6,
                "z {z} α {alpha}: {got} vs {expect}"
            );
        }
        // And so ε → 0 with the rate under the improved conversion.
        let (e, _) = w.epsilon(1e-9, 1000, 1e-5, Conversion::Improved).unwrap();
        assert!(e < 1e-6, "{e}");
    }
}

#[test]
fn monotone_in_noise_rate_steps_and_order() {
    let zs = [0.6, 1.0, 2.0, 8.0, 30.0];
    let ws: Vec<_> = zs.iter().map(|&z| WorGaussian::new(z).unwrap()).collect();
    for gamma in [1e-3, 0.05, 0.5] {
        let curves: Vec<_> = ws.iter().map(|w| w.integer_curve(gamma).unwrap()).collect();
        for pair in curves.windows(2) {
            for (k, (a, b)) in pair[0].eps.iter().zip(&pair[1].eps).enumerate() {
                assert!(b <= a, "γ {gamma} order {}: more noise, {b} > {a}", k + 2);
            }
        }
        for c in &curves {
            for (k, w) in c.eps.windows(2).enumerate() {
                assert!(w[1] >= w[0], "γ {gamma}: order {} to {}", k + 2, k + 3);
            }
        }
    }
    for w in &ws {
        let mut prev = 0.0;
        for gamma in [1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0] {
            let e = w.epsilon(gamma, 100, 1e-5, Conversion::Classic).unwrap().0;
            assert!(e >= prev, "z {}: γ {gamma}", w.noise_multiplier());
            prev = e;
        }
        let mut prev = 0.0;
        for steps in [1, 10, 100, 10_000] {
            let e = w.epsilon(0.01, steps, 1e-5, Conversion::Classic).unwrap().0;
            assert!(e > prev, "z {}: T {steps}", w.noise_multiplier());
            prev = e;
        }
    }
}

#[test]
fn fractional_orders_interpolate_the_log_moment_and_large_orders_are_capped() {
    let w = WorGaussian::new(1.5).unwrap();
    let gamma = 0.02;
    let k = |a: u32| f64::from(a - 1) * w.rdp(gamma, f64::from(a)).unwrap();
    let got = w.rdp(gamma, 12.25).unwrap();
    let expect = (0.75 * k(12) + 0.25 * k(13)) / 11.25;
    assert!((got - expect).abs() < 1e-15 * expect, "{got} vs {expect}");
    // Between 1 and 2 the log moment is interpolated from 0 at α = 1.
    let e2 = w.rdp(gamma, 2.0).unwrap();
    assert!((w.rdp(gamma, 1.5).unwrap() - e2).abs() < 1e-16);
    // Above 1000 only the Gaussian cap is left.
    assert_eq!(w.rdp(gamma, 1500.0).unwrap(), 1500.0 / (2.0 * 1.5 * 1.5));
    assert!(w.rdp(gamma, 1000.5).unwrap() > w.rdp(gamma, 1000.0).unwrap());
    // The integer curve is the full grid.
    let c = w.integer_curve(gamma).unwrap();
    assert_eq!(c.orders.len(), 999);
    assert_eq!((c.orders[0], c.orders[998]), (2.0, 1000.0));
    assert_eq!(c.eps[11], w.rdp(gamma, 13.0).unwrap());
}

#[test]
fn stopping_early_finds_the_minimum_over_the_whole_grid() {
    for (z, gamma, steps) in [
        (0.8, 0.01, 3000),
        (1.0, 0.001, 20),
        (2.0, 0.2, 50),
        (8.0, 0.001, 2000),
        (30.0, 0.05, 10),
        (5.0, 1.0, 4),
    ] {
        let w = WorGaussian::new(z).unwrap();
        let full = w.integer_curve(gamma).unwrap().scaled(steps);
        for conversion in [Conversion::Classic, Conversion::Improved] {
            for delta in [1e-3, 1e-5, 1e-10] {
                let got = w.epsilon(gamma, steps, delta, conversion).unwrap();
                let expect = full.epsilon_with(delta, conversion).unwrap();
                assert_eq!(
                    got, expect,
                    "z {z} γ {gamma} T {steps} δ {delta} {conversion:?}"
                );
            }
        }
    }
}

#[test]
fn epsilon_is_the_classic_minimum_over_integer_orders() {
    let w = WorGaussian::new(1.0).unwrap();
    let (gamma, steps, delta) = (0.004, 500, 1e-6);
    let (e, order) = w.epsilon(gamma, steps, delta, Conversion::Classic).unwrap();
    let mut best = (f64::INFINITY, 0.0);
    for a in 2..=MAX_ORDER {
        let a = f64::from(a);
        let v = steps as f64 * w.rdp(gamma, a).unwrap() + (1.0 / delta).ln() / (a - 1.0);
        if v < best.0 {
            best = (v, a);
        }
    }
    assert_eq!((e, order), best);
    let (improved, _) = w
        .epsilon(gamma, steps, delta, Conversion::Improved)
        .unwrap();
    assert!(improved < e);
    let (free, _) = epsilon(gamma, 1.0, steps, delta, Conversion::Classic).unwrap();
    assert_eq!(free, e);
}

#[test]
fn bad_inputs_name_their_parameter() {
    use crate::error::DpError;
    let name = |r: Result<_>| match r {
        Err(DpError::OutOfRange { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(name(WorGaussian::new(0.0).map(|_| ())), "noise-multiplier");
    assert_eq!(
        name(WorGaussian::new(f64::NAN).map(|_| ())),
        "noise-multiplier"
    );
    let w = WorGaussian::new(1.0).unwrap();
    assert_eq!(name(w.rdp(0.0, 2.0).map(|_| ())), "sampling-rate");
    assert_eq!(name(w.rdp(1.5, 2.0).map(|_| ())), "sampling-rate");
    assert_eq!(name(w.rdp(0.1, 1.0).map(|_| ())), "order");
    assert_eq!(name(w.theorem_bound(0.1, 1001).map(|_| ())), "order");
    let e = w.epsilon(0.1, 10, 0.0, Conversion::Classic).map(|_| ());
    assert_eq!(name(e), "delta");
}

#[test]
fn below_the_quadrature_floor_the_gaussian_branch_is_the_minimum() {
    // Where the Δ terms are no longer integrated (z < 0.1) the theorem's minimum already picks
    // 2e^{(j−1)ε(j)} for every j, so bounding the Mⱼ in closed form there changes no value.
    use crate::accounting::forward_differences::Grid;
    use crate::special::ln_expm1;
    for z in [0.02, 0.05, 0.1] {
        let mut g = Grid::new(z);
        let ln_m: Vec<f64> = (0..=500usize)
            .map(|i| match i {
                0 => 0.0,
                1 => ln_expm1(1.0 / (z * z)),
                _ => g.log_moment(2 * i),
            })
            .collect();
        for j in 2..=MAX_ORDER as usize {
            let delta_term = 2.0 * LN_2 + 0.5 * (ln_m[j / 2] + ln_m[j.div_ceil(2)]);
            let jf = j as f64;
            let gauss = LN_2 + (jf - 1.0) * jf / (2.0 * z * z);
            assert!(delta_term > gauss, "z {z} j {j}: {delta_term} <= {gauss}");
        }
    }
}

#[test]
fn tiny_noise_gives_huge_or_infinite_rdp_never_nan_or_zero() {
    for z in [1e-300, 1e-200, 1e-154, 1e-100, 1e-10, 1e-5, 1e-3, 0.05] {
        let w = WorGaussian::new(z).unwrap();
        for rate in [1e-6, 0.01, 0.5, 1.0] {
            for alpha in [2.0, 2.5, 17.0, 1000.0, 4096.0] {
                let e = w.rdp(rate, alpha).unwrap();
                assert!(e > 100.0, "z {z} γ {rate} α {alpha}: {e}");
                if z <= 1e-200 {
                    assert_eq!(e, f64::INFINITY, "z {z} γ {rate} α {alpha}");
                }
            }
        }
    }
}
