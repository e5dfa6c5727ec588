//! PLD accountant against closed forms, quadrature and the DP-SGD anchor. Every check that
//! the accountant is pessimistic compares with an independent exact value computed here.

use dp_core::DpError;
use dp_core::accounting::pld::{Discretisation, Pld, PldConfig, Pmf, dpsgd_epsilon_pld};
use dp_core::special::{ln_binom, log_sum_exp, norm_cdf, norm_pdf};

/// Relative slack when comparing a raw [`Pmf`] δ (no round-off margin) with an exact value
/// evaluated differently; [`Pld`] values must beat exact values with no slack at all.
const ROUND_OFF: f64 = 1e-10;

/// Analytic Gaussian δ(ε) (Balle & Wang 2018).
fn gaussian_delta(sigma: f64, sens: f64, eps: f64) -> f64 {
    let (a, b) = (sens / (2.0 * sigma), eps * sigma / sens);
    norm_cdf(a - b) - eps.exp() * norm_cdf(-a - b)
}

/// ObjPert privacy profile (Redberg et al., Thm 3.1 as restated in `docs/derivations.md` §4), valid
/// for every real ε.
fn objpert_delta(c: f64, s: f64, eps: f64) -> f64 {
    let e = eps - c - 0.5 * s * s;
    if e >= 0.0 {
        2.0 * (norm_cdf(-e / s) - (e + 0.5 * s * s).exp() * norm_cdf(-e / s - s))
    } else {
        1.0 - 2.0 * (e + 0.5 * s * s).exp() * norm_cdf(-s)
    }
}

/// One-step subsampled-Gaussian hockey-stick divergences (remove, add) at any real ε.
fn subsampled_delta(q: f64, z: f64, eps: f64) -> (f64, f64) {
    // Output where log(1 − q + q e^{(2x−1)/(2z²)}) = l; −∞ at or below log(1 − q).
    let x_at = |l: f64| {
        let v = l.exp() - (1.0 - q);
        if v <= 0.0 {
            f64::NEG_INFINITY
        } else {
            z * z * (v / q).ln() + 0.5
        }
    };
    let mix_sf = |x: f64| (1.0 - q) * norm_cdf(-x / z) + q * norm_cdf(-(x - 1.0) / z);
    let mix_cdf = |x: f64| (1.0 - q) * norm_cdf(x / z) + q * norm_cdf((x - 1.0) / z);
    let xr = x_at(eps);
    let remove = mix_sf(xr) - eps.exp() * norm_cdf(-xr / z);
    let xa = x_at(-eps);
    let add = if xa == f64::NEG_INFINITY {
        0.0
    } else {
        norm_cdf(xa / z) - eps.exp() * mix_cdf(xa)
    };
    (remove, add.max(0.0))
}

/// Composite Simpson rule on [a, b] with `n` (even) intervals.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let inner: f64 = (1..n)
        .map(|i| f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
        .sum();
    (f(a) + f(b) + inner) * h / 3.0
}

/// DP-SGD ε from integer-order RDP (Mironov et al. 2019) and the improved conversion.
fn rdp_dpsgd_epsilon(q: f64, z: f64, steps: f64, delta: f64) -> f64 {
    (2..=256u32)
        .map(|alpha| {
            let a = alpha as f64;
            let terms: Vec<f64> = (0..=alpha)
                .map(|k| {
                    let k = k as f64;
                    ln_binom(a, k)
                        + (a - k) * (-q).ln_1p()
                        + k * q.ln()
                        + (k * k - k) / (2.0 * z * z)
                })
                .collect();
            let rdp = steps * log_sum_exp(&terms) / (a - 1.0);
            rdp + ((a - 1.0) / a).ln() - (delta.ln() + a.ln()) / (a - 1.0)
        })
        .fold(f64::INFINITY, f64::min)
}

/// `pld` (from [`Pld::delta`]) is an upper bound on `exact` within `rel_tol`.
fn assert_upper_bound(pld: f64, exact: f64, rel_tol: f64, what: &str) {
    assert!(pld >= exact, "{what}: PLD δ {pld:e} below exact {exact:e}");
    assert!(
        pld <= exact * (1.0 + rel_tol) + 1e-14,
        "{what}: PLD δ {pld:e} too far above exact {exact:e}"
    );
}

