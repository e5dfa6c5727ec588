//! The accountant contract (`dp_core::accounting::accountant`), run against every
//! implementation, as dp_accounting's `PrivacyAccountantTest` is inherited by each of its
//! accountants: fresh accountants report nothing, `supports` agrees with `compose`, composing
//! never lowers ε, ε never falls below the exact value where one is known, `epsilon` and
//! `delta` are consistent, non-private events cost everything.

use dp_core::DpError;
use dp_core::accounting::{
    Accountant, Event, ObjPert, PldAccountant, RdpAccountant, Selection, epsilon_of, gaussian,
};

/// Events every accountant must support.
fn common_events() -> Vec<Event> {
    vec![
        Event::NoOp,
        Event::gaussian(1.3).unwrap(),
        Event::ObjPert(ObjPert::new(8.0, 10.0, 1.0, 1.0).unwrap()),
        Event::dpsgd(0.01, 1.1, 200).unwrap(),
        Event::Composed(vec![
            Event::ObjPert(ObjPert::new(6.0, 4.0, 0.5, 2f64.sqrt()).unwrap()),
            Event::gaussian(30.0).unwrap(),
        ]),
        Event::gaussian(2.0).unwrap().self_composed(5),
    ]
}

fn contract<A: Accountant + Clone>(fresh: impl Fn() -> A, tolerance: f64) {
    let name = fresh().name();
    // A fresh accountant has spent nothing.
    assert_eq!(fresh().epsilon(1e-5).unwrap(), 0.0, "{name}");
    assert_eq!(fresh().delta(0.5).unwrap(), 0.0, "{name}");
    for e in common_events() {
        let what = format!("{name} {}", e.kind());
        fresh()
            .supports(&e)
            .unwrap_or_else(|err| panic!("{what}: {err}"));
        // Composing more never lowers ε or raises nothing.
        let mut a = fresh();
        let mut prev = 0.0;
        for _ in 0..3 {
            a.compose(&e, 1).unwrap();
            let eps = a.epsilon(1e-5).unwrap();
            assert!(eps >= prev, "{what}: {eps} < {prev}");
            prev = eps;
        }
        // compose(e, 3) is three compositions of e.
        let mut b = fresh();
        b.compose(&e, 3).unwrap();
        let (x, y) = (b.epsilon(1e-5).unwrap(), prev);
        assert!(
            (x - y).abs() <= tolerance * y.max(1e-12),
            "{what}: compose(e, 3) = {x}, three compose(e, 1) = {y}"
        );
        // compose(e, 0) adds nothing.
        let mut c = fresh();
        c.compose(&e, 0).unwrap();
        assert_eq!(c.epsilon(1e-5).unwrap(), 0.0, "{what}");
        // ε(δ) and δ(ε) agree: δ at the reported ε is at most the δ asked for.
        if y > 0.0 {
            let d = b.delta(x).unwrap();
            assert!(d <= 1e-5 * (1.0 + 1e-6), "{what}: δ({x}) = {d}");
            // And a clearly smaller ε needs a larger δ (the answer is not needlessly loose).
            assert!(b.delta(0.9 * x).unwrap() > 1e-5, "{what}");
        }
    }
    // Never below the exact Gaussian privacy profile (Balle & Wang), and close to it.
    for z in [0.7, 1.0, 3.0, 10.0] {
        for delta in [1e-3, 1e-6, 1e-10] {
            let exact = gaussian::epsilon(delta, z, 1.0).unwrap();
            let got = epsilon_of(fresh(), &Event::gaussian(z).unwrap(), delta).unwrap();
            assert!(
                got >= exact,
                "{name} z {z} δ {delta}: {got} < exact {exact}"
            );
            assert!(
                got <= 1.5 * exact + 0.05,
                "{name} z {z} δ {delta}: {got} ≫ {exact}"
            );
        }
    }
    // Non-private releases cost everything, whatever else was composed.
    let mut a = fresh();
    a.compose(&Event::gaussian(1.0).unwrap(), 1).unwrap();
    a.compose(&Event::NonPrivate, 1).unwrap();
    assert_eq!(a.epsilon(1e-5).unwrap(), f64::INFINITY, "{name}");
    assert_eq!(a.delta(100.0).unwrap(), 1.0, "{name}");
    // Out-of-range questions are errors naming the parameter.
    assert!(matches!(
        fresh().epsilon(0.0),
        Err(DpError::OutOfRange { name: "delta", .. })
    ));
    assert!(matches!(
        fresh().delta(-1.0),
        Err(DpError::OutOfRange {
            name: "epsilon",
            ..
        })
    ));
}

