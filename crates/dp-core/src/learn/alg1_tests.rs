use super::*;
use crate::accounting::accountant::epsilon_of;
use crate::learn::synthetic::halfspace;

fn eps(m: &Alg1, delta: f64) -> f64 {
    epsilon_of(RdpAccountant::new(), &m.event(), delta).unwrap()
}

fn adult() -> Result<Alg1> {
    Alg1Spec::paper().calibrate(1.3, Target::new(1.0, 1e-5)?, &RdpAccountant::new())
}

#[test]
fn adult_check_values() {
    let p = adult().unwrap();
    let sigma_g = gaussian::sigma(1.0, 1e-5, 2f64.sqrt()).unwrap();
    assert!((sigma_g - 5.276).abs() < 1e-3, "sigma_G {sigma_g}");
    assert!((p.sigma() - 6.859).abs() < 1e-3, "sigma {}", p.sigma());
    assert!((p.lambda() - 4.02).abs() < 0.01, "lambda {}", p.lambda());
    let e = eps(&p, 1e-5);
    assert!(e <= 1.0 && e > 1.0 - 1e-6, "{e}");
    // Minimal: a slightly smaller λ is not private enough.
    let smaller = p
        .spec()
        .with_noise(p.sigma(), p.lambda() * (1.0 - 1e-8))
        .unwrap();
    assert!(eps(&smaller, 1e-5) > 1.0 - 1e-9);
}

#[test]
fn rdp_is_objpert_plus_gaussian_output_term() {
    let spec = Alg1Spec {
        beta: 0.5,
        ..Alg1Spec::paper()
    };
    let m = spec.with_noise(6.0, 4.0).unwrap();
    let op = ObjPert::new(6.0, 4.0, 0.5, 2f64.sqrt()).unwrap();
    let orders = [1.5, 10.0, 100.0];
    let acc = RdpAccountant::with_orders(&orders).unwrap();
    let curve = acc.curve_of(&m.event()).unwrap();
    for (i, &a) in orders.iter().enumerate() {
        // Thm 4.1 as written: ObjPert RDP + 2τ²α/(σ_out²λ²).
        let out = 2.0 * 0.01 * 0.01 * a / (0.15 * 0.15 * 4.0 * 4.0);
        let expect = op.rdp(a).unwrap() + out;
        assert!((curve.eps[i] - expect).abs() < 1e-12 * expect, "{a}");
    }
    // τ = 0 is plain objective perturbation.
    let exact = Alg1Spec { tau: 0.0, ..spec }.with_noise(6.0, 4.0).unwrap();
    let c = acc.curve_of(&exact.event()).unwrap();
    assert_eq!(c.eps[1], op.rdp(10.0).unwrap());
    // No output noise with τ > 0, or no objective noise: no guarantee at all.
    let bare = Alg1Spec {
        sigma_out: 0.0,
        ..spec
    };
    assert_eq!(
        bare.with_noise(6.0, 4.0).unwrap().event(),
        Event::NonPrivate
    );
    assert_eq!(
        spec.with_noise(0.0, 4.0).unwrap().event(),
        Event::NonPrivate
    );
}

#[test]
fn epsilon_decreases_in_lambda() {
    let mut prev = f64::INFINITY;
    for lam in [0.6, 1.0, 2.0, 4.0, 10.0, 100.0] {
        let e = eps(&Alg1Spec::paper().with_noise(6.859, lam).unwrap(), 1e-5);
        assert!(e < prev, "lambda {lam}");
        prev = e;
    }
}

#[test]
fn impossible_targets_and_bad_settings_error_by_name() {
    let rdp = RdpAccountant::new();
    let t = Target::new(1.0, 1e-5).unwrap();
    // σ below the Gaussian mechanism's can never work (Lemma 3.4).
    let r = Alg1Spec::paper().calibrate(0.9, t, &rdp);
    assert!(matches!(r, Err(DpError::Calibration(_))), "{r:?}");
    let name = |r: Result<Alg1>| match r {
        Err(DpError::OutOfRange { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    let p = Alg1Spec::paper();
    assert_eq!(
        name(Alg1Spec { tau: f64::NAN, ..p }.calibrate(1.3, t, &rdp)),
        "tau"
    );
    assert_eq!(
        name(
            Alg1Spec {
                sigma_out: 0.0,
                ..p
            }
            .calibrate(1.3, t, &rdp)
        ),
        "sigma-out"
    );
    assert_eq!(
        name(Alg1Spec { clip: 0.0, ..p }.with_noise(5.0, 2.0)),
        "clip"
    );
    assert_eq!(name(p.with_noise(5.0, 0.5)), "lambda"); // = β
    assert_eq!(name(p.with_noise(-1.0, 2.0)), "sigma");
    assert_eq!(name(p.calibrate(0.0, t, &rdp)), "noise-factor");
    assert!(matches!(
        Target::new(1.0, 1.0),
        Err(DpError::OutOfRange { name: "delta", .. })
    ));
}

#[test]
fn refuses_when_tau_is_not_reached() {
    let (x, y) = halfspace(300, 5, 0.1, 1);
    let data = GlmData::new(&x, &y).unwrap();
    let m = Alg1Spec::paper().with_noise(5.0, 2.0).unwrap();
    let tight = m.clone().with_solver(LbfgsOptions {
        max_iter: 1,
        ..Default::default()
    });
    let err = tight.fit(&data, 0).unwrap_err();
    assert!(matches!(err, DpError::NoConvergence(_)), "{err:?}");
    let (_, report) = m.fit(&data, 0).unwrap();
    assert!(report.grad_norm <= 0.01 && report.iterations > 1);
}

#[test]
fn refuses_rows_beyond_the_smoothness_bound() {
    let (x, y) = halfspace(50, 3, 0.1, 2);
    let data = GlmData::new(&x, &y).unwrap();
    let good = Alg1Spec::paper().with_noise(5.0, 2.0).unwrap();
    assert!(good.fit(&data, 0).is_ok());
    // Huber's β = 10 for rows of norm √2: λ = 9 is below it.
    let huber = Alg1Spec {
        loss: GlmLoss::huber(),
        beta: 0.0,
        ..Alg1Spec::paper()
    }
    .with_noise(5.0, 9.0)
    .unwrap();
    assert!(matches!(
        huber.fit(&data, 0),
        Err(DpError::OutOfRange { name: "lambda", .. })
    ));
}
