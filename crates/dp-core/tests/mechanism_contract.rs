//! The mechanism contract (`dp_core::learn::Mechanism`), run against every dp-core mechanism (dp-bench's
//! `tests/mechanism_contract.rs` runs every method kind of its table): the same
//! seed gives the same θ and another seed another θ; a mechanism calibrated to a target is
//! certified at most that ε by a fresh accountant composing its event; invalid parameters are
//! refused at construction, naming the parameter. DPareto's learners (`learn::avent`) too.

use dp_core::DpError;
use dp_core::accounting::subsampled_gaussian::dpsgd_bracket;
use dp_core::accounting::{RdpAccountant, Selection, Target, calibrate, epsilon_of};
use dp_core::learn::avent::{Hyper, Init, LinearLearner, LinearModel, Recipe};
use dp_core::learn::synthetic::halfspace;
use dp_core::learn::{
    Alg1Spec, Candidates, DpSgd, GlmData, GlmLoss, Mechanism, Optimizer, RepeatAndSelect,
};

fn contract<M: Mechanism>(m: &M, data: &GlmData<'_>, target: Target) {
    let (a, _) = m.fit(data, 11).unwrap();
    let (b, _) = m.fit(data, 11).unwrap();
    assert_eq!(a, b, "{}: same seed, same θ", m.name());
    let (c, _) = m.fit(data, 12).unwrap();
    assert_ne!(a, c, "{}: another seed, another θ", m.name());
    let eps = epsilon_of(RdpAccountant::new(), &m.event(), target.delta()).unwrap();
    assert!(
        eps <= target.epsilon() && eps > 0.99 * target.epsilon(),
        "{}: accounted {eps} for target {}",
        m.name(),
        target.epsilon()
    );
}

fn out_of_range<T>(r: dp_core::Result<T>) -> &'static str {
    match r {
        Err(DpError::OutOfRange { name, .. }) => name,
        Err(other) => panic!("expected an out-of-range error, got {other:?}"),
        Ok(_) => panic!("expected an out-of-range error, got a value"),
    }
}

fn sgd(n: usize, lr: f64, z: f64) -> dp_core::Result<DpSgd> {
    DpSgd::paper(n, 50, 3, 1.0, z, lr).checked()
}

#[test]
fn algorithm_one() {
    let (x, y) = halfspace(600, 5, 0.1, 1);
    let data = GlmData::new(&x, &y).unwrap();
    let rdp = RdpAccountant::new();
    for eps in [0.5, 2.0] {
        let target = Target::new(eps, 1e-5).unwrap();
        let m = Alg1Spec::paper().calibrate(1.3, target, &rdp).unwrap();
        contract(&m, &data, target);
    }
    let p = Alg1Spec::paper();
    assert_eq!(out_of_range(p.with_noise(5.0, 0.4)), "lambda");
    assert_eq!(
        out_of_range(Alg1Spec { clip: -1.0, ..p }.with_noise(5.0, 2.0)),
        "clip"
    );
    assert_eq!(
        out_of_range(Alg1Spec { tau: -1.0, ..p }.with_noise(5.0, 2.0)),
        "tau"
    );
    assert_eq!(
        out_of_range(
            Alg1Spec {
                sigma_out: f64::NAN,
                ..p
            }
            .with_noise(5.0, 2.0)
        ),
        "sigma-out"
    );
    assert_eq!(
        out_of_range(
            Alg1Spec {
                loss: GlmLoss::Huber { h: 0.0 },
                ..p
            }
            .with_noise(5.0, 2.0)
        ),
        "huber-h"
    );
}

