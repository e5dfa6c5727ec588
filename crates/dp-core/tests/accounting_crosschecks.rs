//! Cross-module checks of the RDP-side accountants: DP-SGD anchor values, grid quality,
//! reductions between mechanisms, and lower bounds that no accountant may cross.

use dp_core::accounting::gaussian;
use dp_core::accounting::objpert::ObjPert;
use dp_core::accounting::private_selection::{Selection, poisson_mean_for_tail};
use dp_core::accounting::rdp_curve::{RdpCurve, default_orders};
use dp_core::accounting::subsampled_gaussian::{
    calibrate_dpsgd, calibrate_noise_multiplier, dpsgd_curve, dpsgd_epsilon,
};
use dp_core::accounting::{Event, HonestTuning, RdpAccountant, Target, epsilon_of};
use dp_core::learn::{Alg1Spec, Mechanism};

/// A dense geometric grid (1% spacing) merged with the default one: a continuum proxy.
fn fine_orders(max: f64) -> Vec<f64> {
    let mut o = default_orders();
    let mut a = 1.005;
    while a < max {
        o.push(a);
        a *= 1.01;
    }
    o.sort_by(f64::total_cmp);
    o.dedup();
    o
}

#[test]
fn dpsgd_anchor() {
    // q = 0.00708, z = 2.75, T = 8478, δ = 1e-5: RDP gives ε ≈ 1.00; the PLD accountant (tight up
    // to discretisation) gives ≈ 0.914, and RDP may never come out below it.
    let e = dpsgd_epsilon(0.00708, 2.75, 8478, 1e-5, &default_orders()).unwrap();
    assert!((e - 1.0).abs() <= 0.02, "{e}");
    assert!(e >= 0.914, "{e}");
}

#[test]
fn default_grid_is_within_two_percent_of_the_continuum() {
    let fine = fine_orders(2500.0);
    for &(q, z, t) in &[
        (0.00708, 2.75, 8478u64),
        (0.01, 0.8, 1000),
        (0.001, 5.0, 10_000),
        (0.05, 1.5, 300),
    ] {
        let coarse = dpsgd_epsilon(q, z, t, 1e-5, &default_orders()).unwrap();
        let (best, order) = dpsgd_curve(q, z, t, &fine).unwrap().epsilon(1e-5).unwrap();
        assert!(best <= coarse, "fine grid must contain the default one");
        assert!(
            coarse <= 1.02 * best,
            "q {q} z {z} T {t}: {coarse} vs continuum {best} (order {order})"
        );
    }
}

#[test]
fn full_batch_dpsgd_is_the_composed_gaussian() {
    let orders = default_orders();
    let sgd = dpsgd_curve(1.0, 1.7, 50, &orders).unwrap();
    let gauss = gaussian::rdp_curve(1.7, 1.0, &orders).unwrap().scaled(50);
    for (a, b) in sgd.eps.iter().zip(&gauss.eps) {
        assert!((a - b).abs() <= 1e-12 * b);
    }
    // One full-batch step calibrated by RDP needs at least the analytic-Gaussian noise.
    let z_rdp = calibrate_noise_multiplier(1.0, 1, 1.0, 1e-5, &orders).unwrap();
    let z_exact = gaussian::sigma(1.0, 1e-5, 1.0).unwrap();
    assert!(
        z_rdp >= z_exact && z_rdp < 1.2 * z_exact,
        "{z_rdp} vs {z_exact}"
    );
}

#[test]
fn dpsgd_is_monotone_in_every_parameter() {
    let o = default_orders();
    let base = dpsgd_epsilon(0.01, 1.0, 1000, 1e-5, &o).unwrap();
    assert!(dpsgd_epsilon(0.01, 1.1, 1000, 1e-5, &o).unwrap() < base);
    assert!(dpsgd_epsilon(0.012, 1.0, 1000, 1e-5, &o).unwrap() > base);
    assert!(dpsgd_epsilon(0.01, 1.0, 1200, 1e-5, &o).unwrap() > base);
    assert!(dpsgd_epsilon(0.01, 1.0, 1000, 1e-6, &o).unwrap() > base);
}

