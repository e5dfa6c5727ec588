//! The planned threshold: the best by expected counts, the one the ceiling's best test uses,
//! and nothing where nothing can be shown.

use super::*;
use crate::audit::ceiling::{Statistic, Tradeoff, ceiling};
use crate::special::norm_cdf;

/// Candidates of the Gaussian pair N(0, 1) (D) against N(μ, 1) (D′) on a grid of t.
fn gaussian(mu: f64) -> Vec<(f64, f64, f64)> {
    (0..=2000)
        .map(|j| {
            let t = -10.0 + 0.01 * j as f64;
            (t, norm_cdf(-t), norm_cdf(t - mu))
        })
        .collect()
}

#[test]
fn the_planned_threshold_reaches_the_gaussian_ceiling() {
    let (mu, n, delta, gamma) = (1.5, 50_000, 1e-6, 0.05);
    let t = planned_threshold(&gaussian(mu), n, n, delta, gamma)
        .unwrap()
        .unwrap();
    // The bound of its expected counts is the ceiling (the same best test), within the grid.
    let expected = |r: f64| (r * n as f64).round() as u64;
    let counts = Counts {
        false_positives: expected(norm_cdf(-t)),
        negatives: n,
        false_negatives: expected(norm_cdf(t - mu)),
        positives: n,
    };
    let planned = epsilon_lower_bound(counts, delta, gamma).unwrap();
    let top = ceiling(
        &Tradeoff::Gaussian { mu },
        Statistic::Threshold,
        n,
        n,
        delta,
        gamma,
    )
    .unwrap();
    assert!(
        (planned - top).abs() < 0.02 * top,
        "{planned} vs {top} at t = {t}"
    );
    // An extreme threshold: the rare error is where the bound comes from.
    assert!(t > 2.0 || t < mu - 2.0, "{t}");
}

#[test]
fn nothing_is_planned_where_nothing_shows_and_bad_input_is_refused() {
    assert_eq!(
        planned_threshold(&gaussian(0.0), 1000, 1000, 1e-5, 0.05).unwrap(),
        None
    );
    assert_eq!(
        planned_threshold(&[], 1000, 1000, 1e-5, 0.05).unwrap(),
        None
    );
    assert!(planned_threshold(&gaussian(1.0), 0, 1000, 1e-5, 0.05).is_err());
    assert!(planned_threshold(&[(0.0, 1.5, 0.0)], 10, 10, 1e-5, 0.05).is_err());
    assert!(planned_threshold(&[(f64::NAN, 0.5, 0.5)], 10, 10, 1e-5, 0.05).is_err());
    assert!(planned_threshold(&gaussian(1.0), 10, 10, 1e-5, 1.5).is_err());
}
