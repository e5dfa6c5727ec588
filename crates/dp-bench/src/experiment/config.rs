//! The TOML experiment config: parsing and validation before any work starts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::cli::UsageError;

/// A whole experiment: dataset, privacy targets, trials and methods.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Free-form experiment name recorded with the results (e.g. `redberg2023`).
    pub experiment: String,
    /// Master seed; every cell's seed derives from it and the cell key.
    pub seed: u64,
    /// Independent repetitions per (method, ε).
    pub trials: u32,
    /// Target ε values.
    pub epsilons: Vec<f64>,
    /// Target δ for every ε.
    pub delta: f64,
    /// Where results go (default `results/<config file stem>`); `--out` overrides it.
    #[serde(default)]
    pub output_dir: Option<PathBuf>,
    /// Dataset and preprocessing.
    pub dataset: DatasetConfig,
    /// Methods by name (the name is what the summary reports).
    pub methods: BTreeMap<String, MethodConfig>,
}

/// Which dataset and how to preprocess it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DatasetConfig {
    /// Registry name (`dp-bench data list`).
    pub name: String,
    /// Scale every row to unit ℓ2 norm (Redberg et al.).
    #[serde(default = "yes")]
    pub normalize_rows: bool,
    /// Value of the appended bias feature; omit for none.
    #[serde(default = "one")]
    pub bias: Option<f64>,
    /// Fraction of rows held out for testing.
    #[serde(default = "default_test_fraction")]
    pub test_fraction: f64,
    /// Seed of the shuffle that makes the (fixed) train/test split; the default is the seed
    /// of Iyengar et al.'s preprocessing scripts.
    #[serde(default = "default_split_seed")]
    pub split_seed: u64,
    /// Clip every row to this ℓ2 norm (Iyengar et al.).
    #[serde(default)]
    pub clip_row_norm: Option<f64>,
    /// Clip every coordinate to [−c, c] (Iyengar et al.).
    #[serde(default)]
    pub clip_linf: Option<f64>,
}

impl DatasetConfig {
    /// The dp-data preprocessing recipe these keys describe.
    pub fn preprocess(&self) -> dp_data::Preprocess {
        dp_data::Preprocess {
            normalize_rows: self.normalize_rows,
            clip_row_norm: self.clip_row_norm,
            clip_linf: self.clip_linf,
            bias: self.bias,
            shuffle_seed: self.split_seed,
            test_fraction: self.test_fraction,
        }
    }
}

fn default_split_seed() -> u64 {
    u64::from(dp_data::dataset::IYENGAR_SEED)
}

fn yes() -> bool {
    true
}
fn one() -> Option<f64> {
    Some(1.0)
}
fn default_test_fraction() -> f64 {
    0.2
}

/// GLM loss of a method.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// Logistic loss.
    Logistic,
    /// Huber SVM with h = 0.1.
    Huber,
}

/// DP-SGD optimiser.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerKind {
    /// Adam (0.9, 0.999, 1e-8).
    Adam,
    /// Plain SGD.
    Sgd,
}

/// How DP-SGD's learning rate is tuned.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Tuning {
    /// Best learning rate by mean test accuracy over trials, privacy cost ignored.
    Dishonest,
    /// Papernot–Steinke private selection with K ~ Poisson(μ); cost accounted.
    Honest,
}

/// One method of the grid.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MethodConfig {
    /// Redberg et al.'s Algorithm 1 (approximate minima perturbation with clipping).
    Alg1(Alg1Config),
    /// DP-SGD with Poisson sampling and learning-rate tuning.
    Dpsgd(DpsgdConfig),
}

/// Parameters of Algorithm 1.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Alg1Config {
    /// Gradient-norm threshold τ.
    #[serde(default = "default_tau")]
    pub tau: f64,
    /// Output-perturbation noise σ_out.
    #[serde(default = "default_sigma_out")]
    pub sigma_out: f64,
    /// σ = noise_factor · σ_G.
    #[serde(default = "default_noise_factor")]
    pub noise_factor: f64,
    /// Per-example gradient clipping norm C.
    #[serde(default = "default_clip")]
    pub clip: f64,
    /// Loss.
    #[serde(default = "default_loss")]
    pub loss: LossKind,
}

/// Parameters of DP-SGD.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DpsgdConfig {
    /// Dishonest or honest tuning.
    pub tuning: Tuning,
    /// Passes over the data: T = epochs · ⌈n / batch_size⌉.
    #[serde(default = "default_epochs")]
    pub epochs: u32,
    /// Expected batch size (sampling rate q = batch_size / n_train).
    #[serde(default = "default_batch")]
    pub batch_size: u32,
    /// Per-example clipping norm C.
    #[serde(default = "default_clip")]
    pub clip: f64,
    /// Optimiser.
    #[serde(default = "default_optimizer")]
    pub optimizer: OptimizerKind,
    /// Smallest learning rate of the log-spaced grid.
    #[serde(default = "default_lr_min")]
    pub lr_min: f64,
    /// Largest learning rate of the log-spaced grid.
    #[serde(default = "default_lr_max")]
    pub lr_max: f64,
    /// Dishonest: number of learning rates. Honest: the s in P[K > s] = tail_prob.
    #[serde(default = "default_grid_size")]
    pub grid_size: u32,
    /// Honest only: P[K > grid_size] that fixes the Poisson mean μ.
    #[serde(default = "default_tail_prob")]
    pub tail_prob: f64,
    /// Loss.
    #[serde(default = "default_loss")]
    pub loss: LossKind,
}

