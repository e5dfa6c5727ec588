//! Tests of the external event vocabulary: round trips, every refusal, and that a parsed
//! event is accounted exactly as the same event built in Rust.

use serde_json::{Value, json};

use crate::accounting::event::{Event, Neighbours};
use crate::accounting::event_json::{
    MAX_DEPTH, MAX_NODES, parse, parse_relation, parse_str, relation_name, to_json,
};
use crate::accounting::private_selection::Selection;
use crate::accounting::{PldAccountant, RdpAccountant, epsilon_of};

const AR: Neighbours = Neighbours::AddRemove;
const R1: Neighbours = Neighbours::ReplaceOne;

fn dpsgd_json(q: f64, z: f64, t: u64) -> Value {
    json!({"type": "SelfComposed", "count": t, "event": {"type": "PoissonSampled",
        "sampling_probability": q, "event": {"type": "Gaussian", "noise_multiplier": z}}})
}

fn err(v: Value, relation: Neighbours) -> String {
    match parse(&v, relation, Some(1000)) {
        Ok(e) => panic!("accepted {v} as {e:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_reference_dpsgd_declaration_parses_to_dpsgd() {
    let e = parse(&dpsgd_json(0.01, 1.1, 1000), AR, None).unwrap();
    assert_eq!(e, Event::dpsgd(0.01, 1.1, 1000).unwrap());
}

#[test]
fn events_round_trip_through_json() {
    let events = [
        Event::NoOp,
        Event::NonPrivate,
        Event::epsilon_delta(0.5, 0.0).unwrap(),
        Event::epsilon_delta(1.25, 1e-7).unwrap(),
        Event::gaussian(0.7).unwrap(),
        Event::dpsgd(0.0123, 1.37, 4321).unwrap(),
        Event::Composed(vec![
            Event::dpsgd(0.1, 2.0, 10).unwrap(),
            Event::gaussian(3.0).unwrap().self_composed(0),
            Event::epsilon_delta(0.1, 0.0).unwrap(),
            Event::NoOp,
        ]),
    ];
    for e in events {
        let v = to_json(&e, None).unwrap();
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(parse_str(&text, AR, None).unwrap(), e, "{text}");
    }
    let wor = Event::dpsgd_without_replacement(0.25, 2.5, 7).unwrap();
    let v = to_json(&wor, Some(1000)).unwrap();
    assert_eq!(v["event"]["sample_size"], 250);
    assert_eq!(parse(&v, R1, Some(1000)).unwrap(), wor);
    assert!(to_json(&wor, None).is_err());
    assert!(to_json(&wor, Some(3)).is_err(), "0.25 is not m/3");
    // With replacement: n and m are the event's own, more draws than rows allowed.
    let swr = Event::sampled_with_replacement(40, 50, Event::gaussian(0.5).unwrap())
        .unwrap()
        .self_composed(7);
    let v = to_json(&swr, None).unwrap();
    assert_eq!(v["event"]["sample_size"], 50);
    assert_eq!(parse(&v, R1, Some(40)).unwrap(), swr);
}

#[test]
fn laplace_is_pure_epsilon_one_over_its_multiplier() {
    let v = json!({"type": "Laplace", "noise_multiplier": 4.0});
    let e = parse(&v, AR, None).unwrap();
    assert_eq!(e, Event::epsilon_delta(0.25, 0.0).unwrap());
    // Written back it is the EpsilonDelta it stands for, which parses to itself.
    let back = to_json(&e, None).unwrap();
    assert_eq!(back["type"], "EpsilonDelta");
    assert_eq!(parse(&back, AR, None).unwrap(), e);
}

#[test]
fn relations_have_dp_accounting_names() {
    for n in [AR, R1] {
        assert_eq!(parse_relation(relation_name(n)).unwrap(), n);
    }
    assert!(parse_relation("REPLACE_SPECIAL").is_err());
    assert!(parse_relation("add_remove").is_err());
}

#[test]
fn every_refusal_names_the_field() {
    let g = |z: Value| json!({"type": "Gaussian", "noise_multiplier": z});
    let cases: Vec<(Value, Neighbours, &str)> = vec![
        (
            json!({"type": "Gaussain", "noise_multiplier": 1.0}),
            AR,
            "event.type: unknown event type \"Gaussain\"",
        ),
        (
            json!({"type": "ZCDp", "rho": 1.0, "xi": 0.0}),
            AR,
            "unknown event type \"ZCDp\"",
        ),
        (
            json!({"type": "Unsupported"}),
            AR,
            "unknown event type \"Unsupported\"",
        ),
        (
            json!({"noise_multiplier": 1.0}),
            AR,
            "event: no \"type\" field",
        ),
        (json!({"type": 3}), AR, "event.type: must be a string"),
        (json!([1, 2]), AR, "event: an event must be a JSON object"),
        (
            json!({"type": "Gaussian"}),
            AR,
            "event: a Gaussian event needs the field \"noise_multiplier\"",
        ),
        (
            json!({"type": "Gaussian", "noise_multiplier": 1.0, "sensitivity": 2.0}),
            AR,
            "event: unknown field \"sensitivity\" in a Gaussian event",
        ),
        (
            json!({"type": "Laplace", "parameter": 1.0}),
            AR,
            "needs the field \"noise_multiplier\"",
        ),
        (g(json!(0.0)), AR, "event.noise_multiplier = 0: must be > 0"),
        (g(json!(-1.0)), AR, "event.noise_multiplier = -1"),
        (
            g(json!("Infinity")),
            AR,
            "event.noise_multiplier: must be a number",
        ),
        (g(json!("NaN")), AR, "must be a number"),
        (g(Value::Null), AR, "must be a number"),
        (
            json!({"type": "EpsilonDelta", "epsilon": -0.1, "delta": 0.0}),
            AR,
            "event.epsilon = -0.1",
        ),
        (
            json!({"type": "EpsilonDelta", "epsilon": 1.0, "delta": 1.0}),
            AR,
            "event.delta = 1: must be in [0, 1)",
        ),
        (
            json!({"type": "NoOp", "epsilon": 0}),
            AR,
            "unknown field \"epsilon\" in a NoOp event",
        ),
        (
            json!({"type": "SelfComposed", "count": -3, "event": {"type": "NoOp"}}),
            AR,
            "event.count: must be a non-negative integer, got -3",
        ),
        (
            json!({"type": "SelfComposed", "count": 2.5, "event": {"type": "NoOp"}}),
            AR,
            "event.count: must be a non-negative integer",
        ),
        (
            json!({"type": "SelfComposed", "count": "7", "event": {"type": "NoOp"}}),
            AR,
            "event.count: must be a non-negative integer",
        ),
        (
            json!({"type": "SelfComposed", "event": {"type": "NoOp"}}),
            AR,
            "needs the field \"count\"",
        ),
        (
            dpsgd_json(1.5, 1.0, 10),
            AR,
            "event.event.sampling_probability = 1.5: must be in (0, 1]",
        ),
        (dpsgd_json(0.0, 1.0, 10), AR, "sampling_probability = 0"),
        (
            dpsgd_json(0.1, -2.0, 10),
            AR,
            "event.event.event.noise_multiplier = -2",
        ),
        (
            dpsgd_json(0.1, 1.0, 10),
            R1,
            "event.event: a PoissonSampled event is accounted under ADD_OR_REMOVE_ONE only, but the learner declared REPLACE_ONE",
        ),
        (
            json!({"type": "SampledWithoutReplacement", "source_dataset_size": 1000, "sample_size": 10, "event": g(json!(1.0))}),
            AR,
            "accounted under REPLACE_ONE only",
        ),
        (
            json!({"type": "SampledWithoutReplacement", "source_dataset_size": 999, "sample_size": 10, "event": g(json!(1.0))}),
            R1,
            "source_dataset_size = 999 but the training set has 1000 rows",
        ),
        (
            json!({"type": "SampledWithoutReplacement", "source_dataset_size": 1000, "sample_size": 1001, "event": g(json!(1.0))}),
            R1,
            "sample_size = 1001 must be in 1..=source_dataset_size",
        ),
        (
            json!({"type": "SampledWithReplacement", "source_dataset_size": 1000, "sample_size": 10, "event": g(json!(1.0))}),
            AR,
            "event: a SampledWithReplacement event is accounted under REPLACE_ONE only",
        ),
        (
            json!({"type": "SampledWithReplacement", "source_dataset_size": 999, "sample_size": 10, "event": g(json!(1.0))}),
            R1,
            "source_dataset_size = 999 but the training set has 1000 rows",
        ),
        (
            json!({"type": "SampledWithReplacement", "source_dataset_size": 0, "sample_size": 10, "event": g(json!(1.0))}),
            R1,
            "source_dataset_size = 0 must be >= 1",
        ),
        (
            json!({"type": "SampledWithReplacement", "source_dataset_size": 1000, "sample_size": 1000001, "event": g(json!(1.0))}),
            R1,
            "sample_size = 1000001 at most 1000000",
        ),
        (
            json!({"type": "SampledWithReplacement", "source_dataset_size": 1000, "sample_size": 10, "event": {"type": "EpsilonDelta", "epsilon": 1.0, "delta": 0.0}}),
            R1,
            "event.event: a EpsilonDelta event cannot sit inside a sampling event",
        ),
        (
            json!({"type": "PoissonSampled", "sampling_probability": 0.1, "event": {"type": "EpsilonDelta", "epsilon": 1.0, "delta": 0.0}}),
            AR,
            "event.event: a EpsilonDelta event cannot sit inside a sampling event",
        ),
        (
            json!({"type": "PoissonSampled", "sampling_probability": 0.1, "event": {"type": "SelfComposed", "count": 2, "event": {"type": "Laplace", "noise_multiplier": 1.0}}}),
            AR,
            "event.event.event: a Laplace event cannot sit inside",
        ),
        (
            json!({"type": "Composed", "events": {"type": "NoOp"}}),
            AR,
            "event.events: must be a list of events",
        ),
        (
            json!({"type": "Composed", "events": [{"type": "NoOp"}, {"type": "Nope"}]}),
            AR,
            "event.events[1].type: unknown event type",
        ),
    ];
    for (v, relation, needle) in cases {
        let e = err(v.clone(), relation);
        assert!(e.contains(needle), "{v}: {e:?} lacks {needle:?}");
    }
}

#[test]
fn deep_or_huge_declarations_are_refused() {
    let mut v = json!({"type": "NoOp"});
    for _ in 0..MAX_DEPTH - 1 {
        v = json!({"type": "SelfComposed", "count": 1, "event": v});
    }
    assert_eq!(parse(&v, AR, None).unwrap().kind(), "SelfComposed");
    let deeper = json!({"type": "SelfComposed", "count": 1, "event": v});
    assert!(err(deeper, AR).contains("nested deeper than 16"));
    let many = json!({"type": "Composed", "events": vec![json!({"type": "NoOp"}); MAX_NODES]});
    assert!(err(many, AR).contains("more than 10000 events"));
    // Text beyond serde_json's own recursion limit is not JSON at all.
    let text = "[".repeat(10_000);
    assert!(
        parse_str(&text, AR, None)
            .unwrap_err()
            .to_string()
            .contains("not JSON")
    );
    // JSON has no NaN or infinity, so a learner's `float('inf')` never parses.
    for bad in [
        r#"{"type":"Gaussian","noise_multiplier":NaN}"#,
        r#"{"type":"Gaussian","noise_multiplier":Infinity}"#,
        r#"{"type":"Gaussian","noise_multiplier":1e999}"#,
    ] {
        assert!(parse_str(bad, AR, None).is_err(), "{bad}");
    }
}

#[test]
fn a_parsed_dpsgd_event_is_accounted_as_the_rust_one() {
    let (q, z, t, delta) = (0.007, 0.9, 2500, 1e-6);
    let built = Event::dpsgd(q, z, t).unwrap();
    let text = serde_json::to_string(&dpsgd_json(q, z, t)).unwrap();
    let parsed = parse_str(&text, AR, None).unwrap();
    let rdp = |e: &Event| epsilon_of(RdpAccountant::new(), e, delta).unwrap();
    let pld = |e: &Event| epsilon_of(PldAccountant::new(), e, delta).unwrap();
    assert_eq!(rdp(&parsed), rdp(&built));
    assert_eq!(pld(&parsed), pld(&built));
    assert!(rdp(&parsed) > 0.5 && rdp(&parsed).is_finite());
}

#[test]
fn pure_releases_certify_their_epsilon_and_compose_by_their_sum_at_top_level() {
    use crate::accounting::Certifier;
    let e = parse(
        &json!({"type": "Composed", "events": [
            {"type": "EpsilonDelta", "epsilon": 0.5, "delta": 0.0},
            {"type": "Laplace", "noise_multiplier": 4.0},
            {"type": "NoOp"}]}),
        R1,
        None,
    )
    .unwrap();
    let c = Certifier::new();
    assert!((c.epsilon(&e, 1e-5).unwrap() - 0.75).abs() < 1e-15);
    // The RDP accountant alone pays a conversion term on top of a single pure release.
    let one = Event::epsilon_delta(1.0, 0.0).unwrap();
    assert!(epsilon_of(RdpAccountant::new(), &one, 1e-5).unwrap() > 1.0);
    assert_eq!(c.epsilon(&one, 1e-5).unwrap(), 1.0);
}

/// dp_accounting's RepeatAndSelectDpEvent: `shape` null is K ~ Poisson(mean), a number the
/// truncated negative binomial of that shape and mean; both relations; bad fields named.
#[test]
fn repeat_and_select_reads_dp_accountings_fields() {
    let inner = json!({"type": "Gaussian", "noise_multiplier": 2.0});
    let poisson = json!({"type": "RepeatAndSelect", "event": inner, "mean": 10.0, "shape": null});
    for relation in [Neighbours::AddRemove, Neighbours::ReplaceOne] {
        let e = parse(&poisson, relation, None).unwrap();
        assert_eq!(
            e,
            Event::RepeatAndSelect {
                event: Box::new(Event::Gaussian {
                    noise_multiplier: 2.0
                }),
                selection: Selection::poisson(10.0).unwrap(),
            }
        );
    }
    let geometric = json!({"type": "RepeatAndSelect", "event": inner, "mean": 10.0, "shape": 1.0});
    let Event::RepeatAndSelect { selection, .. } =
        parse(&geometric, Neighbours::AddRemove, None).unwrap()
    else {
        panic!("not a selection")
    };
    assert!((selection.mean() - 10.0).abs() < 1e-8, "{selection:?}");
    for (bad, field) in [
        (
            json!({"type": "RepeatAndSelect", "event": inner, "mean": 0.0, "shape": null}),
            "mean",
        ),
        (
            json!({"type": "RepeatAndSelect", "event": inner, "mean": 5.0, "shape": -1.0}),
            "shape",
        ),
        (
            json!({"type": "RepeatAndSelect", "event": inner, "mean": 5.0}),
            "shape",
        ),
    ] {
        let e = err(bad, Neighbours::AddRemove);
        assert!(e.contains(field), "{field}: {e}");
    }
}
