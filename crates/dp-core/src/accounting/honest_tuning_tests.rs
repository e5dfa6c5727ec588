use super::*;
use crate::accounting::accountant::epsilon_of;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::accounting::rdp_curve::{Conversion, default_orders};
use crate::accounting::subsampled_gaussian::dpsgd_bracket;

fn selections() -> Vec<Selection> {
    vec![
        Selection::poisson(1.0).unwrap(),
        Selection::poisson(5.0).unwrap(),
        HonestTuning::poisson_tail(10, 0.9).unwrap().selection,
        Selection::geometric(0.1).unwrap(),
        Selection::logarithmic(0.05).unwrap(),
        Selection::from_shape_mean(0.5, 8.0).unwrap(),
    ]
}

/// A grid point that calibrates itself to its own target, cheaply: the Gaussian mechanism with
/// the classical σ = √(2 ln(1.25/δ))/ε, scaled by `scale` (points of one grid differ).
fn self_calibrating(t: Target, scale: f64) -> Result<Event> {
    Event::gaussian(scale * (2.0 * (1.25 / t.delta()).ln()).sqrt() / t.epsilon())
}

#[test]
fn run_target_lands_on_the_safe_side_within_the_bracket() {
    let rdp = RdpAccountant::new();
    for sel in selections() {
        let honest = HonestTuning::new(sel);
        for eps in [0.3, 1.0, 2.0, 8.0] {
            let target = Target::new(eps, 1e-6).unwrap();
            let certify = |e: &Event| epsilon_of(rdp.fresh(), e, target.delta());
            let base_of = |t: Target| {
                Ok::<_, DpError>(Event::Mixture(vec![
                    self_calibrating(t, 1.0)?,
                    self_calibrating(t, 0.8)?,
                    Event::NoOp,
                ]))
            };
            let tuned = |eps_run: f64| {
                certify(&honest.event(base_of(Target::new(eps_run, 1e-6).unwrap()).unwrap()))
                    .unwrap()
            };
            let run = match honest.calibrate_run_target(certify, base_of, target) {
                Ok(run) => run,
                // Only a target below what any per-run ε reaches may fail.
                Err(_) => {
                    assert!(tuned(eps * RUN_TARGET_FLOOR) > eps, "{sel:?} at {eps}");
                    continue;
                }
            };
            assert_eq!(run.delta(), target.delta());
            let got = tuned(run.epsilon());
            assert!(got <= eps, "{sel:?} at {eps}: tuned {got} with run {run:?}");
            // The search stops within RUN_TARGET_REL of the largest safe ε_run.
            if run.epsilon() < eps {
                let above = tuned(run.epsilon() * (1.0 + RUN_TARGET_REL));
                assert!(above > eps, "{sel:?} at {eps}: not within the bracket");
            }
        }
    }
}

#[test]
fn noise_lands_on_the_safe_side_and_is_minimal() {
    let rdp = RdpAccountant::new();
    let (q, steps) = (0.01, 1000);
    for sel in selections() {
        let honest = HonestTuning::new(sel);
        for eps in [0.1, 0.5, 1.0, 4.0] {
            let target = Target::new(eps, 1e-5).unwrap();
            let bracket = dpsgd_bracket(q, steps, target).unwrap();
            let base_of = |z: f64| Event::dpsgd(q, z, steps);
            let z = honest
                .calibrate_noise(|| rdp.fresh(), base_of, target, bracket)
                .unwrap();
            let tuned =
                |z: f64| epsilon_of(rdp.fresh(), &honest.event(base_of(z).unwrap()), 1e-5).unwrap();
            assert!(tuned(z) <= eps, "{sel:?} at {eps}: {}", tuned(z));
            assert!(
                tuned(z * (1.0 - 1e-8)) > eps,
                "{sel:?} at {eps}: not minimal"
            );
            // Tuning costs noise: the untuned run at z is strictly cheaper.
            let plain = epsilon_of(rdp.fresh(), &base_of(z).unwrap(), 1e-5).unwrap();
            assert!(plain < tuned(z), "{sel:?} at {eps}");
        }
    }
}

