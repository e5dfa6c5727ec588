use super::*;
use crate::accounting::accountant::epsilon_of;
use crate::features::FeatureMatrix;
use crate::learn::baseline::fit_glm;
use crate::learn::synthetic::{adult_like, halfspace};

const ADULT_N: usize = 36_176;

fn logistic(eps_frac: f64, eps_out_frac: f64, gamma: f64) -> AmpSpec {
    AmpSpec {
        loss: GlmLoss::Logistic,
        lipschitz: 1.0,
        eps_frac,
        eps_out_frac,
        gamma,
    }
}

/// Rows scaled to ℓ2 norm ≤ `l`, as the code's `clip_rows`.
pub(super) fn clip_rows(mut x: FeatureMatrix, l: f64) -> FeatureMatrix {
    x.map_rows_mut(|_, row| {
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > l {
            row.iter_mut().for_each(|v| *v *= l / norm);
        }
    });
    x
}

fn problem(n: usize, seed: u64) -> (FeatureMatrix, Vec<f64>) {
    let (x, y) = halfspace(n, 5, 0.2, seed);
    (clip_rows(x, 1.0), y)
}

fn target(epsilon: f64, n: usize) -> Target {
    Target::new(epsilon, 1.0 / (n as f64 * n as f64)).unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn paper_noise_is_the_reference_vector() {
    let n = ADULT_N;
    let g = 1.0 / (n as f64 * n as f64);
    let amp = logistic(0.9, 0.01, g)
        .build(Calibration::Paper, n, target(0.1, n), &RdpAccountant::new())
        .unwrap();
    assert!(rel(amp.lambda(), 202.0202) < 1e-6, "{}", amp.lambda());
    assert!(rel(amp.sigma1(), 4.641918e-3) < 1e-6, "{}", amp.sigma1());
    assert!(
        rel(amp.sigma_out(), 1.115866e-3) < 1e-6,
        "{}",
        amp.sigma_out()
    );
    // The event: Thm 4.1 with the true β = L²/4 (times the rounding allowance).
    let Event::Composed(parts) = amp.event() else {
        panic!("{:?}", amp.event())
    };
    let Event::ObjPert(op) = parts[0] else {
        panic!()
    };
    assert_eq!(op.lambda, amp.lambda());
    assert!(rel(op.sigma, n as f64 * 4.641918e-3) < 1e-6);
    assert!(rel(op.beta, 0.25) < 1e-11 && op.lipschitz == 1.0);
    let z = amp.sigma_out() * amp.lambda() / (2.0 * n as f64 * g);
    assert_eq!(
        parts[1],
        Event::Gaussian {
            noise_multiplier: z
        }
    );
    // §2.1's privacy check: conservative for logistic loss at these settings.
    let e = epsilon_of(RdpAccountant::new(), &amp.event(), target(0.1, n).delta()).unwrap();
    assert!(e < 0.1, "{e}");
}

#[test]
fn hyperparameter_free_spec_is_the_codes() {
    let n = ADULT_N;
    let s = AmpSpec::hyperparameter_free(GlmLoss::Logistic, 0.1, n).unwrap();
    assert_eq!((s.lipschitz, s.eps_out_frac), (1.0, 0.01));
    assert!((s.eps_frac - 0.9307).abs() < 1e-4, "{}", s.eps_frac);
    assert_eq!(s.gamma, 1.0 / (n as f64 * n as f64));
    // §2.2's Λ row (code, L = 1).
    for (eps, lambda) in [(0.01, 2.02e4), (0.1, 291.7), (1.0, 21.4), (10.0, 2.04)] {
        let s = AmpSpec::hyperparameter_free(GlmLoss::Logistic, eps, n).unwrap();
        let amp = s
            .build(Calibration::Paper, n, target(eps, n), &RdpAccountant::new())
            .unwrap();
        assert!(rel(amp.lambda(), lambda) < 3e-3, "{eps}: {}", amp.lambda());
    }
    assert!(AmpSpec::hyperparameter_free(GlmLoss::Logistic, 0.1, 0).is_err());
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"loss\":\"logistic\""), "{json}");
    let huber = AmpSpec {
        loss: GlmLoss::huber(),
        ..s
    };
    assert!(
        serde_json::to_string(&huber)
            .unwrap()
            .contains("{\"huber\":0.1}")
    );
}

