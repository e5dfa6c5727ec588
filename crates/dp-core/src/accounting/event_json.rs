//! The JSON form of an [`Event`], for learners outside this project that declare what they ran
//! (`docs/external-learners.md`). Modelled on Google dp_accounting's `DpEvent` classes: `type`
//! is the class name without `DpEvent`, the fields are the class's fields, e.g. DP-SGD:
//! ```json
//! {"type":"SelfComposed","count":1000,"event":{"type":"PoissonSampled",
//!   "sampling_probability":0.01,"event":{"type":"Gaussian","noise_multiplier":1.1}}}
//! ```
//! A declared event is a *description* that our accountants turn into ε, never a number taken
//! on trust; so the vocabulary is a closed whitelist and everything outside it is refused with
//! the path of the offending field: unknown types, missing or extra fields, numbers that are
//! strings, non-finite or out of range, non-integer or negative counts, nesting deeper than
//! [`MAX_DEPTH`] or more than [`MAX_NODES`] events.
//!
//! The whitelist: `NoOp`, `NonPrivate`, `EpsilonDelta{epsilon, delta}`,
//! `Gaussian{noise_multiplier}`, `Laplace{noise_multiplier}`,
//! `PoissonSampled{sampling_probability, event}`,
//! `SampledWithoutReplacement{source_dataset_size, sample_size, event}`,
//! `SampledWithReplacement{source_dataset_size, sample_size, event}` (REPLACE_ONE; around a
//! Gaussian, whose bound reveals the replaced row's multiplicity: valid and loose),
//! `SelfComposed{count, event}`, `Composed{events}`, `RepeatAndSelect{event, mean, shape}`
//! (read only: `shape` null for ∞).
//!
//! Neighbouring relation: dp_accounting's RDP accountant accepts `PoissonSampled` only under
//! ADD_OR_REMOVE_ONE and `SampledWithoutReplacement` only under REPLACE_ONE, and so do we:
//! [`parse`] takes the relation the learner declared and refuses a sampling event of the other
//! one. Gaussian, Laplace and EpsilonDelta carry no relation: their parameters are read in the
//! units of the declared one (a clipped sum has sensitivity C under add/remove, 2C under
//! replace-one), and the ε certified for them is an ε for that relation.

use serde_json::{Map, Value, json};

use crate::accounting::event::{Event, Neighbours};
use crate::accounting::private_selection::Selection;
use crate::accounting::with_replacement::MAX_DRAWS;
use crate::error::{DpError, Result};

/// Deepest nesting of events accepted (DP-SGD is 3 deep; a tuned run a few more).
pub const MAX_DEPTH: usize = 16;

/// Most events in one declaration (a `Composed` list of per-step events stays well below).
pub const MAX_NODES: usize = 10_000;

/// dp_accounting's name of a neighbouring relation (`NeighboringRelation`).
pub fn relation_name(n: Neighbours) -> &'static str {
    match n {
        Neighbours::AddRemove => "ADD_OR_REMOVE_ONE",
        Neighbours::ReplaceOne => "REPLACE_ONE",
    }
}

/// The relation of a dp_accounting name; REPLACE_SPECIAL and anything else are refused.
pub fn parse_relation(name: &str) -> Result<Neighbours> {
    match name {
        "ADD_OR_REMOVE_ONE" => Ok(Neighbours::AddRemove),
        "REPLACE_ONE" => Ok(Neighbours::ReplaceOne),
        other => Err(DpError::Invalid(format!(
            "relation {other:?} is not one of \"ADD_OR_REMOVE_ONE\", \"REPLACE_ONE\""
        ))),
    }
}

/// Parses a declared event under `relation`. `dataset_size`, when known, must equal the
/// `source_dataset_size` of every `SampledWithoutReplacement` (its rate m/n is only the
/// mechanism's if n is the real training size).
pub fn parse(value: &Value, relation: Neighbours, dataset_size: Option<u64>) -> Result<Event> {
    let mut p = Parser {
        relation,
        dataset_size,
        nodes: 0,
    };
    p.event(value, "event", 1, false)
}

