//! Tests of the ceiling: audit.md §6's Gaussian table and §5's GDP row, the PLD curve against
//! the closed form, and the orderings a ceiling must keep (below the certificate, rising with
//! the runs, the (ε, δ) curve above a mechanism's own).

use super::*;
use crate::accounting::pld::{Pld, PldConfig};

const GAMMA: f64 = 0.05;
const DELTA: f64 = 1e-5;

/// audit.md §6: analytic-Gaussian σ at δ = 1e-5 for ε = 1, 2, 4, 8, and the threshold test's
/// bound at the best threshold with expected counts for N = 10³, 10⁴, 10⁵ per side.
const SECTION_6: [(f64, f64, [f64; 3]); 4] = [
    (1.0, 3.7306, [0.13, 0.38, 0.60]),
    (2.0, 1.9938, [0.50, 0.93, 1.29]),
    (4.0, 1.0812, [1.30, 2.00, 2.59]),
    (8.0, 0.6002, [2.70, 3.78, 4.72]),
];
const RUNS: [u64; 3] = [1_000, 10_000, 100_000];

#[test]
fn gaussian_threshold_ceiling_is_the_reference_table() {
    for (epsilon, sigma, want) in SECTION_6 {
        let curve = Tradeoff::Gaussian { mu: 1.0 / sigma };
        for (n, want) in RUNS.into_iter().zip(want) {
            let got = ceiling(&curve, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
            // The table is printed to two decimals.
            assert!(
                (got - want).abs() <= 0.006,
                "ε = {epsilon}, N = {n}: ceiling {got:.4}, audit.md §6 {want}"
            );
            assert!(
                got < epsilon,
                "a ceiling above the true ε: {got} at ε = {epsilon}"
            );
        }
    }
}

#[test]
fn gaussian_gdp_ceiling_is_the_reference_row() {
    // audit.md §5: at ε_true = 2 the GDP estimate gives 1.32 / 1.78 / 1.93.
    let curve = Tradeoff::Gaussian { mu: 1.0 / 1.9938 };
    for (n, want) in RUNS.into_iter().zip([1.32, 1.78, 1.93]) {
        let got = ceiling(&curve, Statistic::Gdp, n, n, DELTA, GAMMA).unwrap();
        assert!((got - want).abs() <= 0.006, "N = {n}: {got:.4} vs {want}");
        assert!(got < 2.0);
    }
}

#[test]
fn the_pld_curve_gives_the_closed_forms_ceiling() {
    for (epsilon, sigma, _) in SECTION_6 {
        let pld = Pld::gaussian(sigma, 1.0, &PldConfig::default()).unwrap();
        let from_pld = Tradeoff::from_pmf(pld.remove());
        let closed = Tradeoff::Gaussian { mu: 1.0 / sigma };
        for n in RUNS {
            let a = ceiling(&from_pld, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
            let b = ceiling(&closed, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
            // The pessimistic discretisation may only help the attacker, and by little.
            assert!(
                a >= b - 1e-3 && a <= b + 0.02,
                "ε = {epsilon}, N = {n}: PLD {a:.4}, closed form {b:.4}"
            );
        }
    }
}

#[test]
fn a_pld_curve_is_a_trade_off_function() {
    let pld = Pld::subsampled_gaussian(0.01, 1.0, &PldConfig::default())
        .unwrap()
        .self_compose(100)
        .unwrap();
    for pmf in [pld.remove(), pld.add()] {
        let Tradeoff::Points(p) = Tradeoff::from_pmf(pmf) else {
            unreachable!()
        };
        assert_eq!(p[0].0, 0.0);
        assert_eq!(*p.last().unwrap(), (1.0, 0.0));
        assert!(p.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 >= w[1].1));
        // Below the diagonal: a test no better than a coin is on it.
        assert!(p.iter().all(|&(a, b)| a + b <= 1.0 + 1e-9));
    }
}

#[test]
fn ceiling_rises_with_the_runs_and_stays_below_the_certificate() {
    let certified = 4.0;
    let weakest = Tradeoff::EpsilonDelta {
        epsilon: certified,
        delta: DELTA,
    };
    let gaussian = Tradeoff::Gaussian { mu: 1.0 / 1.0812 };
    let mut last = 0.0;
    for n in [100u64, 1_000, 10_000, 100_000, 1_000_000] {
        let c = ceiling(&weakest, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
        let g = ceiling(&gaussian, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
        assert!(c >= last - 1e-9, "N = {n}: {c} below {last}");
        assert!(c < certified, "N = {n}: {c}");
        // Every (ε, δ)-DP mechanism's curve lies above the (ε, δ) curve, so its ceiling is
        // at most that curve's.
        assert!(
            g <= c + 1e-9,
            "N = {n}: Gaussian {g} above the (ε, δ) curve's {c}"
        );
        last = c;
    }
    // With a million runs the weakest (ε, δ) curve shows most of its ε: its kink is at
    // α = (1 − δ)/(1 + e^ε), a common event.
    assert!(last > 0.9 * certified, "{last}");
}

#[test]
fn no_runs_or_no_privacy_are_refused_or_zero() {
    let g = Tradeoff::Gaussian { mu: 1.0 };
    assert!(ceiling(&g, Statistic::Threshold, 0, 10, DELTA, GAMMA).is_err());
    assert!(ceiling(&g, Statistic::Threshold, 10, 10, DELTA, 0.0).is_err());
    assert!(
        ceiling(
            &Tradeoff::Gaussian { mu: f64::NAN },
            Statistic::Threshold,
            10,
            10,
            DELTA,
            GAMMA
        )
        .is_err()
    );
    // μ = 0: D and D′ give the same output, no test beats a coin.
    let none = Tradeoff::Gaussian { mu: 0.0 };
    assert_eq!(
        ceiling(&none, Statistic::Threshold, 10_000, 10_000, DELTA, GAMMA).unwrap(),
        0.0
    );
}

#[test]
fn a_certificates_curves_bound_the_gaussians_ceiling() {
    // σ = 1.0812 is certified at ε = 4, δ = 1e-5: its PLD joined with the (4, 1e-5) curve
    // gives the closed form's ceiling, and the (4, 1e-5) curve alone a higher one.
    let pld = Pld::gaussian(1.0812, 1.0, &PldConfig::default()).unwrap();
    let joined = certificate_curves(Some(&pld), 4.0, DELTA).unwrap();
    assert_eq!(joined.len(), 1, "the Gaussian PLD is symmetric");
    let stated = certificate_curves(None, 4.0, DELTA).unwrap();
    let n = 25_000;
    let a = ceiling_of(&joined, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    let b = ceiling_of(&stated, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    let g = ceiling(
        &Tradeoff::Gaussian { mu: 1.0 / 1.0812 },
        Statistic::Threshold,
        n,
        n,
        DELTA,
        GAMMA,
    )
    .unwrap();
    assert!((a - g).abs() < 0.02, "{a} vs {g}");
    assert!(b > a + 0.5, "{b} vs {a}");
    assert_eq!(
        ceiling_of(&[], Statistic::Threshold, n, n, DELTA, GAMMA).unwrap(),
        0.0
    );
}

/// The profile's curve of the Gaussian PLD never rises above the closed form (a curve above
/// the mechanism's would lower a ceiling below what a test can reach), and its ceiling is the
/// closed form's: the grid of ε loses nothing that matters.
#[test]
fn the_profile_curve_of_the_gaussian_is_its_curve() {
    for (sigma, n) in [(1.0812, 10_000u64), (3.7306, 100_000), (0.6002, 1_000)] {
        let pld = Pld::gaussian(sigma, 1.0, &PldConfig::default()).unwrap();
        let profile = profile_curve(&pld).unwrap();
        let exact = Tradeoff::Gaussian { mu: 1.0 / sigma };
        for k in 0..=160 {
            let alpha = 10f64.powf(-8.0 + k as f64 / 20.0);
            let (p, e) = (profile.beta(alpha), exact.beta(alpha));
            assert!(p <= e + 1e-9, "σ = {sigma}, α = {alpha}: {p} > {e}");
        }
        let a = ceiling(&profile, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
        let g = ceiling(&exact, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
        assert!(a >= g - 1e-9 && a < g + 0.03, "σ = {sigma}: {a} vs {g}");
    }
}

/// Objective perturbation's dominating pair keeps part of Q's mass off P's support, so read
/// as two laws its curve falls to 0 early; its profile does not, and the certificate's curves
/// now give a lower ceiling than the pair alone, still at or above the Gaussian part's (the
/// ObjPert profile is above the Gaussian's with the same σ, so its curve is below).
#[test]
fn objective_perturbations_ceiling_reads_its_profile() {
    let (sigma, lambda, beta, l) = (2.0, 1.0, 0.25, 1.0);
    let pld = Pld::objpert(sigma, lambda, beta, l, &PldConfig::default()).unwrap();
    let certified = pld.epsilon(DELTA).unwrap();
    let n = 25_000;
    let pair = Tradeoff::from_pmf(pld.remove());
    let pair_only = ceiling(&pair, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    let curves = certificate_curves(Some(&pld), certified, DELTA).unwrap();
    let joined = ceiling_of(&curves, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    let gaussian = ceiling(
        &Tradeoff::Gaussian { mu: l / sigma },
        Statistic::Threshold,
        n,
        n,
        DELTA,
        GAMMA,
    )
    .unwrap();
    // The pair with the stated (ε, δ) curve alone, as ceilings read it before the profile.
    let stated = Tradeoff::EpsilonDelta {
        epsilon: certified,
        delta: DELTA,
    };
    let before = Tradeoff::Upper(vec![pair.clone(), stated]);
    let before = ceiling(&before, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    // σ = 2: the pair alone 8.19, with the (ε, δ) curve 2.30, with the profile 1.44; the
    // Gaussian part alone 1.08 and the certificate 2.36.
    assert!(
        pair_only > certified && before > 0.95 * certified,
        "{pair_only} {before}"
    );
    assert!(joined < 0.7 * before, "{joined} vs {before}");
    assert!(
        joined >= gaussian - 1e-9 && joined <= certified,
        "{joined} {gaussian} {certified}"
    );
    // Where the pair's curve has reached 0, the profile's has not.
    let profile = profile_curve(&pld).unwrap();
    assert_eq!(pair.beta(0.6), 0.0);
    assert!(profile.beta(0.6) > 0.05, "{}", profile.beta(0.6));
}

/// Mass at infinite loss (an accountant's truncations over a long run) does not collapse the
/// profile to its ε = 0 curve: its grid ends at twice that mass, and the ceiling stays the
/// closed form's.
#[test]
fn mass_at_infinity_keeps_the_profile() {
    let sigma = 1.0812;
    let config = PldConfig::default();
    let pld = Pld::gaussian(sigma, 1.0, &config).unwrap();
    let pmf = pld.remove();
    let infinite = 1e-9;
    let probs: Vec<f64> = pmf.probs().iter().map(|p| p * (1.0 - infinite)).collect();
    let heavy =
        crate::accounting::pld::Pmf::new(pmf.grid_step(), pmf.offset(), probs, infinite).unwrap();
    let heavy = Pld::from_pmfs(heavy, None, &config).unwrap();
    let profile = profile_curve(&heavy).unwrap();
    match &profile {
        Tradeoff::Upper(curves) => assert_eq!(curves.len(), 161),
        other => panic!("collapsed: {other:?}"),
    }
    let n = 10_000;
    let a = ceiling(&profile, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    let exact = Tradeoff::Gaussian { mu: 1.0 / sigma };
    let g = ceiling(&exact, Statistic::Threshold, n, n, DELTA, GAMMA).unwrap();
    assert!(a >= g - 1e-9 && a < g + 0.05, "{a} vs {g}");
}

#[test]
fn two_outputs_with_ratio_e_to_the_epsilon_are_randomised_response() {
    // P_D = (p, 1 − p), P_D′ = (1 − p, p) with p/(1 − p) = e^ε: exactly the (ε, 0) curve.
    let eps: f64 = 1.3;
    let p = eps.exp() / (1.0 + eps.exp());
    let rr = Tradeoff::from_log_masses(&[(p.ln(), (1.0 - p).ln()), ((1.0 - p).ln(), p.ln())]);
    let closed = Tradeoff::EpsilonDelta {
        epsilon: eps,
        delta: 0.0,
    };
    for a in [0.0, 0.05, 0.1, 1.0 - p, 0.5, 0.9, 1.0] {
        assert!((rr.beta(a) - closed.beta(a)).abs() < 1e-12, "α {a}");
    }
    // An output D′ never gives is caught at no cost; one D never gives, taken first.
    let sure = Tradeoff::from_log_masses(&[(f64::NEG_INFINITY, 0.5f64.ln()), (0.0, 0.5f64.ln())]);
    assert!((sure.beta(0.0) - 0.5).abs() < 1e-15);
    assert_eq!(sure.beta(1.0), 0.0);
    // Swapped, an output only D gives is caught at α = 0 too: the least β there, not the first.
    let both = Tradeoff::from_log_masses(&[
        (f64::NEG_INFINITY, 0.5f64.ln()),
        (0.5f64.ln(), f64::NEG_INFINITY),
        (0.5f64.ln(), 0.5f64.ln()),
    ]);
    assert!((both.swapped().beta(0.0) - 0.5).abs() < 1e-15);
    assert!((both.swapped().beta(0.25) - 0.25).abs() < 1e-15);
}

/// The least β at `alpha` of the Gaussian-pair mixture, by bisection on the threshold t.
fn mixture_beta(components: &[(f64, f64)], alpha: f64) -> f64 {
    let a = |t: f64| -> f64 {
        components
            .iter()
            .map(|&(w, mu)| w * norm_cdf(-t - mu / 2.0))
            .sum()
    };
    let (mut lo, mut hi) = (-60.0, 60.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if a(mid) > alpha { lo = mid } else { hi = mid }
    }
    components
        .iter()
        .map(|&(w, mu)| w * norm_cdf(hi - mu / 2.0))
        .sum()
}

#[test]
fn a_gaussian_mixture_lies_just_below_its_curve() {
    // One component is the Gaussian curve; two are between their two Gaussians.
    let one = Tradeoff::gaussian_mixture(&[(1.0, 1.5)]).unwrap();
    let gaussian = Tradeoff::Gaussian { mu: 1.5 };
    let two = [(0.9, 0.5), (0.1, 1.5)];
    let mixture = Tradeoff::gaussian_mixture(&two).unwrap();
    let (wide, narrow) = (gaussian.clone(), Tradeoff::Gaussian { mu: 0.5 });
    for alpha in [1e-9, 1e-6, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999] {
        let (got, want) = (one.beta(alpha), gaussian.beta(alpha));
        assert!(
            got <= want && got >= want * 0.99,
            "α = {alpha}: {got} vs {want}"
        );
        let (got, want) = (mixture.beta(alpha), mixture_beta(&two, alpha));
        assert!(
            got <= want * (1.0 + 1e-12),
            "above the curve at α = {alpha}: {got} > {want}"
        );
        assert!(
            got >= want * 0.99,
            "far below the curve at α = {alpha}: {got} < {want}"
        );
        assert!(want > wide.beta(alpha) && want < narrow.beta(alpha));
    }
    // The ceiling of the one-component mixture is the Gaussian's, a little above (never below).
    let (n, delta) = (50_000, 1e-6);
    let got = ceiling(&one, Statistic::Threshold, n, n, delta, GAMMA).unwrap();
    let want = ceiling(&gaussian, Statistic::Threshold, n, n, delta, GAMMA).unwrap();
    assert!(got >= want - 1e-9 && got <= want + 0.02, "{got} vs {want}");
    let mid = ceiling(&mixture, Statistic::Threshold, n, n, delta, GAMMA).unwrap();
    let low = ceiling(&narrow, Statistic::Threshold, n, n, delta, GAMMA).unwrap();
    assert!(low < mid && mid < want, "{low} < {mid} < {want}");
}

#[test]
fn bad_mixtures_are_refused() {
    assert!(Tradeoff::gaussian_mixture(&[]).is_err());
    assert!(Tradeoff::gaussian_mixture(&[(0.5, 1.0)]).is_err());
    assert!(Tradeoff::gaussian_mixture(&[(0.5, 1.0), (0.5, f64::NAN)]).is_err());
    assert!(Tradeoff::gaussian_mixture(&[(1.0, -1.0)]).is_err());
    assert!(Tradeoff::gaussian_mixture(&[(0.0, 1.0), (1.0, 1.0)]).is_err());
    // A huge shift is bounded in points, not refused.
    assert!(Tradeoff::gaussian_mixture(&[(1.0, 1e9)]).is_ok());
}