#[test]
fn certified_meets_the_target_and_is_tight() {
    let n = ADULT_N;
    let acc = RdpAccountant::new();
    for loss in [GlmLoss::Logistic, GlmLoss::huber()] {
        for eps in [0.1, 1.0, 10.0] {
            let t = target(eps, n);
            let spec = AmpSpec {
                loss,
                ..logistic(0.9, 0.01, 1.0 / (n as f64 * n as f64))
            };
            let amp = spec.build(Calibration::Certified, n, t, &acc).unwrap();
            let e = epsilon_of(acc.fresh(), &amp.event(), t.delta()).unwrap();
            assert!(e <= eps && e > 0.999 * eps, "{loss:?} {eps}: {e}");
            // Λ from the true β; σ₂ for sensitivity 2nγ/Λ.
            let budget = AmpBudget::split(eps, t.delta(), 0.01, 0.9).unwrap();
            let beta = spec.beta();
            assert!(rel(amp.lambda(), 2.0 * beta / (budget.eps1 - budget.eps3)) < 1e-12);
            let paper = spec.build(Calibration::Paper, n, t, &acc).unwrap();
            let expect_out = 2.0 * paper.sigma_out() * paper.lambda() / amp.lambda();
            assert!(rel(amp.sigma_out(), expect_out) < 1e-12);
            // Slightly less objective noise breaks the target: σ₁ is the smallest.
            let mut less = *amp.params();
            less.sigma_sum *= 1.0 - 1e-6;
            let e_less = epsilon_of(acc.fresh(), &amp.event_of(&less), t.delta()).unwrap();
            assert!(e_less > eps * (1.0 - 1e-7), "{loss:?} {eps}: {e_less}");
        }
    }
    // An accountant that cannot certify the target: refused, not built.
    let poor = RdpAccountant::with_orders(&[1.5]).unwrap();
    let spec = logistic(0.9, 0.01, 1e-6);
    let err = spec.build(Calibration::Certified, 1000, target(1.0, 1000), &poor);
    assert!(matches!(err, Err(DpError::Calibration(_))), "{err:?}");
}

#[test]
fn paper_huber_at_large_epsilon_is_not_private() {
    let n = 1000;
    let huber = AmpSpec {
        loss: GlmLoss::huber(),
        ..logistic(0.9, 0.01, 1e-6)
    };
    let amp = huber
        .build(
            Calibration::Paper,
            n,
            target(10.0, n),
            &RdpAccountant::new(),
        )
        .unwrap();
    // Λ = 2L²/(0.1·9.9) ≈ 2.02 < β = 5.
    assert!(rel(amp.lambda(), 2.0 / (0.1 * 9.9)) < 1e-12);
    assert_eq!(amp.event(), Event::NonPrivate);
    let e = epsilon_of(RdpAccountant::new(), &amp.event(), 1e-6).unwrap();
    assert_eq!(e, f64::INFINITY);
    // It still runs, as the code does.
    let (x, y) = problem(n, 3);
    let data = GlmData::new(&x, &y).unwrap();
    let (theta, report) = amp.fit(&data, 1).unwrap();
    assert_eq!(theta.len(), 5);
    assert_eq!(report.event, Event::NonPrivate);
    // The same settings with the logistic loss are covered (Λ > L²/4).
    let amp = logistic(0.9, 0.01, 1e-6)
        .build(
            Calibration::Paper,
            n,
            target(10.0, n),
            &RdpAccountant::new(),
        )
        .unwrap();
    assert_eq!(amp.event().kind(), "Composed");
}

#[test]
fn same_seed_same_theta() {
    let n = 300;
    let (x, y) = problem(n, 5);
    let data = GlmData::new(&x, &y).unwrap();
    for cal in [Calibration::Paper, Calibration::Certified] {
        let amp = logistic(0.9, 0.1, 1.0 / (n * n) as f64)
            .build(cal, n, target(1.0, n), &RdpAccountant::new())
            .unwrap();
        let (a, ra) = amp.fit(&data, 11).unwrap();
        let (b, _) = amp.fit(&data, 11).unwrap();
        let (c, _) = amp.fit(&data, 12).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(ra.retries, 0);
        assert!(ra.grad_norm <= ra.gamma);
        assert_eq!(ra.event, amp.event());
        assert!(
            serde_json::to_string(&ra)
                .unwrap()
                .contains("\"retries\":0")
        );
    }
}

