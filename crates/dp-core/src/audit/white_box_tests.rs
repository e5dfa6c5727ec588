//! Tests of the white-box statistic: the exact likelihood ratio, the Gaussian trade-off of
//! full-batch DP-SGD run by the production loop, and the test that must fail: DP-SGD
//! with halved noise refuted with 2,000 runs per side, the honest one not.

use super::*;
use crate::accounting::Certifier;
use crate::audit::gdp;
use crate::audit::threshold::{Orientation, Statistic, fixed_threshold_audit, split_audit};
use crate::features::FeatureMatrix;
use crate::learn::Mechanism as _;
use crate::learn::{DpSgd, GlmData, GlmLoss, Optimizer, WhiteBox, dpsgd_white_box, expected_batch};
use crate::seed::derive_seed;
use rand::SeedableRng;
use rand::rngs::StdRng;

#[test]
fn the_statistic_is_the_exact_log_likelihood_ratio() {
    let (q, z) = (0.3, 1.2);
    let phi = |x: f64| (-0.5 * x * x).exp();
    let updates = [-2.0, -0.3, 0.0, 0.4, 1.0, 2.5, 6.0];
    let direct: f64 = updates
        .iter()
        .map(|&u| (((1.0 - q) * phi(u / z) + q * phi((u - 1.0) / z)) / phi(u / z)).ln())
        .sum();
    let ours = likelihood_ratio(&updates, q, z).unwrap();
    assert!((ours - direct).abs() < 1e-12, "{ours} vs {direct}");
    // q = 1: the Gaussian shift's ratio, affine in the sum.
    let full = likelihood_ratio(&updates, 1.0, z).unwrap();
    let affine: f64 = updates.iter().map(|u| (u - 0.5) / (z * z)).sum();
    assert!((full - affine).abs() < 1e-12);
    assert!(likelihood_ratio(&updates, 0.0, z).is_err());
    assert!(likelihood_ratio(&updates, 0.5, 0.0).is_err());
    assert_eq!(full_batch_mu(1.0, 16, 2.0), Some(2.0));
    assert_eq!(full_batch_mu(0.5, 16, 2.0), None);
}

/// A small dataset the production loop trains on (its rows never touch the canary).
fn rows() -> (FeatureMatrix, Vec<f64>) {
    let n = 40;
    let x: Vec<f64> = (0..n * 3)
        .map(|i| ((i * 37 % 11) as f64 / 11.0 - 0.5) * 0.5)
        .collect();
    let y = (0..n)
        .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    (FeatureMatrix::dense(x, n, 3), y)
}

/// Full-batch DP-SGD, T = 10 steps, noise multiplier `z`.
fn full_batch(z: f64, n: usize) -> DpSgd {
    DpSgd {
        loss: GlmLoss::Logistic,
        clip: 1.0,
        noise_multiplier: z,
        sampling_rate: 1.0,
        steps: 10,
        optimizer: Optimizer::sgd(0.5),
        l2: 0.0,
        average_iterates: false,
        expected_batch: expected_batch(1.0, n),
    }
}

/// The statistic of `runs` white-box runs of `run` (claimed noise `claimed`) on each side.
fn scores(run: &DpSgd, claimed: &DpSgd, runs: u64, tag: u8) -> [Vec<f64>; 2] {
    let (x, y) = rows();
    let data = GlmData::new(&x, &y).unwrap();
    [false, true].map(|canary| {
        (0..runs)
            .map(|i| {
                let seed = derive_seed(&[&[tag, u8::from(canary)], &i.to_le_bytes()]);
                let mut wb = WhiteBox::one(canary);
                dpsgd_white_box(&data, run, &mut StdRng::seed_from_u64(seed), &mut wb).unwrap();
                assert_eq!(wb.updates.len(), run.steps);
                likelihood_ratio(&wb.updates, claimed.sampling_rate, claimed.noise_multiplier)
                    .unwrap()
            })
            .collect()
    })
}

#[test]
fn full_batch_white_box_dpsgd_is_mu_gdp_with_mu_sqrt_t_over_z() {
    let z = 10f64.sqrt(); // μ = 1
    let p = full_batch(z, 40);
    let [out, inn] = scores(&p, &p, 4000, 1);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let sd = |v: &[f64]| {
        let m = mean(v);
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
    };
    let mu = full_batch_mu(1.0, 10, z).unwrap();
    // In units of the statistic's sd (μ): means −μ²/2 and +μ²/2, sd μ. 4,000 runs: the
    // standard error of a mean is μ/63.
    for (got, want) in [
        (mean(&out), -0.5),
        (mean(&inn), 0.5),
        (sd(&out), 1.0),
        (sd(&inn), 1.0),
    ] {
        assert!((got - want).abs() < 0.06, "{got} vs {want}");
    }
    assert!((mu - 1.0).abs() < 1e-12);
}

