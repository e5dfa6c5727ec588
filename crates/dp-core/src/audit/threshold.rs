//! Multi-run audit with a thresholded statistic (audit.md §1; Kairouz et al. 2015, Jagielski
//! et al. 2020, Nasr et al. 2021).
//!
//! Runs on D and on D′ are scored, a threshold t turns each score into a guess, and the error
//! counts bound ε: an (ε, δ)-DP mechanism forces α + e^ε β ≥ 1 − δ and β + e^ε α ≥ 1 − δ for
//! every test, so Clopper–Pearson upper bounds on α and β give ε_lb. A threshold must not be
//! chosen on the runs that evaluate it: [`fixed_threshold_audit`] takes one fixed in advance,
//! [`split_threshold_audit`] chooses it on the first half of the runs and evaluates it on the
//! second.

use serde::Serialize;

use crate::audit::clopper_pearson::upper_logit;
use crate::audit::gdp::norm_quantile_log;
use crate::audit::{check_audit_delta, check_gamma, ln_logistic};
use crate::error::{DpError, Result, ensure};
use crate::special::log_sub_exp;

/// Error counts of one test "guess D′ iff the rule fires" over runs on D (negatives) and D′
/// (positives).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Runs on D where the test guessed D′ (FP).
    pub false_positives: u64,
    /// Runs on D (N₀).
    pub negatives: u64,
    /// Runs on D′ where the test guessed D (FN).
    pub false_negatives: u64,
    /// Runs on D′ (N₁).
    pub positives: u64,
}

impl Counts {
    /// Checks N₀, N₁ ≥ 1 and FP ≤ N₀, FN ≤ N₁.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(DpError::Invalid(msg));
        if self.negatives == 0 || self.positives == 0 {
            return bad(format!(
                "an audit needs runs on both datasets, got negatives = {} and positives = {}",
                self.negatives, self.positives
            ));
        }
        if self.false_positives > self.negatives {
            return bad(format!(
                "false_positives = {} exceeds negatives = {}",
                self.false_positives, self.negatives
            ));
        }
        if self.false_negatives > self.positives {
            return bad(format!(
                "false_negatives = {} exceeds positives = {}",
                self.false_negatives, self.positives
            ));
        }
        Ok(())
    }
}

/// Which side of the threshold means "the run was on D′".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// s > t means D′ (the statistic grows with the canary's presence).
    Above,
    /// s < t means D′.
    Below,
}

impl Orientation {
    /// Both orientations, for an audit that does not know which way the statistic moves.
    pub const BOTH: [Orientation; 2] = [Orientation::Above, Orientation::Below];

    fn guesses_d_prime(self, s: f64, t: f64) -> bool {
        match self {
            Orientation::Above => s > t,
            Orientation::Below => s < t,
        }
    }
}

/// Which statistic turns a test's error counts into a bound (and so which test a split audit
/// prefers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Statistic {
    /// The Clopper–Pearson threshold bound (audit.md §1, [`epsilon_lower_bound`]), valid for
    /// every mechanism.
    Threshold,
    /// Nasr et al. 2023's Gaussian-DP estimate (audit.md §5, [`crate::audit::gdp`]), a bound
    /// only where the mechanism's trade-off curve is Gaussian. It is largest at central
    /// thresholds, where the threshold bound is not.
    Gdp,
}

impl Statistic {
    /// The statistic's lower bound on ε at `delta` from one test's counts, valid with
    /// probability ≥ 1 − γ (for [`Statistic::Gdp`] only where the curve is Gaussian).
    pub fn bound(self, counts: Counts, delta: f64, gamma: f64) -> Result<f64> {
        match self {
            Statistic::Threshold => epsilon_lower_bound(counts, delta, gamma),
            Statistic::Gdp => crate::audit::gdp::epsilon_lower_bound(counts, delta, gamma),
        }
    }

    /// The statistic's exact ranking value for counts: the unfloored threshold bound, or μ_lb.
    pub(crate) fn exact_rank(self, counts: Counts, delta: f64, gamma: f64) -> Result<f64> {
        match self {
            Statistic::Threshold => raw_bound(counts, delta, gamma),
            Statistic::Gdp => crate::audit::gdp::mu_lower_bound(counts, gamma),
        }
    }

