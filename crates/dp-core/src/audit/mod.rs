//! Privacy auditing: statistics that turn the outcomes of audit runs into empirical *lower*
//! bounds on ε.
//!
//! An audit runs a mechanism on a pair of neighbouring datasets D and D′ (many times, or once
//! with many canaries), scores each output, and asks how well a test can tell the two apart. A
//! mechanism that is (ε, δ)-DP caps the power of every such test, so an observed power turns
//! into an ε that the mechanism's true privacy loss must exceed. Every function here returns a
//! bound that holds with probability at least 1 − γ over the audit's own randomness; a bound
//! above the certified ε (same δ, same neighbouring relation) flags a bug in the proof or the
//! code, a bound below it proves nothing about the certificate.
//!
//! `shared/reference/audit.md` is the specification. Sources:
//! - Kairouz, Oh & Viswanath 2015: the hypothesis-testing characterisation
//!   α + e^ε β ≥ 1 − δ behind every bound here.
//! - Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021: Clopper–Pearson bounds on the error
//!   rates of a thresholded statistic over many runs ([`threshold`], [`clopper_pearson`]).
//! - Nasr et al. 2023: the Gaussian-DP estimate ([`gdp`]), much tighter but a lower bound only
//!   when the mechanism's trade-off curve is Gaussian.
//! - Steinke, Nasr & Jagielski 2023: auditing with one training run and many canaries
//!   ([`one_run`]); Mahloujifar, Melis & Chaudhuri 2025: the same game tested against the
//!   mechanism's f-DP curve ([`one_run_fdp`]), far tighter for Gaussian mechanisms.
//! - The ceiling ([`ceiling`]): the best bound any statistic could reach from a mechanism's own
//!   trade-off curve with the same runs, beside which a measured bound can be judged;
//!   [`one_run_ceiling`] is the one-run audit's.
//! - A threshold planned from a view's known law ([`planned_threshold`]): fixed before the
//!   runs, so every run counts.
//!
//! The statistics stay valid only if the threshold, canaries and guess counts are fixed before
//! looking at the runs they are evaluated on: choose them on disjoint runs (as
//! [`threshold::split_threshold_audit`] does) or divide γ by the number of choices tried.

pub mod ceiling;
pub mod clopper_pearson;
pub mod gdp;
pub mod one_run;
pub mod one_run_ceiling;
pub mod one_run_fdp;
pub mod planned_threshold;
pub mod sampled_family;
pub mod threshold;
pub mod white_box;

pub use threshold::{Counts, Orientation, ThresholdAudit};

/// ln(1/(1 + e^{−x})), the log of the logistic function, accurate at both ends: ln p and
/// ln(1 − p) of a probability held as its logit x are `ln_logistic(x)` and `ln_logistic(-x)`.
pub(crate) fn ln_logistic(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Checks a confidence parameter γ ∈ (0, 1) (the bound holds with probability ≥ 1 − γ).
pub(crate) fn check_gamma(gamma: f64) -> crate::Result<()> {
    crate::error::ensure(
        gamma > 0.0 && gamma < 1.0,
        "gamma",
        gamma,
        "must be in (0, 1)",
    )
}

/// Checks δ ∈ [0, 1): audits may ask for pure DP, unlike accountants.
pub(crate) fn check_audit_delta(delta: f64) -> crate::Result<()> {
    crate::error::ensure(
        (0.0..1.0).contains(&delta),
        "delta",
        delta,
        "must be in [0, 1)",
    )
}