/// Same for a raw [`Pmf`] δ, up to floating-point round-off.
fn assert_pmf_upper_bound(pmf: f64, exact: f64, rel_tol: f64, what: &str) {
    assert_upper_bound(pmf * (1.0 + ROUND_OFF), exact, rel_tol, what);
}

#[test]
fn pld_gaussian_self_composition_equals_one_gaussian() {
    let cfg = PldConfig::default();
    let (sigma, sens) = (2.0, 1.0);
    let single = Pld::gaussian(sigma, sens, &cfg).unwrap();
    for k in [1u64, 2, 5, 20] {
        let composed = single.self_compose(k).unwrap();
        let s = sigma / (k as f64).sqrt();
        for eps in [0.0, 0.1, 0.37, 1.0, 1.55, 2.5] {
            let exact = gaussian_delta(s, sens, eps);
            if exact < 1e-10 {
                continue;
            }
            assert_upper_bound(
                composed.delta(eps).unwrap(),
                exact,
                1e-6,
                &format!("k={k} eps={eps}"),
            );
        }
    }
}

#[test]
fn pld_heterogeneous_gaussian_composition() {
    let cfg = PldConfig::default();
    let (s1, s2) = (1.5, 3.0);
    let composed = Pld::gaussian(s1, 1.0, &cfg)
        .unwrap()
        .compose(&Pld::gaussian(s2, 1.0, &cfg).unwrap())
        .unwrap();
    let s = 1.0 / (1.0 / (s1 * s1) + 1.0 / (s2 * s2)).sqrt();
    for eps in [0.0, 0.25, 0.5, 1.0, 2.0, 3.3] {
        assert_upper_bound(
            composed.delta(eps).unwrap(),
            gaussian_delta(s, 1.0, eps),
            1e-6,
            &format!("eps={eps}"),
        );
    }
    let coarse = PldConfig {
        grid_step: 1e-3,
        ..cfg
    };
    assert!(
        Pld::gaussian(s1, 1.0, &cfg)
            .unwrap()
            .compose(&Pld::gaussian(s2, 1.0, &coarse).unwrap())
            .is_err()
    );
}

#[test]
fn pld_round_up_discretisation_is_pessimistic() {
    let cfg = PldConfig {
        discretisation: Discretisation::RoundUp,
        ..PldConfig::default()
    };
    let composed = Pld::gaussian(1.0, 1.0, &cfg)
        .unwrap()
        .self_compose(3)
        .unwrap();
    let s = 1.0 / 3f64.sqrt();
    for eps in [0.0, 0.3, 1.0, 2.0, 4.0, 6.0] {
        assert_upper_bound(
            composed.delta(eps).unwrap(),
            gaussian_delta(s, 1.0, eps),
            2e-3,
            &format!("eps={eps}"),
        );
    }
}

#[test]
fn pld_coarse_grids_and_heavy_truncation_stay_pessimistic() {
    // A coarse grid and large tail truncation make every error term visible; the bound must
    // still hold at every ε, on and off the grid.
    for disc in [Discretisation::ConnectTheDots, Discretisation::RoundUp] {
        let cfg = PldConfig {
            grid_step: 0.05,
            tail_mass_truncation: 1e-4,
            discretisation: disc,
        };
        let single = Pld::gaussian(1.0, 1.0, &cfg).unwrap();
        for k in [1u64, 4, 30] {
            let composed = single.self_compose(k).unwrap();
            let s = 1.0 / (k as f64).sqrt();
            for i in 0..80 {
                let eps = i as f64 * 0.137;
                let exact = gaussian_delta(s, 1.0, eps);
                let got = composed.delta(eps).unwrap();
                assert!(
                    got >= exact,
                    "{disc:?} k={k} eps={eps}: {got:e} < {exact:e}"
                );
            }
        }
    }
}

