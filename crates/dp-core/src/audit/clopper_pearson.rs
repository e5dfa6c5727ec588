//! One-sided Clopper–Pearson confidence bounds on a binomial proportion.
//!
//! The upper bound at level a solves P[Bin(n, p) ≤ k] = a for p (= BetaInv(1 − a; k + 1, n − k)).
//! Audits need it for error rates near 0, where ln p decides the ε bound and a generic inverse
//! Beta CDF loses its relative accuracy, so the root is found by bisection on the logit of p
//! against a binomial CDF summed in log space, with counts kept as integers.

use crate::audit::ln_logistic;
use crate::error::{DpError, Result, ensure};
use crate::special::{ln_factorial, log_add_exp, log1m_exp};

/// A term whose geometric tail bound is below the running sum by this many nats ends a sum: the
/// rest changes it by less than e^{−40} ≈ 4e-18 relative, below double resolution.
const TAIL_NATS: f64 = 40.0;

/// Relative error allowed for each ln n! (libm's lgamma is within a few ulp): ln pmf terms are
/// differences of ln n! values and inherit ~this·ln n! of absolute error, which the bisection
/// adds to the CDF so that rounding can only enlarge the bound.
const LN_FACT_REL_ERR: f64 = 8.0 * f64::EPSILON;

/// Bisection stops once the logit bracket is this narrow relative to its magnitude.
const REL_TOL: f64 = 1e-14;

/// Bisection cap: a bracket of width < 1e3 reaches `REL_TOL` in ~60 halvings.
const MAX_ITER: usize = 200;

fn check(k: u64, n: u64, a: f64) -> Result<()> {
    if n == 0 {
        return Err(DpError::Invalid(
            "Clopper-Pearson bound needs n >= 1 trials, got n = 0".into(),
        ));
    }
    if k > n {
        return Err(DpError::Invalid(format!(
            "Clopper-Pearson bound: k = {k} successes exceed n = {n} trials"
        )));
    }
    ensure(a > 0.0 && a < 1.0, "level", a, "must be in (0, 1)")
}

/// One-sided upper bound p with P[Bin(n, p) ≤ k] = a: the true proportion is below it with
/// probability ≥ 1 − a. Equals 1 for k = n and −expm1(ln a / n) for k = 0; rounded up.
pub fn upper(k: u64, n: u64, a: f64) -> Result<f64> {
    Ok(ln_logistic(upper_logit(k, n, a)?).exp())
}

/// One-sided lower bound p with P[Bin(n, p) ≥ k] = a: the true proportion is above it with
/// probability ≥ 1 − a. Equals 0 for k = 0; rounded down.
pub fn lower(k: u64, n: u64, a: f64) -> Result<f64> {
    check(k, n, a)?;
    // Failures n − k have proportion 1 − p, so the lower bound is the complement of their upper.
    Ok(ln_logistic(-upper_logit(n - k, n, a)?).exp())
}

