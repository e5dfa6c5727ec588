//! DPareto's learners as mechanisms: one value holds what a training run does (model,
//! optimiser, initialisation, the hyperparameters λ and the n rows they are for) and the
//! [`Event`] of that run, so that the privacy oracle accounts what runs instead of rebuilding
//! the event beside the trainer.
//!
//! The linear models train on [`GlmData`] and implement [`Mechanism`]. The MLPs train on
//! [`DenseData`] (class labels, dense rows), which `Mechanism::fit` cannot take, so they
//! implement [`DenseMechanism`], the same contract over dense data.

use serde::Serialize;

use super::dense::DenseData;
use super::hyper::{Hyper, Init};
use super::linear::{LinearModel, LinearRun, train_linear};
use super::mlp::{Mlp, MlpRun, train_mlp};
use crate::accounting::event::Event;
use crate::error::{Result, ensure};
use crate::learn::data::GlmData;
use crate::learn::mechanism::Mechanism;
use crate::learn::optimizer::Optimizer;

/// DP-SGD or DP-Adam at one point λ on `n` training rows: everything a run's privacy depends
/// on, checked once so that every constructed recipe has a valid event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recipe {
    hyper: Hyper,
    n: usize,
    optimizer: Optimizer,
    init: Init,
}

impl Recipe {
    /// Checks λ against `n` rows and the optimiser's parameters.
    pub fn new(hyper: Hyper, n: usize, optimizer: Optimizer, init: Init) -> Result<Recipe> {
        hyper.validate(n)?;
        optimizer.validate()?;
        Ok(Recipe {
            hyper,
            n,
            optimizer,
            init,
        })
    }

    /// The hyperparameters λ.
    pub fn hyper(&self) -> &Hyper {
        &self.hyper
    }

    /// Training rows the recipe (and its event) is for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The update rule.
    pub fn optimizer(&self) -> Optimizer {
        self.optimizer
    }

    /// The initialisation.
    pub fn init(&self) -> Init {
        self.init
    }

    /// `T = steps(n)` steps, each a Gaussian on a fresh lot of m records drawn without
    /// replacement (rate m/n). The noise `N(0, (2zL/m)²)` on the mean clipped gradient is
    /// `2zL` on the sum, whose replace-one sensitivity is `2L`: noise multiplier z in the
    /// event's replace-one units. Every step is charged, also those a diverged run skips.
    pub fn event(&self) -> Event {
        Event::SelfComposed {
            event: Box::new(Event::SampledWithoutReplacement {
                rate: self.hyper.rate(self.n),
                event: Box::new(Event::Gaussian {
                    noise_multiplier: self.hyper.noise_multiplier,
                }),
            }),
            count: self.hyper.steps(self.n),
        }
    }

    /// Refuses data of another size than the recipe's: its event is for `n` rows.
    fn check_rows(&self, rows: usize) -> Result<()> {
        ensure(
            rows == self.n,
            "rows",
            rows as f64,
            "must equal the n the learner's event is for",
        )
    }
}

/// Diagnostics of one Avent training run (not part of the release).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AventReport {
    /// Steps the run is charged for.
    pub steps: u64,
    /// Steps taken (fewer when the run stopped on a non-finite value).
    pub steps_run: u64,
}

/// Logistic regression or linear SVM trained by [`Recipe`] ([`train_linear`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearLearner {
    /// The model and its loss.
    pub model: LinearModel,
    /// How it is trained, and on how many rows.
    pub recipe: Recipe,
}

impl LinearLearner {
    /// One training run on `data` (which must have the recipe's n rows), with its diagnostics.
    pub fn train(&self, data: &GlmData<'_>, seed: u64) -> Result<LinearRun> {
        let r = &self.recipe;
        r.check_rows(data.n())?;
        train_linear(data, self.model, r.optimizer, &r.hyper, r.init, seed)
    }
}

impl Mechanism for LinearLearner {
    type Report = AventReport;

    fn name(&self) -> &'static str {
        match self.model {
            LinearModel::Logistic => "avent-logistic",
            LinearModel::Hinge => "avent-svm",
        }
    }

    fn event(&self) -> Event {
        self.recipe.event()
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, AventReport)> {
        let run = self.train(data, seed)?;
        let report = AventReport {
            steps: run.steps,
            steps_run: run.steps_run,
        };
        Ok((run.theta, report))
    }
}

/// [`Mechanism`] over dense rows with class labels: the same privacy and randomness contract,
/// for learners whose data a [`GlmData`] cannot hold.
pub trait DenseMechanism: Send + Sync {
    /// Diagnostics of one run, as [`Mechanism::Report`].
    type Report: Serialize;

    /// Short name of the mechanism.
    fn name(&self) -> &'static str;

    /// What the accountant needs to bound this mechanism's release, from public quantities
    /// fixed at construction only.
    fn event(&self) -> Event;

    /// Runs the mechanism on `data`, returning the released parameters and the run's report.
    fn fit(&self, data: &DenseData<'_>, seed: u64) -> Result<(Vec<f64>, Self::Report)>;
}

/// A ReLU MLP with a softmax output trained by [`Recipe`] ([`train_mlp`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MlpLearner {
    mlp: Mlp,
    recipe: Recipe,
}

impl MlpLearner {
    /// The network of layer widths `sizes` (inputs first, classes last), trained by `recipe`.
    pub fn new(sizes: &[usize], recipe: Recipe) -> Result<MlpLearner> {
        Ok(MlpLearner {
            mlp: Mlp::new(sizes)?,
            recipe,
        })
    }

    /// The network's shape.
    pub fn mlp(&self) -> &Mlp {
        &self.mlp
    }

    /// How it is trained, and on how many rows.
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// One training run on `data` (which must have the recipe's n rows), with its diagnostics.
    pub fn train(&self, data: &DenseData<'_>, seed: u64) -> Result<MlpRun> {
        let r = &self.recipe;
        r.check_rows(data.n())?;
        train_mlp(data, self.mlp.sizes(), r.optimizer, &r.hyper, r.init, seed)
    }
}

impl DenseMechanism for MlpLearner {
    type Report = AventReport;

    fn name(&self) -> &'static str {
        "avent-mlp"
    }

    fn event(&self) -> Event {
        self.recipe.event()
    }

    fn fit(&self, data: &DenseData<'_>, seed: u64) -> Result<(Vec<f64>, AventReport)> {
        let run = self.train(data, seed)?;
        let report = AventReport {
            steps: run.steps,
            steps_run: run.steps_run,
        };
        Ok((run.params, report))
    }
}

#[cfg(test)]
#[path = "learner_tests.rs"]
mod tests;
