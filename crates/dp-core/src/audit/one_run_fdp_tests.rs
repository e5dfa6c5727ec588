//! Tests of the f-DP one-run audit: jax_privacy's values, the Steinke bound it tightens, the
//! Gaussian curve it reads, and coverage and power on simulated μ-GDP canaries.

use super::*;
use crate::audit::ceiling::Tradeoff;
use crate::audit::one_run;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

const GAMMA: f64 = 0.05;

/// (m, r, v, δ) → ε at γ = 0.05 from jax_privacy's `_epsilon_one_run_fdp` (commit 8967688c of
/// google-deepmind/jax_privacy, its source run as published with scipy 1.17.1 and
/// dp_accounting 0.6.0). It parametrises the Gaussian family by (ε, δ) and finds ε by brentq
/// at xtol 1e-6; here μ is found and converted, which is the same family.
const JAX_PRIVACY: [(u64, u64, u64, f64, f64); 8] = [
    (1000, 200, 150, 1e-5, 1.296_916_095_057_959_5),
    (1000, 200, 180, 1e-5, 2.901_242_923_309_430_6),
    (1000, 1000, 1000, 1e-5, 12.334_570_155_595_598),
    (100, 100, 75, 1e-5, 1.573_576_077_614_41),
    (1000, 100, 75, 1e-4, 0.841_723_703_717_428),
    (100_000, 1510, 1439, 1e-5, 3.309_083_523_975_045),
    (1000, 200, 200, 1e-5, 7.256_822_888_914_27),
    (1000, 200, 120, 1e-5, 0.218_664_476_887_419_52),
];

#[test]
fn reproduces_jax_privacy() {
    for &(m, r, v, delta, jax) in &JAX_PRIVACY {
        let e = epsilon_lower_bound(m, r, v, delta, GAMMA).unwrap();
        assert!(
            (e - jax).abs() <= 1e-5 * jax.max(1.0),
            "({m}, {r}, {v}, {delta}): {e} vs jax_privacy {jax}"
        );
    }
}

#[test]
fn is_at_least_steinkes_bound_on_the_same_counts() {
    // Mahloujifar et al.'s point: the curve keeps what randomised response throws away.
    for &(m, r, v, delta, _) in &JAX_PRIVACY {
        let fdp = epsilon_lower_bound(m, r, v, delta, GAMMA).unwrap();
        let steinke = one_run::epsilon_lower_bound(m, r, v, delta, GAMMA).unwrap();
        assert!(
            fdp >= steinke,
            "({m}, {r}, {v}): f-DP {fdp} < Steinke {steinke}"
        );
    }
    // The perfect guesser on 1,000 canaries: 5.78 there (one_run's tests), 12.33 here.
    let perfect = epsilon_lower_bound(1000, 1000, 1000, 1e-5, GAMMA).unwrap();
    assert!(perfect > 2.0 * 5.78, "{perfect}");
}

#[test]
fn reads_the_gaussian_trade_off_curve() {
    // f̄⁻¹(x) = f(1 − x) for the symmetric Gaussian curve, from the ceiling's own closed form.
    for mu in [0.0, 0.3, 1.0, 2.5, 6.0] {
        let curve = Tradeoff::Gaussian { mu };
        // x a sum of few powers of 2, so that 1 − x is exact and the closed form is evaluated
        // where it is accurate.
        for x in [
            0.5f64.powi(30),
            0.5f64.powi(12),
            0.0625,
            0.3125,
            0.5,
            0.875,
            1.0 - 0.5f64.powi(20),
        ] {
            let here = gaussian_blow_up_inverse(mu, x);
            let there = curve.beta(1.0 - x);
            assert!(
                here <= there * (1.0 + 1e-9) + 1e-300,
                "μ {mu}, x {x}: {here} > {there}"
            );
            assert!(
                (here - there).abs() <= 1e-7 * there.max(1e-300) + 1e-15,
                "μ {mu}, x {x}: {here} vs {there}"
            );
        }
        // μ = 0 reveals nothing: the wrong rate must match the right rate.
        if mu == 0.0 {
            assert!((gaussian_blow_up_inverse(0.0, 0.25) - 0.25).abs() < 1e-12);
        }
    }
}

#[test]
fn more_right_guesses_never_lower_the_bound_and_chance_gives_zero() {
    let mut last = 0.0;
    for v in 0..=200u64 {
        let mu = mu_lower_bound(1000, 200, v, GAMMA).unwrap();
        assert!(mu >= last, "v {v}: {mu} < {last}");
        if v <= 100 {
            assert_eq!(mu, 0.0, "v {v} right of 200 is chance, not evidence");
        }
        last = mu;
    }
    // jax_privacy: ε 7.26 at δ = 1e-5, μ ≈ 1.54.
    assert!(last > 1.5, "200 of 200 right: μ ≥ {last}");
}

