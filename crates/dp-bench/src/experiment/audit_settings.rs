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
