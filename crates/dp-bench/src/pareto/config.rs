//! The TOML of a privacy–utility study (Avent et al. 2020): which points to evaluate
//! (`study = "dpareto" | "random" | "grid-search"`), the model and data, and the privacy oracle.
//! Unlike a grid config, ε is not an input: it is one of the two outputs of each point.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::space::{Box5, Distribution};
use crate::error::UsageError;
use crate::experiment::config::{read_text, toml_error};

/// Which points a study evaluates.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum StudyKind {
    /// k₀ random seed points (the random study's first ones), then BO with HV-PoI.
    Dpareto,
    /// Independent draws from the paper's hand-tuned distributions (Tables 3/4) or uniform.
    Random,
    /// A full linear grid of `size⁵` points (`"grid"` in results written before the
    /// experiment grid took that name).
    #[serde(alias = "grid")]
    GridSearch,
}

/// The model and how it is trained.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Logistic regression (123 → 1 on a1a).
    Logistic,
    /// Linear SVM, hinge loss.
    Svm,
    /// MLP 784-1000-10, ReLU.
    Mlp1,
    /// MLP 784-128-64-10, ReLU.
    Mlp2,
}

/// The update rule.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum OptimizerKind {
    /// Plain SGD with a constant learning rate.
    Sgd,
    /// Adam, β = (0.9, 0.999), κ = 1e-8.
    Adam,
}

/// Initial parameters (see `dp_core::learn::avent::Init`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InitKind {
    /// The authors' code: Xavier-normal, magnitude 3, weights and biases.
    #[default]
    Code,
    /// The paper: θ₀ = 0.
    Paper,
}

/// `[model]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// Model.
    pub kind: ModelKind,
    /// Update rule.
    pub optimizer: OptimizerKind,
    /// Initialisation.
    #[serde(default)]
    pub init: InitKind,
}

/// The privacy oracle ε(λ).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AccountantKind {
    /// What the paper used: lots without replacement, replace-one RDP bound of Wang, Balle &
    /// Kasiviswanathan (2019) on integer orders ≤ 1000, classic RDP → (ε, δ) conversion.
    #[default]
    Paper,
    /// The same bound with the improved conversion (Balle et al. 2020): never larger.
    Improved,
}

/// `[privacy]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrivacySpec {
    /// δ of every point's ε.
    pub delta: f64,
    /// Accountant.
    #[serde(default)]
    pub accountant: AccountantKind,
}

/// `[random]`: the random-sampling study, and DPareto's seed points.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RandomSpec {
    /// Points to draw (a random study's size; ignored by DPareto, which takes `initial`).
    #[serde(default)]
    pub points: usize,
    /// `adult` (Table 4), `mnist` (Table 3) or `uniform` over `ranges`.
    pub distribution: Distribution,
    /// The accept ranges of each hyperparameter (draws outside are rejected).
    pub ranges: Box5,
}

/// `[grid]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Values per hyperparameter (linear spacing, ends included): `size⁵` points.
    pub size: usize,
    /// The ranges the grid spans.
    pub ranges: Box5,
}

/// Where HV-PoI's reference point comes from.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ReferenceKind {
    /// GPflowOpt: re-estimated every iteration from the front of GP means (what ran).
    #[default]
    Gpflowopt,
    /// The anti-ideal point (10, 0.999), transformed (what the harness meant to pass).
    AntiIdeal,
}

/// `[dpareto]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BoSpec {
    /// Seed points k₀, the first ones of the random study with the same seed.
    pub initial: usize,
    /// BO iterations k.
    pub iterations: usize,
    /// GP hyperparameter restarts per fit (GPflowOpt: 5; restart 0 warm-starts).
    #[serde(default = "five")]
    pub restarts: usize,
    /// Uniform candidates of the acquisition search (GPflowOpt: 5000).
    #[serde(default = "candidates")]
    pub candidates: usize,
    /// HV-PoI reference point.
    #[serde(default)]
    pub reference: ReferenceKind,
    /// The BO search box (Table 1).
    pub space: Box5,
}