/// Parses a declared event from JSON text (see [`parse`]).
pub fn parse_str(text: &str, relation: Neighbours, dataset_size: Option<u64>) -> Result<Event> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| DpError::Invalid(format!("event: not JSON ({e})")))?;
    parse(&value, relation, dataset_size)
}

struct Parser {
    relation: Neighbours,
    dataset_size: Option<u64>,
    nodes: usize,
}

/// The fields of one event object, consumed as they are read so that extras can be named.
struct Fields<'a> {
    map: Map<String, Value>,
    path: &'a str,
    kind: &'a str,
}

impl Fields<'_> {
    fn take(&mut self, name: &str) -> Result<Value> {
        self.map.remove(name).ok_or_else(|| {
            DpError::Invalid(format!(
                "{}: a {} event needs the field {name:?}",
                self.path, self.kind
            ))
        })
    }

    /// A finite number in range; `allowed` says the range for the message.
    fn number(&mut self, name: &str, ok: fn(f64) -> bool, allowed: &str) -> Result<f64> {
        let v = self.take(name)?;
        let path = format!("{}.{name}", self.path);
        let x = v
            .as_f64()
            .ok_or_else(|| DpError::Invalid(format!("{path}: must be a number, got {v}")))?;
        if !(x.is_finite() && ok(x)) {
            return Err(DpError::Invalid(format!("{path} = {x}: {allowed}")));
        }
        Ok(x)
    }

    /// A non-negative integer (a JSON integer: 3.0 or "3" are refused).
    fn count(&mut self, name: &str) -> Result<u64> {
        let v = self.take(name)?;
        v.as_u64().ok_or_else(|| {
            DpError::Invalid(format!(
                "{}.{name}: must be a non-negative integer, got {v}",
                self.path
            ))
        })
    }

    /// Refuses whatever field was not read.
    fn done(self) -> Result<()> {
        if let Some(extra) = self.map.keys().next() {
            return Err(DpError::Invalid(format!(
                "{}: unknown field {extra:?} in a {} event",
                self.path, self.kind
            )));
        }
        Ok(())
    }
}

const TYPES: &str = "NoOp, NonPrivate, EpsilonDelta, Gaussian, Laplace, PoissonSampled, \
                     SampledWithoutReplacement, SampledWithReplacement, SelfComposed, Composed, \
                     RepeatAndSelect";

