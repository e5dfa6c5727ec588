//! The messages between the harness and an outside learner (`docs/external-learners.md`):
//! a `fit` request per run, a `declare` request (the event a fit would declare, without
//! data) per hyperparameter point when the harness tunes honestly, and the checks a response
//! must pass before anything in it is used. The response's event is parsed by dp-core's closed vocabulary and accounted by our
//! accountants; its relation must be the one the config declares.

use dp_core::accounting::Event;
use dp_core::accounting::event::Neighbours;
use dp_core::accounting::{declaration, event_json};
use serde_json::Value;

use super::npy::DataFiles;

/// What the learner returns: a weight vector the harness scores, or test-set labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// θ of length d; the harness predicts sign(xᵀθ) on the test rows.
    Theta,
    /// One label in {0, 1} per row of `test_X.npy`.
    Predictions,
}

/// One request: a fit, or (no arrays) a declaration.
pub struct Request<'a> {
    /// Echoed by the response.
    pub id: u64,
    /// The arrays of a `fit`; `None` asks the learner to `declare` the event a fit with
    /// these parameters would declare, without data (honest tuning calibrates on it).
    pub files: Option<&'a DataFiles>,
    /// Training rows and columns.
    pub n: usize,
    /// Columns.
    pub d: usize,
    /// Target ε.
    pub epsilon: f64,
    /// Target δ.
    pub delta: f64,
    /// The run's seed: the learner must be deterministic given it.
    pub seed: u64,
    /// The run's hyperparameters (the config's fixed ones and, when tuned, a prior draw).
    pub hyperparameters: &'a Value,
}

impl Request<'_> {
    /// The request line (no newline).
    pub fn line(&self) -> String {
        let files = self.files;
        let line = Line {
            id: self.id,
            method: if files.is_some() { "fit" } else { "declare" },
            n: self.n,
            d: self.d,
            epsilon: self.epsilon,
            delta: self.delta,
            hyperparameters: self.hyperparameters,
            train_x: files.map(|f| f.train_x.as_path()),
            train_y: files.map(|f| f.train_y.as_path()),
            seed: files.map(|_| self.seed),
            test_x: files.and_then(|f| f.test_x.as_deref()),
        };
        // Through a `Value`: its keys are sorted, so the line's bytes do not depend on the
        // field order here.
        serde_json::to_value(&line)
            .expect("paths are UTF-8 (they are written by the harness)")
            .to_string()
    }
}

/// The request as it goes on the wire (a `declare` has no arrays and no seed).
#[derive(serde::Serialize)]
struct Line<'a> {
    id: u64,
    method: &'static str,
    n: usize,
    d: usize,
    epsilon: f64,
    delta: f64,
    hyperparameters: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    train_x: Option<&'a std::path::Path>,
    #[serde(skip_serializing_if = "Option::is_none")]
    train_y: Option<&'a std::path::Path>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    test_x: Option<&'a std::path::Path>,
}

/// A response that followed the protocol.
#[derive(Debug, PartialEq)]
pub enum Response {
    /// The learner released something and declared its event.
    Fitted {
        /// θ or predictions, checked for length and values.
        values: Vec<f64>,
        /// The parsed event.
        event: Event,
        /// The learner's own `details`, stored with the cell (JSON object or null).
        details: Value,
    },
    /// The learner declared the event a fit would have (a `declare` request).
    Declared(Event),
    /// The learner declined (`ok: false`) with its reason.
    Declined(String),
}

/// What the response must match.
pub struct Expect {
    /// The request's id.
    pub id: u64,
    /// θ or predictions; `None` for a `declare` request (an event, no values).
    pub output: Option<Output>,
    /// Length of the values: d for θ, test rows for predictions.
    pub len: usize,
    /// The relation the config declares.
    pub relation: Neighbours,
    /// Training rows (a `SampledWithoutReplacement` must name this n).
    pub n: u64,
}

/// A line the harness cannot read as a response to this request: the worker broke the
/// protocol and is restarted.
#[derive(Debug, PartialEq)]
pub struct Broken(pub String);