/// `supports` says exactly what `compose` accepts.
fn supports_matches_compose<A: Accountant>(fresh: impl Fn() -> A, events: &[Event]) {
    for e in events {
        let s = fresh().supports(e);
        let c = fresh().compose(e, 1).map(|_| ());
        assert_eq!(
            s.is_ok(),
            c.is_ok(),
            "{} {}: {s:?} vs {c:?}",
            fresh().name(),
            e.kind()
        );
        if let Err(err) = s {
            assert!(matches!(err, DpError::Unsupported { .. }), "{err:?}");
        }
    }
}

fn selection() -> Event {
    Event::dpsgd(0.01, 1.1, 200)
        .unwrap()
        .repeat_and_select(Selection::poisson(10.0).unwrap())
}

fn edge_events() -> Vec<Event> {
    vec![
        selection(),
        Event::epsilon_delta(0.5, 0.0).unwrap(),
        Event::epsilon_delta(0.5, 1e-6).unwrap(),
        Event::poisson_sampled(
            0.1,
            Event::ObjPert(ObjPert::new(8.0, 10.0, 1.0, 1.0).unwrap()),
        )
        .unwrap(),
        Event::poisson_sampled(1.0, Event::gaussian(2.0).unwrap()).unwrap(),
        wor(),
        Event::sampled_without_replacement(0.1, Event::epsilon_delta(0.5, 0.0).unwrap()).unwrap(),
        Event::Composed(vec![wor(), Event::dpsgd(0.01, 1.1, 200).unwrap()]),
        Event::sampled_with_replacement(500, 1000, Event::epsilon_delta(0.02, 0.0).unwrap())
            .unwrap()
            .self_composed(100),
    ]
}

/// DPareto's DP-SGD: lots drawn without replacement (replace-one neighbours).
fn wor() -> Event {
    Event::dpsgd_without_replacement(0.01, 1.1, 200).unwrap()
}

#[test]
fn rdp_accountant_meets_the_contract() {
    contract(RdpAccountant::new, 1e-12);
    supports_matches_compose(RdpAccountant::new, &edge_events());
    let rdp = RdpAccountant::new();
    assert!(rdp.supports(&selection()).is_ok());
    assert!(
        rdp.supports(&Event::epsilon_delta(0.5, 1e-6).unwrap())
            .is_err()
    );
    // Pure ε-DP is min(ε, αε²/2) per order (Bun & Steinke), composed by addition.
    let ten = Event::epsilon_delta(0.1, 0.0).unwrap().self_composed(10);
    let curve = rdp.curve_of(&ten).unwrap();
    for (a, e) in curve.orders.iter().zip(&curve.eps) {
        let expect = 10.0 * (0.1f64).min(0.5 * a * 0.01);
        assert!(
            (e - expect).abs() <= 1e-15 * expect.max(1.0),
            "order {a}: {e} vs {expect}"
        );
    }
    // Converted, it is close to basic composition (kε = 1) and above what 10 pure 0.1-DP
    // steps can be by the optimal composition theorem at this δ (≈ 0.8).
    let e = epsilon_of(rdp.fresh(), &ten, 1e-5).unwrap();
    assert!(e > 0.8 && e < 1.01, "{e}");
}

