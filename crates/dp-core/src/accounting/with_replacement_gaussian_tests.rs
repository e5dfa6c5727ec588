//! The revealed-multiplicity bound against its closed forms, its orderings, and the hidden
//! pair it must stay above.

use std::f64::consts::PI;

use super::*;

/// The Gaussian mechanism's Rényi divergence at sensitivity s over noise multiplier z.
fn gaussian(s: f64, z: f64, alpha: f64) -> f64 {
    alpha * s * s / (2.0 * z * z)
}

#[test]
fn closed_forms_at_one_draw_and_one_row() {
    for (z, alpha) in [(1.0, 2.0), (0.8, 8.0), (3.0, 1.5)] {
        // n = 1: every draw is the row, a Gaussian at sensitivity m.
        let got = revealed_rdp(z, 5, 1, alpha).unwrap();
        let want = gaussian(5.0, z, alpha);
        assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
        // m = 1: ln((1 − 1/n) + e^{(α−1)α/(2z²)}/n)/(α − 1).
        let n = 100.0;
        let got = revealed_rdp(z, 1, 100, alpha).unwrap();
        let want = ((1.0 - 1.0 / n) + ((alpha - 1.0) * gaussian(1.0, z, alpha)).exp() / n).ln()
            / (alpha - 1.0);
        // The bound is shaded up by its round-off (~1e-14 here).
        assert!(
            got >= want && got - want <= 1e-12 * want + 1e-13,
            "{got} vs {want}"
        );
    }
    assert_eq!(revealed_rdp(1.0, 0, 10, 2.0).unwrap(), 0.0);
}

#[test]
fn it_grows_with_draws_and_order_and_falls_with_noise_and_rows() {
    let at = |z: f64, m: u64, n: u64, a: f64| revealed_rdp(z, m, n, a).unwrap();
    assert!(at(1.0, 10, 100, 4.0) < at(1.0, 20, 100, 4.0));
    assert!(at(1.0, 10, 100, 4.0) < at(1.0, 10, 100, 8.0));
    assert!(at(2.0, 10, 100, 4.0) < at(1.0, 10, 100, 4.0));
    assert!(at(1.0, 10, 1000, 4.0) < at(1.0, 10, 100, 4.0));
    // Never below one copy's Gaussian weighted by the chance of one draw, never above all m.
    let (z, m, n, a) = (1.0, 50, 1000, 3.0);
    assert!(at(z, m, n, a) <= gaussian(m as f64, z, a));
}

/// The hidden-multiplicity pair in one dimension, D′ = Σ_k w_k N(k/z, 1) against D = N(0, 1)
/// (the replaced row's copies moved by one noise unit over z each), has a Rényi divergence at
/// most the revealed bound: numerically, on a fine grid.
#[test]
fn the_hidden_pair_stays_below_the_revealed_bound() {
    let (z, m, n) = (1.0, 50u64, 1000u64);
    let w: Vec<f64> = ln_weights(m, n).into_iter().map(f64::exp).collect();
    for alpha in [1.5, 2.0, 4.0, 8.0] {
        let (lo, hi, steps) = (-20.0, 40.0, 600_000);
        let h = (hi - lo) / steps as f64;
        let ln_pdf = |x: f64, mu: f64| -(x - mu) * (x - mu) / 2.0 - 0.5 * (2.0 * PI).ln();
        let mut ln_terms_pq = Vec::with_capacity(steps + 1);
        let mut ln_terms_qp = Vec::with_capacity(steps + 1);
        for i in 0..=steps {
            let x = lo + h * i as f64;
            let parts: Vec<f64> = (0..12)
                .map(|k| w[k].ln() + ln_pdf(x, k as f64 / z))
                .collect();
            let (ln_p, ln_q) = (log_sum_exp(&parts), ln_pdf(x, 0.0));
            ln_terms_pq.push(alpha * ln_p + (1.0 - alpha) * ln_q + h.ln());
            ln_terms_qp.push(alpha * ln_q + (1.0 - alpha) * ln_p + h.ln());
        }
        let (sum_pq, sum_qp) = (log_sum_exp(&ln_terms_pq), log_sum_exp(&ln_terms_qp));
        let hidden = sum_pq.max(sum_qp) / (alpha - 1.0);
        let bound = revealed_rdp(z, m, n, alpha).unwrap();
        assert!(
            hidden <= bound * (1.0 + 1e-9),
            "α = {alpha}: hidden {hidden} > bound {bound}"
        );
    }
}

