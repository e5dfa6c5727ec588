//! The two objectives of a point λ: ε from the privacy oracle (no data needed) and the error,
//! 1 − the mean test accuracy of R independent trainings, run in parallel.

use std::time::Instant;

use anyhow::Context;
use dp_core::accounting::Event;
use dp_core::features::FeatureMatrix;
use dp_core::learn::avent::{
    DenseData, DenseMechanism, Hyper, Init, LinearLearner, LinearModel, MlpLearner, Recipe,
};
use dp_core::learn::{GlmData, Mechanism, Optimizer};
use dp_core::seed::derive_seed;
use dp_data::{DataConfig, Dataset, DatasetId};
use rayon::prelude::*;

use super::config::{InitKind, ModelKind, OptimizerKind, StudyConfig};
use super::points::{Point, Source};
use super::privacy::PrivacyOracle;
use super::space::{DIM, to_hyper};

/// A study's data with its fixed split: train rows first (capped by `max_train_rows`).
pub struct StudyData {
    /// Training rows.
    pub train: Dataset,
    /// Test rows.
    pub test: Dataset,
    /// Class labels of the training rows (MNIST digits), for the MLPs.
    pub train_classes: Vec<u8>,
    /// Class labels of the test rows.
    pub test_classes: Vec<u8>,
}

impl StudyData {
    /// Loads the config's dataset (from the cache, the mirror or its canonical URL).
    pub fn load(cfg: &StudyConfig) -> anyhow::Result<StudyData> {
        let id: DatasetId = cfg.dataset.parse().expect("validated");
        let all = DataConfig::from_env()
            .dataset(id)
            .with_context(|| format!("cannot load dataset {}", cfg.dataset))?;
        let split = id.fixed_train_rows().expect("validated");
        let train_rows = cfg.max_train_rows.unwrap_or(split).min(split);
        let rows = |r: std::ops::Range<usize>| r.collect::<Vec<_>>();
        let (train, test) = (
            all.select(&rows(0..train_rows)),
            all.select(&rows(split..all.len())),
        );
        let classes = |d: &Dataset| -> Vec<u8> {
            d.classes
                .as_ref()
                .map(|c| c.iter().map(|&v| v as u8).collect())
                .unwrap_or_default()
        };
        Ok(StudyData {
            train_classes: classes(&train),
            test_classes: classes(&test),
            train,
            test,
        })
    }
}

/// The training and test views a model needs.
enum Views<'a> {
    /// Sparse rows with ±1 labels (a1a).
    Linear(GlmData<'a>, GlmData<'a>),
    /// Dense pixels with digit labels (MNIST).
    Dense(DenseData<'a>, DenseData<'a>),
}

/// The learner a point trains: what runs and the event it is charged for, in one value.
#[derive(Clone, Debug)]
pub enum Learner {
    /// Logistic regression or SVM on a1a.
    Linear(LinearLearner),
    /// An MLP on MNIST.
    Mlp(MlpLearner),
}

impl Learner {
    /// The privacy event of one training run.
    pub fn event(&self) -> Event {
        match self {
            Learner::Linear(l) => Mechanism::event(l),
            Learner::Mlp(l) => DenseMechanism::event(l),
        }
    }

    /// How it trains (λ, n, optimiser, initialisation).
    pub fn recipe(&self) -> &Recipe {
        match self {
            Learner::Linear(l) => &l.recipe,
            Learner::Mlp(l) => l.recipe(),
        }
    }
}

/// Evaluates points of one study config on its data.
pub struct Oracle<'a> {
    cfg: &'a StudyConfig,
    views: Views<'a>,
    privacy: PrivacyOracle,
}

/// The row-major values of a dense matrix.
fn dense(x: &FeatureMatrix) -> anyhow::Result<(&[f64], usize)> {
    match x {
        FeatureMatrix::Dense { data, ncols, .. } => Ok((data, *ncols)),
        FeatureMatrix::Sparse(_) => anyhow::bail!("the MLPs need dense features"),
    }
}

