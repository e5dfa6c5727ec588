//! Tests of the threshold audit: the §1 bound against scipy, its edge cases, counting and
//! threshold placement, the split audit, coverage on Gaussian data, and audit.md §7's "test the
//! audit must fail" (a noise bug that the audit has to catch).

use super::*;
use crate::accounting::gaussian;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

const GAMMA: f64 = 0.05;
const DELTA: f64 = 1e-5;

fn counts(fp: u64, n0: u64, fn_: u64, n1: u64) -> Counts {
    Counts {
        false_positives: fp,
        negatives: n0,
        false_negatives: fn_,
        positives: n1,
    }
}

/// `n` draws of `shift + N(0, sigma²)`.
fn gaussian_scores(rng: &mut StdRng, n: usize, shift: f64, sigma: f64) -> Vec<f64> {
    let normal = Normal::new(shift, sigma).unwrap();
    (0..n).map(|_| normal.sample(rng)).collect()
}

#[test]
fn matches_scipy() {
    // python3: a = b = beta.ppf(0.975, k + 1, n - k) (1 for k = n), then
    // max(log(1 - 1e-5 - b) - log(a), log(1 - 1e-5 - a) - log(b)) skipping numerators <= 0.
    // The first three are audit.md §6's ε_true = 2 row (0.50 / 0.93 / 1.29): expected counts
    // of the Gaussian mechanism with σ = 1.9938 at the best threshold for N = 10³, 10⁴, 10⁵.
    for &((fp, n0, fn_, n1), want) in &[
        ((65, 1000, 843, 1000), 0.497_158_229_085_35),
        ((83, 10_000, 9707, 10_000), 0.930_783_624_692_172_1),
        ((99, 100_000, 99_520, 100_000), 1.288_389_052_132_736_8),
        ((0, 1000, 0, 1000), 5.600_577_494_291_635_5),
        ((0, 25_000, 0, 25_000), 8.821_224_582_865_154),
        ((2710, 25_000, 20_830, 25_000), 0.367_408_890_383_809_97),
        ((169, 25_000, 24_335, 25_000), 1.142_810_248_583_147_7),
    ] {
        let e = epsilon_lower_bound(counts(fp, n0, fn_, n1), DELTA, GAMMA).unwrap();
        assert!(
            (e - want).abs() <= 1e-9,
            "({fp}, {n0}, {fn_}, {n1}): {e} vs {want}"
        );
    }
}

#[test]
fn zero_false_positives_cap() {
    // audit.md §6: with no false positives ε_lb ≤ ln(N/3.69), reached when FN = 0 too.
    for n in [100u64, 1000, 100_000] {
        let e = epsilon_lower_bound(counts(0, n, 0, n), 0.0, GAMMA).unwrap();
        let alpha = -(0.025f64.ln() / n as f64).exp_m1();
        let closed = (1.0 - alpha).ln() - alpha.ln();
        assert!((e - closed).abs() < 1e-12, "{n}: {e} vs {closed}");
        assert!(e < (n as f64 / 3.688).ln());
    }
}

#[test]
fn edge_cases() {
    // Chance-level tests and tests that always (or never) say D′ give nothing.
    assert_eq!(
        epsilon_lower_bound(counts(500, 1000, 500, 1000), DELTA, GAMMA).unwrap(),
        0.0
    );
    assert_eq!(
        epsilon_lower_bound(counts(0, 1000, 1000, 1000), DELTA, GAMMA).unwrap(),
        0.0
    );
    assert_eq!(
        epsilon_lower_bound(counts(1000, 1000, 0, 1000), DELTA, GAMMA).unwrap(),
        0.0
    );
    assert_eq!(
        raw_bound(counts(1000, 1000, 1000, 1000), DELTA, GAMMA).unwrap(),
        f64::NEG_INFINITY
    );
    // A single run per side cannot show much.
    assert_eq!(
        epsilon_lower_bound(counts(0, 1, 0, 1), DELTA, GAMMA).unwrap(),
        0.0
    );
    // δ near 1 − β̂ skips the term: only the other can count.
    let c = counts(0, 10_000, 980, 1000);
    let lenient = epsilon_lower_bound(c, 0.0, GAMMA).unwrap();
    assert!(lenient > 0.0);
    assert_eq!(epsilon_lower_bound(c, 0.05, GAMMA).unwrap(), 0.0);
}

