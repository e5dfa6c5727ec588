//! The ceiling of an audit: the largest bound a statistic could reach from a mechanism, given
//! the runs and the confidence, if it were the best test there is (the likelihood-ratio test
//! of the mechanism's own trade-off curve) and its error counts came out at their expected
//! values.
//!
//! A measured bound far below the certified ε says little by itself: the certificate may be
//! loose, or the statistic weak, or the runs too few to see the tail events that set ε at a
//! small δ (audit.md §6: 10⁵ runs per side reach 2.59 of a Gaussian mechanism's ε = 4). The
//! ceiling separates the three. Measured / ceiling near 1 says the statistic is as good as any;
//! ceiling / certified says how much of the certificate N runs can show at all.
//!
//! The curve comes from the certificate (a PLD read as a pair and through its privacy profile,
//! the Gaussian's closed form, or an (ε, δ) pair), so the ceiling is what an audit of a
//! mechanism exactly as private as its certificate could reach. Counts are the expected ones
//! rounded to integers (audit.md §6 does the same; Monte Carlo medians agree within 0.07), at
//! the best threshold for each possible count of the rarer error.

use crate::accounting::pld::{Pld, Pmf};
use crate::audit::gdp::{norm_quantile, norm_quantile_log};
pub use crate::audit::threshold::Statistic;
use crate::audit::threshold::{Counts, SHORTLIST};
use crate::audit::{check_audit_delta, check_gamma};
use crate::error::{DpError, Result, check_positive, ensure};
use crate::special::norm_cdf;

/// A mechanism's trade-off curve β = f(α): the least false-negative rate (runs on D′ taken for
/// D) any test reaches at false-positive rate α (runs on D taken for D′).
#[derive(Clone, Debug, PartialEq)]
pub enum Tradeoff {
    /// μ-GDP: f(α) = Φ(Φ⁻¹(1 − α) − μ), the Gaussian mechanism with Δ/σ = μ.
    Gaussian {
        /// Δ/σ.
        mu: f64,
    },
    /// (ε, δ)-DP: f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)), the weakest curve an
    /// (ε, δ) certificate allows.
    EpsilonDelta {
        /// ε of the certificate.
        epsilon: f64,
        /// δ of the certificate.
        delta: f64,
    },
    /// The pointwise largest β of several curves a mechanism is known to lie above (its PLD
    /// and the (ε, δ) pair its certificate states, for instance): a trade-off curve too.
    Upper(Vec<Tradeoff>),
    /// The error pairs of the likelihood-ratio tests of a discretised PLD, α ascending and β
    /// descending; between them the randomised tests (linear interpolation).
    Points(Vec<(f64, f64)>),
}

/// The error rates of the tests "guess D′ iff L ≥ ω_j", j = 0..=n, of a PLD read as a pair
/// (P on D′, Q on D): α_j = Σ_{i≥j} p_i e^{−ω_i} (Q's mass taken) and β_j = Σ_{i<j} p_i (P's
/// mass left). β are prefix sums from the bottom and α suffix sums from the top: each a sum of
/// non-negative terms, accurate in its own tail.
pub fn pmf_error_rates(pmf: &Pmf) -> (Vec<f64>, Vec<f64>) {
    let p = pmf.probs();
    let n = p.len();
    let mut beta = vec![0.0; n + 1];
    for i in 0..n {
        beta[i + 1] = beta[i] + p[i];
    }
    let mut alpha = vec![0.0; n + 1];
    for i in (0..n).rev() {
        alpha[i] = alpha[i + 1] + p[i] * (-pmf.loss(i)).exp();
    }
    (alpha, beta)
}

