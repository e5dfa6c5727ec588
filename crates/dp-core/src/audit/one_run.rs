//! Auditing with one training run (Steinke, Nasr & Jagielski 2023; audit.md §4).
//!
//! m canaries are each included independently with probability 1/2 (S_i = +1) or not
//! (S_i = −1), under add/remove neighbouring. After one run the auditor guesses S_i for the
//! r canaries it is most confident about and gets v right. An (ε, δ)-DP mechanism makes the
//! guesses no better than ε-randomised response up to a δ term, so with q = e^ε/(1 + e^ε) and
//! f(w) = P[Bin(r, q) ≥ w],
//!
//! P[V ≥ v] ≤ f(v) + 2mδ · max_{1≤i≤v} (f(v − i) − f(v))/i,
//!
//! a p-value for "the mechanism is (ε, δ)-DP"; ε_lb is the largest ε it rejects at level γ.
//! This is the paper's appendix code (also jax_privacy `_one_run_p_value`), in log space.

use crate::audit::{check_audit_delta, check_gamma, ln_logistic};
use crate::error::{DpError, Result, ensure};
use crate::special::{ln_factorial, log_add_exp, log_sum_exp};

/// Bisection cap on ε; the bracket is at most [0, 4096], so ~60 halvings reach double
/// resolution.
const MAX_ITER: usize = 200;

/// p(ε) saturates at 1 long before this (ln q = −ln(1 + e^{−ε}) rounds to 0 past ε ≈ 745).
const EPS_CAP: f64 = 4096.0;

fn check_counts(m: u64, r: u64, v: u64) -> Result<()> {
    if m == 0 || v > r || r > m {
        return Err(DpError::Invalid(format!(
            "one-run audit needs 0 <= v <= r <= m and m >= 1, got m = {m}, r = {r}, v = {v}"
        )));
    }
    Ok(())
}

/// p-value of "the mechanism is (ε, δ)-DP" after v correct guesses out of r on m canaries:
/// min(1, f(v) + 2mδ · max_{1≤i≤v} P[v − i ≤ Bin(r, q) < v]/i) with q = e^ε/(1 + e^ε).
pub fn p_value(epsilon: f64, m: u64, r: u64, v: u64, delta: f64) -> Result<f64> {
    ensure(
        epsilon >= 0.0 && epsilon.is_finite(),
        "epsilon",
        epsilon,
        "must be >= 0 and finite",
    )?;
    check_counts(m, r, v)?;
    ensure(
        (0.0..=1.0).contains(&delta),
        "delta",
        delta,
        "must be in [0, 1]",
    )?;
    Ok(ln_p_value(epsilon, m, r, v, delta).exp())
}

/// ln of [`p_value`] (inputs already checked).
fn ln_p_value(eps: f64, m: u64, r: u64, v: u64, delta: f64) -> f64 {
    if v == 0 {
        return 0.0;
    }
    // 1 − q = logistic(−ε), so neither ln q nor ln(1 − q) cancels.
    let (ln_q, ln_1mq) = (ln_logistic(eps), ln_logistic(-eps));
    let ln_r_fact = ln_factorial(r);
    let ln_pmf = |j: u64| {
        let s = if j == 0 { 0.0 } else { j as f64 * ln_q };
        let f = if j == r { 0.0 } else { (r - j) as f64 * ln_1mq };
        ln_r_fact - ln_factorial(j) - ln_factorial(r - j) + s + f
    };
    let upper: Vec<f64> = (v..=r).map(ln_pmf).collect();
    let mut ln_p = log_sum_exp(&upper);
    if delta > 0.0 {
        // max_i P[v − i ≤ Bin < v]/i, the partial sums growing one term at a time.
        let mut ln_partial = f64::NEG_INFINITY;
        let mut ln_best = f64::NEG_INFINITY;
        for i in 1..=v {
            ln_partial = log_add_exp(ln_partial, ln_pmf(v - i));
            ln_best = ln_best.max(ln_partial - (i as f64).ln());
        }
        ln_p = log_add_exp(ln_p, (2.0 * m as f64 * delta).ln() + ln_best);
    }
    ln_p.min(0.0)
}

/// ε lower bound from a one-run audit, valid with probability ≥ 1 − γ: sup{ε : p(ε) < γ}
/// (p increases with ε), found by bisection and rounded down; 0 when even ε = 0 is not
/// rejected. m canaries, r guesses, v correct, at `delta` ∈ [0, 1). k₊ and k₋ (hence r) must be
/// fixed before the run, or γ divided by the number of choices tried.
pub fn epsilon_lower_bound(m: u64, r: u64, v: u64, delta: f64, gamma: f64) -> Result<f64> {
    check_counts(m, r, v)?;
    check_audit_delta(delta)?;
    check_gamma(gamma)?;
    let ln_gamma = gamma.ln();
    // ln pmf terms carry ~8 ulp of ln r! each (lgamma's rounding); rejecting only beyond that
    // keeps rounding from raising the bound.
    let slack = 8.0 * f64::EPSILON * (ln_factorial(r) + 1.0);
    let rejected = |eps: f64| ln_p_value(eps, m, r, v, delta) + slack < ln_gamma;
    if !rejected(0.0) {
        return Ok(0.0);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while rejected(hi) {
        lo = hi;
        hi *= 2.0;
        if hi > EPS_CAP {
            return Err(DpError::NoConvergence(format!(
                "one-run p-value stays below gamma = {gamma} up to epsilon = {EPS_CAP}"
            )));
        }
    }
    for _ in 0..MAX_ITER {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if rejected(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// Guesses for a one-run audit: +1 for the `k_plus` highest scores, −1 for the `k_minus`
/// lowest, abstaining on the rest; returns (r, v) = (k₊ + k₋, number of correct guesses)
/// given which canaries were `included` (S_i = +1).
///
/// Scores are ranked high to low with ties going to the lower index, so the +1 guesses are a
/// prefix and the −1 guesses a suffix of one deterministic order. Index tie-breaking is fair
/// only because canary indices are independent of S_i; never order canaries by inclusion.
/// Errors on a length mismatch, k₊ + k₋ > m, or a NaN score (naming its index).
pub fn guesses(
    scores: &[f64],
    included: &[bool],
    k_plus: usize,
    k_minus: usize,
) -> Result<(u64, u64)> {
    if scores.len() != included.len() {
        return Err(DpError::Invalid(format!(
            "{} scores but {} inclusion flags",
            scores.len(),
            included.len()
        )));
    }
    let m = scores.len();
    if k_plus.checked_add(k_minus).is_none_or(|k| k > m) {
        return Err(DpError::Invalid(format!(
            "k_plus = {k_plus} and k_minus = {k_minus} guesses exceed m = {m} canaries"
        )));
    }
    if let Some(i) = scores.iter().position(|s| s.is_nan()) {
        return Err(DpError::Invalid(format!("scores[{i}] is NaN")));
    }
    let mut order: Vec<usize> = (0..m).collect();
    // partial_cmp (NaN is excluded) so that −0.0 and 0.0 tie like other equal scores.
    order.sort_by(|&a, &b| {
        scores[b]
            .partial_cmp(&scores[a])
            .expect("no NaN scores")
            .then(a.cmp(&b))
    });
    let right_plus = order[..k_plus].iter().filter(|&&i| included[i]).count();
    let right_minus = order[m - k_minus..]
        .iter()
        .filter(|&&i| !included[i])
        .count();
    Ok(((k_plus + k_minus) as u64, (right_plus + right_minus) as u64))
}

#[cfg(test)]
#[path = "one_run_tests.rs"]
mod tests;
