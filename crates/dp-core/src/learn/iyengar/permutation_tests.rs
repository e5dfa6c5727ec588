//! P-PSGD and P-SCPSGD: the paper's noise (reference §2.9), the events of what ran (true
//! smoothness, short last batch), the certified calibration, determinism, convergence without
//! noise, projection and the row-bound check.

use super::*;
use crate::accounting::epsilon_of;
use crate::features::FeatureMatrix;
use crate::learn::metrics::accuracy;
use crate::learn::synthetic::halfspace;

const ADULT_N: usize = 36_176;
const SQRT2: f64 = std::f64::consts::SQRT_2;

fn adult_target(epsilon: f64) -> Target {
    Target::new(epsilon, 1.0 / (ADULT_N as f64).powi(2)).unwrap()
}

fn ppsgd(lipschitz: f64, lr: f64, passes: u64) -> PpsgdSpec {
    PpsgdSpec {
        loss: GlmLoss::Logistic,
        lipschitz,
        lr,
        passes,
        batch: 50,
    }
}

fn pscpsgd(lipschitz: f64, lambda: f64, radius: f64, passes: u64) -> PscpsgdSpec {
    PscpsgdSpec {
        loss: GlmLoss::Logistic,
        lipschitz,
        lambda,
        radius,
        passes,
        batch: 50,
    }
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!(
        ((got - want) / want).abs() < 1e-6,
        "got {got:e}, want {want:e}"
    );
}

fn z_of(event: &Event) -> f64 {
    match event {
        Event::Gaussian { noise_multiplier } => *noise_multiplier,
        other => panic!("not a Gaussian event: {other:?}"),
    }
}

/// 400 separable rows, d = 5, ‖x‖ = √2.
fn separable() -> (FeatureMatrix, Vec<f64>) {
    halfspace(400, 5, 0.0, 11)
}

#[test]
fn paper_noise_is_the_reference_vector() {
    let acc = RdpAccountant::new();
    let t = adult_target(0.1);
    let m = ppsgd(1.0, 0.01, 10)
        .build(Calibration::Paper, ADULT_N, t, &acc)
        .unwrap();
    close(m.noise(), 2.634263e-1);
    let m = pscpsgd(1.0, 1e-3, 10.0, 200)
        .build(Calibration::Paper, ADULT_N, t, &acc)
        .unwrap();
    close(m.noise(), 3.677308);
    close(m.smoothness(), 1.001);
}

/// Paper mode's event is what ran: Adult's last batch has 26 rows (36,176 = 723·50 + 26), so
/// Δ₂ is 50/26 times the code's; with n a multiple of b it is the code's Δ₂.
#[test]
fn paper_events_use_the_batches_that_ran() {
    let acc = RdpAccountant::new();
    let t = adult_target(0.1);
    let m = ppsgd(1.0, 0.01, 10)
        .build(Calibration::Paper, ADULT_N, t, &acc)
        .unwrap();
    close(m.sensitivity(), 2.0 * 10.0 * 0.01 / 26.0);
    close(z_of(&m.event()), m.noise() / m.sensitivity());
    let m = ppsgd(1.0, 0.01, 10)
        .build(Calibration::Paper, 36_150, t, &acc)
        .unwrap();
    close(m.sensitivity(), 0.004);
    // The Dwork–Roth σ is (ε, δ)-DP here: the accountant agrees.
    let e = epsilon_of(acc.fresh(), &m.event(), t.delta()).unwrap();
    assert!(e <= 0.1, "{e}");

    let m = pscpsgd(1.0, 1e-3, 10.0, 200)
        .build(Calibration::Paper, ADULT_N, t, &acc)
        .unwrap();
    close(m.sensitivity(), 2.0 * 1.01 / (1e-3 * 26.0 * 724.0));
    let m = pscpsgd(1.0, 1e-3, 10.0, 200)
        .build(Calibration::Paper, 36_150, t, &acc)
        .unwrap();
    close(m.sensitivity(), 2.0 * 1.01 / (1e-3 * 36_150.0));
    let e = epsilon_of(acc.fresh(), &m.event(), t.delta()).unwrap();
    assert!(e <= 0.1, "{e}");
}