#[test]
fn huge_epsilon_reaches_the_non_private_optimum() {
    let n = 400;
    let (x, y) = problem(n, 9);
    let data = GlmData::new(&x, &y).unwrap();
    for loss in [GlmLoss::Logistic, GlmLoss::huber()] {
        // ε₁ − ε₃ = 0.99·10⁶·10⁻⁷ ≈ 0.1: Λ ≈ 20 (code's β = L²), all noise ≈ 1e-7.
        let spec = AmpSpec {
            loss,
            ..logistic(1.0 - 1e-7, 0.01, 1.0 / (n * n) as f64)
        };
        let amp = spec
            .build(Calibration::Paper, n, target(1e6, n), &RdpAccountant::new())
            .unwrap();
        let (theta, report) = amp.fit(&data, 4).unwrap();
        assert!(!report.zero_output && report.retries == 0);
        let np = fit_glm(&data, loss, amp.lambda() / n as f64, 1e-12)
            .unwrap()
            .x;
        let dist: f64 = theta
            .iter()
            .zip(&np)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        let scale: f64 = np.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(scale > 0.1, "{loss:?}: trivial optimum");
        assert!(dist < 1e-4 * (1.0 + scale), "{loss:?}: {dist}");
    }
}

#[test]
fn zero_output_when_the_regulariser_budget_is_at_least_one() {
    let n = 100;
    let (x, y) = problem(n, 1);
    let data = GlmData::new(&x, &y).unwrap();
    // ε₁ − ε₃ = 99·0.5 ≥ 1: the code returns θ₀ = 0 (line 63).
    for cal in [Calibration::Paper, Calibration::Certified] {
        let amp = logistic(0.5, 0.01, 1e-4)
            .build(cal, n, target(100.0, n), &RdpAccountant::new())
            .unwrap();
        assert_eq!(amp.event(), Event::NoOp);
        let (theta, report) = amp.fit(&data, 0).unwrap();
        assert_eq!(theta, vec![0.0; 5]);
        assert!(report.zero_output);
    }
}

#[test]
fn retry_schedule_is_the_codes() {
    // γm < 1e-4: the code rescales its objective by 10 and keeps γ; otherwise doubles γ.
    assert_eq!(next_gamma(3e-6, 1.0), (3e-6, 10.0));
    assert_eq!(next_gamma(3e-6, 10.0), (3e-6, 100.0));
    assert_eq!(next_gamma(3e-6, 100.0), (6e-6, 1.0));
    assert_eq!(next_gamma(1e-3, 1.0), (2e-3, 1.0));
}

#[test]
fn paper_retries_double_gamma_and_reset_f() {
    let n = 200;
    let (x, y) = problem(n, 2);
    let data = GlmData::new(&x, &y).unwrap();
    let gamma0 = 6e-5;
    // No solver iterations: a run succeeds only once nγ ≥ ‖∇J(0)‖ (a few dozen here).
    let no_iterations = LbfgsOptions {
        max_iter: 0,
        ..LbfgsOptions::default()
    };
    let t = target(1.0, n);
    let amp = logistic(0.9, 0.5, gamma0)
        .build(Calibration::Paper, n, t, &RdpAccountant::new())
        .unwrap()
        .with_solver(no_iterations.clone());
    let (theta, r) = amp.fit(&data, 3).unwrap();
    // 6e-5 fails, then 6e-5 with m = 10, then 1.2e-4, 2.4e-4, …
    assert!(r.retries >= 3, "{}", r.retries);
    assert_eq!(r.gamma, gamma0 * 2f64.powi(r.retries as i32 - 1));
    assert!(r.grad_norm <= r.gamma);
    assert_eq!(r.iterations, 0);
    // f silently reset to 0.01: the noise is the code's at (2^k γ₀, 0.01).
    assert_eq!(r.eps_out_frac, CODE_EPS_OUT_FRAC);
    let p = amp.paper_params(r.gamma, CODE_EPS_OUT_FRAC).unwrap();
    assert_eq!((r.lambda, r.sigma_out), (p.lambda, p.sigma_out));
    assert_eq!(r.noise, p.sigma_sum / n as f64);
    assert_ne!(r.lambda, amp.lambda());
    assert_eq!(r.event, amp.event_of(&p));
    assert_ne!(r.event, amp.event());
    // θ̃ = 0 was accepted, so θ is the output noise alone.
    let sd = (theta.iter().map(|v| v * v).sum::<f64>() / 5.0).sqrt();
    assert!(
        sd < 5.0 * r.sigma_out && sd > 0.0,
        "{sd} vs {}",
        r.sigma_out
    );
    // The cap, and certified mode's refusal.
    let capped = amp.clone().with_max_retries(2).fit(&data, 3);
    assert!(
        matches!(capped, Err(DpError::NoConvergence(_))),
        "{capped:?}"
    );
    let certified = logistic(0.9, 0.5, gamma0)
        .build(Calibration::Certified, n, t, &RdpAccountant::new())
        .unwrap()
        .with_solver(no_iterations);
    let refused = certified.fit(&data, 3);
    assert!(
        matches!(refused, Err(DpError::NoConvergence(_))),
        "{refused:?}"
    );
}

