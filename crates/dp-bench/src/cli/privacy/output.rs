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
    pub fn print(&self, json: bool) -> Result<(), crate::console::OutputError> {
        if json {
            let map: serde_json::Map<String, serde_json::Value> = self
                .values
                .iter()
                .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
                .collect();
            outln!("{}", serde_json::Value::Object(map))?;
        } else {
            for (k, v) in &self.values {
                outln!("{k} = {}", fmt_value(*v))?;
            }
            if !self.context.is_empty() {
                outln!("({})", self.context)?;
            }
        }
        Ok(())
    }
}

/// Six decimals where that shows the value (the historical format), else scientific
/// notation: `0.000000` for z = 1e-7 or 300 digits for ε = 1e300 say nothing.
fn fmt_value(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() || (1e-3..1e9).contains(&a) {
        format!("{v:.6}")
    } else {
        format!("{v:.6e}")
    }
}

pub use crate::quoting::number as show;

/// Every flag of `dp-bench privacy …`: only these names may be reported as `--name`.
const FLAGS: &[&str] = &[
    "accountant",
    "beta",
    "bound",
    "clip",
    "compositions",
    "conversion",
    "delta",
    "epsilon",
    "lambda",
    "lipschitz",
    "noise-factor",
    "noise-multiplier",
    "sampling",
    "sampling-rate",
    "sensitivity",
    "sigma",
    "sigma-out",
    "steps",
    "tau",
    "tuning",
];

/// Turns an out-of-range error from dp-core into a usage error naming the flag (exit 2).
///
/// A name that is no flag of this command (an accountant's internal setting, e.g. the PLD
/// grid step) is reported as such rather than as a flag the user cannot find.
pub fn flag_error(e: DpError) -> anyhow::Error {
    match e {
        DpError::OutOfRange {
            name,
            value,
            allowed,
        } if FLAGS.contains(&name) => {
            UsageError(format!("--{name} {allowed}, got {}", show(value))).into()
        }
        DpError::OutOfRange {
            name,
            value,
            allowed,
        } => UsageError(format!(
            "the accountant's internal {name} = {value:e} {allowed}; the inputs are outside \
             what it supports (docs/limits.md)"
        ))
        .into(),
        other => other.into(),
    }
}

/// [`flag_error`] for the PLD accountant: its fixed grid (step 1e-4, at most 2^24 points)
/// cannot hold the privacy loss of very small noise or very many compositions, and no flag
/// sets the grid. `inputs` names the flags that caused it, e.g. `--noise-multiplier 1e-5
/// (with --steps 10)`.
pub fn pld_error(e: DpError, inputs: &str) -> anyhow::Error {
    match e {
        DpError::OutOfRange {
            name: "grid-step" | "fft-length",
            ..
        } => UsageError(format!(
            "--accountant pld cannot represent the privacy loss of {inputs} on its grid \
             (step 1e-4, at most 2^24 points): use --accountant rdp, or more noise"
        ))
        .into(),
        other => flag_error(other),
    }
}

/// A failed calibration is a target out of reach: a usage error (exit 2) naming the flags.
pub fn calibration_error(e: DpError, flags: &str) -> anyhow::Error {
    match e {
        DpError::Calibration(msg) => {
            UsageError(format!("{flags} cannot be calibrated: {msg}")).into()
        }
        other => flag_error(other),
    }
}

/// Checks that exactly the answer-selecting flags of one mode were given.
pub fn conflict(msg: &str) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}