impl<'a> Oracle<'a> {
    /// Prepares the data views once.
    pub fn new(cfg: &'a StudyConfig, data: &'a StudyData) -> anyhow::Result<Oracle<'a>> {
        let views = match cfg.model.kind {
            ModelKind::Logistic | ModelKind::Svm => Views::Linear(
                GlmData::new(&data.train.x, &data.train.y)?,
                GlmData::new(&data.test.x, &data.test.y)?,
            ),
            ModelKind::Mlp1 | ModelKind::Mlp2 => {
                let (tr, d) = dense(&data.train.x)?;
                let (te, _) = dense(&data.test.x)?;
                Views::Dense(
                    DenseData::new(tr, d, &data.train_classes)?,
                    DenseData::new(te, d, &data.test_classes)?,
                )
            }
        };
        let privacy = PrivacyOracle::new(cfg.privacy.accountant, cfg.privacy.delta);
        Ok(Oracle {
            cfg,
            views,
            privacy,
        })
    }

    /// Training rows n.
    pub fn n(&self) -> usize {
        match &self.views {
            Views::Linear(train, _) => train.n(),
            Views::Dense(train, _) => train.n(),
        }
    }

    /// The learner of the study's model trained at `hyper` on the training rows.
    pub fn learner(&self, hyper: &Hyper) -> anyhow::Result<Learner> {
        let m = &self.cfg.model;
        let opt = match m.optimizer {
            OptimizerKind::Sgd => Optimizer::sgd(hyper.lr),
            OptimizerKind::Adam => Optimizer::adam(hyper.lr),
        };
        let init = match m.init {
            InitKind::Code => Init::Code,
            InitKind::Paper => Init::Paper,
        };
        let recipe = Recipe::new(*hyper, self.n(), opt, init)?;
        Ok(match m.kind {
            ModelKind::Logistic => Learner::Linear(LinearLearner {
                model: LinearModel::Logistic,
                recipe,
            }),
            ModelKind::Svm => Learner::Linear(LinearLearner {
                model: LinearModel::Hinge,
                recipe,
            }),
            ModelKind::Mlp1 => Learner::Mlp(MlpLearner::new(&[784, 1000, 10], recipe)?),
            ModelKind::Mlp2 => Learner::Mlp(MlpLearner::new(&[784, 128, 64, 10], recipe)?),
        })
    }

    /// The privacy oracle: the study's accountant at its δ.
    pub fn privacy(&self) -> &PrivacyOracle {
        &self.privacy
    }

    /// ε of `learner`'s event at the study's δ.
    pub fn epsilon(&self, learner: &Learner) -> anyhow::Result<f64> {
        let eps = self.privacy.epsilon(&learner.event())?;
        let hyper = learner.recipe().hyper();
        // The points log stores ε as a JSON number, which +∞ is not.
        anyhow::ensure!(
            eps.is_finite(),
            "the privacy oracle has no finite epsilon at noise multiplier {:e} and {} steps \
             (epsilon ~ steps/z^2 overflows a double); raise the lower end of the study's \
             noise_multiplier range",
            hyper.noise_multiplier,
            hyper.steps(self.n())
        );
        Ok(eps)
    }

    /// The seed of replication `r` of point `index` from `source`: independent of thread
    /// count and order, and shared by a random study and DPareto's seed points.
    fn seed(&self, source: Source, index: usize, r: usize) -> u64 {
        derive_seed(&[
            b"avent2020-train",
            &self.cfg.seed.to_le_bytes(),
            source.name().as_bytes(),
            &(index as u64).to_le_bytes(),
            &(r as u64).to_le_bytes(),
        ])
    }

    /// Both objectives of proposal `x`, every replication trained in parallel.
    pub fn evaluate(&self, index: usize, source: Source, x: [f64; DIM]) -> anyhow::Result<Point> {
        let start = Instant::now();
        let hyper = to_hyper(&x, self.n());
        // One value for what is accounted and what is trained.
        let learner = self.learner(&hyper)?;
        let epsilon = self.epsilon(&learner)?;
        let runs: Vec<(f64, bool)> = (0..self.cfg.replications)
            .into_par_iter()
            .map(|r| self.train_once(&learner, self.seed(source, index, r)))
            .collect::<anyhow::Result<_>>()?;
        Ok(Point {
            index,
            source,
            x,
            epochs: hyper.epochs,
            lot: hyper.lot,
            lr: hyper.lr,
            clip: hyper.clip,
            noise_multiplier: hyper.noise_multiplier,
            steps: hyper.steps(self.n()),
            epsilon,
            accuracies: runs.iter().map(|r| r.0).collect(),
            diverged: runs.iter().filter(|r| r.1).count(),
            wall_ms: start.elapsed().as_secs_f64() * 1e3,
            bo: None,
        })
    }

    /// One training run: (test accuracy, diverged).
    fn train_once(&self, learner: &Learner, seed: u64) -> anyhow::Result<(f64, bool)> {
        Ok(match (&self.views, learner) {
            (Views::Linear(train, test), Learner::Linear(l)) => {
                let run = l.train(train, seed)?;
                (run.accuracy(test), run.diverged())
            }
            (Views::Dense(train, test), Learner::Mlp(l)) => {
                let run = l.train(train, seed)?;
                (run.accuracy(test), run.diverged())
            }
            _ => unreachable!("views and learners are built for the model kind"),
        })
    }
}

#[cfg(test)]
#[path = "oracle_tests.rs"]
mod tests;