/// [`upper`] as a logit x = ln(p/(1 − p)) (+∞ for k = n), so that callers get ln p and
/// ln(1 − p) without cancellation whichever end p is near.
pub fn upper_logit(k: u64, n: u64, a: f64) -> Result<f64> {
    check(k, n, a)?;
    if k == n {
        return Ok(f64::INFINITY);
    }
    let ln_a = a.ln();
    // k = 0 and k = n − 1 have closed forms that also bracket every other k:
    // P[Bin ≤ 0] = (1 − p)^n and P[Bin ≤ n − 1] = 1 − p^n.
    let logit_k0 = {
        let ln_1mp = ln_a / n as f64;
        (-ln_1mp.exp_m1()).ln() - ln_1mp
    };
    if k == 0 {
        return Ok(logit_k0);
    }
    let logit_kn1 = {
        let ln_p = (-a).ln_1p() / n as f64;
        ln_p - (-ln_p.exp_m1()).ln()
    };
    // Margins absorb rounding in the closed forms; the invariant is checked, not assumed.
    let (mut lo, mut hi) = (logit_k0 - 1.0, logit_kn1 + 1.0);
    let slack = LN_FACT_REL_ERR * (ln_factorial(n) + 1.0);
    let above = |x: f64| ln_cdf(k, n, x) + slack > ln_a;
    if !above(lo) || above(hi) {
        return Err(DpError::NoConvergence(format!(
            "Clopper-Pearson bracket for k = {k}, n = {n}, a = {a} does not contain the root"
        )));
    }
    for _ in 0..MAX_ITER {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || hi - lo <= REL_TOL * mid.abs().max(1.0) {
            break;
        }
        if above(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // CDF(hi) ≤ a even allowing for rounding, so hi errs toward the larger proportion.
    Ok(hi)
}

/// ln C(n, j) + j ln p + (n − j) ln(1 − p).
fn ln_pmf(j: u64, n: u64, ln_p: f64, ln_q: f64) -> f64 {
    let ln_choose = ln_factorial(n) - ln_factorial(j) - ln_factorial(n - j);
    // 0 · ln 0 is 0 here (a certain outcome), not NaN.
    let s = if j == 0 { 0.0 } else { j as f64 * ln_p };
    let f = if j == n { 0.0 } else { (n - j) as f64 * ln_q };
    ln_choose + s + f
}

/// ln P[Bin(n, p) ≤ k] for p = logistic(`logit_p`), never below the exact value by more than
/// double rounding (truncated tails are either bounded from above or dropped from the
/// complement).
///
/// Both sums start next to k and move away from the mode, where terms fall off at least
/// geometrically, so the cost is O(√(n p (1 − p))) terms rather than O(k).
pub(crate) fn ln_cdf(k: u64, n: u64, logit_p: f64) -> f64 {
    if k >= n {
        return 0.0;
    }
    let ln_p = ln_logistic(logit_p);
    let ln_q = ln_logistic(-logit_p);
    let ln_odds = ln_q - ln_p;
    let p = ln_p.exp();
    if (k as f64) <= (n as f64 + 1.0) * p {
        // k at or below the mode: terms shrink from k downwards, with ratio
        // pmf(j − 1)/pmf(j) = j/(n − j + 1) · (1 − p)/p shrinking as j decreases.
        let ratio = |j: u64| (j as f64).ln() - ((n - j + 1) as f64).ln() + ln_odds;
        descending_sum(k, n, ln_p, ln_q, k, |j| j - 1, ratio, true)
    } else {
        // k above the mode, hence above the median: CDF ≥ 1/2 and 1 − CDF is summed upwards
        // from k + 1, ratio pmf(j + 1)/pmf(j) = (n − j)/(j + 1) · p/(1 − p) shrinking in j.
        // Dropping its tail makes the survival smaller, i.e. the CDF larger.
        let ratio = |j: u64| ((n - j) as f64).ln() - ((j + 1) as f64).ln() - ln_odds;
        let ln_sf = descending_sum(k + 1, n, ln_p, ln_q, n - k - 1, |j| j + 1, ratio, false);
        log1m_exp(ln_sf.min(0.0))
    }
}

/// ln Σ pmf(j) over `steps + 1` indices from `start`, each next index given by `next`, whose
/// terms shrink by the non-increasing factor e^{ln_ratio(j)} ≤ 1 from j to `next(j)`. Stops when
/// the geometric bound on the rest is negligible; adds that bound when `bound_tail`.
#[allow(clippy::too_many_arguments)]
fn descending_sum(
    start: u64,
    n: u64,
    ln_p: f64,
    ln_q: f64,
    steps: u64,
    next: impl Fn(u64) -> u64,
    ln_ratio: impl Fn(u64) -> f64,
    bound_tail: bool,
) -> f64 {
    let mut j = start;
    let mut term = ln_pmf(j, n, ln_p, ln_q);
    let mut acc = term;
    for _ in 0..steps {
        let r = ln_ratio(j);
        if r < 0.0 {
            // Σ_{i≥1} term·ρ^i = term·ρ/(1 − ρ) bounds every remaining term.
            let ln_rest = term + r - log1m_exp(r);
            if ln_rest == f64::NEG_INFINITY || ln_rest < acc - TAIL_NATS {
                if bound_tail {
                    acc = log_add_exp(acc, ln_rest);
                }
                return acc;
            }
        }
        j = next(j);
        term = ln_pmf(j, n, ln_p, ln_q);
        acc = log_add_exp(acc, term);
    }
    acc
}

#[cfg(test)]
#[path = "clopper_pearson_tests.rs"]
mod tests;