#[test]
fn monotone_and_symmetric() {
    let c = counts(20, 5000, 3000, 5000);
    let e = epsilon_lower_bound(c, DELTA, GAMMA).unwrap();
    let swapped = epsilon_lower_bound(counts(3000, 5000, 20, 5000), DELTA, GAMMA).unwrap();
    assert!((e - swapped).abs() < 1e-14, "{e} vs {swapped}");
    assert!(epsilon_lower_bound(c, 1e-3, GAMMA).unwrap() < e);
    assert!(epsilon_lower_bound(c, DELTA, 0.01).unwrap() < e);
    assert!(epsilon_lower_bound(counts(10, 5000, 3000, 5000), DELTA, GAMMA).unwrap() > e);
}

#[test]
fn rejects_bad_inputs() {
    let ok = counts(1, 10, 1, 10);
    assert!(matches!(
        epsilon_lower_bound(counts(11, 10, 1, 10), DELTA, GAMMA),
        Err(DpError::Invalid(m)) if m.contains("false_positives = 11")
    ));
    assert!(matches!(
        epsilon_lower_bound(counts(1, 10, 11, 10), DELTA, GAMMA),
        Err(DpError::Invalid(m)) if m.contains("false_negatives = 11")
    ));
    assert!(epsilon_lower_bound(counts(0, 0, 1, 10), DELTA, GAMMA).is_err());
    assert!(matches!(
        epsilon_lower_bound(ok, 1.0, GAMMA),
        Err(DpError::OutOfRange { name: "delta", .. })
    ));
    assert!(matches!(
        epsilon_lower_bound(ok, DELTA, 1.0),
        Err(DpError::OutOfRange { name: "gamma", .. })
    ));
    let nan = [0.0, 1.0, 2.0, f64::NAN];
    for err in [
        split_threshold_audit(&[0.0, 1.0], &nan, DELTA, GAMMA).unwrap_err(),
        fixed_threshold_audit(&[0.0, 1.0], &nan, 0.5, DELTA, GAMMA).unwrap_err(),
    ] {
        assert_eq!(err, DpError::Invalid("scores_d_prime[3] is NaN".into()));
    }
    assert_eq!(
        count_errors(&nan, &[0.0], 0.5, Orientation::Above).unwrap_err(),
        DpError::Invalid("scores_d[3] is NaN".into())
    );
    assert!(fixed_threshold_audit(&[0.0], &[1.0], f64::NAN, DELTA, GAMMA).is_err());
    assert!(fixed_threshold_audit(&[], &[1.0], 0.5, DELTA, GAMMA).is_err());
    assert!(split_threshold_audit(&[0.0], &[1.0, 2.0], DELTA, GAMMA).is_err());
    assert!(split_threshold_audit_oriented(&[0.0, 1.0], &[1.0, 2.0], &[], DELTA, GAMMA).is_err());
}

#[test]
fn counting_rules() {
    let d = [0.0, 1.0, 2.0, 3.0];
    let p = [2.0, 3.0, 4.0];
    // s > 2: D runs 3 fire (1 FP); D′ runs 2 does not (1 FN). A tie is never D′.
    assert_eq!(
        count_errors(&d, &p, 2.0, Orientation::Above).unwrap(),
        counts(1, 4, 1, 3)
    );
    // s < 2: D runs 0, 1 fire (2 FP); D′ runs 2, 3, 4 do not (3 FN).
    assert_eq!(
        count_errors(&d, &p, 2.0, Orientation::Below).unwrap(),
        counts(2, 4, 3, 3)
    );
    let a = fixed_threshold_audit(&d, &p, 2.0, DELTA, GAMMA).unwrap();
    assert_eq!(a.orientation, Orientation::Above);
    assert_eq!(a.counts, counts(1, 4, 1, 3));
    assert_eq!(
        a.epsilon_lb,
        epsilon_lower_bound(a.counts, DELTA, GAMMA).unwrap()
    );
}