/// Theorem 2 of Papernot & Steinke written out for ε(α) = ρα, then the classic RDP → (ε, δ)
/// conversion min_λ ε′(λ) + ln(1/δ)/(λ − 1), independent of `Selection::apply`.
fn theorem2_epsilon(rho: f64, eta: f64, gamma: f64, orders: &[f64], delta: f64) -> f64 {
    let mean = if eta == 0.0 {
        (1.0 / gamma - 1.0) / (1.0 / gamma).ln()
    } else {
        eta * (1.0 / gamma - 1.0) / (1.0 - gamma.powf(eta))
    };
    let second = orders
        .iter()
        .map(|&l| (1.0 - 1.0 / l) * rho * l + (1.0 / gamma).ln() / l)
        .fold(f64::INFINITY, f64::min);
    let raw: Vec<f64> = orders
        .iter()
        .map(|&l| rho * l + mean.ln() / (l - 1.0) + (1.0 + eta) * second)
        .collect();
    // Monotone envelope, then the conversion.
    (0..orders.len())
        .map(|i| {
            let env = raw[i..].iter().copied().fold(f64::INFINITY, f64::min);
            env + (1.0 / delta).ln() / (orders[i] - 1.0)
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn gaussian_noise_matches_theorem_2_written_out() {
    let orders: Vec<f64> = default_orders();
    let rdp = RdpAccountant::with_orders(&orders)
        .unwrap()
        .with_conversion(Conversion::Classic);
    let delta = 1e-5;
    for (eta, gamma) in [(1.0, 0.1), (0.0, 0.05), (0.5, 0.2)] {
        let honest = HonestTuning::new(Selection::truncated_negative_binomial(eta, gamma).unwrap());
        for eps in [0.5, 1.0, 3.0] {
            let target = Target::new(eps, delta).unwrap();
            let bracket = Bracket {
                name: "noise multiplier",
                start: 1.0,
                lo: 0.0,
                hi: f64::INFINITY,
            };
            let z = honest
                .calibrate_noise(|| rdp.fresh(), Event::gaussian, target, bracket)
                .unwrap();
            // The Gaussian mechanism's RDP is α/(2z²).
            let closed = |z: f64| theorem2_epsilon(0.5 / (z * z), eta, gamma, &orders, delta);
            let rel = (closed(z) - eps).abs() / eps;
            assert!(
                rel < 1e-9,
                "eta {eta} gamma {gamma} eps {eps}: {} at z {z}",
                closed(z)
            );
            assert!(closed(z) <= eps * (1.0 + 1e-12), "{}", closed(z));
        }
    }
}

#[test]
fn both_calibrations_agree_on_dpsgd() {
    // The same base mechanism reached two ways: z directly (DP-SGD's honest path), and a
    // per-run target with z calibrated for it untuned (Iyengar's honest path). Both tuned
    // events meet the target; the coarse per-run search may only ask for a little more noise.
    let rdp = RdpAccountant::new();
    let (q, steps, delta) = (0.02, 500, 1e-5);
    let honest = HonestTuning::poisson_tail(10, 0.9).unwrap();
    for eps in [0.5, 2.0] {
        let target = Target::new(eps, delta).unwrap();
        let base_of = |z: f64| Event::dpsgd(q, z, steps);
        let bracket = dpsgd_bracket(q, steps, target).unwrap();
        let z_noise = honest
            .calibrate_noise(|| rdp.fresh(), base_of, target, bracket)
            .unwrap();
        let untuned_z = |t: Target| {
            let b = dpsgd_bracket(q, steps, t)?;
            calibrate(|| rdp.fresh(), base_of, t, b)
        };
        let certify = |e: &Event| epsilon_of(rdp.fresh(), e, delta);
        let run = honest
            .calibrate_run_target(certify, |t| base_of(untuned_z(t)?), target)
            .unwrap();
        let z_run = untuned_z(run).unwrap();
        let tuned = |z: f64| certify(&honest.event(base_of(z).unwrap())).unwrap();
        assert!(tuned(z_noise) <= eps && tuned(z_run) <= eps);
        assert!(
            z_noise <= z_run && z_run <= z_noise * (1.0 + 1.5 * RUN_TARGET_REL),
            "eps {eps}: z {z_noise} vs {z_run}"
        );
    }
}

#[test]
fn the_tuned_event_is_the_selection_applied_to_the_base_curve() {
    let orders = default_orders();
    let rdp = RdpAccountant::with_orders(&orders).unwrap();
    let base = Event::dpsgd(0.01, 1.1, 2000).unwrap();
    for sel in selections() {
        let honest = HonestTuning::new(sel);
        let tuned = rdp.curve_of(&honest.event(base.clone())).unwrap();
        let direct = sel.apply(&rdp.curve_of(&base).unwrap()).unwrap();
        assert_eq!(tuned.eps, direct.eps, "{sel:?}");
    }
}