impl Tradeoff {
    /// The curve of a PLD read as a pair (P, Q): P is the distribution on D′, Q on D. Each
    /// threshold j on the loss gives the test "guess D′ iff L ≥ ω_j", with α = Σ_{i≥j} p_i
    /// e^{−ω_i} (Q's mass there) and β = Σ_{i<j} p_i (P's mass below).
    pub fn from_pmf(pmf: &Pmf) -> Self {
        let n = pmf.probs().len();
        let (alpha, beta) = pmf_error_rates(pmf);
        // Q-mass where P has none is never taken for D′; the test guessing D′ always has
        // α = Q's total on the grid plus that mass, i.e. at most 1.
        let mut points: Vec<(f64, f64)> = (0..=n)
            .rev()
            .map(|j| (alpha[j].min(1.0), beta[j].min(1.0)))
            .collect();
        points.push((1.0, 0.0));
        points.dedup();
        Tradeoff::Points(points)
    }

    /// The curve of two distributions on finitely many outputs, given as ln of each output's
    /// probability on D and on D′: the tests "guess D′ iff ln(P_D′/P_D) ≥ t", outputs taken
    /// in decreasing ratio (α = P_D's mass taken, β = P_D′'s mass left).
    pub fn from_log_masses(masses: &[(f64, f64)]) -> Self {
        let mut order: Vec<usize> = (0..masses.len()).collect();
        let ratio = |i: usize| masses[i].1 - masses[i].0;
        order.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)));
        // β as suffix sums over the order, so each is accurate in its own tail.
        let mut beta = vec![0.0; order.len() + 1];
        for (k, &i) in order.iter().enumerate().rev() {
            beta[k] = beta[k + 1] + masses[i].1.exp();
        }
        let mut points = Vec::with_capacity(order.len() + 2);
        let mut alpha = 0.0;
        points.push((0.0, beta[0].min(1.0)));
        for (k, &i) in order.iter().enumerate() {
            alpha += masses[i].0.exp();
            points.push((alpha.min(1.0), beta[k + 1].min(1.0)));
        }
        points.push((1.0, 0.0));
        // Outputs D never gives are taken at α = 0.
        least_beta_per_alpha(&mut points);
        Tradeoff::Points(points)
    }

    /// The curve of a mixture of Gaussian pairs with one mixing law: D gives N(−μ_i/2, 1) and
    /// D′ gives N(+μ_i/2, 1) with probability w_i, for `components` (w_i, μ_i), the w_i summing
    /// to 1 (an output-perturbation view whose shift depends on a hidden draw, such as the
    /// canary's batch). The likelihood ratio Σ w_i e^{μ_i x/2 − μ_i²/8} / Σ w_i e^{−μ_i x/2 −
    /// μ_i²/8} rises with x, so the tests "guess D′ iff x ≥ t" are the best there are:
    /// α(t) = Σ w_i Φ(−t − μ_i/2), β(t) = Σ w_i Φ(t − μ_i/2).
    ///
    /// Read on a grid of t, each α_j is paired with the next point's β_{j+1} ≤ f(α_j), and a
    /// chord between such points stays below f (f falls): the curve returned lies below the
    /// true one, so a ceiling read from it can only come out high. The grid's step (10⁻³ in
    /// x, at most 2·10⁵ points) bounds how far below.
    pub fn gaussian_mixture(components: &[(f64, f64)]) -> Result<Self> {
        ensure(
            !components.is_empty() && components.len() <= 100_000,
            "components",
            components.len() as f64,
            "must hold 1 to 100,000 (weight, mu) pairs",
        )?;
        let mut total = 0.0;
        let mut widest: f64 = 0.0;
        for &(w, mu) in components {
            ensure(
                w.is_finite() && w > 0.0,
                "weight",
                w,
                "must be > 0 and finite",
            )?;
            ensure(
                mu.is_finite() && mu >= 0.0,
                "mu",
                mu,
                "must be >= 0 and finite",
            )?;
            total += w;
            widest = widest.max(mu);
        }
        ensure(
            (total - 1.0).abs() <= 1e-9,
            "weights",
            total,
            "must sum to 1",
        )?;
        let alpha = |t: f64| -> f64 {
            components
                .iter()
                .map(|&(w, mu)| w * norm_cdf(-t - mu / 2.0))
                .sum()
        };
        let beta = |t: f64| -> f64 {
            components
                .iter()
                .map(|&(w, mu)| w * norm_cdf(t - mu / 2.0))
                .sum()
        };
        // Beyond ±(μ_max/2 + 12) both errors are below 10⁻³² of any component.
        let top = widest / 2.0 + 12.0;
        let steps = ((2.0 * top / 1e-3).ceil() as usize).clamp(2, 200_000);
        let h = 2.0 * top / steps as f64;
        let grid: Vec<(f64, f64)> = (0..=steps)
            .map(|j| {
                let t = top - h * j as f64;
                (alpha(t).min(1.0), beta(t).min(1.0))
            })
            .collect();
        let mut points = Vec::with_capacity(grid.len() + 2);
        points.push((0.0, grid[0].1));
        points.extend(grid.windows(2).map(|w| (w[0].0, w[1].1)));
        points.push((grid[steps].0, 0.0));
        points.push((1.0, 0.0));
        least_beta_per_alpha(&mut points);
        Ok(Tradeoff::Points(points))
    }

    /// The least β at false-positive rate `alpha` ∈ [0, 1].
    pub fn beta(&self, alpha: f64) -> f64 {
        let alpha = alpha.clamp(0.0, 1.0);
        match self {
            Tradeoff::Gaussian { mu } => {
                // Φ(Φ⁻¹(1 − α) − μ); the quantile of 1 − α at α → 0 is taken from the lower
                // tail by symmetry so that tiny α keep their digits.
                match norm_quantile(alpha) {
                    Ok(q) => norm_cdf(-q - mu),
                    Err(_) => 1.0,
                }
            }
            Tradeoff::EpsilonDelta { epsilon, delta } => {
                let a = 1.0 - delta - epsilon.exp() * alpha;
                let b = (-epsilon).exp() * (1.0 - delta - alpha);
                a.max(b).max(0.0)
            }
            Tradeoff::Upper(curves) => curves.iter().map(|c| c.beta(alpha)).fold(0.0, f64::max),
            Tradeoff::Points(points) => {
                // First point with α ≥ alpha, then the chord from its predecessor.
                let i = points.partition_point(|&(a, _)| a < alpha);
                if i == 0 {
                    return points[0].1;
                }
                if i == points.len() {
                    return points[points.len() - 1].1;
                }
                let ((a0, b0), (a1, b1)) = (points[i - 1], points[i]);
                if a1 <= a0 {
                    return b1;
                }
                b0 + (b1 - b0) * (alpha - a0) / (a1 - a0)
            }
        }
    }

    /// The curve with the roles of D and D′ swapped: α and β exchanged (f⁻¹). The ceiling
    /// takes both, since an audit may make either error the rare one.
    pub(crate) fn swapped(&self) -> Self {
        match self {
            // Gaussian and (ε, δ) curves are symmetric.
            Tradeoff::Gaussian { .. } | Tradeoff::EpsilonDelta { .. } => self.clone(),
            Tradeoff::Upper(curves) => Tradeoff::Upper(curves.iter().map(Self::swapped).collect()),
            Tradeoff::Points(points) => {
                let mut p: Vec<(f64, f64)> = points.iter().map(|&(a, b)| (b, a)).collect();
                p.reverse();
                // A curve's mass where the other law has none ends at β = 0 and swaps to
                // several points at α = 0.
                least_beta_per_alpha(&mut p);
                Tradeoff::Points(p)
            }
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        match self {
            Tradeoff::Gaussian { mu } => ensure(
                mu.is_finite() && *mu >= 0.0,
                "mu",
                *mu,
                "must be >= 0 and finite",
            ),
            Tradeoff::EpsilonDelta { epsilon, delta } => {
                ensure(*epsilon >= 0.0, "epsilon", *epsilon, "must be >= 0")?;
                check_audit_delta(*delta)
            }
            Tradeoff::Upper(curves) if curves.is_empty() => {
                Err(DpError::Invalid("an upper envelope needs curves".into()))
            }
            Tradeoff::Upper(curves) => curves.iter().try_for_each(Self::validate),
            Tradeoff::Points(p) if p.is_empty() => {
                Err(DpError::Invalid("a trade-off curve needs points".into()))
            }
            Tradeoff::Points(_) => Ok(()),
        }
    }
}

