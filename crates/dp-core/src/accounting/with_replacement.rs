//! Pure ε-DP amplified by a batch drawn *with replacement* (Iyengar et al.'s P-FW minibatches:
//! m rows drawn uniformly from n, a row possibly several times), under replace-one neighbours.
//!
//! **Claim.** Let A be ε-DP against replacing one element of its batch (a multiset of m rows),
//! and M(D) = A(S) with S of m independent uniform draws from D, |D| = n. Let w_k = Bin(m, 1/n)
//! (k), the chance that the replaced row is drawn k times, and a_k = e^{kε}. Then M is ε′-DP for
//! replace-one neighbours D, D′ with
//!
//! ε′ = max over K ∈ 1..=m+1 of ln( [Σ_{k<K} w_k + Σ_{k≥K} w_k a_k] / [Σ_{k<K} w_k / a_k +
//! Σ_{k≥K} w_k] ).
//!
//! **Proof.** Fix an output set E. Condition on k, the number of draws of the row x that D′
//! replaces by x′ (same law under D and D′); write p_k, q_k for P[A(S) ∈ E | k] under D and D′.
//! Given k = 0 the batch never holds x or x′, so p_0 = q_0. Coupling a batch with k copies of x
//! to one with those k draws redrawn from the other rows (which has the k = 0 law) changes k
//! elements, so by group privacy e^{−kε}p_0 ≤ p_k ≤ e^{kε}p_0, the same for q_k, and
//! p_k ≤ e^{kε}q_k (the k copies of x become x′). P(E)/Q(E) = Σ w_k p_k / Σ w_k q_k; divide by
//! p_0. For each k ≥ 1 the ratio, a linear fraction in (p_k, q_k), is largest at a vertex of
//! those constraints: "high" (p_k = a_k, q_k = 1) or "low" (p_k = 1, q_k = 1/a_k) (at fixed
//! q_k ≤ 1 the best p_k is a_k·q_k, at q_k ≥ 1 it is a_k and q_k = 1 is best). Switching k
//! from low to high raises the ratio iff a_k exceeds it, and a_k grows with k, so the best
//! choice takes the k ≥ K high for some K: the maximum above. D and D′ play symmetric roles.
//!
//! Constraints between different k are dropped, so the bound can only be loose, never low.
//! It is exact where it is known to be: m = 1 gives ln(1 + (e^ε − 1)/n), the tight bound for
//! sampling one row (Balle, Barthe & Gaboardi 2018, Thm 9); n = 1 gives group privacy mε.
//!
//! **With δ, for large ε.** ε′ pays in full for the least likely batch (x drawn m times),
//! which is ruinous once kε outgrows ln(1/w_k). Revealing whether k > K splits the step: given
//! k ≤ K the claim holds on those k alone (ε′_K, the same maximum over k ≤ K: it does not
//! change when the weights are renormalised), and k > K has chance δ_K = P(k > K). So the step
//! is (ε′_K, δ_K)-DP: P(E) ≤ e^{ε′_K}Q(E) + δ_K. [`truncated`] takes the least K with
//! δ_K ≤ [`TAIL`]; the PLD accountant composes that pair, RDP the pure ε′, and the certifier
//! keeps the smaller answer.

use crate::error::{Result, check_nonnegative, ensure};
use crate::special::{ln_factorial, log_add_exp};

/// Most draws per batch (memory and time grow linearly with it).
pub const MAX_DRAWS: u64 = 1_000_000;

/// δ_K a truncated bound leaves to chance ([`truncated`]): the default PLD truncation
/// budget τ.
pub const TAIL: f64 = 1e-15;

/// ε′ of the module's claim: one ε-per-copy pure step on `draws` rows drawn with replacement
/// from `population`. 0 when nothing is drawn or ε = 0; an error for an empty population or
/// more than [`MAX_DRAWS`] draws.
pub fn pure_epsilon(per_copy: f64, draws: u64, population: u64) -> Result<f64> {
    check(per_copy, draws, population)?;
    if draws == 0 || per_copy == 0.0 {
        return Ok(0.0);
    }
    Ok(shaded(
        max_ratio(&ln_weights(draws, population), per_copy),
        draws,
    ))
}

