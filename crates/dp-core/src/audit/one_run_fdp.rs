//! The one-run audit against an f-DP curve (Mahloujifar, Melis & Chaudhuri, ICML 2025,
//! "Auditing f-differential privacy in one run"; jax_privacy `_epsilon_one_run_fdp`).
//!
//! The game is [`one_run`](super::one_run)'s: m canaries, each in with probability ½, r
//! guesses, v right. Steinke et al. reduce each guess to ε-randomised response; this analysis
//! keeps the whole trade-off curve f of the claim "the mechanism is f-DP for every canary",
//! which for a Gaussian mechanism is far tighter (a perfect guesser over 1,000 canaries reaches
//! 12.3 at δ = 1e-5 here, 5.78 there).
//!
//! **The test.** If P[V ≥ v] ≥ γ, the per-canary rates of right and wrong guesses on that
//! event start at r₀ = γv/m and h₀ = γ(r − v)/m, and f-DP forces them up level by level
//! (i = v − 1, …, 0): the wrong rate to at least f̄⁻¹(right) = f(1 − right) (the least α whose
//! test reaches power `right`), and the right rate by i/(r − i) times the wrong rate's rise.
//! If they end above r/m, the rate of guessing at all, the claim is rejected at level γ. A
//! curve that lies higher (more private) forces more, so the rejected claims are the curves
//! above some level: for the Gaussian family, every μ below [`mu_lower_bound`].
//!
//! **What the bound means.** Rejecting μ-GDP refutes a certificate only where the mechanism's
//! trade-off is Gaussian (full-batch DP-SGD, objective perturbation's minimiser); elsewhere
//! [`epsilon_lower_bound`], the ε of the largest rejected μ at δ, is an estimate, like
//! [`gdp::epsilon_lower_bound`]. The curve must be symmetric (f = f⁻¹, as every Gaussian one
//! is), so that guesses of "in" and "out" are bounded alike.

use crate::audit::check_gamma;
use crate::audit::gdp::{self, quantile_bracket};
use crate::error::{DpError, Result, check_delta};
use crate::special::norm_cdf;

/// A cap on bisection steps; each loop stops earlier, once the midpoint no longer moves
/// (about 60 halvings for these brackets).
const MAX_ITER: usize = 200;

/// A Gaussian claim with μ this large is rejected only by counts no run of ≤ 10⁹ canaries
/// gives: Φ(Φ⁻¹(x) − 64) is below the smallest double for every x < 1.
const MU_CAP: f64 = 64.0;

/// f̄⁻¹(x) = f(1 − x) of μ-GDP, Φ(Φ⁻¹(x) − μ), rounded down so rounding never helps reject.
fn gaussian_blow_up_inverse(mu: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let (below, _) = quantile_bracket(x.ln());
    // norm_cdf is within a few ulp; one step down keeps the result a lower bound.
    (norm_cdf(below - mu) * (1.0 - 4.0 * f64::EPSILON)).max(0.0)
}

/// Whether v right out of r guesses on m canaries reject, at level γ, the claim that the
/// mechanism is f-DP for the symmetric curve whose f̄⁻¹ is `blow_up_inverse`.
pub(crate) fn rejects(
    m: u64,
    r: u64,
    v: u64,
    gamma: f64,
    blow_up_inverse: impl Fn(f64) -> f64,
) -> bool {
    let m = m as f64;
    let mut right = gamma * v as f64 / m;
    let mut wrong = gamma * (r - v) as f64 / m;
    for i in (0..v).rev() {
        let forced = wrong.max(blow_up_inverse(right));
        if forced == wrong {
            // Neither rate can move again.
            break;
        }
        let share = i as f64 / (r - i) as f64;
        right = (right + share * (forced - wrong)).min(1.0);
        wrong = forced;
    }
    // A relative margin, so that sums rounded up a few ulp do not reject.
    let guessing = r as f64 / m;
    right + wrong > guessing * (1.0 + 64.0 * f64::EPSILON)
}

pub(crate) fn check_counts(m: u64, r: u64, v: u64) -> Result<()> {
    if m == 0 || v > r || r > m {
        return Err(DpError::Invalid(format!(
            "one-run audit needs 0 <= v <= r <= m and m >= 1, got m = {m}, r = {r}, v = {v}"
        )));
    }
    Ok(())
}

