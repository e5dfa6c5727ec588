//! What every cell of a config shares: the loaded dataset, the test set, the accountant; and
//! the config vocabulary methods have in common (losses, optimisers).

use anyhow::Context as _;
use dp_core::accounting::event::Event;
use dp_core::accounting::{
    Certifier, Neighbours, PldAccountant, RdpAccountant, Target, add_remove_target_for_replace_one,
};
use dp_core::learn::{GlmData, GlmLoss, Optimizer};
use serde::{Deserialize, Serialize};

use super::config::{Config, DatasetConfig};
use super::row_clip::ClipCache;
use super::selection::Selection;

/// The dataset of a config, loaded and split once for all cells.
pub struct Prepared {
    cfg: Config,
    split: dp_data::Split,
    /// The validation rows carved from the training rows (`dataset.validation_fraction`).
    valid: Option<dp_data::Dataset>,
    /// One-vs-all: the training labels of class k against the rest, per class.
    class_y: Vec<Vec<f64>>,
}

/// What a cell reads: the config, the training data prepared for the learners, the test set
/// and the accountant that certifies every cell's ε.
pub struct Context<'a> {
    /// The experiment config.
    pub cfg: &'a Config,
    /// Training rows with cached norms.
    pub train: GlmData<'a>,
    /// Held-out rows, read once per released model.
    pub test: &'a dp_data::Dataset,
    /// Validation rows carved from the training rows, if the config has them.
    pub valid: Option<&'a dp_data::Dataset>,
    /// Where the cell's choices read their scores.
    pub selection: Selection,
    /// One-vs-all: the training rows labelled for each class (empty for binary tasks).
    pub classes: Vec<GlmData<'a>>,
    /// RDP accountant on the default orders; cells take [`RdpAccountant::fresh`] copies that
    /// share its subsampled-Gaussian tables.
    pub rdp: RdpAccountant,
    /// Row-clipped copies of the train and test rows, for methods that tune the clipping bound.
    pub clips: ClipCache<'a>,
    /// A folder a method may write files into (the run's results folder; `None` outside a run,
    /// e.g. in tests that run a cell directly).
    pub scratch: Option<std::path::PathBuf>,
    /// What certifies every cell ([`Context::certify`]).
    certifier: Certifier,
}

impl Context<'_> {
    /// A cell's `epsilon_accounted`, the one meaning it has for every method and every outside
    /// learner: the tightest ε at the config's δ this project can certify for `event`
    /// ([`Certifier`]: the smallest bound among RDP, PLD, the single-release accountant and
    /// basic composition with the δ split); ∞ for a release without guarantee.
    pub fn certify(&self, event: &Event) -> anyhow::Result<f64> {
        self.certify_at(event, self.cfg.delta)
    }

    /// [`Context::certify`] at another δ (an audit's δ/(1 + e^ε), for instance).
    pub fn certify_at(&self, event: &Event, delta: f64) -> anyhow::Result<f64> {
        Ok(self.certifier.epsilon(event, delta)?)
    }

    /// The replace-one ε at the config's δ that group privacy gives an add/remove event
    /// ([`Certifier::group_of_two`]; an audit of a replace-one pair against an add/remove
    /// certificate).
    pub fn certify_group_of_two(&self, event: &Event) -> anyhow::Result<f64> {
        Ok(self.certifier.group_of_two(event, self.cfg.delta)?)
    }

    /// Whether a method whose guarantee is for `native` neighbours is taken to the config's
    /// `relation` by group privacy (add/remove to replace-one).
    pub fn by_group(&self, native: Option<Neighbours>) -> bool {
        native == Some(Neighbours::AddRemove) && self.cfg.relation == Some(Neighbours::ReplaceOne)
    }

    /// The target a method of relation `native` calibrates to for ε at the config's δ: (ε, δ)
    /// itself, or under `relation = "replace_one"` for an add/remove method the add/remove
    /// target that group privacy takes to it ([`add_remove_target_for_replace_one`]). A
    /// method's own checks of its events certify at this target's δ.
    pub fn target(&self, epsilon: f64, native: Option<Neighbours>) -> anyhow::Result<Target> {
        let target = Target::new(epsilon, self.cfg.delta)?;
        Ok(if self.by_group(native) {
            add_remove_target_for_replace_one(target)?
        } else {
            target
        })
    }

    /// A cell's ε under the config's `relation` for an event of relation `native` (the runner's
    /// `epsilon_accounted`): [`Context::certify`], or the replace-one certificate of an
    /// add/remove event ([`Certifier::epsilon_under`]).
    pub fn certify_as(&self, event: &Event, native: Option<Neighbours>) -> anyhow::Result<f64> {
        match (native, self.cfg.relation) {
            (Some(n), Some(w)) => Ok(self.certifier.epsilon_under(event, self.cfg.delta, n, w)?),
            _ => self.certify(event),
        }
    }

    /// The rows every choice from data reads: the validation rows, or the test rows under the
    /// papers' protocol (no validation rows).
    pub fn selection_rows(&self) -> &dp_data::Dataset {
        self.valid.unwrap_or(self.test)
    }

    /// A candidate's released score (percent) for θ on the unclipped selection rows, for a
    /// candidate whose training certifies `train_epsilon` ([`Selection::release`]).
    pub fn selection_score(&self, theta: &[f64], train_epsilon: f64, seed: u64) -> f64 {
        let rows = self.selection_rows();
        let percent = 100.0 * dp_core::learn::accuracy(&rows.x, &rows.y, theta);
        self.selection
            .release(percent, rows.len(), train_epsilon, seed)
    }

    /// The exact score (percent) on the selection rows, which a choice reads when its cost is
    /// not paid for (the dishonest references).
    pub fn free_selection_score(&self, theta: &[f64]) -> f64 {
        let rows = self.selection_rows();
        100.0 * dp_core::learn::accuracy(&rows.x, &rows.y, theta)
    }
}

