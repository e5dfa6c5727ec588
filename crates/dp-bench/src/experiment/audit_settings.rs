//! The `[audit]` table of a config: it makes the config an audit (`dp-bench audit`), whose
//! `trials` are the runs on each of the two neighbouring datasets per (method, ε).

use serde::{Deserialize, Serialize};

/// How an audit turns runs into a lower bound on ε.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AuditSettings {
    /// Probability that every lower bound of the config holds together (Bonferroni over the
    /// config's audits: each is made at 1 − (1 − confidence)/K).
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Neighbouring datasets and statistic (only `"rare_feature"` for now: see
    /// `crate::audit::pair`).
    #[serde(default)]
    pub canary: Canary,
    /// The base rows: the dataset's (`"data"`, the default) or the same number of rows with
    /// every feature 0 but the bias (`"zeros"`, labels kept): a legal dataset on which only
    /// the canary moves θ, so the audit measures the mechanism's worst case more closely.
    #[serde(default)]
    pub base: Base,
    /// Also write every run's score to `scores/NAME@EPS.csv` (side, run, score), for
    /// re-analysis with other tests.
    #[serde(default)]
    pub keep_scores: bool,
}

/// Where the canary row points.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Canary {
    /// Along the feature the base rows use least (an unused one-hot column where there is
    /// one), at the public row-norm bound; the statistic is θ on that feature.
    #[default]
    RareFeature,
}

/// The rows an audit's pair is built on.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Base {
    /// The configured dataset's training rows.
    #[default]
    Data,
    /// As many rows, every feature but the bias set to 0.
    Zeros,
}

fn default_confidence() -> f64 {
    0.95
}

impl AuditSettings {
    /// Checks the values (errors name the key).
    pub fn validate(&self) -> Result<(), String> {
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(format!(
                "key `audit.confidence` = {} must be in (0, 1), e.g. 0.95",
                self.confidence
            ));
        }
        Ok(())
    }
}