impl Parser {
    /// One event at `path`, `depth` deep; `sampled` when inside a sampling event.
    fn event(&mut self, v: &Value, path: &str, depth: usize, sampled: bool) -> Result<Event> {
        if depth > MAX_DEPTH {
            return Err(DpError::Invalid(format!(
                "{path}: events nested deeper than {MAX_DEPTH}"
            )));
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(DpError::Invalid(format!(
                "{path}: more than {MAX_NODES} events in one declaration"
            )));
        }
        let Some(obj) = v.as_object() else {
            return Err(DpError::Invalid(format!(
                "{path}: an event must be a JSON object, got {v}"
            )));
        };
        let mut map = obj.clone();
        let kind = match map.remove("type") {
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(DpError::Invalid(format!(
                    "{path}.type: must be a string, got {other}"
                )));
            }
            None => return Err(DpError::Invalid(format!("{path}: no \"type\" field"))),
        };
        let mut f = Fields {
            map,
            path,
            kind: &kind,
        };
        let positive = |x: f64| x > 0.0;
        let event = match kind.as_str() {
            "NoOp" => Event::NoOp,
            "NonPrivate" => Event::NonPrivate,
            "EpsilonDelta" | "Laplace" if sampled => {
                // Subsampling amplifies a mechanism's own privacy curve, not a stated (ε, δ);
                // dp_accounting does not nest it either.
                return Err(DpError::Invalid(format!(
                    "{path}: a {kind} event cannot sit inside a sampling event (only a \
                     Gaussian can: declare the sampled mechanism's noise)"
                )));
            }
            "EpsilonDelta" => {
                let epsilon = f.number("epsilon", |x| x >= 0.0, "must be >= 0 and finite")?;
                let delta = f.number("delta", |x| (0.0..1.0).contains(&x), "must be in [0, 1)")?;
                Event::EpsilonDelta { epsilon, delta }
            }
            "Gaussian" => Event::Gaussian {
                noise_multiplier: f.number(
                    "noise_multiplier",
                    positive,
                    "must be > 0 (a release without noise is NonPrivate)",
                )?,
            },
            "Laplace" => {
                // No Laplace event in dp-core: a Laplace mechanism of scale b on a query of
                // l1 sensitivity Δ is (Δ/b)-DP (Dwork, McSherry, Nissim & Smith 2006, Prop. 1),
                // and noise_multiplier = b/Δ, so it is EpsilonDelta{1/z, 0}. Pure ε-DP is
                // accounted by basic composition or as (ε²/2)-zCDP (Bun & Steinke 2016), both
                // valid for Laplace, if looser than its exact RDP curve: the safe side.
                let z = f.number(
                    "noise_multiplier",
                    positive,
                    "must be > 0 (a release without noise is NonPrivate)",
                )?;
                Event::EpsilonDelta {
                    epsilon: 1.0 / z,
                    delta: 0.0,
                }
            }
            "PoissonSampled" => {
                self.needs(path, &kind, Neighbours::AddRemove)?;
                let rate = f.number(
                    "sampling_probability",
                    |x| x > 0.0 && x <= 1.0,
                    "must be in (0, 1]",
                )?;
                Event::PoissonSampled {
                    rate,
                    event: self.inner(&mut f, path, depth, true)?,
                }
            }
            "SampledWithoutReplacement" => {
                self.needs(path, &kind, Neighbours::ReplaceOne)?;
                let n = f.count("source_dataset_size")?;
                let m = f.count("sample_size")?;
                if n == 0 || m == 0 || m > n {
                    return Err(DpError::Invalid(format!(
                        "{path}: sample_size = {m} must be in 1..=source_dataset_size = {n}"
                    )));
                }
                self.sized(path, n)?;
                Event::SampledWithoutReplacement {
                    rate: m as f64 / n as f64,
                    event: self.inner(&mut f, path, depth, true)?,
                }
            }
            "SampledWithReplacement" => {
                self.needs(path, &kind, Neighbours::ReplaceOne)?;
                let n = f.count("source_dataset_size")?;
                let m = f.count("sample_size")?;
                if n == 0 || m > MAX_DRAWS {
                    return Err(DpError::Invalid(format!(
                        "{path}: source_dataset_size = {n} must be >= 1 and sample_size = {m} \
                         at most {MAX_DRAWS}"
                    )));
                }
                self.sized(path, n)?;
                Event::SampledWithReplacement {
                    population: n,
                    draws: m,
                    event: self.inner(&mut f, path, depth, true)?,
                }
            }
            "SelfComposed" => {
                let count = f.count("count")?;
                Event::SelfComposed {
                    event: self.inner(&mut f, path, depth, sampled)?,
                    count,
                }
            }
            "Composed" => {
                let list = f.take("events")?;
                let Some(items) = list.as_array() else {
                    return Err(DpError::Invalid(format!(
                        "{path}.events: must be a list of events, got {list}"
                    )));
                };
                let mut events = Vec::with_capacity(items.len().min(MAX_NODES));
                for (i, e) in items.iter().enumerate() {
                    let p = format!("{path}.events[{i}]");
                    events.push(self.event(e, &p, depth + 1, sampled)?);
                }
                Event::Composed(events)
            }
            "RepeatAndSelect" => {
                // dp_accounting's RepeatAndSelectDpEvent(event, mean, shape): K runs, K ~
                // Poisson(mean) when shape = ∞ (written `null`: JSON has no ∞), else the
                // truncated negative binomial of that shape and mean; the best run released.
                let mean = f.number("mean", positive, "must be > 0 and finite")?;
                let shape = f.take("shape")?;
                let selection = match shape {
                    Value::Null => Selection::poisson(mean)?,
                    v => {
                        let eta = v
                            .as_f64()
                            .filter(|x| x.is_finite() && *x >= 0.0)
                            .ok_or_else(|| {
                                DpError::Invalid(format!(
                                    "{path}.shape = {v}: must be a number >= 0, or null for \
                                     infinity (K Poisson)"
                                ))
                            })?;
                        Selection::from_shape_mean(eta, mean)
                            .map_err(|e| DpError::Invalid(format!("{path}: {e}")))?
                    }
                };
                Event::RepeatAndSelect {
                    event: self.inner(&mut f, path, depth, sampled)?,
                    selection,
                }
            }
            other => {
                return Err(DpError::Invalid(format!(
                    "{path}.type: unknown event type {other:?} (accepted: {TYPES})"
                )));
            }
        };
        f.done()?;
        Ok(event)
    }

    /// The `event` field of a wrapping event at `path` (one level deeper; `sampled` when the
    /// wrapper is, or sits inside, a sampling event).
    fn inner(
        &mut self,
        f: &mut Fields<'_>,
        path: &str,
        depth: usize,
        sampled: bool,
    ) -> Result<Box<Event>> {
        let inner = f.take("event")?;
        let at = format!("{path}.event");
        Ok(Box::new(self.event(&inner, &at, depth + 1, sampled)?))
    }

    /// Refuses a `source_dataset_size` that is not the training set's, when that is known.
    fn sized(&self, path: &str, n: u64) -> Result<()> {
        match self.dataset_size.filter(|&s| s != n) {
            Some(size) => Err(DpError::Invalid(format!(
                "{path}.source_dataset_size = {n} but the training set has {size} rows"
            ))),
            None => Ok(()),
        }
    }

    /// Refuses a sampling event whose guarantee is for the other relation.
    fn needs(&self, path: &str, kind: &str, relation: Neighbours) -> Result<()> {
        if self.relation == relation {
            return Ok(());
        }
        Err(DpError::Invalid(format!(
            "{path}: a {kind} event is accounted under {} only, but the learner declared {}",
            relation_name(relation),
            relation_name(self.relation)
        )))
    }
}