    /// The closed-form stand-in of [`Statistic::exact_rank`] with Wilson score bounds
    /// (z = Φ⁻¹(1 − γ/2)), to shortlist candidates.
    pub(crate) fn wilson_rank(self, counts: Counts, delta: f64, z: f64) -> Result<f64> {
        let (x_alpha, x_beta) = wilson_logits(counts, z);
        Ok(match self {
            Statistic::Threshold => bound_from_logits(x_alpha, x_beta, delta),
            Statistic::Gdp => {
                -norm_quantile_log(ln_logistic(x_alpha))? - norm_quantile_log(ln_logistic(x_beta))?
            }
        })
    }
}

/// Outcome of a threshold audit: the ε lower bound and what produced it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdAudit {
    /// ε lower bound at `delta`, valid with probability ≥ 1 − `gamma`; ≥ 0.
    pub epsilon_lb: f64,
    /// The threshold t of the test.
    pub threshold: f64,
    /// Which side of t guesses D′.
    pub orientation: Orientation,
    /// Error counts on the runs that evaluated the test (not those that chose it).
    pub counts: Counts,
    /// Confidence parameter: the bound fails with probability ≤ γ.
    pub gamma: f64,
    /// δ of the bound.
    pub delta: f64,
}

/// ε lower bound at `delta` from one test's error counts, valid with probability ≥ 1 − γ
/// (audit.md §1 step 3): with Clopper–Pearson upper bounds α̂, β̂ at γ/2 each (Bonferroni),
/// max(ln(1 − δ − β̂) − ln α̂, ln(1 − δ − α̂) − ln β̂), skipping a term whose numerator is ≤ 0,
/// floored at 0. The test must have been fixed before these runs; when it was chosen among T
/// tests on them, pass γ/T.
pub fn epsilon_lower_bound(counts: Counts, delta: f64, gamma: f64) -> Result<f64> {
    Ok(raw_bound(counts, delta, gamma)?.max(0.0))
}

/// [`epsilon_lower_bound`] before the floor (−∞ when both terms are skipped), so that tests
/// whose bound is 0 can still be ranked.
fn raw_bound(counts: Counts, delta: f64, gamma: f64) -> Result<f64> {
    counts.validate()?;
    check_audit_delta(delta)?;
    check_gamma(gamma)?;
    let a = 0.5 * gamma;
    let x_alpha = upper_logit(counts.false_positives, counts.negatives, a)?;
    let x_beta = upper_logit(counts.false_negatives, counts.positives, a)?;
    Ok(bound_from_logits(x_alpha, x_beta, delta))
}

/// The §1 formula from the logits of α̂ and β̂, all in logs so that α̂ ≈ 1e-5 keeps its digits.
pub(crate) fn bound_from_logits(x_alpha: f64, x_beta: f64, delta: f64) -> f64 {
    let ln_delta = delta.ln();
    // ln(1 − δ − r) from the logit of r; None when 1 − r ≤ δ.
    let ln_numerator = |x: f64| {
        let ln_1m = ln_logistic(-x);
        // At δ = 0, ln δ = −∞ and log_sub_exp returns ln(1 − r) itself.
        (ln_1m > ln_delta).then(|| log_sub_exp(ln_1m, ln_delta))
    };
    let t1 = ln_numerator(x_beta).map(|num| num - ln_logistic(x_alpha));
    let t2 = ln_numerator(x_alpha).map(|num| num - ln_logistic(x_beta));
    t1.into_iter().chain(t2).fold(f64::NEG_INFINITY, f64::max)
}