/// The white-box audit of full-batch DP-SGD certified at ε ≈ 2 (δ = 1e-5): the threshold is
/// chosen on the first 1,000 runs of each side, the GDP estimate (valid: the trade-off is
/// Gaussian) computed on the other 1,000. Halved noise is refuted; the honest noise is not,
/// and measures at least half its certificate.
#[test]
fn halved_noise_is_refuted_white_box_and_honest_is_not() {
    let honest = full_batch(10f64.sqrt() / 0.5, 40);
    let certified = Certifier::new().epsilon(&honest.event(), 1e-5).unwrap();
    assert!((certified - 2.0).abs() < 0.05, "{certified}");
    let halved = DpSgd {
        noise_multiplier: honest.noise_multiplier / 2.0,
        ..honest.clone()
    };
    let measure = |run: &DpSgd, tag: u8| {
        let [d, p] = scores(run, &honest, 2000, tag);
        let above = [Orientation::Above];
        // Chosen at a strict γ (tail thresholds whose luck on the selection half a loose γ
        // rewards lose on the evaluation half), evaluated at 0.05.
        let chosen = split_audit(&d, &p, &above, Statistic::Gdp, 1e-5, 1e-3).unwrap();
        let eval =
            fixed_threshold_audit(&d[1000..], &p[1000..], chosen.threshold, 1e-5, 0.05).unwrap();
        gdp::epsilon_lower_bound(eval.counts, 1e-5, 0.05).unwrap()
    };
    let (h, b) = (measure(&honest, 2), measure(&halved, 3));
    eprintln!("certified {certified:.3}, honest measures {h:.3}, halved {b:.3}");
    assert!(
        h <= certified,
        "the honest mechanism measured {h} > {certified}"
    );
    assert!(h >= 0.5 * certified, "no power: {h} of {certified}");
    assert!(
        b > certified,
        "halved noise not refuted: {b} <= {certified}"
    );
}

#[test]
fn one_run_carries_a_coordinate_per_canary() {
    // 1,000 gradient canaries, every other one in, in one full-batch run (μ = √10/2 per
    // canary): each coordinate records 1 + zξ per step when its canary is in, zξ when out, and
    // the one-run f-DP test on their likelihood ratios sees them at level γ without
    // exceeding the true μ.
    let (x, y) = rows();
    let data = GlmData::new(&x, &y).unwrap();
    let (z, m) = (2.0, 1000);
    let run = full_batch(z, 40);
    let included: Vec<bool> = (0..m).map(|i| i % 2 == 0).collect();
    let mut wb = WhiteBox {
        canaries: included.clone(),
        updates: Vec::new(),
    };
    dpsgd_white_box(&data, &run, &mut StdRng::seed_from_u64(5), &mut wb).unwrap();
    assert_eq!(wb.updates.len(), run.steps * m);
    let mean = |inside: bool| {
        let picked: Vec<f64> = (0..m)
            .filter(|&i| included[i] == inside)
            .flat_map(|i| wb.canary_updates(i))
            .collect();
        picked.iter().sum::<f64>() / picked.len() as f64
    };
    // 5,000 draws a side: the mean's standard deviation is z/√5000 ≈ 0.028.
    assert!((mean(true) - 1.0).abs() < 0.15, "in: {}", mean(true));
    assert!(mean(false).abs() < 0.15, "out: {}", mean(false));
    let scores: Vec<f64> = (0..m)
        .map(|i| likelihood_ratio(&wb.canary_updates(i).collect::<Vec<_>>(), 1.0, z).unwrap())
        .collect();
    let (r, v) = crate::audit::one_run::guesses(&scores, &included, 100, 100).unwrap();
    let mu = crate::audit::one_run_fdp::mu_lower_bound(m as u64, r, v, 0.05).unwrap();
    let truth = full_batch_mu(1.0, run.steps, z).unwrap();
    assert!(
        mu > 0.3 * truth && mu <= truth,
        "μ_lb {mu} of {truth} ({v} of {r} right)"
    );
}

#[test]
fn a_view_without_canaries_is_refused() {
    // It would record nothing, and an audit of it would measure 0 without saying why.
    let (x, y) = rows();
    let data = GlmData::new(&x, &y).unwrap();
    let mut wb = WhiteBox {
        canaries: Vec::new(),
        updates: Vec::new(),
    };
    let e = dpsgd_white_box(
        &data,
        &full_batch(2.0, 4),
        &mut StdRng::seed_from_u64(5),
        &mut wb,
    )
    .unwrap_err();
    assert!(e.to_string().contains("at least one canary"), "{e}");
}

/// Paper P-SGD's statistic: the densities' log-ratio of the two mixtures, step by step.
#[test]
fn the_mixture_statistic_is_the_exact_log_likelihood_ratio() {
    let z = 0.9;
    let components = [(0.8, 0.0), (0.15, 1.0 / z), (0.05, 2.0 / z)];
    let view = crate::accounting::pld::GaussianShiftMixture::new(&components, 0.0).unwrap();
    let phi = |x: f64| (-0.5 * x * x).exp();
    let updates = [-3.0, -1.0, -0.2, 0.0, 0.7, 1.9, 4.0];
    let direct: f64 = updates
        .iter()
        .map(|&u| {
            let x = u / z;
            let on =
                |sign: f64| -> f64 { components.iter().map(|&(w, s)| w * phi(x - sign * s)).sum() };
            (on(1.0) / on(-1.0)).ln()
        })
        .sum();
    let ours = mixture_likelihood_ratio(&updates, &view, z).unwrap();
    assert!((ours - direct).abs() < 1e-12, "{ours} vs {direct}");
    assert!(mixture_likelihood_ratio(&updates, &view, 0.0).is_err());
}