#[test]
fn rdp_accountant_keeps_replace_one_and_add_remove_apart() {
    let rdp = RdpAccountant::new();
    let poisson = Event::dpsgd(0.01, 1.1, 200).unwrap();
    // Each relation on its own composes as usual, with NoOp and NonPrivate on either side.
    for e in [wor(), poisson.clone()] {
        let mut a = rdp.fresh();
        a.compose(&Event::NoOp, 1).unwrap();
        a.compose(&e, 1).unwrap();
        let one = a.epsilon(1e-5).unwrap();
        a.compose(&e, 2).unwrap();
        let mut b = rdp.fresh();
        b.compose(&e, 3).unwrap();
        let three = b.epsilon(1e-5).unwrap();
        assert!(one > 0.0 && three > one);
        assert!((a.epsilon(1e-5).unwrap() / three - 1.0).abs() < 1e-12);
        a.compose(&Event::NonPrivate, 1).unwrap();
        assert_eq!(a.epsilon(1e-5).unwrap(), f64::INFINITY);
    }
    // Never both in one accountant, in either order, and never inside one event.
    for (first, second) in [(wor(), poisson.clone()), (poisson.clone(), wor())] {
        let mut a = rdp.fresh();
        a.compose(&first, 1).unwrap();
        let before = a.epsilon(1e-5).unwrap();
        let err = a.supports(&second).unwrap_err();
        assert!(
            matches!(
                err,
                DpError::Unsupported {
                    accountant: "RDP",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(a.compose(&second, 1).is_err());
        assert_eq!(
            a.epsilon(1e-5).unwrap(),
            before,
            "a refused event costs nothing"
        );
        // A fresh accountant forgets the relation.
        assert!(a.fresh().supports(&second).is_ok());
    }
    let mixed = Event::Mixture(vec![wor(), poisson]);
    assert!(matches!(
        rdp.supports(&mixed),
        Err(DpError::Unsupported {
            event: "Mixture",
            ..
        })
    ));
    assert!(rdp.curve_of(&mixed).is_err());
    // Composing zero runs records nothing.
    let mut a = rdp.fresh();
    a.compose(&wor(), 0).unwrap();
    assert!(a.supports(&Event::gaussian(1.0).unwrap()).is_ok());
}

#[test]
fn pld_accountant_meets_the_contract() {
    // Self-composition by FFT and step-by-step composition truncate differently.
    contract(PldAccountant::new, 2e-3);
    supports_matches_compose(PldAccountant::new, &edge_events());
    let err = PldAccountant::new().supports(&wor()).unwrap_err();
    assert!(
        matches!(
            err,
            DpError::Unsupported {
                accountant: "PLD",
                event: "SampledWithoutReplacement",
                ..
            }
        ),
        "{err:?}"
    );
    let err = PldAccountant::new().supports(&selection()).unwrap_err();
    assert!(
        matches!(
            err,
            DpError::Unsupported {
                accountant: "PLD",
                event: "RepeatAndSelect",
                ..
            }
        ),
        "{err:?}"
    );
}

/// The PLD accountant never reports more than RDP for the same event (it answers the smaller
/// of the two valid bounds), including where its own discretisation budget is the looser one.
#[test]
fn pld_never_reports_more_than_rdp() {
    let cases = [
        (0.0124, 0.728, 5630, 2.31e-10),
        (0.00708, 2.75, 8478, 1e-5),
        (0.01, 1.1, 1000, 1e-8),
    ];
    for (q, z, t, delta) in cases {
        let e = Event::dpsgd(q, z, t).unwrap();
        let rdp = epsilon_of(RdpAccountant::new(), &e, delta).unwrap();
        let pld = epsilon_of(PldAccountant::new(), &e, delta).unwrap();
        assert!(
            pld <= rdp,
            "q {q} z {z} T {t} δ {delta}: PLD {pld} > RDP {rdp}"
        );
    }
    // The anchor case: PLD is strictly tighter there (0.914 vs 1.000).
    let e = Event::dpsgd(0.00708, 2.75, 8478).unwrap();
    let pld = epsilon_of(PldAccountant::new(), &e, 1e-5).unwrap();
    assert!((pld - 0.914).abs() < 0.005, "{pld}");
}

#[test]
fn a_mixture_costs_its_worst_component_at_every_order() {
    let rdp = RdpAccountant::new();
    let parts = [
        Event::gaussian(3.0).unwrap(),
        Event::dpsgd(0.01, 1.1, 200).unwrap(),
        Event::epsilon_delta(0.3, 0.0).unwrap(),
    ];
    let mix = Event::Mixture(parts.to_vec());
    let curve = rdp.curve_of(&mix).unwrap();
    let comps: Vec<_> = parts.iter().map(|e| rdp.curve_of(e).unwrap()).collect();
    for (k, e) in curve.eps.iter().enumerate() {
        let worst = comps.iter().map(|c| c.eps[k]).fold(0.0, f64::max);
        assert_eq!(*e, worst, "order {}", curve.orders[k]);
    }
    // So its ε is at least every component's, and a mixture of one is that event.
    let eps = epsilon_of(rdp.fresh(), &mix, 1e-6).unwrap();
    for p in &parts {
        assert!(eps >= epsilon_of(rdp.fresh(), p, 1e-6).unwrap());
    }
    let one = Event::Mixture(vec![parts[0].clone()]);
    assert_eq!(
        epsilon_of(rdp.fresh(), &one, 1e-6).unwrap(),
        epsilon_of(rdp.fresh(), &parts[0], 1e-6).unwrap()
    );
    // A non-private component makes the mixture non-private; an empty mixture is an error.
    let bad = Event::Mixture(vec![parts[0].clone(), Event::NonPrivate]);
    assert!(epsilon_of(rdp.fresh(), &bad, 1e-6).unwrap().is_infinite());
    assert!(rdp.curve_of(&Event::Mixture(vec![])).is_err());
    assert!(PldAccountant::new().supports(&mix).is_err());
}

/// Every variant, alone and nested, supported or not, valid or with out-of-range fields
/// (built directly, bypassing the checked constructors).
fn rdp_events() -> Vec<Event> {
    let g = || Event::gaussian(1.3).unwrap();
    let op = || Event::ObjPert(ObjPert::new(8.0, 10.0, 1.0, 1.0).unwrap());
    let pure = || Event::epsilon_delta(0.5, 0.0).unwrap();
    let approx = || Event::epsilon_delta(0.5, 1e-6).unwrap();
    let sg = || Event::dpsgd(0.01, 1.1, 200).unwrap();
    let poisson = |q: f64, e: Event| Event::poisson_sampled(q, e).unwrap();
    let swor = |q: f64, e: Event| Event::sampled_without_replacement(q, e).unwrap();
    let swr = |n: u64, m: u64, e: Event| Event::SampledWithReplacement {
        population: n,
        draws: m,
        event: Box::new(e),
    };
    let bad_z = || Event::Gaussian {
        noise_multiplier: -1.0,
    };
    let tnb = Selection::truncated_negative_binomial(0.5, 0.1).unwrap();
    vec![
        Event::NoOp,
        Event::NonPrivate,
        pure(),
        approx(),
        Event::EpsilonDelta {
            epsilon: -1.0,
            delta: 0.0,
        },
        Event::EpsilonDelta {
            epsilon: -1.0,
            delta: 0.1,
        },
        g(),
        bad_z(),
        Event::Gaussian {
            noise_multiplier: f64::NAN,
        },
        op(),
        Event::ObjPert(ObjPert {
            sigma: 1.0,
            lambda: 0.5,
            beta: 1.0,
            lipschitz: 1.0,
        }),
        poisson(0.1, g()),
        poisson(0.1, op()),
        poisson(0.1, Event::NonPrivate),
        poisson(0.1, Event::NoOp),
        poisson(0.1, pure()),
        poisson(1.0, op()),
        poisson(1.0, Event::NonPrivate),
        poisson(1.0, approx()),
        poisson(1.0, poisson(0.1, g())),
        poisson(1.0, poisson(0.1, op())),
        poisson(1.0, wor()),
        poisson(0.1, wor()),
        poisson(0.1, bad_z()),
        Event::PoissonSampled {
            rate: 1.5,
            event: Box::new(g()),
        },
        Event::PoissonSampled {
            rate: 0.0,
            event: Box::new(op()),
        },
        swor(0.1, g()),
        swor(1.0, g()),
        swor(0.1, Event::NoOp),
        swor(0.1, Event::NonPrivate),
        swor(1.0, op()),
        swor(0.1, sg()),
        swor(0.1, bad_z()),
        Event::SampledWithoutReplacement {
            rate: 2.0,
            event: Box::new(g()),
        },
        swr(36_000, 1000, pure()),
        swr(36_000, 1000, pure()).self_composed(50),
        swr(1, 3, pure()),
        swr(100, 0, pure()),
        swr(0, 10, pure()),
        swr(100, 2_000_000, pure()),
        swr(100, 10, approx()),
        swr(100, 10, g()),
        swr(100, 10, Event::NoOp),
        swr(
            100,
            10,
            Event::EpsilonDelta {
                epsilon: -1.0,
                delta: 0.0,
            },
        ),
        Event::Composed(vec![swr(100, 10, pure()), wor()]),
        Event::Composed(vec![swr(100, 10, pure()), sg()]),
        g().self_composed(0),
        wor(),
        poisson(0.1, op()).self_composed(5),
        Event::NonPrivate.self_composed(2),
        bad_z().self_composed(3),
        Event::Composed(vec![]),
        Event::Composed(vec![g(), op(), pure()]),
        Event::Composed(vec![wor(), sg()]),
        Event::Composed(vec![Event::NoOp, Event::NonPrivate, wor()]),
        Event::Composed(vec![bad_z(), poisson(0.1, op())]),
        Event::Composed(vec![wor(), poisson(0.1, op())]),
        Event::Composed(vec![sg(), approx(), bad_z()]),
        Event::Mixture(vec![]),
        Event::Mixture(vec![g(), sg(), Event::epsilon_delta(0.3, 0.0).unwrap()]),
        Event::Mixture(vec![wor(), sg()]),
        Event::Mixture(vec![g(), Event::NonPrivate]),
        Event::Mixture(vec![Event::Mixture(vec![])]),
        Event::Mixture(vec![g(), approx()]),
        selection(),
        Event::NonPrivate.repeat_and_select(tnb),
        Event::NoOp.repeat_and_select(tnb),
        poisson(0.1, op()).repeat_and_select(tnb),
        wor().repeat_and_select(tnb),
        g().repeat_and_select(Selection::Poisson { mu: -1.0 }),
        g().repeat_and_select(Selection::TruncatedNegativeBinomial {
            eta: 0.5,
            gamma: 1.0,
        }),
        Event::Composed(vec![
            Event::Mixture(vec![g(), sg().repeat_and_select(tnb)]),
            poisson(1.0, Event::Composed(vec![op(), Event::NoOp])),
            swor(0.05, Event::gaussian(2.0).unwrap()).self_composed(0),
        ])
        .self_composed(3),
        Event::Composed(vec![
            Event::Mixture(vec![g(), sg().repeat_and_select(tnb)]),
            poisson(1.0, Event::Composed(vec![op(), Event::NoOp])),
            poisson(0.05, Event::gaussian(2.0).unwrap()).self_composed(0),
        ])
        .self_composed(3),
        Event::Composed(vec![
            Event::Mixture(vec![g(), sg().repeat_and_select(tnb)]),
            poisson(1.0, Event::Composed(vec![op(), poisson(0.5, pure())])),
        ])
        .self_composed(3),
        Event::Composed(vec![Event::Mixture(vec![]), poisson(0.1, op())]),
        Event::Mixture(vec![swor(0.1, bad_z()), sg()]),
    ]
}

/// `supports` is exactly "would `compose` accept it", with the same error when not, on a fresh
/// accountant and after each relation; `curve_of` fails exactly where a fresh `compose` does.
/// The events reach every branch of the dispatch, including failures that only the
/// computation finds (fields out of range, an empty mixture).
#[test]
fn rdp_supports_is_exactly_what_compose_accepts() {
    let rdp = RdpAccountant::new();
    let events = rdp_events();
    let mut kinds: Vec<_> = events.iter().map(Event::kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(kinds.len(), 12, "every variant: {kinds:?}");
    let preloads = [
        None,
        Some(Event::NoOp),
        Some(Event::NonPrivate),
        Some(wor()),
        Some(Event::dpsgd(0.01, 1.1, 200).unwrap()),
    ];
    let (mut accepted, mut unsupported, mut invalid) = (0, 0, 0);
    for pre in &preloads {
        let mut a = rdp.fresh();
        if let Some(pre) = pre {
            a.compose(pre, 1).unwrap();
        }
        for e in &events {
            let what = format!("{} after {:?}", e.kind(), pre.as_ref().map(Event::kind));
            let s = a.supports(e);
            let c = a.clone().compose(e, 1).map(|_| ());
            match (&s, &c) {
                (Ok(()), Ok(())) => accepted += 1,
                // Debug, not ==: an out-of-range NaN field is not equal to itself.
                (Err(x), Err(y)) => {
                    assert_eq!(format!("{x:?}"), format!("{y:?}"), "{what}");
                    match x {
                        DpError::Unsupported { .. } => unsupported += 1,
                        _ => invalid += 1,
                    }
                }
                _ => panic!("{what}: supports {s:?}, compose {c:?}"),
            }
            if pre.is_none() {
                let curve = a.curve_of(e).map(|_| ());
                assert_eq!(format!("{curve:?}"), format!("{c:?}"), "curve_of {what}");
            }
        }
    }
    assert!(
        accepted > 0 && unsupported > 0 && invalid > 0,
        "{accepted} {unsupported} {invalid}"
    );
}
