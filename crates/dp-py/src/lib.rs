//! `dpbench._native`: dp-core's accountants, calibration and audit statistics for Python.
//!
//! Events cross the boundary as JSON text in the vocabulary of
//! `dp_core::accounting::event_json` (dp_accounting's `DpEvent` classes); the Python layer
//! (`python/dpbench/`) turns dicts and dp_accounting objects into that text. Every error is a
//! `ValueError` carrying dp-core's message, which names the offending field.

use std::cell::RefCell;
use std::sync::OnceLock;

use dp_core::accounting::accountant::Accountant;
use dp_core::accounting::calibrate::{calibrate_decreasing, calibrate_increasing};
use dp_core::accounting::event_json::{parse_relation, parse_str};
use dp_core::accounting::subsampled_gaussian::dpsgd_bracket;
use dp_core::accounting::{
    Certifier, Event, Neighbours, PldAccountant, RdpAccountant, Target, epsilon_of,
};
use dp_core::audit::threshold::{Counts, SELECTION_GAMMA, Statistic, threshold_test};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// One certifier for the process: it remembers what it certified, and events repeat.
fn certifier() -> &'static Certifier {
    static CERTIFIER: OnceLock<Certifier> = OnceLock::new();
    CERTIFIER.get_or_init(Certifier::new)
}

fn event(text: &str, relation: &str) -> PyResult<Event> {
    let relation: Neighbours = parse_relation(relation).map_err(value_error)?;
    parse_str(text, relation, None).map_err(value_error)
}

/// ε at `delta` by one accountant, or the smallest of them (`best`: what dp-bench certifies).
fn epsilon_by(e: &Event, delta: f64, accountant: &str) -> dp_core::Result<f64> {
    match accountant {
        "best" => certifier().epsilon(e, delta),
        "rdp" => epsilon_of(RdpAccountant::new(), e, delta),
        "pld" => epsilon_of(PldAccountant::new(), e, delta),
        other => Err(dp_core::DpError::Invalid(format!(
            "accountant {other:?} is not one of \"best\", \"rdp\", \"pld\""
        ))),
    }
}

fn delta_of<A: Accountant>(mut a: A, e: &Event, epsilon: f64) -> dp_core::Result<f64> {
    a.compose(e, 1)?;
    a.delta(epsilon)
}

/// ε at δ of an event (JSON text) under `relation`, by `accountant` (best, rdp or pld).
#[pyfunction]
fn epsilon(event_json: &str, delta: f64, relation: &str, accountant: &str) -> PyResult<f64> {
    epsilon_by(&event(event_json, relation)?, delta, accountant).map_err(value_error)
}

/// δ at ε of an event (JSON text): by one accountant, or (`best`) the smallest δ of the bounds
/// that support it (dp-core's `Certifier::delta`, with the revealed closed form for batches
/// drawn with replacement), each a valid upper bound; 1 for a release without guarantee.
#[pyfunction]
fn delta(event_json: &str, epsilon: f64, relation: &str, accountant: &str) -> PyResult<f64> {
    let e = event(event_json, relation)?;
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(value_error(format!(
            "epsilon = {epsilon} must be >= 0 and finite"
        )));
    }
    match accountant {
        "rdp" => delta_of(RdpAccountant::new(), &e, epsilon).map_err(value_error),
        "pld" => delta_of(PldAccountant::new(), &e, epsilon).map_err(value_error),
        "best" => certifier().delta(&e, epsilon).map_err(value_error),
        other => Err(value_error(format!(
            "accountant {other:?} is not one of \"best\", \"rdp\", \"pld\""
        ))),
    }
}

/// The smallest noise multiplier z whose DP-SGD event (`steps` Poisson-sampled Gaussian steps
/// at `sampling_probability`, add/remove) `accountant` certifies at (ε, δ); re-verified.
#[pyfunction]
fn dpsgd_noise_multiplier(
    sampling_probability: f64,
    steps: u64,
    epsilon: f64,
    delta: f64,
    accountant: &str,
) -> PyResult<f64> {
    let target = Target::new(epsilon, delta).map_err(value_error)?;
    let b = dpsgd_bracket(sampling_probability, steps, target).map_err(value_error)?;
    let eps_of = |z: f64| {
        let e = Event::dpsgd(sampling_probability, z, steps)?;
        epsilon_by(&e, delta, accountant)
    };
    calibrate_decreasing(eps_of, epsilon, b.start, b.lo, b.hi).map_err(value_error)
}