#[test]
fn calibrated_noise_meets_targets_on_the_safe_side() {
    let o = default_orders();
    for &(q, t, eps) in &[
        (0.00708, 8478u64, 1.0),
        (0.004, 2000, 0.3),
        (0.1, 100, 8.0),
        (1e-4, 50_000, 0.1),
    ] {
        let z = calibrate_noise_multiplier(q, t, eps, 1e-5, &o).unwrap();
        let got = dpsgd_epsilon(q, z, t, 1e-5, &o).unwrap();
        assert!(got <= eps, "q {q} T {t}: {got} > {eps}");
        assert!(dpsgd_epsilon(q, z * (1.0 - 1e-9), t, 1e-5, &o).unwrap() > eps * (1.0 - 1e-6));
    }
}

#[test]
fn objective_perturbation_never_beats_the_gaussian_mechanism() {
    let o = default_orders();
    for &(sigma, lambda, beta, l) in &[
        (5.0, 20.0, 1.0, 1.0),
        (10.0, 5.0, 1.0, 1.0),
        (6.859, 4.02, 0.5, 2f64.sqrt()),
    ] {
        let p = ObjPert::new(sigma, lambda, beta, l).unwrap();
        let op = p.rdp_curve(&o).unwrap();
        let gauss = gaussian::rdp_curve(sigma, l, &o).unwrap();
        assert!(op.eps.iter().zip(&gauss.eps).all(|(a, b)| a >= b));
        for &delta in &[1e-3, 1e-5, 1e-8] {
            let lower = gaussian::epsilon(delta, sigma, l).unwrap();
            assert!(p.profile_epsilon(delta).unwrap() >= lower);
            assert!(op.epsilon(delta).unwrap().0 >= lower);
        }
    }
}

#[test]
fn algorithm_one_reduces_to_objective_perturbation_and_is_calibrated() {
    let o = default_orders();
    let rdp = RdpAccountant::new();
    let spec = Alg1Spec::paper();
    let p = spec
        .calibrate(1.3, Target::new(1.0, 1e-5).unwrap(), &rdp)
        .unwrap();
    let eps = |e: &Event| epsilon_of(rdp.fresh(), e, 1e-5).unwrap();
    let exact = Alg1Spec { tau: 0.0, ..spec }
        .with_noise(p.sigma(), p.lambda())
        .unwrap();
    let op = ObjPert::new(p.sigma(), p.lambda(), spec.beta, spec.clip).unwrap();
    assert_eq!(
        rdp.curve_of(&exact.event()).unwrap(),
        op.rdp_curve(&o).unwrap()
    );
    // The output-noise term costs privacy: without it the same λ is strictly better.
    assert!(op.rdp_epsilon(1e-5, &o).unwrap() < eps(&p.event()));
    assert!(eps(&p.event()) <= 1.0);
    // And its profile bound (no output noise) is tighter still.
    assert!(op.profile_epsilon(1e-5).unwrap() < op.rdp_epsilon(1e-5, &o).unwrap());
    // A tighter budget needs more noise.
    let tight = spec
        .calibrate(1.3, Target::new(0.5, 1e-5).unwrap(), &rdp)
        .unwrap();
    assert!(tight.sigma() > p.sigma());
}

#[test]
fn honest_tuning_costs_noise() {
    let o = default_orders();
    let mu = poisson_mean_for_tail(10, 0.9).unwrap();
    let sel = Selection::poisson(mu).unwrap();
    let (q, t) = (0.00708, 8478);
    let z = calibrate_noise_multiplier(q, t, 1.0, 1e-5, &o).unwrap();
    // The one DP-SGD calibration, on the tuned event.
    let rdp = RdpAccountant::with_orders(&o).unwrap();
    let tuned_of = |z: f64| Ok(HonestTuning::new(sel).event(Event::dpsgd(q, z, t)?));
    let target = Target::new(1.0, 1e-5).unwrap();
    let z_tuned = calibrate_dpsgd(|| rdp.fresh(), tuned_of, target, q, t).unwrap();
    assert!(z_tuned > z, "{z_tuned} vs {z}");
    let tuned: RdpCurve = sel.apply(&dpsgd_curve(q, z_tuned, t, &o).unwrap()).unwrap();
    let eps = tuned.epsilon(1e-5).unwrap().0;
    assert!(eps <= 1.0 && eps > 1.0 - 1e-6, "{eps}");
    // Untuned accounting at the tuned noise is cheaper than the target.
    assert!(dpsgd_epsilon(q, z_tuned, t, 1e-5, &o).unwrap() < 1.0);
}