fn five() -> usize {
    5
}
fn candidates() -> usize {
    5000
}

/// Most points a random study draws: each is `replications` whole trainings and a line of
/// `points.jsonl` held in memory; 10⁵ is 20 times the paper's largest study (4,864).
pub const MAX_STUDY_POINTS: usize = 100_000;
/// Largest `grid.size`: the grid has size⁵ points, 10⁵ at size 10 (the paper's: 3 and 4).
pub const MAX_GRID_SEARCH_SIZE: usize = 10;
/// Most DPareto points (seed points plus iterations): the GP refits on all of them every
/// iteration, O(n³) time and O(n²) memory; the paper's largest run has 272.
pub const MAX_BO_POINTS: usize = 2_000;
/// Most GP hyperparameter restarts per fit (GPflowOpt: 5).
pub const MAX_BO_RESTARTS: usize = 100;
/// Most candidates of the acquisition search, each scored every iteration (GPflowOpt: 5,000).
pub const MAX_BO_CANDIDATES: usize = 1_000_000;
/// Most training runs per point (the paper: 10).
pub const MAX_REPLICATIONS: usize = 1_000;

/// A whole study config.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StudyConfig {
    /// Paper id (`avent2020`).
    #[serde(default)]
    pub paper: Option<String>,
    /// Which points to evaluate.
    pub study: StudyKind,
    /// Master seed: point draws, BO restarts and every training run derive from it.
    pub seed: u64,
    /// Training runs per point (R); the error is 1 − their mean accuracy.
    pub replications: usize,
    /// Results folder (default `results/[<paper>/]<config stem>`).
    #[serde(default)]
    pub output_dir: Option<PathBuf>,
    /// Dataset with a fixed train/test split (`a1a`, `mnist-full`).
    pub dataset: String,
    /// Cap on training rows (MNIST scaled down); default all.
    #[serde(default)]
    pub max_train_rows: Option<usize>,
    /// Model and optimiser.
    pub model: ModelSpec,
    /// Privacy oracle.
    pub privacy: PrivacySpec,
    /// Random sampling (the random study, and DPareto's seeds).
    #[serde(default)]
    pub random: Option<RandomSpec>,
    /// Grid search.
    #[serde(default)]
    pub grid: Option<GridSpec>,
    /// DPareto.
    #[serde(default)]
    pub dpareto: Option<BoSpec>,
}

impl StudyConfig {
    /// Reads and validates a study config.
    pub fn load(path: &Path) -> anyhow::Result<StudyConfig> {
        Self::parse(&read_text(path)?, path)
    }