#[test]
fn rows_over_the_bound_and_a_wrong_n_are_refused() {
    let n = 100;
    let (x, y) = halfspace(n, 5, 0.2, 1); // rows of norm √2 > L = 1
    let data = GlmData::new(&x, &y).unwrap();
    let amp = logistic(0.9, 0.01, 1e-4)
        .build(Calibration::Paper, n, target(1.0, n), &RdpAccountant::new())
        .unwrap();
    let err = amp.fit(&data, 0);
    assert!(matches!(err, Err(DpError::Invalid(_))), "{err:?}");
    let (x, y) = problem(n + 1, 1);
    let data = GlmData::new(&x, &y).unwrap();
    assert!(amp.fit(&data, 0).is_err());
    let bad = logistic(1.0, 0.01, 1e-4);
    assert!(
        bad.build(Calibration::Paper, n, target(1.0, n), &RdpAccountant::new())
            .is_err()
    );
}

/// AMP on an Adult-shaped sparse problem (15 non-zeros of 105) reaches τ = nγ = 1/n.
#[test]
fn reaches_tau_one_over_n_on_20k_sparse_rows() {
    let n = 20_000;
    let (x, y) = adult_like(n, 7);
    let x = clip_rows(x, 1.0);
    let data = GlmData::new(&x, &y).unwrap();
    assert!(matches!(data.x(), FeatureMatrix::Sparse(_)));
    let acc = RdpAccountant::new();
    for (loss, cal, eps) in [
        (GlmLoss::Logistic, Calibration::Paper, 0.1),
        (GlmLoss::Logistic, Calibration::Paper, 10.0),
        (GlmLoss::huber(), Calibration::Paper, 1.0),
        (GlmLoss::huber(), Calibration::Certified, 1.0),
    ] {
        let spec = AmpSpec::hyperparameter_free(loss, eps, n).unwrap();
        let amp = spec.build(cal, n, target(eps, n), &acc).unwrap();
        let start = std::time::Instant::now();
        let (_, r) = amp.fit(&data, 1).unwrap();
        eprintln!(
            "{loss:?} {cal:?} eps={eps}: {} iterations, {} evaluations, grad {:e} <= {:e}, {:?}",
            r.iterations,
            r.evaluations,
            r.grad_norm,
            r.gamma,
            start.elapsed()
        );
        assert_eq!(r.retries, 0);
        assert_eq!(r.gamma, spec.gamma);
        assert!(r.grad_norm <= spec.gamma);
    }
}

/// Timing at Adult's size, and how far below τ = 1/n the solver can go before round-off.
#[test]
#[ignore = "timing: cargo test -p dp-core --lib iyengar -- --ignored --nocapture"]
fn timing_on_adult_sized_rows() {
    let n = ADULT_N;
    let (x, y) = adult_like(n, 7);
    let x = clip_rows(x, 1.0);
    let data = GlmData::new(&x, &y).unwrap();
    let acc = RdpAccountant::new();
    for loss in [GlmLoss::Logistic, GlmLoss::huber()] {
        for eps in [0.01, 0.1, 1.0, 10.0] {
            let spec = AmpSpec::hyperparameter_free(loss, eps, n).unwrap();
            let amp = spec
                .build(Calibration::Paper, n, target(eps, n), &acc)
                .unwrap();
            let start = std::time::Instant::now();
            let (_, r) = amp.fit(&data, 1).unwrap();
            eprintln!(
                "AMP {loss:?} eps={eps}: {:?}, {} iterations, mean-gradient {:e} (gamma {:e})",
                start.elapsed(),
                r.iterations,
                r.grad_norm,
                r.gamma
            );
            // Tolerance 0: the solver runs until round-off stops it.
            let p = amp.params();
            let b = vec![p.sigma_sum; data.d()];
            let mut obj = PerturbedObjective::new(&data, loss, 1.0, p.lambda, b);
            let opts = LbfgsOptions {
                max_iter: 2000,
                ..LbfgsOptions::default()
            };
            let r = lbfgs(&mut obj, &vec![0.0; data.d()], 0.0, &opts);
            eprintln!(
                "    to round-off: {:?} after {} iterations at sum-gradient {:e} (tau = 1/n = {:e})",
                r.status,
                r.iterations,
                r.grad_norm,
                1.0 / n as f64
            );
        }
    }
}