/// η > 2/β for the true β (logistic, L = 10: β = 25) expands distances: paper mode is not
/// private and certified mode refuses, naming `lr`. The code's P-SCPSGD step 1/(L² + λ) is
/// too long for the Huber loss (β = 5L² + λ).
#[test]
fn steps_too_long_for_the_true_smoothness() {
    let acc = RdpAccountant::new();
    let t = adult_target(1.0);
    let s = ppsgd(10.0, 0.1, 5);
    let m = s.build(Calibration::Paper, ADULT_N, t, &acc).unwrap();
    assert_eq!(m.event(), Event::NonPrivate);
    assert!(m.noise() > 0.0);
    let err = s
        .build(Calibration::Certified, ADULT_N, t, &acc)
        .unwrap_err();
    assert!(err.to_string().contains("lr"), "{err}");
    // η = 0.08 = 2/β exactly is allowed.
    assert!(
        ppsgd(10.0, 0.08, 5)
            .build(Calibration::Certified, ADULT_N, t, &acc)
            .is_ok()
    );

    for lipschitz in [0.1, 1.0, 10.0] {
        let huber = PscpsgdSpec {
            loss: GlmLoss::huber(),
            ..pscpsgd(lipschitz, 1e-4, 10.0, 200)
        };
        let m = huber.build(Calibration::Paper, ADULT_N, t, &acc).unwrap();
        assert_eq!(m.event(), Event::NonPrivate, "L = {lipschitz}");
        let c = huber
            .build(Calibration::Certified, ADULT_N, t, &acc)
            .unwrap();
        close(c.smoothness(), 5.0 * lipschitz * lipschitz + 1e-4);
        assert!(z_of(&c.event()) > 0.0);
        // Logistic: the code's β = L² + λ overestimates the true L²/4 + λ, so it is private.
        let m = pscpsgd(lipschitz, 1e-4, 10.0, 200)
            .build(Calibration::Paper, ADULT_N, t, &acc)
            .unwrap();
        assert!(z_of(&m.event()) > 0.0);
    }
}

#[test]
fn certified_noise_meets_the_target() {
    let acc = RdpAccountant::new();
    for (epsilon, n) in [(0.1, ADULT_N), (1.0, 10_000), (10.0, 2_017)] {
        let t = Target::new(epsilon, 1.0 / (n as f64).powi(2)).unwrap();
        let a = ppsgd(1.0, 0.1, 10)
            .build(Calibration::Certified, n, t, &acc)
            .unwrap();
        let b = pscpsgd(1.0, 1e-3, 10.0, 20)
            .build(Calibration::Certified, n, t, &acc)
            .unwrap();
        for (event, noise) in [(a.event(), a.noise()), (b.event(), b.noise())] {
            let e = epsilon_of(acc.fresh(), &event, t.delta()).unwrap();
            assert!(e <= epsilon && e > 0.99 * epsilon, "({epsilon}, {n}): {e}");
            assert!(noise > 0.0);
        }
        // Balanced batches are never smaller than b, so Δ₂ ≤ the code's formulas.
        assert!(a.sensitivity() <= 2.0 * 10.0 * 0.1 / 50.0);
        assert!(b.sensitivity() <= 2.0 * 1.01 / (1e-3 * (n - n % 50) as f64) * (1.0 + 1e-12));
    }
}

#[test]
fn seeds_determine_the_output() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    let t = Target::new(1.0, 1e-5).unwrap();
    for cal in [Calibration::Paper, Calibration::Certified] {
        let a = ppsgd(SQRT2, 0.5, 3).build(cal, 400, t, &acc).unwrap();
        let b = pscpsgd(SQRT2, 1e-2, 1.0, 3)
            .build(cal, 400, t, &acc)
            .unwrap();
        let runs = |seed| (a.fit(&data, seed).unwrap().0, b.fit(&data, seed).unwrap().0);
        assert_eq!(runs(3), runs(3));
        let (r3, r4) = (runs(3), runs(4));
        assert_ne!(r3.0, r4.0);
        assert_ne!(r3.1, r4.1);
    }
}