/// Whether v right out of r guesses on m canaries reject μ-GDP at level γ.
pub fn rejects_gdp(mu: f64, m: u64, r: u64, v: u64, gamma: f64) -> Result<bool> {
    crate::error::ensure(
        mu >= 0.0 && mu.is_finite(),
        "mu",
        mu,
        "must be >= 0 and finite",
    )?;
    check_counts(m, r, v)?;
    check_gamma(gamma)?;
    Ok(rejects(m, r, v, gamma, |x| gaussian_blow_up_inverse(mu, x)))
}

/// The largest μ whose μ-GDP claim v right out of r guesses on m canaries reject at level γ
/// (the supremum of the rejected μ, by bisection, rounded down); 0 when even μ = 0, a
/// mechanism that reveals nothing, is not rejected. r (the guess counts) must be fixed
/// before the run, or γ divided by the number of choices tried.
pub fn mu_lower_bound(m: u64, r: u64, v: u64, gamma: f64) -> Result<f64> {
    check_counts(m, r, v)?;
    check_gamma(gamma)?;
    let rejected = |mu: f64| rejects(m, r, v, gamma, |x| gaussian_blow_up_inverse(mu, x));
    if !rejected(0.0) {
        return Ok(0.0);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while rejected(hi) {
        lo = hi;
        hi *= 2.0;
        if hi > MU_CAP {
            return Err(DpError::NoConvergence(format!(
                "one-run f-DP test rejects mu-GDP up to mu = {MU_CAP}"
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

/// ε at `delta` of the largest μ-GDP claim the counts reject ([`gdp::epsilon_from_mu`] of
/// [`mu_lower_bound`]): a lower bound on ε where the mechanism's trade-off is Gaussian, an
/// estimate elsewhere (module docs).
pub fn epsilon_lower_bound(m: u64, r: u64, v: u64, delta: f64, gamma: f64) -> Result<f64> {
    // μ-GDP with μ > 0 is (ε, 0)-DP for no finite ε: the family says nothing at δ = 0.
    check_delta(delta)?;
    gdp::epsilon_from_mu(mu_lower_bound(m, r, v, gamma)?, delta)
}

/// The ceiling of a one-run audit of m canaries, each in with probability ½ and seen through
/// an exactly μ-GDP view, guessing "in" for the `k_plus` highest scores and "out" for the
/// `k_minus` lowest: [`epsilon_lower_bound`] at the expected number of right guesses (rounded),
/// as [`ceiling`](super::ceiling) takes expected counts. A score is N(μ, 1) in, N(0, 1) out;
/// the k₊ highest of m are those above t₊ with (m/2)(Φ̄(t₊ − μ) + Φ̄(t₊)) = k₊, of which
/// (m/2)Φ̄(t₊ − μ) are in, and the k₋ lowest mirror them.
pub fn gaussian_ceiling(
    mu: f64,
    m: u64,
    (k_plus, k_minus): (u64, u64),
    delta: f64,
    gamma: f64,
) -> Result<f64> {
    crate::error::ensure(
        mu >= 0.0 && mu.is_finite(),
        "mu",
        mu,
        "must be >= 0 and finite",
    )?;
    let r = k_plus.saturating_add(k_minus);
    check_counts(m, r, 0)?;
    let half = 0.5 * m as f64;
    let upper = |t: f64| norm_cdf(-t);
    // Right guesses among the k highest scores (by symmetry the k lowest "out" guesses are
    // right as often): bisect t so that half·(Φ̄(t − μ) + Φ̄(t)) = k.
    let right = |k: u64| -> f64 {
        if k == 0 {
            return 0.0;
        }
        let (mut lo, mut hi) = (-40.0 - mu, 40.0 + mu);
        for _ in 0..MAX_ITER {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if half * (upper(mid - mu) + upper(mid)) > k as f64 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        half * upper(lo - mu)
    };
    let v = (right(k_plus) + right(k_minus)).round().min(r as f64) as u64;
    epsilon_lower_bound(m, r, v, delta, gamma)
}

#[cfg(test)]
#[path = "one_run_fdp_tests.rs"]
mod tests;