#[test]
fn pld_window_truncation_is_charged_to_delta() {
    // A bounded two-sided PMF composed 300 times with a large truncation budget: the window
    // cuts real mass, and δ must still dominate the exact convolution at every ε, including
    // beyond the window.
    let h = 0.01;
    let probs: Vec<f64> = (0..61)
        .map(|i| if i == 60 { 1e-4 } else { (1.0 - 1e-4) / 60.0 })
        .collect();
    let pmf = Pmf::new(h, -10, probs.clone(), 0.0).unwrap();
    let cfg = PldConfig {
        grid_step: h,
        tail_mass_truncation: 1e-6,
        ..PldConfig::default()
    };
    let k = 300usize;
    let composed = Pld::from_pmfs(pmf, None, &cfg)
        .unwrap()
        .self_compose(k as u64)
        .unwrap();
    assert!(
        composed.remove().probs().len() < 60 * k,
        "window did not truncate"
    );
    let mut exact = vec![1.0];
    for _ in 0..k {
        let mut next = vec![0.0; exact.len() + probs.len() - 1];
        for (i, x) in exact.iter().enumerate() {
            for (j, y) in probs.iter().enumerate() {
                next[i + j] += x * y;
            }
        }
        exact = next;
    }
    let exact_delta = |eps: f64| -> f64 {
        exact
            .iter()
            .enumerate()
            .map(|(i, p)| p * (1.0 - (eps - (i as f64 - 10.0 * k as f64) * h).exp()).max(0.0))
            .sum()
    };
    let top = composed.remove().loss(composed.remove().probs().len() - 1);
    for i in 0..200 {
        let eps = i as f64 * 0.071;
        let want = exact_delta(eps);
        let got = composed.delta(eps).unwrap();
        assert!(
            got >= want,
            "eps={eps} (window top {top}): {got:e} < {want:e}"
        );
    }
    assert!(
        exact_delta(top + 0.5) > 0.0,
        "test does not reach beyond the window"
    );
}

#[test]
fn pld_subsampled_gaussian_single_step_matches_hockey_stick() {
    let (q, z) = (0.05, 1.0);
    let pld = Pld::subsampled_gaussian(q, z, &PldConfig::default()).unwrap();
    assert!(!pld.is_symmetric());
    let mut add_positive = 0;
    for eps in [0.0, 0.001, 0.01, 0.03, 0.05, 0.1, 0.3, 0.8] {
        let (remove, add) = subsampled_delta(q, z, eps);
        assert_pmf_upper_bound(
            pld.remove().delta(eps),
            remove,
            1e-6,
            &format!("remove eps={eps}"),
        );
        if add > 1e-12 {
            add_positive += 1;
            assert_pmf_upper_bound(pld.add().delta(eps), add, 1e-6, &format!("add eps={eps}"));
        }
        assert!(pld.add().delta(eps) * (1.0 + ROUND_OFF) >= add);
        assert_upper_bound(
            pld.delta(eps).unwrap(),
            remove.max(add),
            1e-6,
            &format!("max eps={eps}"),
        );
    }
    assert!(add_positive >= 3, "the add relation was not exercised");
}

#[test]
fn pld_subsampled_gaussian_two_fold_composition_matches_quadrature() {
    // δ₂(ε) = E_{x~P}[δ₁(ε − L(x))] with the exact one-step profile, integrated over x.
    let (q, z) = (0.2, 0.8);
    let composed = Pld::subsampled_gaussian(q, z, &PldConfig::default())
        .unwrap()
        .self_compose(2)
        .unwrap();
    let loss = |x: f64| ((1.0 - q) + q * ((2.0 * x - 1.0) / (2.0 * z * z)).exp()).ln();
    let remove_density = |x: f64| ((1.0 - q) * norm_pdf(x / z) + q * norm_pdf((x - 1.0) / z)) / z;
    let add_density = |x: f64| norm_pdf(x / z) / z;
    for eps in [0.05, 0.2, 0.5, 1.0, 2.0] {
        let remove = simpson(
            |x| remove_density(x) * subsampled_delta(q, z, eps - loss(x)).0,
            -12.0 * z,
            1.0 + 12.0 * z,
            40_000,
        );
        let add = simpson(
            |x| add_density(x) * subsampled_delta(q, z, eps + loss(x)).1,
            -12.0 * z,
            1.0 + 12.0 * z,
            40_000,
        );
        assert_pmf_upper_bound(
            composed.remove().delta(eps),
            remove,
            1e-4,
            &format!("remove eps={eps}"),
        );
        if add > 1e-10 {
            assert_pmf_upper_bound(
                composed.add().delta(eps),
                add,
                1e-4,
                &format!("add eps={eps}"),
            );
        }
    }
}