/// A parameter of any mechanism: `event_of(x)` returns the event (JSON text) of parameter x;
/// ε at δ must be non-increasing in x (`increasing = False`: the smallest x in (lo, hi]
/// certified at ε, e.g. a noise scale) or non-decreasing (`True`: the largest, e.g. a number
/// of steps). The answer is re-verified: its ε is never above the target.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn calibrate(
    event_of: &Bound<'_, PyAny>,
    epsilon: f64,
    delta: f64,
    relation: &str,
    accountant: &str,
    start: f64,
    lo: f64,
    hi: f64,
    increasing: bool,
) -> PyResult<f64> {
    Target::new(epsilon, delta).map_err(value_error)?;
    // A Python exception raised inside the search stops it and is raised as it was.
    let raised: RefCell<Option<PyErr>> = RefCell::new(None);
    let eps_of = |x: f64| -> dp_core::Result<f64> {
        let text: PyResult<String> = event_of.call1((x,)).and_then(|r| r.extract());
        let text = text.map_err(|e| {
            *raised.borrow_mut() = Some(e);
            dp_core::DpError::Invalid("event_of raised".into())
        })?;
        let e = event(&text, relation).map_err(|e| {
            *raised.borrow_mut() = Some(e);
            dp_core::DpError::Invalid("event_of returned a bad event".into())
        })?;
        epsilon_by(&e, delta, accountant)
    };
    let found = if increasing {
        calibrate_increasing(eps_of, epsilon, start, lo, hi)
    } else {
        calibrate_decreasing(eps_of, epsilon, start, lo, hi)
    };
    if let Some(e) = raised.into_inner() {
        return Err(e);
    }
    found.map_err(value_error)
}

fn gamma_of(confidence: f64) -> PyResult<f64> {
    if confidence > 0.0 && confidence < 1.0 {
        Ok(1.0 - confidence)
    } else {
        Err(value_error(format!(
            "confidence = {confidence} must be in (0, 1)"
        )))
    }
}

fn statistic_of(name: &str) -> PyResult<Statistic> {
    match name {
        "threshold" => Ok(Statistic::Threshold),
        "gdp" => Ok(Statistic::Gdp),
        other => Err(value_error(format!(
            "statistic {other:?} is not one of \"threshold\", \"gdp\""
        ))),
    }
}

/// `statistic`'s bound on ε at δ from one fixed test's counts ([`Statistic::bound`]).
fn bound(
    statistic: Statistic,
    (false_positives, negatives, false_negatives, positives): (u64, u64, u64, u64),
    delta: f64,
    confidence: f64,
) -> PyResult<f64> {
    let c = Counts {
        false_positives,
        negatives,
        false_negatives,
        positives,
    };
    c.validate().map_err(value_error)?;
    statistic
        .bound(c, delta, gamma_of(confidence)?)
        .map_err(value_error)
}

/// The Clopper–Pearson threshold bound on ε at δ from one fixed test's error counts, valid
/// with probability `confidence` for every mechanism (audit.md §1).
#[pyfunction]
fn threshold_bound(
    false_positives: u64,
    negatives: u64,
    false_negatives: u64,
    positives: u64,
    delta: f64,
    confidence: f64,
) -> PyResult<f64> {
    let counts = (false_positives, negatives, false_negatives, positives);
    bound(Statistic::Threshold, counts, delta, confidence)
}

/// Nasr et al. 2023's Gaussian-DP estimate from the same counts: a lower bound only where the
/// mechanism's trade-off curve is exactly Gaussian (audit.md §5).
#[pyfunction]
fn gdp_bound(
    false_positives: u64,
    negatives: u64,
    false_negatives: u64,
    positives: u64,
    delta: f64,
    confidence: f64,
) -> PyResult<f64> {
    let counts = (false_positives, negatives, false_negatives, positives);
    bound(Statistic::Gdp, counts, delta, confidence)
}

/// Steinke, Nasr & Jagielski 2023's one-run bound: `correct` of `guesses` guesses right
/// about `canaries` canaries, each included with probability ½ independently.
#[pyfunction]
fn one_run_bound(
    canaries: u64,
    guesses: u64,
    correct: u64,
    delta: f64,
    confidence: f64,
) -> PyResult<f64> {
    dp_core::audit::one_run::epsilon_lower_bound(
        canaries,
        guesses,
        correct,
        delta,
        gamma_of(confidence)?,
    )
    .map_err(value_error)
}

/// The threshold test dp-bench runs on two score samples (rule "score > t means D′"): the
/// threshold chosen on the first half of each, the bound computed on the second halves.
#[pyfunction]
fn threshold_audit<'py>(
    py: Python<'py>,
    scores_d: Vec<f64>,
    scores_d_prime: Vec<f64>,
    delta: f64,
    confidence: f64,
    statistic: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let statistic = statistic_of(statistic)?;
    let gamma = gamma_of(confidence)?;
    let t = threshold_test(
        &scores_d,
        &scores_d_prime,
        statistic,
        delta,
        (gamma, SELECTION_GAMMA),
    )
    .map_err(value_error)?;
    // The threshold test's own bound is `Statistic::Threshold.bound` of its counts.
    let epsilon = statistic
        .bound(t.counts, delta, gamma)
        .map_err(value_error)?;
    let out = PyDict::new(py);
    out.set_item("epsilon", epsilon)?;
    out.set_item("threshold", t.threshold)?;
    out.set_item("false_positives", t.counts.false_positives)?;
    out.set_item("negatives", t.counts.negatives)?;
    out.set_item("false_negatives", t.counts.false_negatives)?;
    out.set_item("positives", t.counts.positives)?;
    Ok(out)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(delta, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_noise_multiplier, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_bound, m)?)?;
    m.add_function(wrap_pyfunction!(gdp_bound, m)?)?;
    m.add_function(wrap_pyfunction!(one_run_bound, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_audit, m)?)?;
    Ok(())
}