    /// Parses and validates config text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<StudyConfig> {
        let fail = |m: String| anyhow::Error::from(UsageError(format!("{}: {m}", path.display())));
        let cfg: StudyConfig = toml::from_str(text).map_err(|e| toml_error(text, path, &e))?;
        cfg.validate().map_err(fail)?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<(), String> {
        let id: dp_data::DatasetId = self
            .dataset
            .parse()
            .map_err(|_| format!("key `dataset` = {:?} is not a known dataset", self.dataset))?;
        if id.fixed_train_rows().is_none() {
            return Err(format!(
                "key `dataset` = {:?} has no fixed train/test split; use a1a or mnist-full",
                self.dataset
            ));
        }
        let linear = matches!(self.model.kind, ModelKind::Logistic | ModelKind::Svm);
        if linear != (id == dp_data::DatasetId::A1a) {
            return Err(format!(
                "key `model.kind` = {:?} does not fit dataset {:?}: linear models train on a1a, MLPs on mnist-full",
                self.model.kind, self.dataset
            ));
        }
        if self.replications == 0 {
            return Err("key `replications` must be >= 1".into());
        }
        let (lo, hi) = crate::experiment::config::DELTA_RANGE;
        if !(lo..=hi).contains(&self.privacy.delta) {
            return Err(format!(
                "key `privacy.delta` = {} must be in [{lo:e}, {hi}] (see docs/limits.md)",
                crate::quoting::number(self.privacy.delta)
            ));
        }
        if self.max_train_rows == Some(0) {
            return Err("key `max_train_rows` must be >= 1".into());
        }
        let need = |present: bool, key: &str| {
            if present {
                Ok(())
            } else {
                Err(format!(
                    "study {:?} needs a [{key}] table",
                    format!("{:?}", self.study).to_lowercase()
                ))
            }
        };
        match self.study {
            StudyKind::Random => {
                need(self.random.is_some(), "random")?;
                if self.random.as_ref().is_some_and(|r| r.points == 0) {
                    return Err("key `random.points` must be >= 1".into());
                }
            }
            StudyKind::GridSearch => {
                need(self.grid.is_some(), "grid")?;
                if self.grid.as_ref().is_some_and(|g| g.size < 2) {
                    return Err("key `grid.size` must be >= 2".into());
                }
            }
            StudyKind::Dpareto => {
                need(self.dpareto.is_some(), "dpareto")?;
                need(self.random.is_some(), "random")?;
                let bo = self.dpareto.as_ref().expect("checked");
                if bo.initial < 2 || bo.restarts == 0 || bo.candidates == 0 {
                    return Err(
                        "keys `dpareto.initial` >= 2, `dpareto.restarts` >= 1 and `dpareto.candidates` >= 1 are required".into(),
                    );
                }
                bo.space.validate("dpareto.space")?;
            }
        }
        self.check_sizes()?;
        if let Some(d) = &self.output_dir {
            crate::files::check_results_path(d).map_err(|e| format!("key `output_dir`: {e}"))?;
        }
        if let Some(r) = &self.random {
            r.ranges.validate("random.ranges")?;
        }
        if let Some(g) = &self.grid {
            g.ranges.validate("grid.ranges")?;
        }
        Ok(())
    }

    /// Every size that allocates or runs per unit, against its limit (docs/limits.md).
    fn check_sizes(&self) -> Result<(), String> {
        let mut sizes = vec![("replications", self.replications, MAX_REPLICATIONS)];
        if let Some(r) = &self.random {
            sizes.push(("random.points", r.points, MAX_STUDY_POINTS));
        }
        if let Some(g) = &self.grid {
            sizes.push(("grid.size", g.size, MAX_GRID_SEARCH_SIZE));
        }
        if let Some(b) = &self.dpareto {
            sizes.push(("dpareto.initial", b.initial, MAX_BO_POINTS));
            sizes.push(("dpareto.iterations", b.iterations, MAX_BO_POINTS));
            sizes.push(("dpareto.restarts", b.restarts, MAX_BO_RESTARTS));
            sizes.push(("dpareto.candidates", b.candidates, MAX_BO_CANDIDATES));
        }
        for (key, v, max) in sizes {
            if v > max {
                return Err(format!(
                    "key `{key}` = {v} is more than {max}, the limit on it (docs/limits.md)"
                ));
            }
        }
        if let Some(b) = &self.dpareto
            && b.initial + b.iterations > MAX_BO_POINTS
        {
            return Err(format!(
                "keys `dpareto.initial` + `dpareto.iterations` = {} points, more than {MAX_BO_POINTS}: \
                 the Gaussian process refits on every point so far, O(n³) per iteration \
                 (docs/limits.md)",
                b.initial + b.iterations
            ));
        }
        Ok(())
    }

    /// Points the study evaluates in all.
    pub fn total_points(&self) -> usize {
        match self.study {
            StudyKind::Random => self.random.as_ref().map_or(0, |r| r.points),
            StudyKind::GridSearch => self.grid.as_ref().map_or(0, |g| g.size.pow(5)),
            StudyKind::Dpareto => self
                .dpareto
                .as_ref()
                .map_or(0, |b| b.initial + b.iterations),
        }
    }

    /// Default results folder, as for grid configs.
    pub fn default_out_dir(&self, config_path: &Path) -> PathBuf {
        crate::experiment::runner::out_dir(
            config_path,
            self.paper.as_deref(),
            self.output_dir.as_deref(),
        )
    }
}