#[test]
fn the_descent_does_not_depend_on_the_target() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    let t = |e| Target::new(e, 1e-5).unwrap();
    for cal in [Calibration::Paper, Calibration::Certified] {
        let a = |e| ppsgd(SQRT2, 0.5, 3).build(cal, 400, t(e), &acc).unwrap();
        let b = |e| {
            pscpsgd(SQRT2, 1e-2, 1.0, 3)
                .build(cal, 400, t(e), &acc)
                .unwrap()
        };
        assert_eq!(
            a(0.1).descend(&data, 5).unwrap(),
            a(3.0).descend(&data, 5).unwrap()
        );
        assert_eq!(
            b(0.1).descend(&data, 5).unwrap(),
            b(3.0).descend(&data, 5).unwrap()
        );
        // fit is descend then release: only the release's noise changes with ε.
        let (fit, report) = a(0.1).fit(&data, 5).unwrap();
        let released = a(0.1).release(a(3.0).descend(&data, 5).unwrap(), noise_seed(5));
        assert_eq!((fit, report), released);
    }
}

#[test]
fn without_noise_they_learn_a_separable_problem() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    let t = Target::new(1e6, 1e-5).unwrap();
    for cal in [Calibration::Paper, Calibration::Certified] {
        let batch = 10;
        let a = PpsgdSpec {
            batch,
            ..ppsgd(SQRT2, 1.0, 50)
        }
        .build(cal, 400, t, &acc)
        .unwrap();
        let (theta, report) = a.fit(&data, 1).unwrap();
        assert_eq!(report.steps, 50 * 40);
        let acc_a = accuracy(&x, &y, &theta);
        let b = PscpsgdSpec {
            batch,
            ..pscpsgd(SQRT2, 1e-3, 10.0, 50)
        }
        .build(cal, 400, t, &acc)
        .unwrap();
        let (theta, report) = b.fit(&data, 1).unwrap();
        assert_eq!(report.steps, 50 * 40);
        let acc_b = accuracy(&x, &y, &theta);
        assert!(acc_a > 0.95 && acc_b > 0.95, "{cal:?}: {acc_a} {acc_b}");
    }
}

/// One pass over one batch of all rows is one full gradient step from 0: checks the gradient,
/// the step and the batch partition against a direct computation.
#[test]
fn one_full_batch_pass_is_a_gradient_step() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    let s = PpsgdSpec {
        batch: 400,
        ..ppsgd(SQRT2, 0.7, 1)
    };
    let m = s
        .build(
            Calibration::Paper,
            400,
            Target::new(1e9, 1e-5).unwrap(),
            &acc,
        )
        .unwrap();
    assert!(m.noise() < 1e-10);
    let (theta, _) = m.fit(&data, 0).unwrap();
    for (j, &t) in theta.iter().enumerate() {
        let g: f64 = (0..400)
            .map(|i| GlmLoss::Logistic.deriv(0.0, y[i]) * x.row(i).dot(&unit(j)))
            .sum::<f64>()
            / 400.0;
        assert!((t + 0.7 * g).abs() < 1e-8, "{j}: {t} vs {}", -0.7 * g);
    }
}

fn unit(j: usize) -> Vec<f64> {
    let mut e = vec![0.0; 5];
    e[j] = 1.0;
    e
}

#[test]
fn pscpsgd_output_is_projected_after_the_noise() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    for cal in [Calibration::Paper, Calibration::Certified] {
        // σ ≫ C: the noisy output lands outside the ball and is projected back.
        let m = pscpsgd(SQRT2, 1e-3, 0.5, 2)
            .build(cal, 400, Target::new(0.1, 1e-5).unwrap(), &acc)
            .unwrap();
        assert!(m.noise() > 10.0);
        let (theta, report) = m.fit(&data, 2).unwrap();
        let norm = theta.iter().map(|t| t * t).sum::<f64>().sqrt();
        assert!((norm - 0.5).abs() < 1e-12, "{cal:?}: {norm}");
        assert_eq!(report.noise, m.noise());
    }
}

