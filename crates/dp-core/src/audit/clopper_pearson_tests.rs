//! Tests of the Clopper–Pearson bounds: closed forms, the defining equation checked with an
//! untruncated binomial sum, scipy reference values, monotonicity and consistency.

use super::*;
use crate::special::log_sum_exp;

/// ln P[Bin(n, p) ≤ k] for p = logistic(x), summing every term: the plain definition the
/// truncated sum must match.
fn naive_ln_cdf(k: u64, n: u64, x: f64) -> f64 {
    let (ln_p, ln_q) = (ln_logistic(x), ln_logistic(-x));
    let terms: Vec<f64> = (0..=k).map(|j| ln_pmf(j, n, ln_p, ln_q)).collect();
    log_sum_exp(&terms)
}

/// ln P[Bin(n, p) > k] for p = logistic(x), summing every term.
fn naive_ln_sf(k: u64, n: u64, x: f64) -> f64 {
    let (ln_p, ln_q) = (ln_logistic(x), ln_logistic(-x));
    let terms: Vec<f64> = (k + 1..=n).map(|j| ln_pmf(j, n, ln_p, ln_q)).collect();
    log_sum_exp(&terms)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn k_zero_is_the_closed_form() {
    for &(n, a) in &[
        (1u64, 0.025),
        (10, 0.05),
        (1000, 0.025),
        (25_000, 1e-10),
        (1 << 40, 0.5),
    ] {
        let p = upper(0, n, a).unwrap();
        let closed = -(a.ln() / n as f64).exp_m1();
        assert!(rel(p, closed) < 1e-15, "n {n}: {p} vs {closed}");
    }
    // n·(1 − 0.025^{1/n}) → ln 40 = 3.689: the "N/3.69" of audit.md §6.
    assert!((upper(0, 1_000_000, 0.025).unwrap() * 1e6 - 40f64.ln()).abs() < 1e-5);
}

#[test]
fn extremes() {
    assert_eq!(upper(7, 7, 0.025).unwrap(), 1.0);
    assert_eq!(upper_logit(7, 7, 0.025).unwrap(), f64::INFINITY);
    assert_eq!(lower(0, 7, 0.025).unwrap(), 0.0);
    // lower(n) solves p^n = a.
    let p = lower(10, 10, 0.05).unwrap();
    assert!(rel(p, 0.05f64.powf(0.1)) < 1e-12, "{p}");
}

/// scipy 1.17.1: `python3 -c "from scipy.stats import beta; print(beta.ppf(1 - a, k + 1, n - k))"`
/// for each (k, n, a) below.
const SCIPY_UPPER: [(u64, u64, f64, f64); 10] = [
    (5, 100, 0.025, 0.112_834_911_105_462_75),
    (1, 10, 0.05, 0.394_163_302_436_504_66),
    (50, 100, 0.025, 0.601_678_870_496_699),
    (0, 1000, 0.025, 0.003_682_083_896_865_671),
    (3, 25_000, 0.025, 0.000_350_650_474_220_594_74),
    (9, 10, 0.025, 0.997_471_421_455_538_2),
    (1234, 25_000, 0.025, 0.052_118_033_361_153_164),
    // scipy's beta.ppf gives 0.00046556108773664995 here (2e-9 low); this is mpmath's root
    // of P[Bin ≤ 10] = 1e-10 at 50 digits, which `beta.isf(1e-10, 11, 99990)` also returns.
    (10, 100_000, 1e-10, 0.000_465_561_088_782_566_95),
    (99, 100, 0.025, 0.999_746_853_967_022_6),
    (1, 2, 0.5, std::f64::consts::FRAC_1_SQRT_2),
];

#[test]
fn matches_scipy() {
    for &(k, n, a, want) in &SCIPY_UPPER {
        let got = upper(k, n, a).unwrap();
        assert!(
            rel(got, want) < 1e-9,
            "upper({k}, {n}, {a}) = {got}, scipy {want}"
        );
        assert!(
            got >= want * (1.0 - 1e-12),
            "not conservative: {got} < {want}"
        );
        // Near 1 the complement is what matters: 1 − p to 1e-9 relative as well.
        let got_c = ln_logistic(-upper_logit(k, n, a).unwrap()).exp();
        assert!(
            rel(got_c, 1.0 - want) < 1e-9,
            "1 - upper: {got_c} vs {}",
            1.0 - want
        );
    }
    // python3 -c "from scipy.stats import beta; print(beta.ppf(0.025, 5, 96))"
    let lo = lower(5, 100, 0.025).unwrap();
    assert!(rel(lo, 0.016_431_879_182_052_155) < 1e-9, "{lo}");
}

#[test]
fn binomial_cdf_at_the_bound_is_the_level() {
    for &n in &[1u64, 2, 7, 50, 1000, 25_000, 200_000] {
        for &a in &[0.5, 0.05, 0.025, 1e-6, 1e-12] {
            for k in [0, 1, n / 3, n / 2, n.saturating_sub(1)] {
                if k >= n {
                    continue;
                }
                let x = upper_logit(k, n, a).unwrap();
                let cdf = naive_ln_cdf(k, n, x).exp();
                // ln n! ≈ 2.2e6 at n = 2e5 carries ~5e-10 of rounding into every term.
                let tol = if n > 25_000 { 1e-8 } else { 1e-9 };
                assert!(
                    rel(cdf, a) < tol,
                    "k {k} n {n} a {a}: CDF at logit {x} = {cdf}"
                );
                // Lower bound of k + 1 successes: P[Bin ≥ k + 1] = a.
                let xl = -upper_logit(n - k - 1, n, a).unwrap();
                let sf = naive_ln_sf(k, n, xl).exp();
                assert!(
                    rel(sf, a) < tol,
                    "k {k} n {n} a {a}: SF at logit {xl} = {sf}"
                );
                assert_eq!(lower(k + 1, n, a).unwrap(), ln_logistic(xl).exp());
            }
        }
    }
}

#[test]
fn truncated_cdf_matches_the_full_sum() {
    for &(k, n) in &[
        (0u64, 10u64),
        (3, 10),
        (40, 1000),
        (500, 1000),
        (999, 1000),
        (2500, 9000),
    ] {
        for &p in &[1e-6f64, 0.003, 0.05, 0.3, 0.5, 0.7, 0.999] {
            let x = p.ln() - (-p).ln_1p();
            let fast = ln_cdf(k, n, x);
            let full = naive_ln_cdf(k, n, x);
            // Both carry the ~1e-12 absolute rounding of ln n! in every term.
            let tol = 1e-11 * full.abs().max(1.0);
            assert!(
                (fast - full).abs() <= tol,
                "k {k} n {n} p {p}: {fast} vs {full}"
            );
        }
    }
}

#[test]
fn monotone_and_consistent() {
    let n = 500;
    let mut prev = 0.0;
    for k in 0..=n {
        let p = upper(k, n, 0.025).unwrap();
        let l = lower(k, n, 0.025).unwrap();
        let phat = k as f64 / n as f64;
        assert!(p > prev || k == 0, "upper not increasing at k = {k}");
        assert!(l <= phat && phat <= p, "k {k}: {l} <= {phat} <= {p}");
        prev = p;
    }
    // A higher confidence (smaller a) gives a wider bound.
    assert!(upper(5, 100, 0.01).unwrap() > upper(5, 100, 0.05).unwrap());
}

#[test]
fn tends_to_the_proportion() {
    let mut prev = f64::INFINITY;
    for e in 1..=7 {
        let n = 10u64.pow(e);
        let k = n / 10;
        let p = upper(k, n, 0.025).unwrap();
        // Width ≈ z·√(p(1−p)/n) with z = 1.96; allow the small-n skew.
        let width = p - 0.1;
        assert!(width > 0.0 && width < 3.0 * (0.09 / n as f64).sqrt() + 1.0 / n as f64);
        assert!(p < prev, "not decreasing in n at n = {n}");
        prev = p;
    }
}

#[test]
fn rejects_bad_inputs() {
    assert!(matches!(upper(1, 0, 0.05), Err(DpError::Invalid(m)) if m.contains("n >= 1")));
    assert!(matches!(upper(5, 4, 0.05), Err(DpError::Invalid(m)) if m.contains("exceed")));
    assert!(matches!(lower(5, 4, 0.05), Err(DpError::Invalid(_))));
    for a in [0.0, 1.0, -0.1, f64::NAN] {
        assert!(matches!(
            upper(1, 4, a),
            Err(DpError::OutOfRange { name: "level", .. })
        ));
    }
}