impl Prepared {
    /// Loads and splits the config's dataset.
    pub fn new(cfg: &Config) -> anyhow::Result<Prepared> {
        let d = &cfg.dataset;
        let mut split = dp_data::load(&d.name, &d.preprocess())
            .with_context(|| format!("cannot load dataset {:?}", d.name))?;
        if let Some(n) = d.subsample {
            let seed =
                u32::try_from(d.split_seed).context("dataset.split_seed must fit in 32 bits")?;
            split.train = split
                .train
                .stratified_subsample(n, seed)
                .with_context(|| format!("key `dataset.subsample` = {n}"))?;
        }
        if split.test.is_empty() {
            // test_fraction = 0: every method is scored in-sample.
            split.test = split.train.clone();
        }
        Self::from_split(cfg, split)
    }

    /// Prepares an already loaded split (the config's dataset keys other than the name and
    /// `one_vs_all` are not applied again).
    pub fn from_split(cfg: &Config, mut split: dp_data::Split) -> anyhow::Result<Prepared> {
        let d = &cfg.dataset;
        if cfg.delta_rule.is_some() {
            // δ = 1/n² was derived from the registry's row count: it must be this data's n
            // (the private rows: validation rows are carved from them below).
            let n = split.train.len() as f64;
            anyhow::ensure!(
                cfg.delta == 1.0 / (n * n),
                "delta = \"1/n^2\" was resolved to {:e} but the training set has {} rows",
                cfg.delta,
                split.train.len()
            );
        }
        let valid = match d.validation_rows(split.train.len()) {
            0 => None,
            k => {
                let (train, valid) = split
                    .train
                    .stratified_holdout(k, d.validation_seed())
                    .context("key `dataset.validation_fraction`")?;
                split.train = train;
                Some(valid)
            }
        };
        let class_y = if d.one_vs_all {
            let classes = split.train.classes.as_ref().with_context(|| {
                format!(
                    "dataset.one_vs_all = true but {:?} has no multi-class labels: \
                     remove the key or choose a multi-class dataset (mnist)",
                    d.name
                )
            })?;
            let k = split.train.n_classes().max(split.test.n_classes());
            (0..k as u32)
                .map(|c| {
                    classes
                        .iter()
                        .map(|&l| if l == c { 1.0 } else { -1.0 })
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Prepared {
            cfg: cfg.clone(),
            split,
            valid,
            class_y,
        })
    }

    /// Borrows the prepared data for the cells.
    pub fn context(&self) -> anyhow::Result<Context<'_>> {
        let train = GlmData::new(&self.split.train.x, &self.split.train.y)
            .context("training data are not a valid binary GLM problem")?;
        let classes = self
            .class_y
            .iter()
            .map(|y| train.relabel(y))
            .collect::<Result<_, _>>()
            .context("one-vs-all labels")?;
        let rdp = RdpAccountant::new();
        let certifier = Certifier::with(rdp.fresh(), PldAccountant::new());
        Ok(Context {
            cfg: &self.cfg,
            train,
            test: &self.split.test,
            valid: self.valid.as_ref(),
            selection: match self.valid {
                Some(_) => Selection::Validation(self.cfg.dataset.validation),
                None => Selection::Test,
            },
            classes,
            rdp,
            certifier,
            scratch: None,
            clips: ClipCache::one_vs_all(
                &self.split.train.x,
                &self.split.train.y,
                &self.class_y,
                &self.split.test.x,
            )
            .with_validation(self.valid.as_ref().map(|v| &v.x)),
        })
    }

    /// Dataset label for figure titles, e.g. `adult (n_train = 36177, d = 105)`.
    pub fn dataset_label(&self) -> String {
        if self.cfg.dataset.test_fraction == 0.0 {
            return format!(
                "{} (n = {}, d = {}, in-sample accuracy)",
                self.cfg.dataset.name,
                self.split.train.len(),
                self.split.train.x.ncols()
            );
        }
        let valid = self
            .valid
            .as_ref()
            .map_or(String::new(), |v| format!(", n_valid = {}", v.len()));
        format!(
            "{} (n_train = {}{valid}, n_test = {}, d = {})",
            self.cfg.dataset.name,
            self.split.train.len(),
            self.split.test.len(),
            self.split.train.x.ncols()
        )
    }
}

/// GLM loss of a method.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// Logistic loss (the default).
    #[default]
    Logistic,
    /// Huber SVM with h = 0.1.
    Huber,
}

