//! Tests of the Gaussian-DP estimate: the inverse normal CDF, the μ → ε conversion against the
//! analytic Gaussian mechanism, audit.md §5's numbers, and coverage on Gaussian data.

use super::*;
use crate::special::norm_cdf;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

fn counts(fp: u64, n0: u64, fn_: u64, n1: u64) -> Counts {
    Counts {
        false_positives: fp,
        negatives: n0,
        false_negatives: fn_,
        positives: n1,
    }
}

#[test]
fn quantile_known_values() {
    // python3 -c "from scipy.special import ndtri; print(ndtri(p))"
    for &(p, want) in &[
        (1e-300, -37.047_096_299_361_2),
        (1e-20, -9.262_340_089_798_409),
        (0.025, -1.959_963_984_540_054_5),
        (0.3, -0.524_400_512_708_040_9),
        (0.5, 0.0),
        (0.975, 1.959_963_984_540_054),
    ] {
        let x = norm_quantile(p).unwrap();
        assert!(
            (x - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{p}: {x} vs {want}"
        );
    }
    assert_eq!(norm_quantile(0.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(norm_quantile(1.0).unwrap(), f64::INFINITY);
    assert!(norm_quantile(1.5).is_err());
    assert!(norm_quantile_log(0.1).is_err());
}

#[test]
fn quantile_round_trips_in_both_tails() {
    for &ln_p in &[-1e5, -700.0, -50.0, -3.0, -0.7, -1e-3, -1e-12, -1e-200] {
        let x = norm_quantile_log(ln_p).unwrap();
        let back = log_norm_cdf(x);
        assert!(
            (back - ln_p).abs() <= 1e-12 * ln_p.abs(),
            "{ln_p}: Φ({x}) = e^{back}"
        );
        // Never below the true quantile.
        assert!(back >= ln_p || (back - ln_p).abs() <= 1e-15 * ln_p.abs());
    }
}

#[test]
fn epsilon_from_mu_inverts_the_gaussian_mechanism() {
    for &(eps, delta) in &[(1.0, 1e-5), (0.3, 1e-6), (4.0, 1e-5), (8.0, 1e-10)] {
        let sigma = gaussian::sigma(eps, delta, 1.0).unwrap();
        let e = epsilon_from_mu(1.0 / sigma, delta).unwrap();
        assert!((e - eps).abs() <= 1e-8 * eps, "{eps}: {e}");
        // Rounded down, up to the different rounding of Δ/σ and 1/σ.
        assert!(e <= gaussian::epsilon(delta, sigma, 1.0).unwrap() * (1.0 + 1e-14));
    }
    // python3: brentq on Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) − δ.
    for &(mu, delta, want) in &[
        (0.5, 1e-5, 1.993_091_404_415_117_3),
        (1.0, 1e-5, 4.377_178_095_681_223),
        (2.0, 1e-3, 7.581_279_924_570_115),
        (5.0, 1e-5, 33.103_732_335_922_466),
    ] {
        let e = epsilon_from_mu(mu, delta).unwrap();
        assert!((e - want).abs() <= 1e-9 * want, "mu {mu}: {e} vs {want}");
    }
    assert_eq!(epsilon_from_mu(0.0, 1e-5).unwrap(), 0.0);
    // δ(0) = 2Φ(μ/2) − 1 ≈ 0.04 < 0.1: already (0, 0.1)-DP.
    assert_eq!(epsilon_from_mu(0.1, 0.1).unwrap(), 0.0);
    assert!(epsilon_from_mu(-1.0, 1e-5).is_err());
    assert!(epsilon_from_mu(1.0, 0.0).is_err());
}

#[test]
fn reproduces_audit_md_section_5() {
    // Expected counts of the Gaussian mechanism with σ = 1.9938 (ε_true = 2 at δ = 1e-5) at
    // the best threshold for each N (audit.md §5: 1.32 / 1.78 / 1.93). Reference μ and ε from
    // scipy: norm.isf(a) − norm.ppf(b) with a, b = beta.ppf(0.975, k + 1, n − k), then brentq.
    for &(fp, fn_, n, mu_ref, eps_ref, doc) in &[
        (
            400,
            401,
            1000,
            0.344_470_478_326_157_2,
            1.318_034_705_559_491_6,
            1.32,
        ),
        (
            4039,
            3980,
            10_000,
            0.451_846_343_183_303_1,
            1.780_352_765_261_643_3,
            1.78,
        ),
        (
            38_968,
            41_238,
            100_000,
            0.485_837_604_504_074_54,
            1.930_188_851_979_165_2,
            1.93,
        ),
    ] {
        let c = counts(fp, n, fn_, n);
        let mu = mu_lower_bound(c, 0.05).unwrap();
        assert!((mu - mu_ref).abs() <= 1e-9, "N {n}: mu {mu} vs {mu_ref}");
        let e = epsilon_lower_bound(c, 1e-5, 0.05).unwrap();
        assert!((e - eps_ref).abs() <= 1e-8, "N {n}: eps {e} vs {eps_ref}");
        assert!((e - doc).abs() <= 0.005, "N {n}: eps {e} vs audit.md {doc}");
    }
}

#[test]
fn symmetric_and_monotone() {
    let a = mu_lower_bound(counts(10, 1000, 300, 1000), 0.05).unwrap();
    let b = mu_lower_bound(counts(300, 1000, 10, 1000), 0.05).unwrap();
    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    let fewer_errors = mu_lower_bound(counts(5, 1000, 300, 1000), 0.05).unwrap();
    assert!(fewer_errors > a);
    let stricter = mu_lower_bound(counts(10, 1000, 300, 1000), 0.01).unwrap();
    assert!(stricter < a);
    // Worse than chance: floored.
    assert_eq!(
        mu_lower_bound(counts(600, 1000, 600, 1000), 0.05).unwrap(),
        0.0
    );
    assert_eq!(
        mu_lower_bound(counts(1000, 1000, 0, 1000), 0.05).unwrap(),
        0.0
    );
    assert!(mu_lower_bound(counts(5, 4, 0, 1), 0.05).is_err());
}

/// The Gaussian mechanism with Δ/σ = μ is exactly μ-GDP, so μ_lb > μ in at most ≈ γ of audits.
#[test]
fn covers_the_gaussian_mechanism() {
    let (mu, n, reps) = (1.0f64, 1000usize, 200);
    let t = 0.5 * mu;
    let mut rng = StdRng::seed_from_u64(0x6d_7b);
    let mut draw = |shift: f64| -> f64 { shift + rng.sample::<f64, _>(StandardNormal) };
    let (mut above, mut total) = (0, 0.0);
    for _ in 0..reps {
        let fp = (0..n).filter(|_| draw(0.0) > t).count() as u64;
        let fn_ = (0..n).filter(|_| draw(mu) <= t).count() as u64;
        let lb = mu_lower_bound(counts(fp, n as u64, fn_, n as u64), 0.05).unwrap();
        above += usize::from(lb > mu);
        total += lb;
    }
    assert!(above <= 20, "{above} of {reps} bounds exceed mu");
    // Expected rates Φ(−0.5) give μ_lb ≈ 0.82 at N = 1000.
    let mean = total / reps as f64;
    let alpha = norm_cdf(-0.5);
    assert!(mean > 0.7 && mean < mu, "mean {mean} (rates {alpha})");
}
