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
    /// The canary, and with it the threat model: `"rare_feature"` (black-box: a data row, the
    /// final model scored; see `crate::audit::pair`) or `"gradient"` (white-box: a Dirac
    /// gradient canary and every step's noisy sum, for mechanisms that release their steps,
    /// DP-SGD; see `crate::audit::white_box`).
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
    /// White-box: a gradient C·e_j at a coordinate no row touches, sampled like a row, and
    /// every step's released noisy sum there scored by its likelihood ratio (audit.md §3).
    Gradient,
    /// The sparse vector technique (`kind = "svt"`): the auditor chooses every query's answer
    /// on D and D′, and the released ⊤/⊥ vector, all SVT outputs, is scored by its exact
    /// likelihood ratio.
    Queries,
}

impl Canary {
    /// The value as a config spells it.
    pub fn key(self) -> &'static str {
        match self {
            Canary::RareFeature => "rare_feature",
            Canary::Gradient => "gradient",
            Canary::Queries => "queries",
        }
    }

    /// The threat model in words, for the tables.
    pub fn threat_model(self) -> &'static str {
        match self {
            Canary::RareFeature => "black-box",
            Canary::Gradient => "white-box",
            Canary::Queries => "black-box",
        }
    }
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

/// Most runs per side a threshold audit may ask for (`trials`). Every run's score and event
/// are kept until the bound is computed (about 100 bytes per run and side, so 400 MB at the
/// bound), and at a millisecond or more per run the largest audit takes over an hour on 2
/// cores; the hardest case in docs/audit.md needs about 10⁶ runs per side.
pub const MAX_RUNS_PER_SIDE: u32 = 2_000_000;

/// Most canaries of a one-run audit (`audit.canaries`): each adds a feature column to every
/// row and a coordinate to θ, and a perfect guesser's bound grows only by about 2 per tenfold
/// m (3.5, 5.8 and 7.8 at m = 10², 10³, 10⁴ and δ = 1e-5): 10⁵ is already past what pays.
pub const MAX_CANARIES: u64 = 100_000;

/// Smallest `audit.confidence`: a lower bound that holds with probability below ½ is more
/// often wrong than right.
pub const MIN_CONFIDENCE: f64 = 0.5;

impl AuditSettings {
    /// Checks the values (errors name the key, the value, the limit and the fix).
    pub fn validate(&self, trials: u32) -> Result<(), String> {
        match self.test {
            AuditTest::OneRun => self.validate_one_run(trials)?,
            AuditTest::Threshold => validate_runs(trials)?,
        }
        // Also refuses NaN. Below ½ the "bound" is more often wrong than right; at 1 no
        // finite number of runs gives a bound, and 1 − confidence must stay a positive double
        // for the Bonferroni split.
        if !(self.confidence >= MIN_CONFIDENCE && self.confidence < 1.0) {
            return Err(format!(
                "key `audit.confidence` = {} must be in [{MIN_CONFIDENCE}, 1): the bounds hold \
                 together with this probability (below {MIN_CONFIDENCE} they are more often \
                 wrong than right); use e.g. 0.95",
                crate::quoting::number(self.confidence)
            ));
        }
        Ok(())
    }

    fn validate_one_run(&self, trials: u32) -> Result<(), String> {
        if trials != 1 {
            return Err(format!(
                "key `trials` = {trials}: a one-run audit (`audit.test = \"one_run\"`) \
                 trains once; set `trials = 1`"
            ));
        }
        if self.canaries == 0 || self.canaries > MAX_CANARIES {
            return Err(format!(
                "key `audit.canaries` = {} must be in 1..={MAX_CANARIES} (each adds a feature \
                 column to every row; see docs/limits.md)",
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
        Ok(())
    }
}

/// The runs per side of a threshold audit: half choose the threshold and half evaluate it, so
/// at least 2, and at most [`MAX_RUNS_PER_SIDE`].
fn validate_runs(trials: u32) -> Result<(), String> {
    if trials < 2 {
        return Err(format!(
            "key `trials` = {trials}: a threshold audit chooses its threshold on half of each \
             side's runs and evaluates it on the other half, so it needs `trials` >= 2 (real \
             audits use 10^3 to 10^6); set `trials = 2` or more, or `audit.test = \"one_run\"`"
        ));
    }
    if trials > MAX_RUNS_PER_SIDE {
        return Err(format!(
            "key `trials` = {trials} is more runs per side than an audit may hold (at most \
             {MAX_RUNS_PER_SIDE}: every run's score is kept until the bound is computed; see \
             docs/limits.md); lower `trials`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> AuditSettings {
        toml::from_str(text).unwrap()
    }

    /// Each refusal is one line naming the key, the value and the limit; numbers print short.
    fn refused(s: &AuditSettings, trials: u32, key: &str, value: &str, limit: &str) {
        let e = s.validate(trials).unwrap_err();
        assert!(
            !e.contains('\n') && e.len() < 400,
            "not one short line: {e}"
        );
        for want in [key, value, limit] {
            assert!(e.contains(want), "{want:?} missing from: {e}");
        }
    }

    /// Messages spell a canary as configs do: `key` is serde's name, which parses back.
    #[test]
    fn a_canarys_key_is_its_config_value() {
        for c in [Canary::RareFeature, Canary::Gradient, Canary::Queries] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.key());
            let parsed = settings(&format!("canary = \"{}\"", c.key()));
            assert_eq!(parsed.canary, c);
        }
    }

    /// A threshold audit needs two runs per side (one chooses, one evaluates): `trials = 1`
    /// used to run and then fail with "scores_d has 1". Too many runs would not fit in memory.
    #[test]
    fn audit_runs_per_side_are_bounded_at_validation() {
        let t = settings("");
        refused(&t, 1, "`trials`", "= 1", ">= 2");
        refused(&t, 0, "`trials`", "= 0", ">= 2");
        refused(&t, 4_000_000_000, "`trials`", "4000000000", "2000000");
        assert!(t.validate(2).is_ok() && t.validate(MAX_RUNS_PER_SIDE).is_ok());
        let one = settings("test = \"one_run\"");
        refused(&one, 2, "`trials`", "= 2", "trials = 1");
        assert!(one.validate(1).is_ok());
        let many = settings("test = \"one_run\"\ncanaries = 100001");
        refused(&many, 1, "`audit.canaries`", "100001", "100000");
    }

    /// `confidence = 1e-300` used to pass and fail after every run ("gamma = 1 is out of
    /// range"); below ½ a bound is more often wrong than right.
    #[test]
    fn audit_confidence_outside_its_meaningful_range_is_refused() {
        for bad in ["1e-300", "0.49", "0.0", "1.0", "-0.5", "nan", "inf"] {
            let s = settings(&format!("confidence = {bad}"));
            refused(&s, 10, "`audit.confidence`", "", "[0.5, 1)");
        }
        let e = settings("confidence = 1e-300").validate(10).unwrap_err();
        assert!(e.contains("= 1e-300 "), "{e}");
        for good in ["0.5", "0.95", "0.9999999999", "0.9999999999999999"] {
            let s = settings(&format!("confidence = {good}"));
            assert_eq!(s.validate(10), Ok(()), "{good}");
        }
    }
}