/// Gradient-descent optimiser.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerKind {
    /// Adam (0.9, 0.999, 1e-8), the default.
    #[default]
    Adam,
    /// Plain SGD.
    Sgd,
}

impl OptimizerKind {
    /// The dp-core optimiser with learning rate `lr`.
    pub fn with_lr(self, lr: f64) -> Optimizer {
        match self {
            OptimizerKind::Adam => Optimizer::adam(lr),
            OptimizerKind::Sgd => Optimizer::sgd(lr),
        }
    }
}

impl LossKind {
    /// The dp-core loss.
    pub fn glm(self) -> GlmLoss {
        match self {
            LossKind::Logistic => GlmLoss::Logistic,
            LossKind::Huber => GlmLoss::huber(),
        }
    }
}

/// Public bound on ‖x‖ implied by the preprocessing (never read off the data: β and the
/// clipping-free Lipschitz bound must not depend on the private rows).
pub fn public_row_norm_bound(d: &DatasetConfig) -> anyhow::Result<f64> {
    let Some(core) = public_core_norm_bound(d) else {
        anyhow::bail!(
            "this method needs a public bound on the row norms: set `dataset.normalize_rows = true` \
             or `dataset.clip_row_norm`"
        );
    };
    let bias = d.bias.unwrap_or(0.0);
    Ok((core * core + bias * bias).sqrt())
}

/// Public bound on ‖x‖ before the bias feature, if the preprocessing implies one.
pub fn public_core_norm_bound(d: &DatasetConfig) -> Option<f64> {
    match (d.normalize_rows, d.clip_row_norm) {
        (true, Some(c)) => Some(c.min(1.0)),
        (true, None) => Some(1.0),
        (false, c) => c,
    }
}

/// Test accuracy in percent.
pub fn test_accuracy(ctx: &Context<'_>, theta: &[f64]) -> f64 {
    100.0 * dp_core::learn::accuracy(&ctx.test.x, &ctx.test.y, theta)
}
