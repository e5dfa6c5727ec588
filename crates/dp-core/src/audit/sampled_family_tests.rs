//! Tests of the family test: the Gaussian case at q = 1, the hull below every curve it joins,
//! and, on simulated white-box audits of a sampled view, bounds below the truth and above
//! Steinke et al.'s.

use super::*;
use crate::accounting::pld::lower::LowerPld;
use crate::audit::{one_run, one_run_fdp};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

const GAMMA: f64 = 0.05;
const DELTA: f64 = 1e-5;

#[test]
fn at_full_batch_it_is_the_gaussian_test() {
    // q = 1: T steps at noise z are √T/z-GDP. The family's curve is the pessimistic PLD's, a
    // little lower than the closed form, so its test is a little weaker: never above it.
    let family = SampledFamily {
        sampling_rate: 1.0,
        steps: 16,
    };
    for (r, v) in [(200, 150), (200, 180), (200, 200), (100, 75)] {
        let gauss = one_run_fdp::epsilon_lower_bound(1000, r, v, DELTA, GAMMA).unwrap();
        let fam = family
            .epsilon_lower_bound(1000, r, v, DELTA, GAMMA)
            .unwrap();
        assert!(fam <= gauss + 1e-9, "({r}, {v}): {fam} > {gauss}");
        assert!(
            fam >= gauss - 0.02 * gauss.max(1.0),
            "({r}, {v}): {fam} vs {gauss}"
        );
    }
}

#[test]
fn chance_counts_reject_nothing_and_more_right_guesses_reject_more() {
    let family = SampledFamily {
        sampling_rate: 0.1,
        steps: 100,
    };
    assert_eq!(
        family
            .epsilon_lower_bound(1000, 200, 100, DELTA, GAMMA)
            .unwrap(),
        0.0
    );
    let mut last = 0.0;
    for v in [140, 158, 173, 190, 200] {
        let e = family
            .epsilon_lower_bound(1000, 200, v, DELTA, GAMMA)
            .unwrap();
        let steinke = one_run::epsilon_lower_bound(1000, 200, v, DELTA, GAMMA).unwrap();
        assert!(e >= last, "v {v}: {e} < {last}");
        assert!(e >= steinke, "v {v}: family {e} below Steinke {steinke}");
        last = e;
    }
}

#[test]
fn the_hull_is_convex_symmetric_and_below_every_curve() {
    let family = SampledFamily {
        sampling_rate: 0.1,
        steps: 50,
    };
    let (hull, _) = family.lower_curve(1.2).unwrap();
    let pld = Pld::subsampled_gaussian(
        0.1,
        1.2,
        &PldConfig {
            grid_step: TEST_GRID,
            ..PldConfig::default()
        },
    )
    .unwrap()
    .self_compose(50)
    .unwrap();
    let curves = [
        Tradeoff::from_pmf(pld.remove()),
        Tradeoff::from_pmf(pld.add()),
    ];
    let mut last_slope = f64::NEG_INFINITY;
    let mut prev = (0.0, hull.beta(0.0));
    for i in 1..=400 {
        let a = (i as f64 / 400.0).powi(3);
        let b = hull.beta(a);
        for c in &curves {
            assert!(
                b <= c.beta(a) + 1e-12 && b <= c.swapped().beta(a) + 1e-12,
                "α {a}"
            );
        }
        // Symmetric: where the hull falls strictly, (β, α) lies on it too.
        if b > 1e-6 && hull.beta(a * (1.0 + 1e-9) + 1e-12) < b {
            let back = hull.beta(b);
            assert!((back - a).abs() < 1e-6, "α {a}: f(f(α)) = {back}");
        }
        let slope = (b - prev.1) / (a - prev.0);
        assert!(slope >= last_slope - 1e-9, "not convex at α {a}");
        assert!(slope <= 1e-12, "rising at α {a}");
        (last_slope, prev) = (slope, (a, b));
    }
}

/// One run of a Poisson-sampled Gaussian view: T steps, the canary (when `inside`) in each
/// with probability q, noise z; its log-likelihood ratio, the white-box score.
fn sampled_llr(rng: &mut StdRng, inside: bool, q: f64, z: f64, t: usize) -> f64 {
    (0..t)
        .map(|_| {
            let hit = inside && rng.random::<f64>() < q;
            let x = f64::from(u8::from(hit)) + z * rng.sample::<f64, _>(StandardNormal);
            (1.0 - q + q * ((2.0 * x - 1.0) / (2.0 * z * z)).exp()).ln()
        })
        .sum()
}

