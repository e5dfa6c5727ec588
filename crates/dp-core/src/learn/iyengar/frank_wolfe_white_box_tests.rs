//! The white-box view of P-FW: the production loop on the auditor's dataset, and each step the
//! randomised response the module's analysis predicts (at Δ/b on the full gradient; the
//! mixture over the canary's copies on paper mode's minibatches).

use super::*;
use crate::accounting::calibrate::Target;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::learn::iyengar::calibration::Calibration;
use crate::learn::iyengar::frank_wolfe::PfwSpec;
use crate::learn::loss::GlmLoss;

fn pfw(calibration: Calibration, epsilon: f64, steps: u64) -> Pfw {
    let spec = PfwSpec {
        loss: GlmLoss::Huber { h: 0.1 },
        linf: 0.1,
        l1_radius: 100.0,
        steps,
    };
    let target = Target::new(epsilon, 1e-6).unwrap();
    spec.build(calibration, 1000, target, &RdpAccountant::new())
        .unwrap()
}

/// The log-odds of + vertices over 400 runs on `d` features with every canary entry `g`.
fn plus_log_odds(mech: &Pfw, d: usize, g: f64) -> f64 {
    let canary = vec![g; d];
    let (mut plus, mut all) = (0usize, 0usize);
    for seed in 0..400 {
        let signs = mech.white_box_signs(d, seed, &canary).unwrap();
        plus += signs.iter().filter(|&&s| s > 0.0).count();
        all += signs.len();
    }
    let p = plus as f64 / all as f64;
    (p / (1.0 - p)).ln()
}

#[test]
fn bad_views_are_refused() {
    let certified = pfw(Calibration::Certified, 1.0, 5);
    assert_eq!(certified.white_box_signs(4, 1, &[0.1; 4]).unwrap().len(), 5);
    let paper = pfw(Calibration::Paper, 1.0, 5);
    assert_eq!(paper.white_box_signs(4, 1, &[0.1; 4]).unwrap().len(), 5);
    assert!(paper.white_box_signs(4, 1, &[0.1; 3]).is_err());
    assert!(certified.white_box_signs(4, 1, &[0.1; 3]).is_err());
    assert!(
        certified
            .white_box_signs(4, 1, &[0.1, 0.1, 0.1, 0.2])
            .is_err()
    );
    assert!(certified.white_box_signs(4, 1, &[f64::NAN; 4]).is_err());
}

#[test]
fn each_step_is_randomised_response_at_half_the_certified_step() {
    // ε = 40 over 10 steps: ε₀ = 2Δ/b ≈ 4, so the rate of + vertices is σ(±2) ≈ 0.88 or
    // 0.12, and 4,000 steps a side pin its log-odds to ±0.05 (one standard error). Reaching
    // the certificate's step (log-odds ±4) or missing the canary (0) fails.
    let mech = pfw(Calibration::Certified, 40.0, 10);
    let half = mech.step_epsilon() / 2.0;
    let d = 64;
    // D′ (−L·1) favours + vertices by Δ, D (+L·1) disfavours them by Δ.
    let (on_d_prime, on_d) = (plus_log_odds(&mech, d, -0.1), plus_log_odds(&mech, d, 0.1));
    let exact = mech.white_box_step_epsilon(d).unwrap();
    assert!((on_d_prime - exact).abs() < 0.25, "{on_d_prime} vs {exact}");
    assert!((on_d + exact).abs() < 0.25, "{on_d} vs {}", -exact);
    // The quadrature: the Gumbel limit Δ/b for many features, never the certificate's 2Δ/b.
    assert!((exact - half).abs() < 0.05 * half, "{exact} vs {half}");
}

/// Paper mode on n = 1,000 rows, 1,000 draws a batch: the canary is drawn k ~ Bin(1000,
/// 1/1000) times, about Poisson(1), so its step is the mixture over k. The simulated log-odds
/// of + vertices match the mixture's, and the certificate's per-step ε′ is above it.
#[test]
fn paper_mode_steps_are_the_mixture_over_the_canary_copies() {
    let mech = pfw(Calibration::Paper, 40.0, 10);
    let d = 64;
    let (on_d_prime, on_d) = (plus_log_odds(&mech, d, -0.1), plus_log_odds(&mech, d, 0.1));
    let exact = mech.white_box_step_epsilon(d).unwrap();
    assert!((on_d_prime - exact).abs() < 0.25, "{on_d_prime} vs {exact}");
    assert!((on_d + exact).abs() < 0.25, "{on_d} vs {}", -exact);
    // About ln(0.78/0.22): a third of the batches miss the canary.
    assert!(exact > 1.0 && exact < 1.6, "{exact}");
    let per_copy = 2.0 * mech.sensitivity() * 1000.0 / 1000.0 / mech.laplace_scale();
    let certificate = crate::accounting::with_replacement::pure_epsilon(per_copy, 1000, 1000);
    assert!(certificate.unwrap() > exact);
}

#[test]
fn the_step_epsilon_is_between_the_gumbel_limit_and_the_certificate() {
    // Two candidates (d = 1): P[+ | D′] = 1 − e^{−Δ′}(2 + Δ′)/4, the difference of two
    // Laplace laws, in closed form.
    let mech = pfw(Calibration::Certified, 1.0, 50);
    let shift = mech.step_epsilon() / 2.0;
    let p = 1.0 - (-shift).exp() * (2.0 + shift) / 4.0;
    let closed = (p / (1.0 - p)).ln();
    let ours = mech.white_box_step_epsilon(1).unwrap();
    assert!((ours - closed).abs() < 1e-8, "{ours} vs {closed}");
    for d in [1, 2, 8, 64, 1024] {
        let e = mech.white_box_step_epsilon(d).unwrap();
        assert!(e > 0.0 && e < mech.step_epsilon(), "d {d}: {e}");
    }
    let wide = mech.white_box_step_epsilon(1024).unwrap();
    assert!((wide - shift).abs() < 0.01 * shift, "{wide} vs {shift}");
    assert!(mech.white_box_step_epsilon(0).is_err());
}