/// Merges consecutive points at one α (or, from rounding, a smaller one) into one at the least
/// β: [`Tradeoff::beta`] reads the first point at an α, which must be the least β there.
fn least_beta_per_alpha(points: &mut Vec<(f64, f64)>) {
    points.dedup_by(|later, earlier| {
        later.0 <= earlier.0 && {
            earlier.1 = earlier.1.min(later.1);
            true
        }
    });
}

/// The error counts a ceiling tries on `curve` over `negatives` runs on D and `positives` on
/// D′: for each candidate count of the rarer error (false positives, then, with the roles
/// swapped, false negatives), the other error at its expected value under the best test.
pub(crate) fn expected_counts(curve: &Tradeoff, negatives: u64, positives: u64) -> Vec<Counts> {
    let mut out = Vec::new();
    for (curve, n_rare, n_other, swapped) in [
        (curve.clone(), negatives, positives, false),
        (curve.swapped(), positives, negatives, true),
    ] {
        for k in candidate_counts(n_rare) {
            // The largest rate that still rounds to k errors, so that the other error is least.
            let rate = if k == n_rare {
                1.0
            } else {
                ((k as f64 + 0.5) / n_rare as f64) * (1.0 - 1e-12)
            };
            let other = ((curve.beta(rate) * n_other as f64).round() as u64).min(n_other);
            let (fp, fn_) = if swapped { (other, k) } else { (k, other) };
            out.push(Counts {
                false_positives: fp,
                negatives,
                false_negatives: fn_,
                positives,
            });
        }
    }
    out
}