/// (ε′_K, δ_K) of the module docs for the least K with δ_K ≤ [`TAIL`]: the step is
/// (ε′_K, δ_K)-DP. (0, 0) when nothing is drawn or ε = 0.
pub fn truncated(per_copy: f64, draws: u64, population: u64) -> Result<(f64, f64)> {
    check(per_copy, draws, population)?;
    if draws == 0 || per_copy == 0.0 {
        return Ok((0.0, 0.0));
    }
    let ln_w = ln_weights(draws, population);
    let (last, delta) = tail_cut(&ln_w, draws);
    Ok((shaded(max_ratio(&ln_w[..=last], per_copy), draws), delta))
}

/// The least K with δ_K = P(k > K) ≤ [`TAIL`] for the weights `ln_w` of `draws` draws
/// ([`ln_weights`]), and δ_K shaded up past the weights' round-off.
pub(crate) fn tail_cut(ln_w: &[f64], draws: u64) -> (usize, f64) {
    // ln P(k > K) for K = m, m − 1, …, while it stays within TAIL once shaded up by the
    // weights' round-off (relative, as the error of ln w_k is absolute).
    let up = 1.0 + 1e-9 + margin(draws);
    let (mut last, mut tail) = (ln_w.len() - 1, f64::NEG_INFINITY);
    while last > 0 {
        let with = log_add_exp(tail, ln_w[last]);
        if with.exp() * up > TAIL {
            break;
        }
        tail = with;
        last -= 1;
    }
    (last, tail.exp() * up)
}

/// The claim's maximum over K of ln(num/den), for the k = 0..ln_w.len() − 1 given.
fn max_ratio(ln_w: &[f64], per_copy: f64) -> f64 {
    let m = ln_w.len() - 1;
    // Suffix sums of the "high" choice (k ≥ K): numerator Σ w_k a_k, denominator Σ w_k.
    let mut high_num = vec![f64::NEG_INFINITY; m + 2];
    let mut high_den = vec![f64::NEG_INFINITY; m + 2];
    for k in (0..=m).rev() {
        high_num[k] = log_add_exp(high_num[k + 1], ln_w[k] + k as f64 * per_copy);
        high_den[k] = log_add_exp(high_den[k + 1], ln_w[k]);
    }
    // Prefix sums of the "low" choice (k < K): numerator Σ w_k, denominator Σ w_k / a_k.
    let (mut low_num, mut low_den) = (ln_w[0], ln_w[0]);
    let mut best = f64::NEG_INFINITY;
    for k_high in 1..=m + 1 {
        let ratio = log_add_exp(low_num, high_num[k_high]) - log_add_exp(low_den, high_den[k_high]);
        // NaN only from ∞ − ∞, where kε overflowed: the bound is then ∞, never dropped.
        best = best.max(if ratio.is_nan() { f64::INFINITY } else { ratio });
        if k_high <= m {
            low_num = log_add_exp(low_num, ln_w[k_high]);
            low_den = log_add_exp(low_den, ln_w[k_high] - k_high as f64 * per_copy);
        }
    }
    best.max(0.0)
}

/// Shaded up past the round-off of the log-sums (a few ulps each) and of the weights
/// ([`margin`]), so that a bound is never below the exact maximum.
fn shaded(eps: f64, draws: u64) -> f64 {
    eps * (1.0 + 1e-12) + margin(draws) + 1e-15
}

/// A bound on the absolute round-off of ln w_k: ln(m − k)! and ln k! are within a few ulps of
/// ln m! ≤ (m + 1) ln(m + 1) each (1.2e-11 at m = 1,000; 2.5e-8 at the cap).
pub(crate) fn margin(draws: u64) -> f64 {
    let m = draws as f64 + 1.0;
    8.0 * m * m.ln() * f64::EPSILON
}