#[test]
fn refuses_rows_over_the_bound_and_bad_settings() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    let t = Target::new(1.0, 1e-5).unwrap();
    let a = ppsgd(1.0, 0.1, 2)
        .build(Calibration::Paper, 400, t, &acc)
        .unwrap();
    let err = a.fit(&data, 0).unwrap_err();
    assert!(err.to_string().contains("lipschitz"), "{err}");
    let b = pscpsgd(1.0, 1e-3, 1.0, 2)
        .build(Calibration::Certified, 400, t, &acc)
        .unwrap();
    assert!(
        b.fit(&data, 0)
            .unwrap_err()
            .to_string()
            .contains("lipschitz")
    );
    let c = ppsgd(2.0, 0.1, 2)
        .build(Calibration::Paper, 399, t, &acc)
        .unwrap();
    assert!(c.fit(&data, 0).is_err());
    for (bad, name) in [
        (
            PpsgdSpec {
                lr: -1.0,
                ..ppsgd(1.0, 0.1, 2)
            },
            "lr",
        ),
        (
            PpsgdSpec {
                batch: 0,
                ..ppsgd(1.0, 0.1, 2)
            },
            "batch",
        ),
        (ppsgd(1.0, 0.1, 0), "passes"),
    ] {
        let err = bad.build(Calibration::Paper, 400, t, &acc).unwrap_err();
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
    for (bad, name) in [
        (pscpsgd(1.0, 0.0, 1.0, 2), "lambda"),
        (pscpsgd(1.0, 1e-3, 0.0, 2), "radius"),
        (pscpsgd(0.0, 1e-3, 1.0, 2), "lipschitz"),
    ] {
        let err = bad.build(Calibration::Certified, 400, t, &acc).unwrap_err();
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

#[test]
fn reports_serialise() {
    let (x, y) = separable();
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    let t = Target::new(1.0, 1e-5).unwrap();
    let m = ppsgd(SQRT2, 0.5, 1)
        .build(Calibration::Certified, 400, t, &acc)
        .unwrap();
    let r = serde_json::to_value(m.fit(&data, 0).unwrap().1).unwrap();
    assert_eq!(r["noise"].as_f64().unwrap(), m.noise());
    assert_eq!(r["sensitivity"].as_f64().unwrap(), m.sensitivity());
    let m = PscpsgdSpec {
        loss: GlmLoss::huber(),
        ..pscpsgd(SQRT2, 1e-3, 1.0, 1)
    }
    .build(Calibration::Paper, 400, t, &acc)
    .unwrap();
    let r = serde_json::to_value(m.fit(&data, 0).unwrap().1).unwrap();
    assert!(r["sensitivity"].is_null());
    assert_eq!(r["calibration"], "paper");
    let j = serde_json::to_value(m.spec()).unwrap();
    assert_eq!(j["loss"]["huber"], 0.1);
}

/// One fit of each mechanism on an Adult-sized sparse problem (36,176 × 105, 15 non-zeros per
/// row), at the grid's largest settings: P-SGD T = 1000, P-PSGD 100 passes, P-SCPSGD 200.
#[test]
#[ignore = "timing: cargo test -p dp-core --lib iyengar -- --ignored --nocapture"]
fn timing_on_an_adult_sized_problem() {
    use crate::learn::iyengar::sgd::PsgdSpec;
    let (x, y) = crate::learn::synthetic::adult_like(ADULT_N, 1);
    let data = GlmData::new(&x, &y).unwrap();
    assert!(matches!(data.x(), FeatureMatrix::Sparse(_)));
    let acc = RdpAccountant::new();
    let t = adult_target(0.1);
    let time = |name: &str, f: &dyn Fn() -> Vec<f64>| {
        let start = std::time::Instant::now();
        let theta = f();
        let acc = accuracy(&x, &y, &theta);
        println!("{name}: {:?} (train accuracy {acc:.3})", start.elapsed());
    };
    for cal in [Calibration::Paper, Calibration::Certified] {
        let psgd = PsgdSpec {
            loss: GlmLoss::Logistic,
            lipschitz: SQRT2,
            lambda: 0.0,
            lr: 1.0,
            steps: 1000,
            batch: 50,
            radius: None,
        }
        .build(cal, ADULT_N, t, &acc)
        .unwrap();
        time(&format!("{cal:?} P-SGD T=1000"), &|| {
            psgd.fit(&data, 1).unwrap().0
        });
        let a = ppsgd(SQRT2, 0.1, 100).build(cal, ADULT_N, t, &acc).unwrap();
        time(&format!("{cal:?} P-PSGD 100 passes"), &|| {
            a.fit(&data, 1).unwrap().0
        });
        let b = pscpsgd(SQRT2, 1e-3, 10.0, 200)
            .build(cal, ADULT_N, t, &acc)
            .unwrap();
        time(&format!("{cal:?} P-SCPSGD 200 passes"), &|| {
            b.fit(&data, 1).unwrap().0
        });
    }
}
