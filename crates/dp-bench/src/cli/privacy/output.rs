//! The answer of a privacy calculation, printed as text or as one JSON object, and the
//! mapping of dp-core's range errors onto flag names.

use dp_core::DpError;

use crate::cli::UsageError;

/// Named results (e.g. `epsilon`) plus context lines for the human-readable form.
pub struct Answer {
    /// (key, value) pairs; the keys name the answer in JSON.
    pub values: Vec<(&'static str, f64)>,
    /// What was computed, e.g. `RDP accountant, 8478 steps`.
    pub context: String,
}

impl Answer {
    /// A single named value.
    pub fn one(key: &'static str, value: f64, context: impl Into<String>) -> Answer {
        Answer {
            values: vec![(key, value)],
            context: context.into(),
        }
    }

    /// Prints to stdout.
    pub fn print(&self, json: bool) {
        if json {
            let map: serde_json::Map<String, serde_json::Value> = self
                .values
                .iter()
                .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
                .collect();
            println!("{}", serde_json::Value::Object(map));
        } else {
            for (k, v) in &self.values {
                println!("{k} = {v:.6}");
            }
            if !self.context.is_empty() {
                println!("({})", self.context);
            }
        }
    }
}

/// Turns an out-of-range error from dp-core into a usage error naming the flag (exit 2).
pub fn flag_error(e: DpError) -> anyhow::Error {
    match e {
        DpError::OutOfRange {
            name,
            value,
            allowed,
        } => UsageError(format!("--{name} {allowed}, got {value}")).into(),
        other => other.into(),
    }
}

/// Checks that exactly the answer-selecting flags of one mode were given.
pub fn conflict(msg: &str) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}