/// Reads one response line. `Err(Broken)` when the line is not a response to this request
/// (not a JSON object, no or a wrong `id`); `Ok(Err(reason))` when it is one but its content
/// is refused (the worker is fine, the cell fails).
pub fn read(line: &str, want: &Expect) -> Result<Result<Response, String>, Broken> {
    let v: Value = serde_json::from_str(line).map_err(|e| {
        let hint = if ["NaN", "Infinity"].iter().any(|t| line.contains(t)) {
            " (JSON has no NaN or Infinity: a non-finite value is itself an error)"
        } else {
            ""
        };
        Broken(format!(
            "malformed response, not JSON: {e}{hint}: {}",
            clip(line)
        ))
    })?;
    let Some(obj) = v.as_object() else {
        return Err(Broken(format!(
            "response is not a JSON object: {}",
            clip(line)
        )));
    };
    match obj.get("id") {
        Some(id) if id.as_u64() == Some(want.id) => {}
        Some(id) => {
            return Err(Broken(format!(
                "response id {id} does not echo the request's id {}",
                want.id
            )));
        }
        None => return Err(Broken(format!("response has no \"id\": {}", clip(line)))),
    }
    Ok(content(obj, want))
}

fn content(obj: &serde_json::Map<String, Value>, want: &Expect) -> Result<Response, String> {
    let key = match want.output {
        Some(Output::Theta) => "theta",
        Some(Output::Predictions) => "predictions",
        None => "",
    };
    let allowed: &[&str] = match (obj.get("ok"), want.output) {
        (Some(Value::Bool(false)), _) => &["id", "ok", "error", "details"],
        (Some(Value::Bool(true)), Some(_)) => &["id", "ok", key, "relation", "event", "details"],
        (Some(Value::Bool(true)), None) => &["id", "ok", "relation", "event", "details"],
        _ => return Err("response field \"ok\" must be true or false".into()),
    };
    if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "unknown response field {extra:?} (allowed here: {})",
            allowed.join(", ")
        ));
    }
    if obj["ok"] == Value::Bool(false) {
        let why = obj
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        return Ok(Response::Declined(why.to_string()));
    }
    let relation = match obj.get("relation") {
        Some(Value::String(r)) => event_json::parse_relation(r).map_err(|e| e.to_string())?,
        _ => return Err("response field \"relation\" is missing or not a string".into()),
    };
    if relation != want.relation {
        return Err(format!(
            "the learner declared relation {} but the config says {} (key `relation`)",
            event_json::relation_name(relation),
            event_json::relation_name(want.relation)
        ));
    }
    let event = obj
        .get("event")
        .ok_or("response field \"event\" is missing")?;
    let event = event_json::parse(event, relation, Some(want.n))
        .map_err(|e| format!("declared event refused: {e}"))?;
    let event = checked(event).map_err(|e| format!("declared event refused: {e}"))?;
    if want.output.is_none() {
        return Ok(Response::Declared(event));
    }
    let values = obj
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("response field {key:?} is missing or not a list"))?;
    if values.len() != want.len {
        return Err(format!(
            "{key} has {} values, expected {}",
            values.len(),
            want.len
        ));
    }
    let mut out = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        let x = v
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{key}[{i}] = {v} is not a finite number"))?;
        if want.output == Some(Output::Predictions) && x != 0.0 && x != 1.0 {
            return Err(format!("predictions[{i}] = {x} is not a label in {{0, 1}}"));
        }
        out.push(x);
    }
    let details = obj.get("details").cloned().unwrap_or(Value::Null);
    let size = details.to_string().len();
    if size > MAX_DETAILS {
        return Err(format!(
            "details of {size} bytes, more than the {MAX_DETAILS} a cell stores (keep \
             diagnostics short; write large ones to a file of your own)"
        ));
    }
    Ok(Response::Fitted {
        values: out,
        event,
        details,
    })
}

/// Largest `details` a response may carry, as JSON text (64 KiB): it is stored in every cell.
pub const MAX_DETAILS: usize = 64 << 10;