/// One white-box one-run audit of a Poisson-sampled Gaussian view: m canaries, each in with
/// probability ½, scored by [`sampled_llr`]; the k highest guessed in, the k lowest out.
/// Returns the right guesses.
fn simulated_right(rng: &mut StdRng, m: usize, k: usize, q: f64, z: f64, t: usize) -> u64 {
    let mut scored: Vec<(f64, bool)> = (0..m)
        .map(|_| {
            let inside: bool = rng.random();
            (sampled_llr(rng, inside, q, z, t), inside)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let plus = scored[..k].iter().filter(|s| s.1).count();
    let minus = scored[m - k..].iter().filter(|s| !s.1).count();
    (plus + minus) as u64
}

#[test]
fn simulated_sampled_audits_stay_below_the_truth_and_above_steinke() {
    let (m, k, q, z, t) = (1000usize, 100usize, 0.2, 1.0, 20usize);
    let family = SampledFamily {
        sampling_rate: q,
        steps: t as u64,
    };
    let truth = LowerPld::subsampled_gaussian(q, z, t as u64, &PldConfig::default())
        .unwrap()
        .epsilon(DELTA)
        .unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let (mut sum, mut sum_steinke) = (0.0, 0.0);
    let trials = 12;
    for _ in 0..trials {
        let v = simulated_right(&mut rng, m, k, q, z, t);
        let r = 2 * k as u64;
        let e = family
            .epsilon_lower_bound(m as u64, r, v, DELTA, GAMMA)
            .unwrap();
        // A 95 % bound may pass the truth in one trial of twenty; none of these does.
        assert!(e <= truth, "v {v}: {e} above the truth {truth}");
        sum += e;
        sum_steinke += one_run::epsilon_lower_bound(m as u64, r, v, DELTA, GAMMA).unwrap();
    }
    assert!(
        sum > 1.2 * sum_steinke,
        "family {sum} vs Steinke {sum_steinke}"
    );
}

fn counts(fp: u64, fn_: u64, n: u64) -> Counts {
    Counts {
        false_positives: fp,
        negatives: n,
        false_negatives: fn_,
        positives: n,
    }
}

#[test]
fn on_counts_at_full_batch_it_is_the_gdp_bound() {
    // q = 1 is the Gaussian family, and the GDP bound is the same Clopper–Pearson test
    // against it in closed form: the family's (a pessimistic curve) is at most it, and close.
    let family = SampledFamily {
        sampling_rate: 1.0,
        steps: 16,
    };
    for (fp, fn_) in [(3000, 3000), (500, 6000), (20, 9000), (4000, 4500)] {
        let c = counts(fp, fn_, 10_000);
        let gdp = crate::audit::gdp::epsilon_lower_bound(c, DELTA, GAMMA).unwrap();
        let fam = family.epsilon_lower_bound_counts(c, DELTA, GAMMA).unwrap();
        assert!(fam <= gdp + 1e-9, "({fp}, {fn_}): {fam} > {gdp}");
        assert!(
            fam >= gdp - 0.02 * gdp.max(1.0),
            "({fp}, {fn_}): {fam} vs {gdp}"
        );
    }
    // Chance: nothing rejected.
    let none = family.epsilon_lower_bound_counts(counts(5000, 5000, 10_000), DELTA, GAMMA);
    assert_eq!(none.unwrap(), 0.0);
}

#[test]
fn simulated_threshold_audits_stay_below_the_truth_and_above_the_threshold_bound() {
    // T = 20 steps at q = 0.2, z = 1: 4,000 runs a side at a threshold fixed in advance.
    let (q, z, t, n) = (0.2, 1.0, 20usize, 4000usize);
    let family = SampledFamily {
        sampling_rate: q,
        steps: t as u64,
    };
    let truth = LowerPld::subsampled_gaussian(q, z, t as u64, &PldConfig::default())
        .unwrap()
        .epsilon(DELTA)
        .unwrap();
    let mut rng = StdRng::seed_from_u64(19);
    let llr = |rng: &mut StdRng, inside: bool| sampled_llr(rng, inside, q, z, t);
    let (mut fam_sum, mut thr_sum) = (0.0, 0.0);
    for _ in 0..6 {
        let threshold = 1.5;
        let fp = (0..n).filter(|_| llr(&mut rng, false) > threshold).count() as u64;
        let fn_ = (0..n).filter(|_| llr(&mut rng, true) <= threshold).count() as u64;
        let c = counts(fp, fn_, n as u64);
        let fam = family.epsilon_lower_bound_counts(c, DELTA, GAMMA).unwrap();
        assert!(fam <= truth, "({fp}, {fn_}): {fam} above the truth {truth}");
        fam_sum += fam;
        thr_sum += crate::audit::threshold::epsilon_lower_bound(c, DELTA, GAMMA).unwrap();
    }
    assert!(
        fam_sum > 1.2 * thr_sum,
        "family {fam_sum} vs threshold {thr_sum}"
    );
}

#[test]
fn its_ceiling_at_full_batch_is_the_gdp_ceiling() {
    let family = SampledFamily {
        sampling_rate: 1.0,
        steps: 4,
    };
    // 4 steps at z = 2: μ = 1.
    let mu = 1.0;
    let gdp = crate::audit::ceiling::ceiling(
        &Tradeoff::Gaussian { mu },
        crate::audit::ceiling::Statistic::Gdp,
        10_000,
        10_000,
        DELTA,
        GAMMA,
    )
    .unwrap();
    let fam = family
        .ceiling(&[Tradeoff::Gaussian { mu }], (10_000, 10_000), DELTA, GAMMA)
        .unwrap();
    assert!((fam - gdp).abs() < 0.03 * gdp, "{fam} vs {gdp}");
}
