//! A threshold planned before the runs from the law of what the auditor sees, where that law
//! is known (a white-box view whose curve is derived, not assumed).
//!
//! A threshold chosen on the runs must be chosen on half of them and evaluated on the other
//! half ([`crate::audit::threshold::split_threshold_audit`]): half the runs count, and the
//! choice is noisy. Where the view's law is known, its error rates α(t) and β(t) at every
//! threshold are too, and the threshold whose *expected* error counts give the largest bound
//! is a function of the mechanism, not of the runs: fixed in advance, as the GDP estimate's
//! central threshold is, so every run counts at the full γ. If the law were wrong the
//! threshold would be poor, never the bound invalid: the counts it is evaluated on are the
//! runs', and the bound is [`epsilon_lower_bound`] of those.

use crate::audit::threshold::{Counts, epsilon_lower_bound};
use crate::audit::{check_audit_delta, check_gamma};
use crate::error::{DpError, Result};

/// The threshold t among `candidates` (t, α(t), β(t)) of the rule "score > t means D′"
/// (α: runs on D above t; β: runs on D′ at or below it) whose expected error counts over
/// `negatives` runs on D and `positives` on D′ give the largest [`epsilon_lower_bound`] at
/// (`delta`, `gamma`); ties go to the first. `None` when no candidate bounds ε above 0.
pub fn planned_threshold(
    candidates: &[(f64, f64, f64)],
    negatives: u64,
    positives: u64,
    delta: f64,
    gamma: f64,
) -> Result<Option<f64>> {
    check_audit_delta(delta)?;
    check_gamma(gamma)?;
    if negatives == 0 || positives == 0 {
        return Err(DpError::Invalid(format!(
            "a planned threshold needs runs on both datasets, got {negatives} and {positives}"
        )));
    }
    let mut best: Option<(f64, f64)> = None;
    for &(t, alpha, beta) in candidates {
        let rate_ok = |r: f64| (0.0..=1.0).contains(&r);
        if t.is_nan() || !rate_ok(alpha) || !rate_ok(beta) {
            return Err(DpError::Invalid(format!(
                "a planned threshold's candidate ({t}, α = {alpha}, β = {beta}) needs a \
                 threshold and two rates in [0, 1]"
            )));
        }
        let expected = |rate: f64, runs: u64| ((rate * runs as f64).round() as u64).min(runs);
        let counts = Counts {
            false_positives: expected(alpha, negatives),
            negatives,
            false_negatives: expected(beta, positives),
            positives,
        };
        let bound = epsilon_lower_bound(counts, delta, gamma)?;
        if bound > 0.0 && best.is_none_or(|(_, b)| bound > b) {
            best = Some((t, bound));
        }
    }
    Ok(best.map(|(t, _)| t))
}

#[cfg(test)]
#[path = "planned_threshold_tests.rs"]
mod tests;