#[test]
fn pld_subsampling_rate_one_is_the_plain_gaussian() {
    let cfg = PldConfig::default();
    let z = 1.3;
    let sub = Pld::subsampled_gaussian(1.0, z, &cfg).unwrap();
    let plain = Pld::gaussian(z, 1.0, &cfg).unwrap();
    for k in [1u64, 3] {
        let (a, b) = (sub.self_compose(k).unwrap(), plain.self_compose(k).unwrap());
        for eps in [0.0, 0.2, 0.9, 2.0, 3.5] {
            let (da, db) = (a.delta(eps).unwrap(), b.delta(eps).unwrap());
            assert!(
                (da - db).abs() <= 1e-9 * db + 1e-14,
                "k={k} eps={eps}: {da:e} vs {db:e}"
            );
            assert!(da >= gaussian_delta(z / (k as f64).sqrt(), 1.0, eps));
        }
    }
}

#[test]
fn pld_dpsgd_anchor_and_rdp_comparison() {
    let (q, z, steps, delta) = (0.00708, 2.75, 8478u64, 1e-5);
    let eps = dpsgd_epsilon_pld(q, z, steps, delta).unwrap();
    assert!((eps - 0.914).abs() <= 0.01 * 0.914, "eps = {eps}");
    let rdp = rdp_dpsgd_epsilon(q, z, steps as f64, delta);
    assert!((rdp - 1.0).abs() < 0.05, "RDP eps = {rdp}");
    assert!(eps < rdp, "PLD {eps} not below RDP {rdp}");
    // Halving the grid step moves ε by far less than the anchor tolerance.
    let fine = PldConfig {
        grid_step: 5e-5,
        ..PldConfig::default()
    };
    let eps_fine = Pld::subsampled_gaussian(q, z, &fine)
        .unwrap()
        .self_compose(steps)
        .unwrap()
        .epsilon(delta)
        .unwrap();
    assert!(
        eps_fine <= eps + 1e-9 && eps - eps_fine < 1e-3,
        "h=1e-4: {eps}, h=5e-5: {eps_fine}"
    );
}

/// ε at which `steps` remove-relation steps, each output reduced to the bit 1{x > c}, reach
/// `delta`: a lower bound on the DP-SGD ε by post-processing. The bits are i.i.d., so their
/// count is sufficient and the hockey-stick divergence is an exact binomial sum.
fn thresholded_dpsgd_epsilon(q: f64, z: f64, steps: u64, c: f64, delta: f64) -> f64 {
    let r = norm_cdf(-c / z);
    let p = (1.0 - q) * r + q * norm_cdf((1.0 - c) / z);
    let t = steps as f64;
    let ln_pmf = |j: u64, p: f64| {
        let j = j as f64;
        ln_binom(t, j) + j * p.ln() + (t - j) * (-p).ln_1p()
    };
    let delta_at = |eps: f64| -> f64 {
        let hockey_stick = |j| (ln_pmf(j, p).exp() - (eps + ln_pmf(j, r)).exp()).max(0.0);
        (0..=steps).map(hockey_stick).sum()
    };
    let (mut lo, mut hi) = (0.0, 100.0);
    while hi - lo > 1e-9 {
        let mid = 0.5 * (lo + hi);
        let above = delta_at(mid) > delta;
        (lo, hi) = if above { (mid, hi) } else { (lo, mid) };
    }
    lo
}

#[test]
fn pld_dpsgd_small_noise_long_run_beats_rdp() {
    // Regression: the FFT round-off bound of the 5630-fold self-composition (forward-FFT error
    // amplified k-fold at the low frequencies) charged ≈ 2.1e-10 to the infinity mass, nearly
    // all of δ, and ε came out 18.91, above RDP's 18.84.
    //
    // Reference: Google's dp_accounting 0.6.0 (pessimistic; round-off not charged) gives
    // 17.73696102017473 with PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE,
    // value_discretization_interval=1e-4), composing SelfComposedDpEvent(
    // PoissonSampledDpEvent(0.0124, GaussianDpEvent(0.728)), 5630), get_epsilon(2.31e-10).
    let (q, z, steps, delta) = (0.0124, 0.728, 5630u64, 2.31e-10);
    let pld = Pld::subsampled_gaussian(q, z, &PldConfig::default())
        .unwrap()
        .self_compose(steps)
        .unwrap();
    // k × the single-step tail cut (≈ 4e-13) plus round-off (≈ 1e-13).
    let infinity = pld.remove().infinity_mass().max(pld.add().infinity_mass());
    assert!(infinity < 1e-12, "infinity mass {infinity:e}");
    let eps = pld.epsilon(delta).unwrap();
    let rdp = rdp_dpsgd_epsilon(q, z, steps as f64, delta);
    assert!(eps < rdp, "PLD {eps} not below RDP {rdp}");
    assert!((eps - 17.73696).abs() < 5e-3, "PLD {eps}");
    // Lower bounds: the outputs thresholded at 1.7 (≈ 11.0), and one step alone.
    let lower = thresholded_dpsgd_epsilon(q, z, steps, 1.7, delta);
    assert!(lower > 10.5 && eps >= lower, "PLD {eps} below {lower}");
    let (remove, add) = subsampled_delta(q, z, eps);
    assert!(remove.max(add) <= delta);
}