#[test]
fn bad_input_is_refused() {
    assert!(revealed_rdp(0.0, 5, 10, 2.0).is_err());
    assert!(revealed_rdp(f64::NAN, 5, 10, 2.0).is_err());
    assert!(revealed_rdp(1.0, 5, 0, 2.0).is_err());
    assert!(revealed_rdp(1.0, MAX_DRAWS + 1, 10, 2.0).is_err());
    assert!(revealed_rdp(1.0, 5, 10, 1.0).is_err());
    assert!(revealed_rdp(1.0, 5, 10, f64::INFINITY).is_err());
    // A tiny noise multiplier is a vacuous bound, not an error.
    assert_eq!(revealed_rdp(1e-200, 5, 10, 2.0).unwrap(), f64::INFINITY);
}

/// The certificate covers the add/remove pairs `scripts/with-replacement-pair.py` measures,
/// where the Poisson event it replaces for paper P-SGD does not: a batch of m = 50 from n rows
/// plus a canary, per-copy shift at most 2 units of the add/remove noise multiplier z
/// (a copy of the canary replaces one other draw), so the event is the one here at z/2
/// over n + 1 rows.
#[test]
fn the_bound_covers_the_pairs_the_script_measures() {
    use crate::accounting::epsilon_of;
    use crate::accounting::event::Event;
    use crate::accounting::rdp_accountant::RdpAccountant;
    // (n, T, z, δ, the script's lower bound on the pair's ε, the Poisson event's certificate)
    for (n, t, z, delta, lower, poisson) in [
        (1000u64, 100u64, 1.0, 1e-6, 5.398, 4.107),
        (
            36176,
            1000,
            0.8010128579529177,
            7.641153251263027e-10,
            2.081,
            1.680,
        ),
    ] {
        let step =
            Event::sampled_with_replacement(n + 1, 50, Event::gaussian(z / 2.0).unwrap()).unwrap();
        let eps = epsilon_of(RdpAccountant::new(), &step.clone().self_composed(t), delta).unwrap();
        let exact = revealed_epsilon(z / 2.0, 50, n + 1, t, delta).unwrap();
        assert!(exact >= lower, "n = {n}: closed form {exact} < {lower}");
        assert!(
            exact <= eps,
            "n = {n}: closed form {exact} above RDP's {eps}"
        );
        eprintln!("n = {n}: closed form {exact}");
        eprintln!(
            "n = {n}: revealed-multiplicity certificate {eps} (pair >= {lower}, Poisson {poisson})"
        );
        assert!(eps >= lower, "n = {n}: {eps} < {lower}");
    }
}