/// Error counts of the rule "guess D′ iff `orientation` fires at `threshold`" over all runs.
pub fn count_errors(
    scores_d: &[f64],
    scores_d_prime: &[f64],
    threshold: f64,
    orientation: Orientation,
) -> Result<Counts> {
    check_scores("scores_d", scores_d)?;
    check_scores("scores_d_prime", scores_d_prime)?;
    ensure(
        !threshold.is_nan(),
        "threshold",
        threshold,
        "must not be NaN",
    )?;
    let fires = |s: &&f64| orientation.guesses_d_prime(**s, threshold);
    let counts = Counts {
        false_positives: scores_d.iter().filter(fires).count() as u64,
        negatives: scores_d.len() as u64,
        false_negatives: scores_d_prime.iter().filter(|s| !fires(s)).count() as u64,
        positives: scores_d_prime.len() as u64,
    };
    counts.validate()?;
    Ok(counts)
}

/// §1 audit of the fixed rule "s > `threshold` means D′" over all runs. The threshold must be
/// chosen without looking at these scores.
pub fn fixed_threshold_audit(
    scores_d: &[f64],
    scores_d_prime: &[f64],
    threshold: f64,
    delta: f64,
    gamma: f64,
) -> Result<ThresholdAudit> {
    fixed_threshold_audit_oriented(
        scores_d,
        scores_d_prime,
        threshold,
        Orientation::Above,
        delta,
        gamma,
    )
}

/// [`fixed_threshold_audit`] with either orientation (also fixed in advance).
pub fn fixed_threshold_audit_oriented(
    scores_d: &[f64],
    scores_d_prime: &[f64],
    threshold: f64,
    orientation: Orientation,
    delta: f64,
    gamma: f64,
) -> Result<ThresholdAudit> {
    let counts = count_errors(scores_d, scores_d_prime, threshold, orientation)?;
    Ok(ThresholdAudit {
        epsilon_lb: epsilon_lower_bound(counts, delta, gamma)?,
        threshold,
        orientation,
        counts,
        gamma,
        delta,
    })
}

/// §1 audit with the threshold chosen on held-out runs, rule "s > t means D′". See
/// [`split_threshold_audit_oriented`].
pub fn split_threshold_audit(
    scores_d: &[f64],
    scores_d_prime: &[f64],
    delta: f64,
    gamma: f64,
) -> Result<ThresholdAudit> {
    split_threshold_audit_oriented(
        scores_d,
        scores_d_prime,
        &[Orientation::Above],
        delta,
        gamma,
    )
}

/// How many thresholds the closed-form score shortlists for exact scoring.
pub(crate) const SHORTLIST: usize = 16;

/// §1 audit with the test chosen on held-out runs (the `search_ct` split of Jagielski et al.'s
/// code, `Split` in jax_privacy).
///
/// The first ⌊N/2⌋ scores of each slice (by index, so the split must not depend on the scores)
/// choose the threshold and the orientation among `orientations`; the bound is evaluated on the
/// remaining scores only, so it is valid at γ without any correction. Candidate thresholds lie
/// between consecutive distinct values of the selection half. Each is scored by the §1 bound on
/// the selection half at the same (δ, γ) with Wilson score intervals in place of
/// Clopper–Pearson (closed form, so every candidate can be scored); the best 16
/// are rescored with the exact [`epsilon_lower_bound`] (unfloored) and the best of those wins,
/// ties going to the smaller threshold and then to the earlier orientation. The selection
/// only needs to be a function of the selection half: a poor choice costs tightness, never
/// validity. With a single distinct selection value the threshold is that value.
pub fn split_threshold_audit_oriented(
    scores_d: &[f64],
    scores_d_prime: &[f64],
    orientations: &[Orientation],
    delta: f64,
    gamma: f64,
) -> Result<ThresholdAudit> {
    split_audit(
        scores_d,
        scores_d_prime,
        orientations,
        Statistic::Threshold,
        delta,
        gamma,
    )
}