/// What can be checked in a declaration before it is certified
/// ([`dp_core::accounting::declaration`]): a fit reads the records, so it cannot release
/// nothing; equal parts are folded and the rest is capped, so certifying it takes bounded time.
fn checked(event: Event) -> Result<Event, String> {
    if declaration::releases_nothing(&event) {
        return Err(
            "a fit trains on the records, so it cannot declare an event that releases \
                    nothing (NoOp, a zero count or sampling rate, epsilon = 0)"
                .into(),
        );
    }
    let event = declaration::fold(&event).ok_or("a folded count exceeds 2^64")?;
    declaration::check_cost(&event).map_err(|e| e.to_string())?;
    Ok(event)
}

/// At most 300 characters of a line, for messages.
fn clip(line: &str) -> String {
    match line.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const AR: Neighbours = Neighbours::AddRemove;

    fn want() -> Expect {
        Expect {
            id: 7,
            output: Some(Output::Theta),
            len: 2,
            relation: AR,
            n: 100,
        }
    }

    const GAUSS: &str =
        r#""relation":"ADD_OR_REMOVE_ONE","event":{"type":"Gaussian","noise_multiplier":2.0}"#;

    fn refused(line: &str) -> String {
        match read(line, &want()) {
            Ok(Err(e)) => e,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn a_good_response_is_read() {
        let r = read(
            &format!(r#"{{"id":7,"ok":true,"theta":[0.5,-1],{GAUSS}}}"#),
            &want(),
        );
        assert_eq!(
            r,
            Ok(Ok(Response::Fitted {
                values: vec![0.5, -1.0],
                event: Event::gaussian(2.0).unwrap(),
                details: Value::Null
            }))
        );
        let d = read(
            r#"{"id":7,"ok":false,"error":"ConvergenceWarning"}"#,
            &want(),
        );
        assert_eq!(d, Ok(Ok(Response::Declined("ConvergenceWarning".into()))));
    }

    #[test]
    fn a_declaration_is_an_event_and_nothing_else() {
        let mut d = want();
        d.output = None;
        let r = read(&format!(r#"{{"id":7,"ok":true,{GAUSS}}}"#), &d);
        assert_eq!(r, Ok(Ok(Response::Declared(Event::gaussian(2.0).unwrap()))));
        let r = read(
            &format!(r#"{{"id":7,"ok":true,"theta":[1,1],{GAUSS}}}"#),
            &d,
        );
        assert!(matches!(r, Ok(Err(e)) if e.contains("unknown response field \"theta\"")));
        let files = DataFiles::at("x.npy".into(), "y.npy".into(), None);
        let h = json!({"C": 1.0});
        let mut req = Request {
            id: 3,
            files: None,
            n: 10,
            d: 2,
            epsilon: 1.0,
            delta: 1e-5,
            seed: 9,
            hyperparameters: &h,
        };
        let line: Value = serde_json::from_str(&req.line()).unwrap();
        assert_eq!(line["method"], "declare");
        // A declaration carries no data and no seed: it cannot depend on either.
        assert!(line.get("train_x").is_none() && line.get("seed").is_none());
        req.files = Some(&files);
        let line: Value = serde_json::from_str(&req.line()).unwrap();
        assert_eq!(
            (line["method"].as_str(), line["seed"].as_u64()),
            (Some("fit"), Some(9))
        );
    }

    #[test]
    fn a_declared_composition_of_equal_parts_is_certified_folded() {
        let parts = vec![r#"{"type":"Gaussian","noise_multiplier":30}"#; 1000].join(",");
        let line = format!(
            r#"{{"id":7,"ok":true,"theta":[1,1],"relation":"ADD_OR_REMOVE_ONE","event":{{"type":"Composed","events":[{parts}]}}}}"#
        );
        let Ok(Ok(Response::Fitted { event, .. })) = read(&line, &want()) else {
            panic!("a thousand equal Gaussians are a valid declaration");
        };
        assert_eq!(event, Event::gaussian(30.0).unwrap().self_composed(1000));
    }

    #[test]
    fn broken_lines_restart_the_worker() {
        for (line, needle) in [
            ("not json", "malformed response, not JSON"),
            (
                r#"{"id":7,"ok":true,"theta":[NaN,1]}"#,
                "JSON has no NaN or Infinity",
            ),
            ("[1,2]", "not a JSON object"),
            (
                r#"{"id":8,"ok":true}"#,
                "response id 8 does not echo the request's id 7",
            ),
            (r#"{"ok":true}"#, "has no \"id\""),
        ] {
            let e = read(line, &want()).unwrap_err();
            assert!(e.0.contains(needle), "{line}: {e:?}");
        }
    }

    #[test]
    fn bad_content_fails_the_cell_with_the_reason() {
        for (line, needle) in [
            (format!(r#"{{"id":7,"ok":true,"theta":[1],{GAUSS}}}"#), "theta has 1 values, expected 2"),
            (format!(r#"{{"id":7,"ok":true,"theta":[1,"x"],{GAUSS}}}"#), "theta[1] = \"x\" is not a finite number"),
            (format!(r#"{{"id":7,"ok":true,"theta":[1,1e999],{GAUSS}}}"#), "malformed"),
            (format!(r#"{{"id":7,"ok":true,{GAUSS}}}"#), "\"theta\" is missing"),
            (format!(r#"{{"id":7,"ok":true,"predictions":[1,0],{GAUSS}}}"#), "unknown response field \"predictions\""),
            (r#"{"id":7,"ok":true,"theta":[1,1],"relation":"REPLACE_ONE","event":{"type":"NoOp"}}"#.into(), "declared relation REPLACE_ONE but the config says ADD_OR_REMOVE_ONE"),
            (r#"{"id":7,"ok":true,"theta":[1,1],"event":{"type":"NoOp"}}"#.into(), "\"relation\" is missing"),
            (r#"{"id":7,"ok":true,"theta":[1,1],"relation":"ADD_OR_REMOVE_ONE"}"#.into(), "\"event\" is missing"),
            (r#"{"id":7,"ok":true,"theta":[1,1],"relation":"ADD_OR_REMOVE_ONE","event":{"type":"Gaussian","noise_multiplier":0}}"#.into(), "declared event refused: event.noise_multiplier = 0"),
            (r#"{"id":7,"ok":"yes"}"#.into(), "\"ok\" must be true or false"),
            (format!(r#"{{"id":7,"ok":true,"theta":[1,1],{GAUSS},"details":{{"log":"{}"}}}}"#, "x".repeat(MAX_DETAILS)), "more than the 65536 a cell stores"),
            (r#"{"id":7,"ok":true,"theta":[1,1],"relation":"ADD_OR_REMOVE_ONE","event":{"type":"NoOp"}}"#.into(), "cannot declare an event that releases nothing"),
            (r#"{"id":7,"ok":true,"theta":[1,1],"relation":"ADD_OR_REMOVE_ONE","event":{"type":"SelfComposed","count":0,"event":{"type":"Gaussian","noise_multiplier":1}}}"#.into(), "releases nothing"),
            (r#"{"id":7,"ok":true,"theta":[1,1],"relation":"ADD_OR_REMOVE_ONE","event":{"type":"EpsilonDelta","epsilon":0,"delta":0}}"#.into(), "releases nothing"),
        ] {
            let got = match read(&line, &want()) {
                Ok(Err(e)) => e,
                Err(Broken(e)) => e,
                other => panic!("{line}: {other:?}"),
            };
            assert!(got.contains(needle), "{line}: {got:?} lacks {needle:?}");
        }
        let mut p = want();
        p.output = Some(Output::Predictions);
        let r = read(
            &format!(r#"{{"id":7,"ok":true,"predictions":[1,-1],{GAUSS}}}"#),
            &p,
        );
        assert!(matches!(r, Ok(Err(e)) if e.contains("predictions[1] = -1 is not a label")));
        assert!(
            refused(r#"{"id":7,"ok":false,"error":"x","theta":[]}"#)
                .contains("unknown response field \"theta\"")
        );
    }
}