#[test]
fn dpsgd() {
    let (x, y) = halfspace(500, 4, 0.1, 2);
    let data = GlmData::new(&x, &y).unwrap();
    let rdp = RdpAccountant::new();
    let target = Target::new(1.0, 1e-5).unwrap();
    let probe = sgd(500, 0.05, 1.0).unwrap();
    let bracket = dpsgd_bracket(probe.sampling_rate, probe.steps as u64, target).unwrap();
    let z = calibrate(
        || rdp.fresh(),
        |z| Ok(sgd(500, 0.05, z)?.event()),
        target,
        bracket,
    )
    .unwrap();
    contract(&sgd(500, 0.05, z).unwrap(), &data, target);
    let good = sgd(500, 0.05, 1.0).unwrap();
    assert_eq!(
        out_of_range(
            DpSgd {
                clip: 0.0,
                ..good.clone()
            }
            .checked()
        ),
        "clip"
    );
    assert_eq!(
        out_of_range(
            DpSgd {
                noise_multiplier: -1.0,
                ..good.clone()
            }
            .checked()
        ),
        "noise-multiplier"
    );
    assert_eq!(
        out_of_range(
            DpSgd {
                sampling_rate: 1.5,
                ..good.clone()
            }
            .checked()
        ),
        "sampling-rate"
    );
    assert!(
        DpSgd {
            optimizer: Optimizer::adam(-1.0),
            ..good
        }
        .checked()
        .is_err()
    );
}

#[test]
fn honest_tuning_wrapper() {
    let (x, y) = halfspace(500, 4, 0.1, 3);
    let data = GlmData::new(&x, &y).unwrap();
    let rdp = RdpAccountant::new();
    let target = Target::new(2.0, 1e-5).unwrap();
    let selection = Selection::poisson(3.0).unwrap();
    let score = |th: &[f64], _: u64| dp_core::learn::accuracy(&x, &y, th);
    let tuned = |z: f64| {
        RepeatAndSelect::new(
            selection,
            Candidates::LogUniform { lo: 1e-3, hi: 1e-1 },
            move |lr| sgd(500, lr, z),
            score,
        )
    };
    let probe = sgd(500, 0.05, 1.0).unwrap();
    let bracket = dpsgd_bracket(probe.sampling_rate, probe.steps as u64, target).unwrap();
    let z = calibrate(|| rdp.fresh(), |z| Ok(tuned(z)?.event()), target, bracket).unwrap();
    // Seeds 11 and 12 both draw K ≥ 1 here, so their releases differ.
    contract(&tuned(z).unwrap(), &data, target);
    let bad = RepeatAndSelect::new(
        selection,
        Candidates::LogUniform { lo: 1.0, hi: 0.1 },
        |lr| sgd(500, lr, 1.0),
        score,
    );
    assert_eq!(out_of_range(bad), "lr-min");
}

/// DPareto's logistic regression on λ = (3 epochs, lot 50, lr 0.05, clip 1, z) over n rows.
fn avent(n: usize, z: f64) -> dp_core::Result<LinearLearner> {
    let hyper = Hyper {
        epochs: 3,
        lot: 50,
        lr: 0.05,
        clip: 1.0,
        noise_multiplier: z,
    };
    Ok(LinearLearner {
        model: LinearModel::Logistic,
        recipe: Recipe::new(hyper, n, Optimizer::sgd(0.05), Init::Code)?,
    })
}

#[test]
fn avent_learner() {
    let (x, y) = halfspace(500, 4, 0.1, 4);
    let data = GlmData::new(&x, &y).unwrap();
    let rdp = RdpAccountant::new();
    let target = Target::new(1.0, 1e-5).unwrap();
    let bracket = dpsgd_bracket(0.1, 30, target).unwrap();
    let z = calibrate(
        || rdp.fresh(),
        |z| Ok(avent(500, z)?.event()),
        target,
        bracket,
    )
    .unwrap();
    contract(&avent(500, z).unwrap(), &data, target);
    let good = *avent(500, 1.0).unwrap().recipe.hyper();
    let refused = |h: Hyper| out_of_range(Recipe::new(h, 500, Optimizer::sgd(0.05), Init::Code));
    assert_eq!(refused(Hyper { lot: 501, ..good }), "lot");
    assert_eq!(refused(Hyper { clip: 0.0, ..good }), "clip");
    assert_eq!(
        refused(Hyper {
            noise_multiplier: -1.0,
            ..good
        }),
        "noise-multiplier"
    );
    assert_eq!(refused(Hyper { lr: 0.0, ..good }), "learning-rate");
}
