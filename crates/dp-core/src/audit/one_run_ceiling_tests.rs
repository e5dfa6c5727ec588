//! Tests of the one-run ceiling on any curve: the Gaussian case against the closed-form one,
//! the expected counts against simulated audits, the two ends, a PLD's curve against its
//! closed form, and refusals.

use super::*;
use crate::accounting::pld::{Pld, PldConfig};
use crate::audit::ceiling::certificate_curves;
use crate::audit::one_run_fdp::gaussian_ceiling;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

const GAMMA: f64 = 0.05;
const DELTA: f64 = 1e-5;

#[test]
fn the_gaussian_case_is_the_closed_form_ceiling() {
    // Two computations: one bisects the threshold on the laws' tails, this one α on the curve.
    for mu in [0.0, 0.5, 1.0, 2.0, 3.0, 6.0] {
        for ks in [(100, 100), (50, 200), (500, 500)] {
            let closed = gaussian_ceiling(mu, 1000, ks, DELTA, GAMMA).unwrap();
            let curve = one_run_ceiling(
                &[Tradeoff::Gaussian { mu }],
                OneRunStatistic::GaussianFdp,
                1000,
                ks,
                DELTA,
                GAMMA,
            )
            .unwrap();
            assert_eq!(curve, closed, "μ = {mu}, k = {ks:?}");
        }
    }
}

#[test]
fn expected_counts_are_the_simulated_audits_mean() {
    // m canaries with N(μ, 1) scores in and N(0, 1) out: the k highest are "in" guesses.
    let (m, k, mu, trials) = (1000usize, 100usize, 1.5, 400);
    let mut rng = StdRng::seed_from_u64(41);
    let mut total = 0usize;
    for _ in 0..trials {
        let mut scored: Vec<(f64, bool)> = (0..m)
            .map(|_| {
                let included: bool = rng.random();
                let z: f64 = rng.sample(StandardNormal);
                (z + if included { mu } else { 0.0 }, included)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        total += scored[..k].iter().filter(|s| s.1).count();
    }
    let mean = total as f64 / trials as f64;
    let expected = expected_right(&Tradeoff::Gaussian { mu }, m as u64, k as u64);
    // The mean of 400 counts has a standard error below 0.25.
    assert!((mean - expected).abs() < 1.0, "{mean} vs {expected}");
}

#[test]
fn a_blind_view_reaches_nothing_and_a_perfect_one_every_guess() {
    let stats = [
        OneRunStatistic::RandomisedResponse,
        OneRunStatistic::GaussianFdp,
    ];
    for s in stats {
        let blind = [Tradeoff::Gaussian { mu: 0.0 }];
        assert_eq!(
            one_run_ceiling(&blind, s, 1000, (100, 100), DELTA, GAMMA).unwrap(),
            0.0
        );
        let perfect = [Tradeoff::EpsilonDelta {
            epsilon: 60.0,
            delta: 0.0,
        }];
        let all = s.bound(1000, 200, 200, DELTA, GAMMA).unwrap();
        assert_eq!(
            one_run_ceiling(&perfect, s, 1000, (100, 100), DELTA, GAMMA).unwrap(),
            all
        );
        assert_eq!(
            one_run_ceiling(&[], s, 1000, (100, 100), DELTA, GAMMA).unwrap(),
            0.0
        );
    }
}

#[test]
fn rises_with_the_view_and_takes_the_largest_curve() {
    let s = OneRunStatistic::RandomisedResponse;
    let mut last = 0.0;
    for mu in [0.5, 1.0, 2.0, 4.0] {
        let c = one_run_ceiling(
            &[Tradeoff::Gaussian { mu }],
            s,
            1000,
            (100, 100),
            DELTA,
            GAMMA,
        )
        .unwrap();
        assert!(c >= last, "μ = {mu}: {c} < {last}");
        last = c;
    }
    let (weak, strong) = (
        Tradeoff::Gaussian { mu: 0.5 },
        Tradeoff::Gaussian { mu: 3.0 },
    );
    let both = one_run_ceiling(&[weak, strong.clone()], s, 1000, (100, 100), DELTA, GAMMA);
    let alone = one_run_ceiling(&[strong], s, 1000, (100, 100), DELTA, GAMMA);
    assert_eq!(both.unwrap(), alone.unwrap());
}

#[test]
fn a_plds_curve_gives_its_closed_forms_ceiling() {
    // The Gaussian mechanism's PLD, joined with its profile and stated (ε, δ) as an audit reads
    // a certificate: within a guess or so of the closed form, never far above it.
    for sigma in [0.5, 1.0, 2.0] {
        let pld = Pld::gaussian(sigma, 1.0, &PldConfig::default()).unwrap();
        let eps = pld.epsilon(DELTA).unwrap();
        let curves = certificate_curves(Some(&pld), eps, DELTA).unwrap();
        for s in [
            OneRunStatistic::RandomisedResponse,
            OneRunStatistic::GaussianFdp,
        ] {
            let from_pld = one_run_ceiling(&curves, s, 1000, (100, 100), DELTA, GAMMA).unwrap();
            let closed = one_run_ceiling(
                &[Tradeoff::Gaussian { mu: 1.0 / sigma }],
                s,
                1000,
                (100, 100),
                DELTA,
                GAMMA,
            )
            .unwrap();
            assert!(
                from_pld >= closed - 0.02 && from_pld <= closed + 0.05,
                "σ = {sigma}, {s:?}: {from_pld} vs {closed}"
            );
        }
    }
}

#[test]
fn refuses_more_guesses_than_canaries() {
    let c = [Tradeoff::Gaussian { mu: 1.0 }];
    let s = OneRunStatistic::RandomisedResponse;
    assert!(one_run_ceiling(&c, s, 100, (60, 60), DELTA, GAMMA).is_err());
    assert!(one_run_ceiling(&c, s, 0, (0, 0), DELTA, GAMMA).is_err());
    assert!(one_run_ceiling(&c, s, 100, (u64::MAX, 1), DELTA, GAMMA).is_err());
    let bad = [Tradeoff::Gaussian { mu: f64::NAN }];
    assert!(one_run_ceiling(&bad, s, 100, (10, 10), DELTA, GAMMA).is_err());
}

#[test]
fn a_sampled_certificates_counts_are_its_simulated_audits() {
    // DP-SGD's per-canary view at q = 0.1, z = 1.4817, T = 100 (a Poisson-sampled Dirac
    // canary scored by its likelihood ratio), simulated outside the crate with numpy: 200
    // one-run audits of 1,000 canaries, 100 guesses each way, got 158.0 right on average.
    let pld = Pld::subsampled_gaussian(0.1, 1.4817, &PldConfig::default())
        .unwrap()
        .self_compose(100)
        .unwrap();
    let curves = certificate_curves(Some(&pld), pld.epsilon(DELTA).unwrap(), DELTA).unwrap();
    for c in &curves {
        let right = expected_right(c, 1000, 100) + expected_right(&c.swapped(), 1000, 100);
        assert!((right - 158.0).abs() < 1.5, "{right}");
    }
    let s = OneRunStatistic::RandomisedResponse;
    let top = one_run_ceiling(&curves, s, 1000, (100, 100), DELTA, GAMMA).unwrap();
    assert_eq!(top, s.bound(1000, 200, 158, DELTA, GAMMA).unwrap());
}