/// The rarer error's counts the ceiling tries: every count up to 256, then 5 % apart up to
/// `n`. The bound moves by far less than 5 % between neighbouring large counts.
fn candidate_counts(n: u64) -> Vec<u64> {
    let mut out: Vec<u64> = (0..=n.min(256)).collect();
    let mut k = 256.0f64;
    while (k as u64) < n {
        k *= 1.05;
        out.push((k as u64).min(n));
    }
    out.dedup();
    out
}

/// The ceiling of `statistic` on `curve`: the largest bound at `delta` (confidence 1 − γ,
/// γ/2 per rate as the audits split it) from error counts at their expected values over
/// `negatives` runs on D and `positives` runs on D′, the test being the best one for each
/// count of false positives (and, with the roles swapped, of false negatives).
///
/// For [`Statistic::Gdp`] the number is meaningful only where the curve is Gaussian, as the
/// estimate itself is.
pub fn ceiling(
    curve: &Tradeoff,
    statistic: Statistic,
    negatives: u64,
    positives: u64,
    delta: f64,
    gamma: f64,
) -> Result<f64> {
    curve.validate()?;
    check_audit_delta(delta)?;
    check_gamma(gamma)?;
    check_positive("negatives", negatives as f64)?;
    check_positive("positives", positives as f64)?;
    // Exact Clopper–Pearson bounds cost O(count) each; rank the candidates by the Wilson
    // stand-in (closed form, as the split audits rank theirs) and compute the best few.
    let z = -norm_quantile_log((0.5 * gamma).ln())?;
    let mut candidates: Vec<(f64, Counts)> = Vec::new();
    for counts in expected_counts(curve, negatives, positives) {
        candidates.push((statistic.wilson_rank(counts, delta, z)?, counts));
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best = 0.0f64;
    for &(_, counts) in candidates.iter().take(SHORTLIST) {
        best = best.max(statistic.bound(counts, delta, gamma)?);
    }
    Ok(best)
}

/// The ε grid of [`profile_curve`]: this many points from 0 to the ε at [`PROFILE_DELTA`]
/// (or at twice the mass at infinite loss).
const PROFILE_POINTS: usize = 160;

/// Below this δ no audit's runs can see a tail event (10⁶ runs a side see 10⁻⁶ at best).
const PROFILE_DELTA: f64 = 1e-12;

/// The curve of a PLD's privacy profile: the pointwise largest of the (ε, δ(ε)) curves on a
/// grid of ε, δ(ε) the larger of the two directions ([`Pld::delta`], rounded up). A mechanism
/// is (ε, δ(ε))-DP at every ε, so its curve lies above each of them (Dong, Roth & Su 2022,
/// Prop. 2.12), whatever pair the PLD was built from. For a symmetric pair the supremum over
/// all ε is its curve itself; a finite grid can only lower the curve, which raises a ceiling
/// and keeps it an upper bound.
///
/// [`Tradeoff::from_pmf`] reads a PLD as the pair (P, Q) it came from, which is tight only
/// when that pair is a pair of laws the mechanism's are a post-processing of, Q whole.
/// Objective perturbation's dominating pair (Redberg et al.) bounds the profile but keeps
/// only part of Q's mass on P's support, and read as two laws its curve falls to 0 at the
/// false-positive rate of Q's missing mass: a ceiling far above what any test reaches.
pub fn profile_curve(pld: &Pld) -> Result<Tradeoff> {
    // The grid ends where δ(ε) reaches PROFILE_DELTA, or twice the mass at infinite loss where
    // that is larger (the accountant charges its truncations there, and δ(ε) never falls
    // below it): beyond, every curve of the profile is about the same.
    let infinite = pld.remove().infinity_mass().max(pld.add().infinity_mass());
    let floor = (2.0 * infinite).max(PROFILE_DELTA);
    let top = if floor < 1.0 {
        pld.epsilon(floor)?
    } else {
        f64::INFINITY
    };
    let grid: Vec<f64> = if top.is_finite() {
        (0..=PROFILE_POINTS)
            .map(|k| top * k as f64 / PROFILE_POINTS as f64)
            .collect()
    } else {
        // Half the mass or more at infinite loss: the curve at ε = 0 says what there is.
        vec![0.0]
    };
    let mut curves = Vec::with_capacity(grid.len());
    for epsilon in grid {
        let delta = pld.delta(epsilon)?;
        // δ = 1 allows anything: its curve is 0.
        if delta < 1.0 {
            curves.push(Tradeoff::EpsilonDelta { epsilon, delta });
        }
    }
    Ok(if curves.is_empty() {
        Tradeoff::Points(vec![(0.0, 0.0), (1.0, 0.0)])
    } else {
        Tradeoff::Upper(curves)
    })
}

/// The curves an audited mechanism is known to lie above, from its certificate: for each
/// direction of its PLD (when `pld` is given) that curve joined with its privacy profile's
/// ([`profile_curve`]) and the (ε, δ) curve of the certified ε at the audit's δ; the (ε, δ)
/// curve alone without a PLD.
pub fn certificate_curves(pld: Option<&Pld>, epsilon: f64, delta: f64) -> Result<Vec<Tradeoff>> {
    let stated = Tradeoff::EpsilonDelta { epsilon, delta };
    let Some(pld) = pld else {
        return Ok(vec![stated]);
    };
    let profile = profile_curve(pld)?;
    let mut pmfs = vec![pld.remove()];
    if !pld.is_symmetric() {
        pmfs.push(pld.add());
    }
    Ok(pmfs
        .into_iter()
        .map(|pmf| {
            Tradeoff::Upper(vec![
                Tradeoff::from_pmf(pmf),
                profile.clone(),
                stated.clone(),
            ])
        })
        .collect())
}

/// [`ceiling`] over several curves (the largest): the ceiling of a mechanism whose pair may
/// run in either direction of its PLD. 0 for no curves (a release that releases nothing).
pub fn ceiling_of(
    curves: &[Tradeoff],
    statistic: Statistic,
    negatives: u64,
    positives: u64,
    delta: f64,
    gamma: f64,
) -> Result<f64> {
    curves.iter().try_fold(0.0f64, |best, c| {
        Ok(best.max(ceiling(c, statistic, negatives, positives, delta, gamma)?))
    })
}

#[cfg(test)]
#[path = "ceiling_tests.rs"]
mod tests;
