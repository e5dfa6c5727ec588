//! Tests of the one-run audit: audit.md §4's test vectors, the δ = 0 closed form, p-value
//! properties, the guess counter, and coverage on ε-randomised response.

use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GAMMA: f64 = 0.05;

/// audit.md §4 (m, r, v, δ) → ε_lb at γ = 0.05, and the same values from the paper's appendix
/// code (`p_value_DP_audit` / `get_eps_audit`) run in Python with scipy 1.17.1's binomial
/// pmf and sf and 60 bisection steps.
const VECTORS: [(u64, u64, u64, f64, f64, f64); 3] = [
    (100, 100, 75, 0.0, 0.70221, 0.702_213_930_949_505_9),
    (1000, 100, 75, 1e-4, 0.67298, 0.672_984_664_107_420_1),
    (100_000, 1510, 1439, 1e-5, 2.67585, 2.675_851_007_678_625),
];

#[test]
fn reproduces_the_reference_vectors() {
    for &(m, r, v, delta, doc, python) in &VECTORS {
        let e = epsilon_lower_bound(m, r, v, delta, GAMMA).unwrap();
        assert!(
            (e - doc).abs() <= 0.5e-5,
            "({m}, {r}, {v}, {delta}): {e} vs audit.md {doc}"
        );
        assert!(
            (e - python).abs() <= 1e-8,
            "({m}, {r}, {v}, {delta}): {e} vs python {python}"
        );
    }
}

#[test]
fn pure_dp_perfect_guesses_match_the_closed_form() {
    // δ = 0, v = r: p(ε) = q^r, so ε_lb = −ln(γ^{−1/r} − 1).
    for r in [1u64, 5, 16, 100, 1000] {
        let e = epsilon_lower_bound(r, r, r, 0.0, GAMMA).unwrap();
        let closed = -(GAMMA.powf(-1.0 / r as f64) - 1.0).ln();
        assert!(
            (e - closed.max(0.0)).abs() < 1e-10,
            "r {r}: {e} vs {closed}"
        );
    }
    let e16 = epsilon_lower_bound(16, 16, 16, 0.0, GAMMA).unwrap();
    assert!((e16 - 1.580323).abs() < 0.5e-6, "{e16}");
}

#[test]
fn perfect_guessers_are_capped() {
    // audit.md §4 "Looseness"; python port: 3.490216, 5.782283, 7.834303.
    for &(m, doc, python) in &[
        (100u64, 3.49, 3.490_215_955_326_397),
        (1000, 5.78, 5.782_283_135_394_014),
        (10_000, 7.83, 7.834_303_247_177_846),
    ] {
        let e = epsilon_lower_bound(m, m, m, 1e-5, GAMMA).unwrap();
        assert!((e - doc).abs() <= 0.005, "m {m}: {e} vs {doc}");
        assert!((e - python).abs() <= 1e-8, "m {m}: {e} vs {python}");
    }
}

#[test]
fn p_value_at_the_bound() {
    for &(m, r, v, delta, _, _) in &VECTORS {
        let e = epsilon_lower_bound(m, r, v, delta, GAMMA).unwrap();
        assert!(p_value(e, m, r, v, delta).unwrap() < GAMMA);
        assert!(p_value(e + 1e-9, m, r, v, delta).unwrap() >= GAMMA);
    }
}

#[test]
fn p_value_is_the_binomial_tail_at_pure_dp() {
    // P[Bin(r, q) ≥ v] with exact binomial coefficients, small r.
    let (r, v) = (20u64, 14u64);
    for &eps in &[0.0f64, 0.3, 1.0, 2.5] {
        let q = 1.0 / (1.0 + (-eps).exp());
        let mut c = 1.0f64;
        let mut tail = 0.0;
        for j in 0..=r {
            if j > 0 {
                c = c * (r - j + 1) as f64 / j as f64;
            }
            if j >= v {
                tail += c * q.powi(j as i32) * (1.0 - q).powi((r - j) as i32);
            }
        }
        let p = p_value(eps, 50, r, v, 0.0).unwrap();
        assert!((p - tail).abs() <= 1e-13 * tail, "eps {eps}: {p} vs {tail}");
    }
}

#[test]
fn p_value_grows_with_epsilon_and_delta() {
    let mut prev = 0.0;
    for k in 0..40 {
        let p = p_value(0.1 * k as f64, 1000, 100, 75, 1e-4).unwrap();
        assert!(p >= prev, "not increasing at {k}");
        prev = p;
    }
    let p0 = p_value(0.5, 1000, 100, 75, 0.0).unwrap();
    let p1 = p_value(0.5, 1000, 100, 75, 1e-4).unwrap();
    assert!(p1 > p0);
    assert_eq!(p_value(0.5, 1000, 100, 75, 1.0).unwrap(), 1.0);
}