#[test]
fn rejection_is_monotone_in_mu() {
    let mu = mu_lower_bound(1000, 200, 170, GAMMA).unwrap();
    assert!(mu > 0.0);
    assert!(rejects_gdp(0.99 * mu, 1000, 200, 170, GAMMA).unwrap());
    assert!(!rejects_gdp(1.01 * mu, 1000, 200, 170, GAMMA).unwrap());
    assert!(!rejects_gdp(2.0 * mu, 1000, 200, 170, GAMMA).unwrap());
}

#[test]
fn refuses_bad_input() {
    assert!(mu_lower_bound(0, 0, 0, GAMMA).is_err());
    assert!(mu_lower_bound(10, 5, 6, GAMMA).is_err());
    assert!(mu_lower_bound(10, 11, 5, GAMMA).is_err());
    assert!(mu_lower_bound(10, 5, 5, 0.0).is_err());
    assert!(mu_lower_bound(10, 5, 5, 1.0).is_err());
    assert!(rejects_gdp(f64::NAN, 10, 5, 5, GAMMA).is_err());
    assert!(rejects_gdp(-1.0, 10, 5, 5, GAMMA).is_err());
    // The Gaussian family has no pure-DP member.
    let err = epsilon_lower_bound(10, 5, 5, 0.0, GAMMA).unwrap_err();
    assert!(err.to_string().contains("delta"), "{err}");
}

/// One simulated run: m canaries in with probability ½, each scored N(μ·[in], 1) (a μ-GDP
/// view per canary, independent), k "in" guesses on the highest and k "out" on the lowest.
fn simulated_counts(rng: &mut StdRng, mu: f64, m: usize, k: usize) -> (u64, u64) {
    let included: Vec<bool> = (0..m).map(|_| rng.random::<bool>()).collect();
    let scores: Vec<f64> = included
        .iter()
        .map(|&s| f64::from(u8::from(s)) * mu + rng.sample::<f64, _>(StandardNormal))
        .collect();
    one_run::guesses(&scores, &included, k, k).unwrap()
}

#[test]
fn covers_the_true_mu_and_refutes_a_halved_claim() {
    // Coverage: the bound exceeds the true μ in at most γ of the runs (binomial slack: at
    // most 20 of 200 where 10 is the nominal rate). Power: the same counts reject the claim
    // μ/2 (the noise doubled on paper, not in the code) in most runs.
    let (mu, m, k, trials) = (2.0, 1000, 100, 200);
    let mut rng = StdRng::seed_from_u64(2025);
    let (mut above, mut refuted, mut sum) = (0, 0, 0.0);
    for _ in 0..trials {
        let (r, v) = simulated_counts(&mut rng, mu, m, k);
        let lb = mu_lower_bound(m as u64, r, v, GAMMA).unwrap();
        above += usize::from(lb > mu);
        refuted += usize::from(rejects_gdp(0.5 * mu, m as u64, r, v, GAMMA).unwrap());
        sum += lb;
    }
    assert!(
        above <= 20,
        "{above} of {trials} bounds above the true μ = {mu}"
    );
    assert!(
        refuted >= trials * 3 / 4,
        "μ/2 refuted in only {refuted} of {trials}"
    );
    let mean = sum / trials as f64;
    assert!(mean > 0.5 * mu, "mean bound {mean} of μ = {mu}");
}

#[test]
fn the_gaussian_ceiling_is_the_bound_at_expected_counts() {
    // A view that reveals nothing: chance counts, no bound.
    assert_eq!(
        gaussian_ceiling(0.0, 1000, (100, 100), 1e-5, GAMMA).unwrap(),
        0.0
    );
    // A view that reveals everything: every guess right.
    let all = epsilon_lower_bound(1000, 200, 200, 1e-5, GAMMA).unwrap();
    let c = gaussian_ceiling(40.0, 1000, (100, 100), 1e-5, GAMMA).unwrap();
    assert_eq!(c, all);
    // In between it grows with μ and sits near the simulated bounds' typical value.
    let mut last = 0.0;
    for mu in [0.5, 1.0, 2.0, 3.0, 4.0] {
        let c = gaussian_ceiling(mu, 1000, (100, 100), 1e-5, GAMMA).unwrap();
        assert!(c >= last, "μ {mu}: {c} < {last}");
        last = c;
    }
    let mu2 = gaussian_ceiling(2.0, 1000, (100, 100), 1e-5, GAMMA).unwrap();
    let typical = gdp::epsilon_from_mu(1.25, 1e-5).unwrap(); // the simulation's mean μ_lb
    assert!((mu2 - typical).abs() < 0.25 * typical, "{mu2} vs {typical}");
}
