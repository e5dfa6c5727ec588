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
    /// `"threshold"` (the default): `trials` runs on each of two neighbouring datasets and
    /// the threshold test; `"one_run"`: Steinke, Nasr & Jagielski 2023, one training run with
    /// `canaries` canaries each included with probability ½ (`trials` must be 1).
    #[serde(default)]
    pub test: AuditTest,
    /// One-run audit: the number m of canaries (each on a feature column of its own, added
    /// to the data).
    #[serde(default = "default_canaries")]
    pub canaries: u64,
    /// One-run audit: the guesses on each side, fixed before the run: "included" for the
    /// `guesses` highest scores, "excluded" for the `guesses` lowest, abstain on the rest.
    #[serde(default = "default_guesses")]
    pub guesses: u64,
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

/// How an audit measures.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AuditTest {
    /// Many runs on two neighbouring datasets, threshold test with Clopper–Pearson bounds.
    #[default]
    Threshold,
    /// One run with many canaries (Steinke, Nasr & Jagielski 2023).
    OneRun,
}

fn default_canaries() -> u64 {
    1000
}
fn default_guesses() -> u64 {
    100
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
    pub fn validate(&self, trials: u32) -> Result<(), String> {
        if self.test == AuditTest::OneRun {
            if trials != 1 {
                return Err(format!(
                    "key `trials` = {trials}: a one-run audit (`audit.test = \"one_run\"`) \
                     trains once; set `trials = 1`"
                ));
            }
            if self.canaries == 0 || self.canaries > 100_000 {
                return Err(format!(
                    "key `audit.canaries` = {} must be in 1..=100000 (each adds a feature column)",
                    self.canaries
                ));
            }
            if self.guesses == 0 || 2 * self.guesses > self.canaries {
                return Err(format!(
                    "key `audit.guesses` = {} must be >= 1 and at most half of `audit.canaries` \
                     = {} (it guesses on each side)",
                    self.guesses, self.canaries
                ));
            }
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(format!(
                "key `audit.confidence` = {} must be in (0, 1), e.g. 0.95",
                self.confidence
            ));
        }
        Ok(())
    }
}