/// [`split_threshold_audit_oriented`] with the test preferred by `statistic` on the selection
/// halves (ranked by its Wilson stand-in, the shortlist by its exact value). The returned
/// bound is the threshold bound of the evaluation counts; a [`Statistic::Gdp`] caller turns
/// the counts into its estimate ([`crate::audit::gdp::epsilon_lower_bound`]).
pub fn split_audit(
    scores_d: &[f64],
    scores_d_prime: &[f64],
    orientations: &[Orientation],
    statistic: Statistic,
    delta: f64,
    gamma: f64,
) -> Result<ThresholdAudit> {
    check_scores("scores_d", scores_d)?;
    check_scores("scores_d_prime", scores_d_prime)?;
    check_audit_delta(delta)?;
    check_gamma(gamma)?;
    if orientations.is_empty() {
        return Err(DpError::Invalid("orientations must not be empty".into()));
    }
    for (name, s) in [("scores_d", scores_d), ("scores_d_prime", scores_d_prime)] {
        if s.len() < 2 {
            return Err(DpError::Invalid(format!(
                "a split audit needs >= 2 runs per dataset, {name} has {}",
                s.len()
            )));
        }
    }
    let (sel_d, eval_d) = scores_d.split_at(scores_d.len() / 2);
    let (sel_p, eval_p) = scores_d_prime.split_at(scores_d_prime.len() / 2);
    let (threshold, orientation) =
        choose_test(sel_d, sel_p, orientations, statistic, delta, gamma)?;
    fixed_threshold_audit_oriented(eval_d, eval_p, threshold, orientation, delta, gamma)
}

struct Candidate {
    threshold: f64,
    orientation: Orientation,
    counts: Counts,
    score: f64,
}

/// The test the selection half prefers (see [`split_threshold_audit_oriented`]).
fn choose_test(
    sel_d: &[f64],
    sel_p: &[f64],
    orientations: &[Orientation],
    statistic: Statistic,
    delta: f64,
    gamma: f64,
) -> Result<(f64, Orientation)> {
    let mut d = sel_d.to_vec();
    let mut p = sel_p.to_vec();
    d.sort_by(f64::total_cmp);
    p.sort_by(f64::total_cmp);
    let (n0, n1) = (d.len() as u64, p.len() as u64);
    let z = -norm_quantile_log((0.5 * gamma).ln())?;
    let mut candidates = Vec::new();
    // Sweep the distinct values in increasing order; (c0, c1) count the scores ≤ the current
    // value, so a threshold between it and the next one splits the runs at these counts.
    let (mut i, mut j) = (0usize, 0usize);
    while i < d.len() || j < p.len() {
        let v = match (d.get(i), p.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => unreachable!(),
        };
        while i < d.len() && d[i] == v {
            i += 1;
        }
        while j < p.len() && p[j] == v {
            j += 1;
        }
        let next = match (d.get(i), p.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => break,
        };
        let (c0, c1) = (i as u64, j as u64);
        for &orientation in orientations {
            let counts = match orientation {
                Orientation::Above => Counts {
                    false_positives: n0 - c0,
                    negatives: n0,
                    false_negatives: c1,
                    positives: n1,
                },
                Orientation::Below => Counts {
                    false_positives: c0,
                    negatives: n0,
                    false_negatives: n1 - c1,
                    positives: n1,
                },
            };
            candidates.push(Candidate {
                threshold: between(v, next, orientation),
                orientation,
                counts,
                score: statistic.wilson_rank(counts, delta, z)?,
            });
        }
    }
    if candidates.is_empty() {
        // One distinct value: no split exists; any fixed threshold is still an honest test.
        return Ok((
            d.first().or(p.first()).copied().unwrap_or(0.0),
            orientations[0],
        ));
    }
    // Stable sort keeps generation order (threshold, then orientation) among equal scores.
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut best: Option<(f64, &Candidate)> = None;
    for c in candidates.iter().take(SHORTLIST) {
        let exact = statistic.exact_rank(c.counts, delta, gamma)?;
        let better = match best {
            None => true,
            Some((e, b)) => {
                exact > e
                    || (exact == e
                        && (c.threshold, orientation_rank(orientations, c.orientation))
                            < (b.threshold, orientation_rank(orientations, b.orientation)))
            }
        };
        if better {
            best = Some((exact, c));
        }
    }
    let (_, c) = best.expect("shortlist is not empty");
    Ok((c.threshold, c.orientation))
}

fn orientation_rank(orientations: &[Orientation], o: Orientation) -> usize {
    orientations
        .iter()
        .position(|&x| x == o)
        .unwrap_or(usize::MAX)
}