#[test]
fn no_evidence_gives_zero() {
    assert_eq!(epsilon_lower_bound(10, 0, 0, 0.0, GAMMA).unwrap(), 0.0);
    assert_eq!(epsilon_lower_bound(100, 50, 0, 1e-5, GAMMA).unwrap(), 0.0);
    // Half right is what ε = 0 predicts.
    assert_eq!(epsilon_lower_bound(100, 100, 50, 0.0, GAMMA).unwrap(), 0.0);
    assert_eq!(p_value(3.0, 10, 5, 0, 0.0).unwrap(), 1.0);
}

#[test]
fn rejects_bad_inputs() {
    assert!(matches!(
        epsilon_lower_bound(10, 11, 5, 0.0, GAMMA),
        Err(DpError::Invalid(_))
    ));
    assert!(matches!(
        epsilon_lower_bound(10, 5, 6, 0.0, GAMMA),
        Err(DpError::Invalid(_))
    ));
    assert!(matches!(
        epsilon_lower_bound(0, 0, 0, 0.0, GAMMA),
        Err(DpError::Invalid(_))
    ));
    assert!(matches!(
        epsilon_lower_bound(10, 5, 5, 1.0, GAMMA),
        Err(DpError::OutOfRange { name: "delta", .. })
    ));
    assert!(matches!(
        epsilon_lower_bound(10, 5, 5, 0.0, 0.0),
        Err(DpError::OutOfRange { name: "gamma", .. })
    ));
    assert!(matches!(
        p_value(-1.0, 10, 5, 5, 0.0),
        Err(DpError::OutOfRange {
            name: "epsilon",
            ..
        })
    ));
}

#[test]
fn guesses_count_top_and_bottom() {
    let scores = [0.9, -1.0, 0.5, 0.1, 3.0, -2.0];
    let included = [true, false, false, true, true, true];
    // Top 2: indices 4 (in), 0 (in) → 2 right; bottom 2: 5 (in, wrong), 1 (out, right).
    assert_eq!(guesses(&scores, &included, 2, 2).unwrap(), (4, 3));
    assert_eq!(guesses(&scores, &included, 0, 0).unwrap(), (0, 0));
    assert_eq!(guesses(&scores, &included, 6, 0).unwrap(), (6, 4));
    assert_eq!(guesses(&scores, &included, 0, 6).unwrap(), (6, 2));
}

#[test]
fn guesses_break_ties_by_index() {
    let scores = [1.0, 1.0, 1.0, 0.0, -0.0, 0.0];
    let included = [false, true, true, true, false, false];
    // Top 1 among the tied 1.0s is index 0 (out, wrong).
    assert_eq!(guesses(&scores, &included, 1, 0).unwrap(), (1, 0));
    // Bottom 1 among the tied zeros (−0.0 == 0.0) is the highest index, 5 (out, right).
    assert_eq!(guesses(&scores, &included, 0, 1).unwrap(), (1, 1));
    assert_eq!(guesses(&scores, &included, 0, 2).unwrap(), (2, 2));
}

#[test]
fn guesses_reject_bad_inputs() {
    let err = guesses(&[0.0, f64::NAN], &[true, false], 1, 0).unwrap_err();
    assert_eq!(err, DpError::Invalid("scores[1] is NaN".into()));
    assert!(guesses(&[0.0], &[true, false], 1, 0).is_err());
    assert!(guesses(&[0.0, 1.0], &[true, false], 2, 1).is_err());
    assert!(guesses(&[0.0, 1.0], &[true, false], usize::MAX, 1).is_err());
}

/// ε-randomised response on each canary is ε-DP under add/remove of that canary, so the bound
/// may exceed ε in at most about a γ fraction of audits; it should also not be vacuous.
#[test]
fn covers_randomised_response() {
    let (eps, m, reps) = (1.0f64, 400usize, 200);
    let q = 1.0 / (1.0 + (-eps).exp());
    let mut rng = StdRng::seed_from_u64(0x000a_0d17);
    let (mut above, mut total) = (0, 0.0);
    for _ in 0..reps {
        let included: Vec<bool> = (0..m).map(|_| rng.random_bool(0.5)).collect();
        let scores: Vec<f64> = included
            .iter()
            .map(|&s| if rng.random_bool(q) == s { 1.0 } else { -1.0 })
            .collect();
        let (r, v) = guesses(&scores, &included, m / 2, m / 2).unwrap();
        let e = epsilon_lower_bound(m as u64, r, v, 0.0, GAMMA).unwrap();
        above += usize::from(e > eps);
        total += e;
    }
    // Binomial(200, ≤ 0.05) exceeds 20 with probability < 0.2%.
    assert!(
        above <= 20,
        "{above} of {reps} bounds exceed the true epsilon"
    );
    let mean = total / reps as f64;
    assert!(mean > 0.4 && mean < eps, "mean bound {mean}");
}