/// The JSON of `event` in the vocabulary [`parse`] reads; `dataset_size` is needed for
/// `SampledWithoutReplacement` (its JSON names n and m, the event keeps m/n). Events outside
/// the vocabulary (objective perturbation, mixtures, private selection) are an error.
pub fn to_json(event: &Event, dataset_size: Option<u64>) -> Result<Value> {
    Ok(match event {
        Event::NoOp => json!({"type": "NoOp"}),
        Event::NonPrivate => json!({"type": "NonPrivate"}),
        Event::EpsilonDelta { epsilon, delta } => {
            json!({"type": "EpsilonDelta", "epsilon": epsilon, "delta": delta})
        }
        Event::Gaussian { noise_multiplier } => {
            json!({"type": "Gaussian", "noise_multiplier": noise_multiplier})
        }
        Event::PoissonSampled { rate, event } => json!({
            "type": "PoissonSampled",
            "sampling_probability": rate,
            "event": to_json(event, dataset_size)?,
        }),
        Event::SampledWithoutReplacement { rate, event } => {
            let n = dataset_size.ok_or_else(|| {
                DpError::Invalid(
                    "SampledWithoutReplacement needs the dataset size to be written".into(),
                )
            })?;
            let m = (rate * n as f64).round() as u64;
            if m as f64 / n as f64 != *rate {
                return Err(DpError::Invalid(format!(
                    "SampledWithoutReplacement rate {rate} is not m/{n} for an integer m"
                )));
            }
            json!({
                "type": "SampledWithoutReplacement",
                "source_dataset_size": n,
                "sample_size": m,
                "event": to_json(event, dataset_size)?,
            })
        }
        Event::SampledWithReplacement {
            population,
            draws,
            event,
        } => json!({
            "type": "SampledWithReplacement",
            "source_dataset_size": population,
            "sample_size": draws,
            "event": to_json(event, dataset_size)?,
        }),
        Event::SelfComposed { event, count } => json!({
            "type": "SelfComposed",
            "count": count,
            "event": to_json(event, dataset_size)?,
        }),
        Event::Composed(events) => json!({
            "type": "Composed",
            "events": events
                .iter()
                .map(|e| to_json(e, dataset_size))
                .collect::<Result<Vec<_>>>()?,
        }),
        other => {
            return Err(DpError::Invalid(format!(
                "a {} event has no form in the external event vocabulary",
                other.kind()
            )));
        }
    })
}
