//! Tests of OPSamp: the reference's parameter values (§1.3), the box oracle against closed
//! forms and the unconstrained solver, determinism, and the oracle's accuracy at huge ε.

use super::*;
use crate::features::FeatureMatrix;
use crate::learn::baseline::fit_glm;
use crate::learn::metrics::accuracy;
use crate::learn::synthetic::halfspace;

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

fn adult(eps: f64) -> OpSamp {
    OpSamp::new(eps, 1.0 / (15_682.0f64 * 15_682.0))
}

#[test]
fn params_match_the_formulas_and_the_reference() {
    let (n, d) = (15_682usize, 23usize);
    let p = adult(1.0).params(n, d);
    // Formulas written out for r = 1: D_∞ = 2, D₂ = 2√23.
    let d2 = 2.0 * 23f64.sqrt();
    let gamma = (1.0 / 15_682.0f64).sqrt() * 23f64.powf(1.25) * d2.sqrt();
    assert!(rel(p.gamma, gamma) < 1e-14);
    let m = (46.0 * 15_682.0f64 * 15_682.0).ln() / (2.0 * gamma * gamma);
    assert!(rel(p.m_unrounded, m) < 1e-14);
    let eta = (d2 * 46f64.sqrt() / (250.0 * 529.0 * 4.0 * (1.0 + 40f64.ln()) * 15_682.0)).sqrt();
    assert!(rel(p.eta_rate, eta) < 1e-14);
    let lambda = 8.0 * gamma + 250.0 * eta * 529.0 * 4.0;
    assert!(rel(p.lambda, lambda) < 1e-14);
    // The reference's rounded values.
    assert!(rel(p.gamma, 1.25) < 0.01, "γ = {}", p.gamma);
    assert!(!p.gamma_ok);
    assert!(rel(p.m_unrounded, 7.5) < 0.02, "m = {}", p.m_unrounded);
    assert_eq!(p.m, 8);
    assert!(
        rel(1.0 / p.eta_rate, 24_000.0) < 0.03,
        "1/η = {}",
        1.0 / p.eta_rate
    );
    assert!(
        rel(p.laplace_scale, 32.0) < 0.02,
        "λ/ε = {}",
        p.laplace_scale
    );
    let p5 = adult(5.0).params(n, d);
    assert!(
        rel(p5.laplace_scale, 14.0) < 0.02,
        "λ/ε = {}",
        p5.laplace_scale
    );
    // α enters λ as α/(10G).
    let with_alpha = OpSamp {
        alpha: 3.0,
        lipschitz: 2.0,
        ..adult(1.0)
    }
    .params(n, d);
    let no_alpha = OpSamp {
        lipschitz: 2.0,
        ..adult(1.0)
    }
    .params(n, d);
    assert!((with_alpha.lambda - no_alpha.lambda - 0.15).abs() < 1e-12);
}

#[test]
fn oracle_one_dimensional_closed_form() {
    // One feature x = 1, k positives, j negatives, linear weight s: the unconstrained minimiser
    // has σ(w) = (k + s)/(k + j), then clamped to [−r, r].
    let (k, j, s) = (30usize, 10usize, 5.0);
    let x = FeatureMatrix::dense(vec![1.0; k + j], k + j, 1);
    let y: Vec<f64> = (0..k + j).map(|i| if i < k { 1.0 } else { -1.0 }).collect();
    let data = GlmData::new(&x, &y).unwrap();
    let interior = 7f64.ln(); // logit(35/40)
    for (r, expect) in [(3.0, interior), (1.0, 1.0), (0.25, 0.25)] {
        let sol = box_oracle(&data, r, &[s]).unwrap();
        assert!(
            (sol.w[0] - expect).abs() < 1e-7,
            "r={r}: {} vs {expect}",
            sol.w[0]
        );
        assert!(sol.gap < 1e-6, "r={r}: gap {}", sol.gap);
    }
    // A weight too large for any interior optimum: the upper face.
    let sol = box_oracle(&data, 3.0, &[100.0]).unwrap();
    assert!(sol.w[0] > 3.0 - 1e-9 && sol.w[0] <= 3.0, "{}", sol.w[0]);
}

