//! Tests of the lower profile: below the Gaussian's closed form and close to it, below the
//! accountant's upper bound and close to it, and falling as the noise grows.

use super::*;
use crate::accounting::gaussian;
use crate::accounting::pld::Pld;

const DELTA: f64 = 1e-5;

#[test]
fn a_gaussian_composition_sits_just_below_its_closed_form() {
    // k Gaussian steps of noise σ are one step of noise σ/√k.
    let config = PldConfig::default();
    for (sigma, k) in [(1.0, 1u64), (2.0, 10), (5.0, 100)] {
        let closed = gaussian::epsilon(DELTA, sigma / (k as f64).sqrt(), 1.0).unwrap();
        let lower = LowerPld::gaussian(sigma, 1.0, k, &config)
            .unwrap()
            .epsilon(DELTA)
            .unwrap();
        assert!(lower <= closed, "σ {sigma}, k {k}: {lower} > {closed}");
        assert!(
            lower >= closed - 2e-3 * closed.max(1.0),
            "σ {sigma}, k {k}: {lower} vs {closed}"
        );
        for eps in [0.0, 0.5, 1.0, 3.0] {
            let d = LowerPld::gaussian(sigma, 1.0, k, &config)
                .unwrap()
                .delta(eps)
                .unwrap();
            let exact = gaussian::delta(eps, sigma / (k as f64).sqrt(), 1.0).unwrap();
            assert!(d <= exact, "σ {sigma}, k {k}, ε {eps}: {d} > {exact}");
        }
    }
}

#[test]
fn full_batch_subsampling_is_the_gaussian() {
    let (z, k) = (1.5, 16u64);
    let closed = gaussian::epsilon(DELTA, z / (k as f64).sqrt(), 1.0).unwrap();
    let lower = LowerPld::subsampled_gaussian(1.0, z, k, &PldConfig::default())
        .unwrap()
        .epsilon(DELTA)
        .unwrap();
    assert!(
        lower <= closed && lower >= closed - 5e-3,
        "{lower} vs {closed}"
    );
}

#[test]
fn a_sampled_composition_sits_just_below_the_accountants_bound() {
    let config = PldConfig::default();
    for (q, z, k) in [(0.1, 1.4817, 100u64), (0.01, 0.8, 1000), (0.5, 3.0, 20)] {
        let upper = Pld::subsampled_gaussian(q, z, &config)
            .unwrap()
            .self_compose(k)
            .unwrap()
            .epsilon(DELTA)
            .unwrap();
        let lower = LowerPld::subsampled_gaussian(q, z, k, &config)
            .unwrap()
            .epsilon(DELTA)
            .unwrap();
        assert!(lower <= upper, "q {q}, z {z}, k {k}: {lower} > {upper}");
        // The truth is below the accountant's bound on a grid ten times finer, within about
        // k·h² of it: a lower bound that passed the truth by more would pass this one.
        if k <= 100 {
            let fine = PldConfig {
                grid_step: 1e-5,
                ..config
            };
            let upper_fine = Pld::subsampled_gaussian(q, z, &fine)
                .unwrap()
                .self_compose(k)
                .unwrap()
                .epsilon(DELTA)
                .unwrap();
            assert!(
                lower <= upper_fine,
                "q {q}, z {z}, k {k}: {lower} > {upper_fine}"
            );
        }
        // Each step's loss falls by less than h, so a composed one by less than k·h: ε
        // lower by about that at most (round-up's mirror image; 0.1 at q = 0.01, k = 1,000).
        let bias = k as f64 * config.grid_step;
        assert!(
            lower >= upper - bias - 1e-3,
            "q {q}, z {z}, k {k}: {lower} vs {upper}"
        );
    }
}

#[test]
fn more_noise_lowers_it_and_a_coarse_grid_stays_below() {
    let config = PldConfig::default();
    let coarse = PldConfig {
        grid_step: 1e-2,
        ..config
    };
    let fine = |z: f64| {
        LowerPld::subsampled_gaussian(0.1, z, 100, &config)
            .unwrap()
            .epsilon(DELTA)
            .unwrap()
    };
    let mut last = f64::INFINITY;
    for z in [0.7, 1.0, 1.5, 3.0, 10.0] {
        let e = fine(z);
        assert!(e < last, "z {z}: {e} >= {last}");
        last = e;
        let c = LowerPld::subsampled_gaussian(0.1, z, 100, &coarse)
            .unwrap()
            .epsilon(DELTA)
            .unwrap();
        assert!(c <= e + 1e-9, "z {z}: coarse {c} above fine {e}");
    }
}

#[test]
fn refuses_bad_input() {
    let c = PldConfig::default();
    assert!(LowerPld::subsampled_gaussian(0.0, 1.0, 10, &c).is_err());
    assert!(LowerPld::subsampled_gaussian(0.1, f64::NAN, 10, &c).is_err());
    assert!(LowerPld::subsampled_gaussian(0.1, 1.0, 0, &c).is_err());
    assert!(
        LowerPld::gaussian(1.0, 1.0, 1, &c)
            .unwrap()
            .epsilon(0.0)
            .is_err()
    );
    assert!(
        LowerPld::gaussian(1.0, 1.0, 1, &c)
            .unwrap()
            .delta(-1.0)
            .is_err()
    );
}
