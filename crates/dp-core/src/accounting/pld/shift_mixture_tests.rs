//! The shift mixture's loss, its inverse and its PLD against the Gaussian's closed form and
//! against a direct integration of the two mixtures' densities.

use super::*;
use crate::accounting::gaussian;
use crate::special::norm_pdf;

fn config(h: f64) -> PldConfig {
    PldConfig {
        grid_step: h,
        ..PldConfig::default()
    }
}

/// δ(ε) = ∫ (p(x) − e^ε q(x))₊ dx by the midpoint rule on a fine grid: independent of the
/// loss, its inverse and the discretisation.
fn delta_by_quadrature(components: &[(f64, f64)], epsilon: f64) -> f64 {
    let density = |x: f64, sign: f64| -> f64 {
        components
            .iter()
            .map(|&(w, s)| w * norm_pdf(x - sign * s))
            .sum()
    };
    let (a, h) = (-40.0, 1e-4);
    (0..800_000)
        .map(|i| {
            let x = a + (i as f64 + 0.5) * h;
            (density(x, 1.0) - epsilon.exp() * density(x, -1.0)).max(0.0) * h
        })
        .sum()
}

#[test]
fn one_shift_is_the_gaussian_at_twice_it() {
    for s in [0.3, 1.0, 2.5] {
        let pair = GaussianShiftMixture::new(&[(1.0, s)], 0.0).unwrap();
        let pld = pair.pld(&config(1e-4)).unwrap();
        for eps in [0.0, 0.5, 1.0, 3.0] {
            let exact = gaussian::delta(eps, 1.0, 2.0 * s).unwrap();
            let got = pld.delta(eps).unwrap();
            assert!(
                got >= exact && got <= exact * 1.001 + 1e-12,
                "s = {s}, ε = {eps}: {got} vs {exact}"
            );
        }
    }
}

#[test]
fn the_loss_is_odd_rising_and_inverted() {
    let pair = GaussianShiftMixture::new(&[(0.9, 0.0), (0.09, 1.0), (0.01, 2.0)], 0.0).unwrap();
    let direct = |x: f64| -> f64 {
        let up: f64 = [(0.9, 0.0), (0.09, 1.0), (0.01, 2.0)]
            .iter()
            .map(|&(w, s): &(f64, f64)| w * (s * x - 0.5 * s * s).exp())
            .sum();
        let down: f64 = [(0.9, 0.0), (0.09, 1.0), (0.01, 2.0)]
            .iter()
            .map(|&(w, s): &(f64, f64)| w * (-s * x - 0.5 * s * s).exp())
            .sum();
        (up / down).ln()
    };
    let mut last = f64::NEG_INFINITY;
    for i in -80..=80 {
        let x = i as f64 * 0.25;
        let l = pair.loss(x);
        assert!((l - direct(x)).abs() <= 1e-12 * (1.0 + l.abs()), "x = {x}");
        assert!(
            (l + pair.loss(-x)).abs() <= 1e-12 * (1.0 + l.abs()),
            "odd at {x}"
        );
        assert!(l > last, "rising at {x}");
        last = l;
        let back = pair.output_at(l);
        assert!((back - x).abs() <= 1e-9 * (1.0 + x.abs()), "{back} vs {x}");
    }
    // Far out, where the slope is 2·max s.
    let x = pair.output_at(4000.0);
    assert!((pair.loss(x) - 4000.0).abs() <= 1e-9 * 4000.0);
}

#[test]
fn one_step_matches_the_integrated_densities() {
    for components in [
        vec![(0.9, 0.0), (0.1, 1.5)],
        vec![(0.95, 0.0), (0.0475, 0.8), (0.0025, 1.6)],
    ] {
        let pair = GaussianShiftMixture::new(&components, 0.0).unwrap();
        let pld = pair.pld(&config(1e-4)).unwrap();
        for eps in [0.0, 0.3, 1.0, 2.0] {
            let exact = delta_by_quadrature(&components, eps);
            let got = pld.delta(eps).unwrap();
            assert!(
                got >= exact - 1e-10 && got <= exact * 1.001 + 1e-9,
                "{components:?} at ε = {eps}: {got} vs {exact}"
            );
        }
    }
}

#[test]
fn the_missing_mass_is_charged() {
    let pair = GaussianShiftMixture::new(&[(0.9, 0.0), (0.1, 1.0)], 1e-6).unwrap();
    let whole = GaussianShiftMixture::new(&[(0.9, 0.0), (0.1, 1.0)], 0.0).unwrap();
    let (cut, full) = (
        pair.pld(&config(1e-3)).unwrap(),
        whole.pld(&config(1e-3)).unwrap(),
    );
    assert!(cut.remove().infinity_mass() >= 1e-6);
    assert_eq!(cut.epsilon(5e-7).unwrap(), f64::INFINITY);
    for eps in [0.0, 1.0, 5.0, 30.0] {
        let (a, b) = (cut.delta(eps).unwrap(), full.delta(eps).unwrap());
        assert!(
            a >= 1e-6 && a >= b * (1.0 - 1e-6) - 1e-15,
            "ε = {eps}: {a} vs {b}"
        );
    }
    // Composed, it stays charged once per step: lost unless no step loses it.
    let ten = cut.self_compose(10).unwrap();
    let lost = 1.0 - (1.0f64 - 1e-6).powi(10);
    assert!(ten.remove().infinity_mass() >= lost * (1.0 - 1e-9));
}

#[test]
fn degenerate_pairs_are_refused() {
    let bad: [(&[(f64, f64)], f64); 7] = [
        (&[], 0.0),
        (&[(1.0, 0.0)], 0.0),
        (&[(0.0, 1.0), (1.0, 0.0)], 0.0),
        (&[(-0.1, 1.0)], 0.0),
        (&[(1.0, f64::NAN)], 0.0),
        (&[(1.0, 1.0)], 1.0),
        (&[(f64::INFINITY, 1.0)], 0.0),
    ];
    for (components, missing) in bad {
        assert!(
            GaussianShiftMixture::new(components, missing).is_err(),
            "{components:?}, missing {missing}"
        );
    }
}