#[test]
fn thresholds_separate_neighbouring_values() {
    let a = 1.0f64;
    let b = f64::from_bits(a.to_bits() + 1);
    for (lo, hi) in [
        (a, b),
        (0.0, 1.0),
        (-1e308, 1e308),
        (f64::NEG_INFINITY, 0.0),
        (0.0, f64::INFINITY),
        (f64::NEG_INFINITY, f64::INFINITY),
    ] {
        let t = between(lo, hi, Orientation::Above);
        assert!(
            !Orientation::Above.guesses_d_prime(lo, t) && Orientation::Above.guesses_d_prime(hi, t),
            "{lo} {hi} {t}"
        );
        let t = between(lo, hi, Orientation::Below);
        assert!(
            Orientation::Below.guesses_d_prime(lo, t) && !Orientation::Below.guesses_d_prime(hi, t),
            "{lo} {hi} {t}"
        );
    }
    assert_eq!(between(0.0, 1.0, Orientation::Above), 0.5);
}

#[test]
fn split_uses_the_second_half_only() {
    // The first halves separate perfectly at 0.5; the second halves are pure noise around it.
    let mut rng = StdRng::seed_from_u64(11);
    let n = 400;
    let mut d: Vec<f64> = (0..n / 2).map(|i| -(i as f64) / n as f64).collect();
    let mut p: Vec<f64> = (0..n / 2).map(|i| 1.0 + i as f64 / n as f64).collect();
    d.extend((0..n / 2).map(|_| rng.random::<f64>()));
    p.extend((0..n / 2).map(|_| rng.random::<f64>()));
    let a = split_threshold_audit(&d, &p, DELTA, GAMMA).unwrap();
    assert!(a.threshold >= 0.0 && a.threshold < 1.0, "{}", a.threshold);
    assert_eq!((a.counts.negatives, a.counts.positives), (200, 200));
    // On the evaluation halves the test is a coin toss.
    assert_eq!(a.epsilon_lb, 0.0, "{a:?}");
    let again = split_threshold_audit(&d, &p, DELTA, GAMMA).unwrap();
    assert_eq!(a, again);
}

#[test]
fn split_chooses_the_orientation() {
    let mut rng = StdRng::seed_from_u64(12);
    // The canary lowers the statistic.
    let d = gaussian_scores(&mut rng, 2000, 0.0, 1.0);
    let p = gaussian_scores(&mut rng, 2000, -3.0, 1.0);
    let above = split_threshold_audit(&d, &p, DELTA, GAMMA).unwrap();
    let both = split_threshold_audit_oriented(&d, &p, &Orientation::BOTH, DELTA, GAMMA).unwrap();
    assert_eq!(above.epsilon_lb, 0.0);
    assert_eq!(both.orientation, Orientation::Below);
    assert!(both.epsilon_lb > 1.0, "{both:?}");
    // Deep in D's lower tail, where false positives are rare.
    assert!(both.threshold < -2.0, "{both:?}");
    // Odd lengths: the evaluation half gets the extra run.
    let both =
        split_threshold_audit_oriented(&d[..1001], &p[..7], &Orientation::BOTH, DELTA, GAMMA)
            .unwrap();
    assert_eq!((both.counts.negatives, both.counts.positives), (501, 4));
}