/// A threshold t with a ≤ t < b for "s > t" and a < t ≤ b for "s < t", so that the rule puts
/// a and b on different sides whatever rounding does to the midpoint.
fn between(a: f64, b: f64, orientation: Orientation) -> f64 {
    // Halving first cannot overflow; ±∞ endpoints make it ±∞ or NaN, handled below.
    let mid = 0.5 * a + 0.5 * b;
    match orientation {
        Orientation::Above if mid >= a && mid < b => mid,
        Orientation::Above => a,
        Orientation::Below if mid > a && mid <= b => mid,
        Orientation::Below => b,
    }
}

/// Logits of the one-sided Wilson score upper bounds on α and β (z = Φ⁻¹(1 − γ/2)).
pub(crate) fn wilson_logits(counts: Counts, z: f64) -> (f64, f64) {
    let logit = |k: u64, n: u64| {
        let n = n as f64;
        let phat = k as f64 / n;
        let z2n = z * z / n;
        let half_width = z * (phat * (1.0 - phat) / n + 0.25 * z2n / n).sqrt();
        let up = ((phat + 0.5 * z2n + half_width) / (1.0 + z2n)).min(1.0);
        let down = ((1.0 - phat + 0.5 * z2n - half_width) / (1.0 + z2n)).max(0.0);
        up.ln() - down.ln()
    };
    (
        logit(counts.false_positives, counts.negatives),
        logit(counts.false_negatives, counts.positives),
    )
}

/// NaN scores would silently fall on one side of every threshold; name the first.
fn check_scores(name: &str, scores: &[f64]) -> Result<()> {
    match scores.iter().position(|s| s.is_nan()) {
        Some(i) => Err(DpError::Invalid(format!("{name}[{i}] is NaN"))),
        None => Ok(()),
    }
}

/// The γ at which a threshold audit ranks candidate thresholds on its selection halves,
/// whatever the bound's confidence is and however many audits share it. Fixed so that a lower
/// confidence never yields a lower bound ([`threshold_test`]). Small, because
/// ranking at a loose γ prefers far-tail thresholds whose few errors on the selection half
/// were luck: on N(0, 1) against N(μ, 1), 20 seeds each, the evaluation halves reached on
/// average 0.73 of the ceiling ([`crate::audit::ceiling`]) at μ = 0.27, 10⁵ runs per side,
/// ranked at γ = 0.05, and 0.91 at 1e-3 (μ = 0.5 and 0.92: 0.86 → 0.91 and 0.93 → 0.98).
pub const SELECTION_GAMMA: f64 = 1e-3;

/// The threshold test of an audit's scores (rule "s > t means D′"): the threshold is chosen
/// on the first half of each side's runs, ranking candidates by `statistic`'s bound at
/// `selection_gamma`, and the counts (and the threshold bound) are computed on the second
/// halves at `gamma`.
///
/// The choice does not depend on `gamma`, so for the same scores a higher confidence can only
/// lower the bound (the Clopper–Pearson upper bounds of fixed counts grow as γ shrinks).
/// Ranking at the bound's own γ let a lower confidence pick a worse threshold: 4,000 runs per
/// side at ε = 16 measured 0.327, 0 and 0.252 at confidence 0.5, 0.95 and 0.9999999999. The
/// threshold is still a function of the selection halves only, so the bound stays valid.
pub fn threshold_test(
    scores_d: &[f64],
    scores_p: &[f64],
    statistic: Statistic,
    delta: f64,
    (gamma, selection_gamma): (f64, f64),
) -> Result<ThresholdAudit> {
    // Only the threshold of this audit is used: split_audit chooses it on the first ⌊N/2⌋
    // scores of each side, the same split as below.
    let above = [Orientation::Above];
    let chosen = split_audit(
        scores_d,
        scores_p,
        &above,
        statistic,
        delta,
        selection_gamma,
    )?;
    let (eval_d, eval_p) = (
        &scores_d[scores_d.len() / 2..],
        &scores_p[scores_p.len() / 2..],
    );
    fixed_threshold_audit(eval_d, eval_p, chosen.threshold, delta, gamma)
}

#[cfg(test)]
#[path = "threshold_tests.rs"]
mod tests;