/// The revealed pair's ε at `delta` for a law of S given as (s, P(S = s)), computed here
/// independently of the closed form: δ(ε) = Σ_s P(S = s)·δ_G(ε; √s/z), bracketed by
/// bisection on [0, 1000] (the bracket's ends: δ above and at or below `delta`).
fn bracket_of_law(law: &[(u64, f64)], z: f64, delta: f64) -> (f64, f64) {
    use crate::accounting::gaussian;
    let delta_of = |eps: f64| -> f64 {
        law.iter()
            .filter(|(s, _)| *s > 0)
            .map(|&(s, p)| p * gaussian::delta(eps, z, (s as f64).sqrt()).unwrap())
            .sum()
    };
    let (mut lo, mut hi) = (0.0, 1000.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if delta_of(mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// The closed form against an independent computation: T revealed steps by brute force over
/// every sequence of multiplicities (m = 2 per step, so k ∈ {0, 1, 2}), each sequence a
/// Gaussian pair at √(Σ k_t²)/z, δ(ε) their weighted sum, solved by bisection.
#[test]
fn the_closed_form_matches_brute_force_over_every_sequence() {
    for (z, n, t, delta) in [
        (1.0, 3u64, 6u32, 1e-6),
        (0.3, 20, 8, 1e-9),
        (5.0, 2, 5, 1e-3),
    ] {
        let w: Vec<f64> = ln_weights(2, n).into_iter().map(f64::exp).collect();
        let w = &w;
        let mut seqs = vec![(0u64, 1.0)];
        for _ in 0..t {
            seqs = seqs
                .iter()
                .flat_map(|&(s, p)| (0..3u64).map(move |k| (s + k * k, p * w[k as usize])))
                .collect();
        }
        let (lo, hi) = bracket_of_law(&seqs, z, delta);
        let got = revealed_epsilon(z, 2, n, t as u64, delta).unwrap();
        assert!(
            got >= lo,
            "z = {z}, n = {n}: {got} below the brute force {lo}"
        );
        assert!(
            got <= hi * (1.0 + 1e-6) + 1e-9,
            "z = {z}, n = {n}: {got} vs {hi}"
        );
    }
}

/// One row: every draw is it, T Gaussians at sensitivity m, i.e. one at m√T; nothing drawn
/// or no steps release nothing; a δ below what was dropped is ∞, never a small ε.
#[test]
fn the_closed_form_at_its_limits() {
    use crate::accounting::gaussian;
    let (z, m, t, delta) = (4.0, 3u64, 7u64, 1e-6);
    let got = revealed_epsilon(z, m, 1, t, delta).unwrap();
    let want = gaussian::epsilon(delta, z, m as f64 * (t as f64).sqrt()).unwrap();
    assert!(got >= want && got <= want * (1.0 + 1e-6), "{got} vs {want}");
    assert_eq!(revealed_epsilon(z, 0, 10, t, delta).unwrap(), 0.0);
    assert_eq!(revealed_epsilon(z, m, 10, 0, delta).unwrap(), 0.0);
    // P(k > K) ≤ 1e-15 per step is charged: at δ below that, nothing finite is certified.
    assert_eq!(
        revealed_epsilon(1.0, 50, 1000, 100, 1e-300).unwrap(),
        f64::INFINITY
    );
    // More noise, fewer draws, a larger population or fewer steps: never a larger ε.
    let at = |z: f64, m: u64, n: u64, t: u64| revealed_epsilon(z, m, n, t, 1e-6).unwrap();
    let base = at(1.0, 20, 500, 50);
    assert!(at(2.0, 20, 500, 50) < base);
    assert!(at(1.0, 10, 500, 50) < base);
    assert!(at(1.0, 20, 5000, 50) < base);
    assert!(at(1.0, 20, 500, 25) < base);
    assert!(revealed_epsilon(0.0, 5, 10, 1, 1e-6).is_err());
    assert!(revealed_epsilon(1.0, 5, 0, 1, 1e-6).is_err());
    assert!(revealed_epsilon(1.0, 5, 10, 1, 0.0).is_err());
}

/// Against the untruncated law: every multiplicity 0..=m kept, P(S = ·) on a dense grid up to
/// S = 400 and the mass above it left out (as if it lost nothing), so this ε is a lower bound
/// on the revealed pair's. The closed form, which drops mass and charges it, must stay above.
/// (Charging a squared law's drop once instead of once per copy fell below it: 111.792 where
/// this gives 111.819.)
#[test]
fn the_closed_form_is_never_below_the_untruncated_law() {
    for (z, m, n, t, delta) in [
        (0.3, 50u64, 100_000u64, 1000u64, 2e-13),
        (
            0.40050642897645885,
            50,
            36_176,
            1000,
            1.0 / 36_176f64.powi(2),
        ),
    ] {
        const SMAX: usize = 400;
        let w: Vec<f64> = ln_weights(m, n).into_iter().map(f64::exp).collect();
        let mut step = vec![0.0; SMAX + 1];
        for (k, &wk) in w.iter().enumerate().filter(|(k, _)| k * k <= SMAX) {
            step[k * k] += wk;
        }
        let conv = |a: &[f64], b: &[f64]| -> Vec<f64> {
            let mut c = vec![0.0; SMAX + 1];
            for (i, &x) in a.iter().enumerate().filter(|(_, x)| **x > 0.0) {
                for (j, &y) in b.iter().enumerate().take(SMAX + 1 - i) {
                    c[i + j] += x * y;
                }
            }
            c
        };
        let (mut law, mut base, mut left) = (vec![0.0; SMAX + 1], step, t);
        law[0] = 1.0;
        while left > 0 {
            if left & 1 == 1 {
                law = conv(&law, &base);
            }
            left >>= 1;
            base = conv(&base, &base);
        }
        let law: Vec<(u64, f64)> = law.into_iter().zip(0u64..).map(|(p, s)| (s, p)).collect();
        let (lo, _) = bracket_of_law(&law, z, delta);
        let got = revealed_epsilon(z, m, n, t, delta).unwrap();
        assert!(
            got >= lo,
            "z = {z}, n = {n}: {got} below the untruncated law's {lo}"
        );
        // Charged mass is a share of so small a δ: within 2 %.
        assert!(got <= lo * 1.02, "z = {z}, n = {n}: {got} far above {lo}");
    }
}

/// S = T·m² past 2^64 (one row, 10⁶ draws, 2·10⁷ steps) is still the Gaussian at m√T, not a
/// saturated, smaller S; huge batches of a tiny population end (at ∞ or a number) without
/// squaring half a million multiplicities.
#[test]
fn the_closed_form_neither_overflows_nor_blows_up() {
    use crate::accounting::gaussian;
    let (z, m, t, delta) = (1e10, 1_000_000u64, 20_000_000u64, 1e-6);
    let got = revealed_epsilon(z, m, 1, t, delta).unwrap();
    let want = gaussian::epsilon(delta, z, m as f64 * (t as f64).sqrt()).unwrap();
    assert!(got >= want && got <= want * (1.0 + 1e-6), "{got} vs {want}");
    for m in [100_000u64, 1_000_000] {
        let e = revealed_epsilon(1.0, m, 2, 10, 1e-6).unwrap();
        assert!(e > 0.0, "m = {m}: {e}");
    }
}

/// The hidden view's ε at `delta` after `steps` steps, on a 1e-3 grid.
fn view_epsilon(z: f64, draws: u64, population: u64, steps: u64, delta: f64) -> f64 {
    let config = crate::accounting::pld::PldConfig {
        grid_step: 1e-3,
        ..Default::default()
    };
    canary_view(z, draws, population)
        .unwrap()
        .pld(&config)
        .unwrap()
        .self_compose(steps)
        .unwrap()
        .epsilon(delta)
        .unwrap()
}

#[test]
fn the_canary_view_of_one_row_is_the_gaussian() {
    // n = 1: every draw is the row, so k = m and the view is N(±m/(2z), 1).
    for (z, m) in [(1.0, 1), (2.0, 3), (0.7, 2)] {
        let got = view_epsilon(z, m, 1, 1, 1e-6);
        let want = gaussian::epsilon(1e-6, z, m as f64).unwrap();
        assert!(got >= want && got <= want + 2e-3, "{got} vs {want}");
    }
}

#[test]
fn the_canary_view_lies_below_the_certificate_and_matches_numpy() {
    // (z per copy, m, n, T, δ, NumPy's ε of the view): paper P-SGD at 1,000 rows, the audit's
    // batch of 50 over 100 steps at target 1 (δ = 1e-6), and batches of 5 over 500 steps at
    // target 3.16 (δ = 1e-5). NumPy: the loss on 400,001 points, rounded to a 2e-3 grid and
    // composed by FFT, so a rough check; the certificate must lie above either way.
    for (z, m, n, t, delta, numpy) in [
        (7.508 / 2.0, 50, 1000, 100, 1e-6, 0.5398),
        (0.485 / 2.0, 5, 1000, 500, 1e-5, 9.632),
    ] {
        let view = view_epsilon(z, m, n, t, delta);
        assert!(
            (view - numpy).abs() <= 0.02 * numpy,
            "{view} vs NumPy's {numpy}"
        );
        let certified = revealed_epsilon(z, m, n, t, delta).unwrap();
        assert!(
            view <= certified,
            "view {view} above the certificate {certified}"
        );
    }
}

#[test]
fn the_profile_is_what_the_epsilon_inverts() {
    for (z, m, n, t, delta) in [(0.5, 50, 1000, 100, 1e-6), (2.0, 3, 10, 20, 1e-5)] {
        let eps = revealed_epsilon(z, m, n, t, delta).unwrap();
        assert!(revealed_delta(z, m, n, t, eps).unwrap() <= delta);
        // The bisection's bracket is 1e-9 wide: just below it, δ is above the target.
        assert!(revealed_delta(z, m, n, t, eps * (1.0 - 1e-8)).unwrap() > delta);
        let falls = [0.0, 0.5 * eps, eps, 2.0 * eps]
            .map(|e| revealed_delta(z, m, n, t, e).unwrap())
            .windows(2)
            .all(|w| w[1] <= w[0]);
        assert!(falls, "δ(ε) rises somewhere below {eps}");
    }
    assert_eq!(revealed_delta(1.0, 0, 10, 5, 0.0).unwrap(), 0.0);
    assert!(revealed_delta(1.0, 3, 10, 5, -1.0).is_err());
    assert!(revealed_delta(0.0, 3, 10, 5, 1.0).is_err());
}