#[test]
fn pld_objpert_single_release_matches_theorem_3_1() {
    let (sigma, lambda, beta, lip): (f64, f64, f64, f64) = (2.0, 1.0, 0.25, 2f64.sqrt());
    let (c, s) = (-(1.0 - beta / lambda).ln(), lip / sigma);
    let pld = Pld::objpert(sigma, lambda, beta, lip, &PldConfig::default()).unwrap();
    assert!(pld.is_symmetric());
    let floor = c + 0.5 * s * s;
    for eps in [
        0.0,
        0.5 * floor,
        floor,
        floor + 0.01,
        0.7,
        1.0,
        1.234_567,
        2.0,
        3.0,
        4.5,
    ] {
        let exact = objpert_delta(c, s, eps);
        assert_upper_bound(pld.delta(eps).unwrap(), exact, 1e-6, &format!("eps={eps}"));
    }
}

#[test]
fn pld_objpert_two_fold_composition_matches_quadrature() {
    // δ₂(ε) = E[δ₁(ε − ω₁)] with ω₁ = c + s²/2 + s|Z|, integrated over |Z| with density 2φ.
    let (sigma, lambda, beta, lip): (f64, f64, f64, f64) = (1.5, 2.0, 0.5, 2f64.sqrt());
    let (c, s) = (-(1.0 - beta / lambda).ln(), lip / sigma);
    let composed = Pld::objpert(sigma, lambda, beta, lip, &PldConfig::default())
        .unwrap()
        .self_compose(2)
        .unwrap();
    for eps in [0.5, 1.0, 2.0, 3.0, 5.0] {
        let quad = simpson(
            |y| 2.0 * norm_pdf(y) * objpert_delta(c, s, eps - c - 0.5 * s * s - s * y),
            0.0,
            14.0,
            28_000,
        );
        assert_upper_bound(
            composed.delta(eps).unwrap(),
            quad,
            1e-5,
            &format!("eps={eps}"),
        );
    }
}

#[test]
fn pld_objpert_composition_monotone_in_sigma_and_k() {
    let cfg = PldConfig {
        grid_step: 2e-4,
        ..PldConfig::default()
    };
    let (lambda, beta, lip) = (1.0, 0.25, 2f64.sqrt());
    let eps_of = |sigma: f64, k: u64| {
        Pld::objpert(sigma, lambda, beta, lip, &cfg)
            .unwrap()
            .self_compose(k)
            .unwrap()
            .epsilon(1e-5)
            .unwrap()
    };
    let by_sigma: Vec<f64> = [2.0, 3.0, 5.0, 8.0].iter().map(|&s| eps_of(s, 5)).collect();
    assert!(
        by_sigma.windows(2).all(|w| w[1] < w[0]),
        "not decreasing in sigma: {by_sigma:?}"
    );
    let by_k: Vec<f64> = [1u64, 2, 5, 10].iter().map(|&k| eps_of(4.0, k)).collect();
    assert!(
        by_k.windows(2).all(|w| w[1] > w[0]),
        "not increasing in k: {by_k:?}"
    );
    let pld = Pld::objpert(4.0, lambda, beta, lip, &cfg).unwrap();
    let deltas: Vec<f64> = [1u64, 2, 5]
        .iter()
        .map(|&k| pld.self_compose(k).unwrap().delta(1.5).unwrap())
        .collect();
    assert!(
        deltas.windows(2).all(|w| w[1] > w[0]),
        "delta not increasing in k: {deltas:?}"
    );
}