#[test]
fn split_handles_discrete_scores() {
    // An indicator statistic: the threshold must fall strictly between 0 and 1.
    let d: Vec<f64> = (0..1000).map(|i| f64::from(i % 10 == 0)).collect();
    let p: Vec<f64> = (0..1000).map(|i| f64::from(i % 10 != 0)).collect();
    let a = split_threshold_audit(&d, &p, DELTA, GAMMA).unwrap();
    assert_eq!(a.threshold, 0.5);
    assert_eq!(a.counts, counts(50, 500, 50, 500));
    // A constant statistic has no split; the audit is honest and empty.
    let a = split_threshold_audit(&[2.0; 10], &[2.0; 10], DELTA, GAMMA).unwrap();
    assert_eq!((a.threshold, a.epsilon_lb), (2.0, 0.0));
}

#[test]
fn serializes() {
    let a = fixed_threshold_audit(&[0.0, 1.0], &[2.0, 3.0], 1.5, DELTA, GAMMA).unwrap();
    let j = serde_json::to_value(&a).unwrap();
    assert_eq!(j["orientation"], "above");
    assert_eq!(j["counts"]["false_positives"], 0);
    assert_eq!(j["counts"]["positives"], 2);
    assert_eq!(j["threshold"], 1.5);
    assert!(j["epsilon_lb"].is_number() && j["gamma"] == 0.05 && j["delta"] == 1e-5);
}

/// The Gaussian mechanism at ε = 1 is not broken, so the bound may exceed 1 in at most about a
/// γ fraction of audits, for fixed and split thresholds alike.
#[test]
fn covers_a_correct_mechanism() {
    let sigma = gaussian::sigma(1.0, DELTA, 1.0).unwrap();
    let mut rng = StdRng::seed_from_u64(13);
    let (reps, n) = (100, 2000);
    let (mut fixed_above, mut split_above) = (0, 0);
    for _ in 0..reps {
        let d = gaussian_scores(&mut rng, n, 0.0, sigma);
        let p = gaussian_scores(&mut rng, n, 1.0, sigma);
        let fixed = fixed_threshold_audit(&d, &p, 1.235 * sigma, DELTA, GAMMA).unwrap();
        let split =
            split_threshold_audit_oriented(&d, &p, &Orientation::BOTH, DELTA, GAMMA).unwrap();
        fixed_above += usize::from(fixed.epsilon_lb > 1.0);
        split_above += usize::from(split.epsilon_lb > 1.0);
    }
    // At N = 2000 the bound is far below 1, so any exceedance would be a bug.
    assert_eq!((fixed_above, split_above), (0, 0));
}

/// audit.md §7: the mean of n = 100 values in [0, 1] (Δ = 1/n) certified at ε = 1, δ = 1e-5
/// with σ = 3.7306/n. A bug that adds σ/2 instead (true ε = 2.155) must push the bound above
/// the certificate; the honest mechanism must not. At N = 25,000 per side the buggy audit
/// catches the bug with probability 0.964 and the honest one exceeds 1 with probability
/// < 1e-10 (typical bound ≈ 0.37).
#[test]
fn catches_halved_noise() {
    let n = 100.0;
    let sigma_claimed = 3.7306 / n;
    let t = 1.235 * sigma_claimed;
    let runs = 25_000;
    let mut rng = StdRng::seed_from_u64(7);
    let mut audit = |sigma: f64| {
        // D = (0, …, 0) has mean 0; D′ = (0, …, 0, 1) has mean 1/n.
        let d = gaussian_scores(&mut rng, runs, 0.0, sigma);
        let p = gaussian_scores(&mut rng, runs, 1.0 / n, sigma);
        fixed_threshold_audit(&d, &p, t, DELTA, GAMMA).unwrap()
    };
    let honest = audit(sigma_claimed);
    let buggy = audit(sigma_claimed / 2.0);
    assert!(buggy.epsilon_lb > 1.0, "missed the bug: {buggy:?}");
    assert!(honest.epsilon_lb < 1.0, "false alarm: {honest:?}");
    assert!((honest.epsilon_lb - 0.37).abs() < 0.1, "{honest:?}");
}