fn check(per_copy: f64, draws: u64, population: u64) -> Result<()> {
    check_nonnegative("epsilon", per_copy)?;
    check_sizes(draws, population)
}

/// The sizes every bound here is computed for: a population of at least one row and at most
/// [`MAX_DRAWS`] draws.
pub(crate) fn check_sizes(draws: u64, population: u64) -> Result<()> {
    ensure(
        population >= 1,
        "population",
        population as f64,
        "must be >= 1",
    )?;
    ensure(
        draws <= MAX_DRAWS,
        "draws",
        draws as f64,
        "must be <= 1,000,000 (the most draws per batch these bounds are computed for)",
    )
}

/// ln w_k = ln Bin(m, 1/n)(k) for k = 0..=m, the chance that a batch of m draws holds a given
/// record k times (−∞ where it is 0: k < m when n = 1).
pub fn ln_weights(draws: u64, population: u64) -> Vec<f64> {
    let m = draws as usize;
    if population == 1 {
        let mut w = vec![f64::NEG_INFINITY; m + 1];
        w[m] = 0.0;
        return w;
    }
    let (ln_p, ln_q) = (
        -(population as f64).ln(),
        (-1.0 / population as f64).ln_1p(),
    );
    (0..=m)
        .map(|k| {
            ln_factorial(draws) - ln_factorial(k as u64) - ln_factorial((m - k) as u64)
                + k as f64 * ln_p
                + (m - k) as f64 * ln_q
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proof's LP at every k.
    fn brute(eps: f64, m: u64, n: u64) -> f64 {
        brute_upto(eps, m, n, m)
    }

    /// The same on the draws k ≤ `keep` only (the truncated bound's maximum), by the
    /// threshold choice, each K summed directly.
    fn brute_upto(eps: f64, m: u64, n: u64, keep: u64) -> f64 {
        let p = 1.0 / n as f64;
        let w = |k: u64| {
            (ln_factorial(m) - ln_factorial(k) - ln_factorial(m - k)).exp()
                * p.powi(k as i32)
                * (1.0 - p).powi((m - k) as i32)
        };
        let mut best = 0.0f64;
        for high in 1..=keep + 1 {
            let (mut num, mut den) = (w(0), w(0));
            for k in 1..=keep {
                let a = (k as f64 * eps).exp();
                if k >= high {
                    num += w(k) * a;
                    den += w(k);
                } else {
                    num += w(k);
                    den += w(k) / a;
                }
            }
            best = best.max((num / den).ln());
        }
        best
    }

    /// The maximum over all 2^m high/low choices, by enumeration.
    fn exhaustive(eps: f64, m: u64, n: u64) -> f64 {
        let p = 1.0 / n as f64;
        let w: Vec<f64> = (0..=m)
            .map(|k| {
                let c = (ln_factorial(m) - ln_factorial(k) - ln_factorial(m - k)).exp();
                c * p.powi(k as i32) * (1.0 - p).powi((m - k) as i32)
            })
            .collect();
        let mut best = 0.0f64;
        for mask in 0u32..(1 << m) {
            let (mut num, mut den) = (w[0], w[0]);
            for (k, wk) in w.iter().enumerate().skip(1) {
                let a = (k as f64 * eps).exp();
                if mask >> (k - 1) & 1 == 1 {
                    num += wk * a;
                    den += wk;
                } else {
                    num += wk;
                    den += wk / a;
                }
            }
            best = best.max((num / den).ln());
        }
        best
    }

    #[test]
    fn equals_the_exhaustive_maximum() {
        for &(eps, m, n) in &[
            (0.5, 1, 10),
            (2.0, 3, 5),
            (0.1, 8, 3),
            (3.0, 8, 100),
            (1.0, 6, 2),
        ] {
            let got = pure_epsilon(eps, m, n).unwrap();
            let want = exhaustive(eps, m, n);
            assert!((brute(eps, m, n) - want).abs() < 1e-12 * want.max(1.0));
            assert!(
                got >= want && got - want < 1e-9,
                "ε={eps} m={m} n={n}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn one_draw_is_the_tight_bound_for_sampling_one_row() {
        for &(eps, n) in &[(0.1f64, 1000u64), (1.0, 30), (5.0, 7)] {
            let want = (1.0 + (eps.exp() - 1.0) / n as f64).ln();
            let got = pure_epsilon(eps, 1, n).unwrap();
            assert!(
                got >= want && got - want < 1e-11 * want.max(1.0),
                "{got} vs {want}"
            );
        }
    }

    #[test]
    fn limits_group_privacy_and_no_amplification_past_it() {
        assert_eq!(pure_epsilon(0.3, 7, 1).unwrap(), shaded(0.3 * 7.0, 7));
        assert_eq!(pure_epsilon(0.0, 7, 10).unwrap(), 0.0);
        assert_eq!(pure_epsilon(0.3, 0, 10).unwrap(), 0.0);
        // Never above group privacy over the whole batch, and a larger population dilutes.
        for &(eps, m) in &[(0.05f64, 1000u64), (1.0, 50), (3.0, 200)] {
            let mut last = f64::INFINITY;
            for n in [2u64, 10, 100, 1000, 36_000, 1_000_000] {
                let e = pure_epsilon(eps, m, n).unwrap();
                assert!(
                    e <= m as f64 * eps * (1.0 + 1e-9) && e <= last,
                    "n={n}: {e}"
                );
                last = e;
            }
            assert!(last < 2.0 * m as f64 * eps.sinh() / 1e6 * 1.01);
        }
    }

    #[test]
    fn rises_with_the_draws_and_with_epsilon() {
        let mut last = 0.0;
        for m in [1u64, 2, 10, 100, 1000, 5000] {
            let e = pure_epsilon(0.7, m, 36_000).unwrap();
            assert!(e > last, "m={m}");
            last = e;
        }
        let mut last = 0.0;
        for eps in [0.01, 0.1, 0.5, 1.0, 2.0, 4.0] {
            let e = pure_epsilon(eps, 1000, 36_000).unwrap();
            assert!(e > last, "ε={eps}");
            last = e;
        }
    }

    /// P-FW as run on Adult (m = 1,000 of n = 36,000, per-copy ε = 36ε₀): at ε₀ = 0.0186 the
    /// full-gradient event it used to be accounted as under-reports by a factor of about 1.4.
    #[test]
    fn pays_more_than_the_full_gradient_step_on_adult_sized_batches() {
        let eps0 = 0.01864;
        let e = pure_epsilon(36.0 * eps0, 1000, 36_000).unwrap();
        assert!(e > 1.3 * eps0 && e < 1.6 * eps0, "{e}");
        // Below the hybrid bound through k = 0: m ln((1 + (e^ε − 1)/n) / (1 − (1 − e^{−ε})/n)).
        let c: f64 = 36.0 * eps0;
        let n = 36_000.0;
        let (up, down) = (c.exp_m1(), -(-c).exp_m1());
        let hybrid = 1000.0 * ((up / n).ln_1p() - (-down / n).ln_1p());
        assert!(e <= hybrid, "{e} vs {hybrid}");
    }

    #[test]
    fn the_truncated_bound_leaves_the_rare_large_batches_to_delta() {
        // Small ε per copy: the truncation changes almost nothing.
        let pure = pure_epsilon(0.05, 1000, 36_000).unwrap();
        let (e, d) = truncated(0.05, 1000, 36_000).unwrap();
        assert!(e <= pure && e > 0.999 * pure && d <= TAIL, "{e} {pure} {d}");
        // Large: ε′ pays for 1,000 copies, the truncated one for a handful.
        let pure = pure_epsilon(50.0, 1000, 36_000).unwrap();
        let (e, d) = truncated(50.0, 1000, 36_000).unwrap();
        assert!(
            pure > 1e4 && e < 500.0 && d > 0.0 && d <= TAIL,
            "{pure} {e} {d}"
        );
        // δ_K is the binomial tail past the K it keeps: against a direct sum at m = 40, n = 4.
        let (e, d) = truncated(2.0, 40, 4).unwrap();
        let w = |k: u64| {
            (ln_factorial(40) - ln_factorial(k) - ln_factorial(40 - k)).exp()
                * 0.25f64.powi(k as i32)
                * 0.75f64.powi(40 - k as i32)
        };
        let tails: Vec<f64> = (0..=40).map(|k| ((k + 1)..=40).map(w).sum()).collect();
        let keep = tails.iter().position(|t| *t <= TAIL).unwrap();
        assert!(
            (d / tails[keep] - 1.0).abs() < 1e-6,
            "{d} vs {}",
            tails[keep]
        );
        assert!((e - brute_upto(2.0, 40, 4, keep as u64)).abs() < 1e-9);
        // n = 1 has no tail: group privacy, δ = 0.
        assert_eq!(truncated(0.5, 4, 1).unwrap(), (shaded(2.0, 4), 0.0));
    }

    /// Both accountants read the event, under replace-one only: RDP as T pure ε′ steps, PLD
    /// as T (ε′_K, δ_K) pairs; each the smaller somewhere.
    #[test]
    fn accountants_read_the_event_as_its_bounds() {
        use crate::accounting::event::{Event, Neighbours};
        use crate::accounting::{Accountant, PldAccountant, RdpAccountant, epsilon_of};
        let steps = |per_copy: f64, count: u64| {
            let inner = Event::epsilon_delta(per_copy, 0.0).unwrap();
            Event::sampled_with_replacement(36_000, 1000, inner)
                .unwrap()
                .self_composed(count)
        };
        let pure = |e: f64| Event::epsilon_delta(e, 0.0).unwrap().self_composed(20);
        for delta in [1e-5, 1e-9] {
            // Small ε per copy: RDP reads T pure ε′ steps; PLD composes them optimally.
            let event = steps(0.5, 20);
            let plain = pure(pure_epsilon(0.5, 1000, 36_000).unwrap());
            let rdp = epsilon_of(RdpAccountant::new(), &event, delta).unwrap();
            assert_eq!(
                rdp,
                epsilon_of(RdpAccountant::new(), &plain, delta).unwrap()
            );
            let pld = PldAccountant::new()
                .fresh()
                .compose(&event, 1)
                .unwrap()
                .pld_epsilon(delta);
            let pld = pld.unwrap();
            assert!(pld < rdp && pld > 0.0, "{pld} vs {rdp}");
        }
        // Large: ε′ pays for the batch that is all x, the truncated pair does not.
        let event = steps(8.0, 5);
        let rdp = epsilon_of(RdpAccountant::new(), &event, 1e-5).unwrap();
        let pld = epsilon_of(PldAccountant::new(), &event, 1e-5).unwrap();
        assert!(pld < rdp / 2.0, "{pld} vs {rdp}");
        let event = steps(0.5, 20);
        assert_eq!(event.neighbours().unwrap(), Some(Neighbours::ReplaceOne));
        let mut rdp = RdpAccountant::new();
        rdp.compose(&event, 1).unwrap();
        assert!(rdp.supports(&Event::dpsgd(0.1, 1.0, 10).unwrap()).is_err());
        // A Gaussian inside: RDP's revealed-multiplicity bound
        // (`with_replacement_gaussian`), no PLD.
        let gauss = Event::sampled_with_replacement(300, 100, Event::gaussian(1.0).unwrap());
        assert!(
            RdpAccountant::new()
                .supports(gauss.as_ref().unwrap())
                .is_ok()
        );
        assert!(PldAccountant::new().supports(&gauss.unwrap()).is_err());
    }

    #[test]
    fn refuses_what_it_cannot_bound() {
        assert!(pure_epsilon(-1.0, 10, 10).is_err());
        assert!(pure_epsilon(f64::NAN, 10, 10).is_err());
        assert!(pure_epsilon(f64::INFINITY, 10, 10).is_err());
        assert!(pure_epsilon(1.0, 10, 0).is_err());
        assert!(pure_epsilon(1.0, MAX_DRAWS + 1, 10).is_err());
    }
}