#[test]
fn oracle_matches_the_unconstrained_fit_inside_a_large_box() {
    let (x, y) = halfspace(300, 4, 0.25, 11);
    let data = GlmData::new(&x, &y).unwrap();
    // σ = 0 and a tiny L2 term: both solve the plain logistic regression.
    let free = fit_glm(&data, GlmLoss::Logistic, 1e-12, 1e-12).unwrap().x;
    assert!(free.iter().all(|v| v.abs() < 5.0), "{free:?}");
    let sol = box_oracle(&data, 10.0, &[0.0; 4]).unwrap();
    for (a, b) in sol.w.iter().zip(&free) {
        assert!((a - b).abs() < 1e-5, "{:?} vs {free:?}", sol.w);
    }
    // In the interior the FW gap is ≈ 2r‖∇f‖₁: loose by the box width (r = 10), still tiny
    // against the objective (≈ 150).
    assert!(sol.converged && sol.gap < 1e-5, "gap {}", sol.gap);
    // With a box that binds, the FW gap still certifies the solution.
    let sol = box_oracle(&data, 0.3, &[40.0, -3.0, 0.0, 10.0]).unwrap();
    assert!(sol.w.iter().all(|w| w.abs() <= 0.3));
    assert!(sol.w[0] > 0.3 - 1e-9, "{:?}", sol.w);
    assert!(sol.converged && sol.gap < 1e-6, "gap {}", sol.gap);
}

#[test]
fn fit_is_deterministic_per_seed() {
    let (x, y) = halfspace(200, 3, 0.1, 5);
    let data = GlmData::new(&x, &y).unwrap();
    let mech = OpSamp::new(2.0, 1e-5);
    let (a, pa) = mech.fit(&data, 42).unwrap();
    let (b, pb) = mech.fit(&data, 42).unwrap();
    assert_eq!(a, b);
    assert_eq!(pa, pb);
    assert_eq!(pa, mech.params(200, 3));
    let (c, _) = mech.fit(&data, 43).unwrap();
    assert_ne!(a, c);
}

#[test]
fn huge_epsilon_averaged_oracle_points_classify_separable_data() {
    let (x, y) = halfspace(400, 5, 0.0, 3);
    let data = GlmData::new(&x, &y).unwrap();
    let mech = OpSamp {
        radius: 5.0,
        ..OpSamp::new(1e12, 1e-6)
    };
    let (w, rep) = mech.fit_report(&data, 7).unwrap();
    assert!(rep.params.laplace_scale < 1e-3, "{:?}", rep.params);
    assert!(rep.params.gamma_ok || rep.params.m == 1);
    assert!(rep.max_oracle_gap < 1e-4, "gap {}", rep.max_oracle_gap);
    let acc = accuracy(&x, &y, &w);
    assert!(acc > 0.95, "accuracy {acc}");
    // At Adult-like privacy the release is noise (λ/ε ≫ r): a sanity check that the Laplace
    // noise is really added.
    let noisy = OpSamp::new(1.0, 1e-6);
    let (w, rep) = noisy.fit_report(&data, 7).unwrap();
    assert!(rep.params.laplace_scale > 1.0);
    assert!(w.iter().any(|v| v.abs() > 1.0), "{w:?}");
}

#[test]
fn refuses_too_many_oracle_calls_and_bad_settings() {
    let (x, y) = halfspace(50, 3, 0.1, 1);
    let data = GlmData::new(&x, &y).unwrap();
    let tiny = OpSamp {
        max_oracle_calls: 3,
        ..OpSamp::new(1e-4, 1e-6)
    };
    assert!(tiny.params(50, 3).m > 3);
    let err = tiny.fit(&data, 0).unwrap_err().to_string();
    assert!(err.contains("max_oracle_calls"), "{err}");
    for bad in [
        OpSamp {
            radius: 0.0,
            ..OpSamp::new(1.0, 1e-6)
        },
        OpSamp {
            beta: 1.0,
            ..OpSamp::new(1.0, 1e-6)
        },
        OpSamp {
            alpha: -1.0,
            ..OpSamp::new(1.0, 1e-6)
        },
        OpSamp::new(0.0, 1e-6),
        OpSamp::new(1.0, 0.0),
    ] {
        assert!(bad.fit(&data, 0).is_err(), "{bad:?}");
    }
}