fn default_tau() -> f64 {
    0.01
}
fn default_sigma_out() -> f64 {
    0.15
}
fn default_noise_factor() -> f64 {
    1.3
}
fn default_clip() -> f64 {
    std::f64::consts::SQRT_2
}
fn default_loss() -> LossKind {
    LossKind::Logistic
}
fn default_epochs() -> u32 {
    60
}
fn default_batch() -> u32 {
    256
}
fn default_optimizer() -> OptimizerKind {
    OptimizerKind::Adam
}
fn default_lr_min() -> f64 {
    1e-8
}
fn default_lr_max() -> f64 {
    1e-1
}
fn default_grid_size() -> u32 {
    10
}
fn default_tail_prob() -> f64 {
    0.9
}

impl Config {
    /// Reads and validates a config file; every problem names the file and the key.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config file {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// Parses and validates config text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_string();
            let loc = e
                .span()
                .map(|s| {
                    let line = text[..s.start].matches('\n').count() + 1;
                    let src = text.lines().nth(line - 1).unwrap_or("").trim();
                    format!(" (line {line}: `{src}`)")
                })
                .unwrap_or_default();
            UsageError(format!("{}{loc}: {msg}", path.display()))
        })?;
        cfg.validate()
            .map_err(|m| UsageError(format!("{}: {m}", path.display())))?;
        Ok(cfg)
    }

    /// Range checks serde cannot express; the message names the key and the allowed range.
    pub fn validate(&self) -> Result<(), String> {
        if self.trials == 0 {
            return Err("key `trials` must be >= 1".into());
        }
        if self.epsilons.is_empty() {
            return Err("key `epsilons` must list at least one value".into());
        }
        for (i, &e) in self.epsilons.iter().enumerate() {
            if !(e > 0.0 && e.is_finite()) {
                return Err(format!("key `epsilons[{i}]` = {e} must be > 0 and finite"));
            }
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(format!("key `delta` = {} must be in (0, 1)", self.delta));
        }
        let d = &self.dataset;
        if !(d.test_fraction > 0.0 && d.test_fraction < 1.0) {
            return Err(format!(
                "key `dataset.test_fraction` = {} must be in (0, 1)",
                d.test_fraction
            ));
        }
        let known: Vec<&str> = dp_data::list().iter().map(|d| d.name()).collect();
        if !known.contains(&d.name.as_str()) {
            return Err(format!(
                "key `dataset.name` = {:?} is not a known dataset; use one of: {}",
                d.name,
                known.join(", ")
            ));
        }
        d.preprocess()
            .validate()
            .map_err(|e| format!("table `dataset`: {e}"))?;
        if self.methods.is_empty() {
            return Err("table `methods` must define at least one method".into());
        }
        for (name, m) in &self.methods {
            m.validate()
                .map_err(|e| format!("key `methods.{name}.{e}"))?;
        }
        Ok(())
    }
}

impl MethodConfig {
    /// Returns `"<key>` … message"; the caller prefixes `methods.<name>.`.
    fn validate(&self) -> Result<(), String> {
        let pos = |k: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{k}` = {v} must be > 0 and finite"))
            }
        };
        match self {
            MethodConfig::Alg1(a) => {
                pos("tau", a.tau)?;
                pos("sigma_out", a.sigma_out)?;
                pos("clip", a.clip)?;
                if !(a.noise_factor >= 1.0 && a.noise_factor.is_finite()) {
                    return Err(format!("noise_factor` = {} must be >= 1", a.noise_factor));
                }
            }
            MethodConfig::Dpsgd(s) => {
                pos("clip", s.clip)?;
                pos("lr_min", s.lr_min)?;
                pos("lr_max", s.lr_max)?;
                if s.lr_min > s.lr_max {
                    return Err(format!(
                        "lr_min` = {} must be <= lr_max = {}",
                        s.lr_min, s.lr_max
                    ));
                }
                if s.epochs == 0 {
                    return Err("epochs` must be >= 1".into());
                }
                if s.batch_size == 0 {
                    return Err("batch_size` must be >= 1".into());
                }
                if s.grid_size == 0 {
                    return Err("grid_size` must be >= 1".into());
                }
                if !(s.tail_prob > 0.0 && s.tail_prob < 1.0) {
                    return Err(format!("tail_prob` = {} must be in (0, 1)", s.tail_prob));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
experiment = "t"
seed = 1
trials = 2
epsilons = [0.5, 1.0]
delta = 1e-5
[dataset]
name = "synthetic-l"
[methods.alg1]
kind = "alg1"
[methods.dpsgd_honest]
kind = "dpsgd"
tuning = "honest"
"#;

    #[test]
    fn parses_a_good_config_with_defaults() {
        let c = Config::parse(GOOD, Path::new("x.toml")).unwrap();
        assert_eq!(c.methods.len(), 2);
        match &c.methods["alg1"] {
            MethodConfig::Alg1(a) => assert_eq!(a.tau, 0.01),
            _ => panic!("wrong kind"),
        }
        assert!(c.dataset.normalize_rows);
    }

    #[test]
    fn rejects_unknown_keys_naming_them() {
        let bad = GOOD.replace("trials = 2", "trials = 2\ntrails = 3");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.toml") && e.contains("trails"), "{e}");
        let bad = GOOD.replace("kind = \"alg1\"", "kind = \"alg1\"\ntau_x = 1");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tau_x"), "{e}");
    }

    #[test]
    fn rejects_out_of_range_values_naming_the_key() {
        let bad = GOOD.replace("delta = 1e-5", "delta = 1.5");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`delta`") && e.contains("(0, 1)"), "{e}");
        let bad = GOOD.replace("[0.5, 1.0]", "[0.5, -1.0]");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("epsilons[1]"), "{e}");
        let bad = GOOD.replace("synthetic-l", "nope");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("dataset.name"), "{e}");
    }
}