#[test]
fn pld_delta_is_monotone_and_epsilon_round_trips() {
    let cfg = PldConfig::default();
    let plds = [
        Pld::subsampled_gaussian(0.01, 1.1, &cfg)
            .unwrap()
            .self_compose(1000)
            .unwrap(),
        Pld::objpert(3.0, 1.0, 0.25, 2f64.sqrt(), &cfg)
            .unwrap()
            .self_compose(3)
            .unwrap(),
    ];
    for pld in &plds {
        let mut prev = f64::INFINITY;
        for i in 0..2000 {
            let d = pld.delta(i as f64 * 0.0037).unwrap();
            assert!(d <= prev, "delta increased at step {i}");
            prev = d;
        }
        for target in [0.5, 0.3, 1e-3, 1e-5, 1e-8, 1e-10] {
            let eps = pld.epsilon(target).unwrap();
            assert!(eps.is_finite() && eps >= 0.0);
            assert!(
                pld.delta(eps).unwrap() <= target,
                "target {target}: delta(eps) above target"
            );
            if eps > 0.0 {
                assert!(
                    pld.delta(eps - 1e-7).unwrap() > target,
                    "target {target}: eps {eps} is not the smallest"
                );
            }
        }
    }
}

#[test]
fn pld_infinite_loss_mass_gives_infinite_epsilon() {
    let pmf = Pmf::new(0.1, 0, vec![0.5, 0.4], 0.1).unwrap();
    let pld = Pld::from_pmfs(
        pmf,
        None,
        &PldConfig {
            grid_step: 0.1,
            ..PldConfig::default()
        },
    )
    .unwrap();
    assert_eq!(pld.epsilon(0.05).unwrap(), f64::INFINITY);
    assert!(pld.epsilon(0.2).unwrap().is_finite());
    assert!((pld.self_compose(2).unwrap().delta(100.0).unwrap() - 0.19).abs() < 1e-9);
}

fn out_of_range_name<T: std::fmt::Debug>(r: dp_core::Result<T>) -> &'static str {
    match r {
        Err(DpError::OutOfRange { name, .. }) => name,
        other => panic!("expected OutOfRange, got {other:?}"),
    }
}

#[test]
fn pld_invalid_parameters_are_named() {
    let cfg = PldConfig::default();
    let (mut bad_h, mut bad_tail) = (cfg, cfg);
    (bad_h.grid_step, bad_tail.tail_mass_truncation) = (0.0, 1.0);
    let pld = Pld::gaussian(1.0, 1.0, &cfg).unwrap();
    let gaussian = |s: f64, d: f64, c: &PldConfig| Pld::gaussian(s, d, c).map(drop);
    let subsampled = |q: f64, z: f64| Pld::subsampled_gaussian(q, z, &cfg).map(drop);
    let objpert = |s: f64, l: f64, b: f64, lip: f64| Pld::objpert(s, l, b, lip, &cfg).map(drop);
    let cases: [(dp_core::Result<()>, &str); 16] = [
        (gaussian(0.0, 1.0, &cfg), "sigma"),
        (gaussian(1.0, -1.0, &cfg), "sensitivity"),
        (subsampled(0.0, 1.0), "sampling-rate"),
        (subsampled(1.5, 1.0), "sampling-rate"),
        (subsampled(0.1, f64::NAN), "noise-multiplier"),
        (objpert(0.0, 1.0, 0.25, 1.0), "sigma"),
        (objpert(1.0, 0.25, 0.25, 1.0), "lambda"),
        (objpert(1.0, 1.0, -0.1, 1.0), "beta"),
        (objpert(1.0, 1.0, 0.25, 0.0), "lipschitz"),
        (gaussian(1.0, 1.0, &bad_h), "grid-step"),
        (gaussian(1.0, 1.0, &bad_tail), "tail-mass-truncation"),
        (pld.epsilon(0.0).map(drop), "delta"),
        (pld.delta(-1.0).map(drop), "epsilon"),
        (pld.self_compose(0).map(drop), "compositions"),
        (dpsgd_epsilon_pld(0.01, 1.0, 0, 1e-5).map(drop), "steps"),
        (dpsgd_epsilon_pld(0.01, 1.0, 10, 1.0).map(drop), "delta"),
    ];
    for (result, name) in cases {
        assert_eq!(out_of_range_name(result), name);
    }
}
