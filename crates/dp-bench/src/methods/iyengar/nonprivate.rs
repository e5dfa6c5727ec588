//! `kind = "np"`: the non-private baseline of Iyengar et al. (`gridsearch.py:246-256`):
//! scikit-learn's default `LogisticRegression()` (liblinear, L2 with C = 1, an intercept that is
//! regularised like every weight) on the unclipped training rows. The paper's Huber baseline
//! ("SciPy minimize with the Huber loss") is not in the released code; `loss = "huber"` fits the
//! same regularised objective with the Huber loss.

use anyhow::Context as _;
use dp_core::accounting::Event;
use dp_core::learn::{GlmData, accuracy_random_ties, fit_glm, multiclass_accuracy};
use serde::{Deserialize, Serialize};

use crate::experiment::grid::Cell;
use crate::methods::{CellOutcome, Context, LossKind, Method, MethodEntry, parse_table};

/// The table entry.
pub const NP: MethodEntry = MethodEntry {
    kind: "np",
    summary: "Non-private L2 logistic regression (C = 1, intercept) or Huber SVM: Iyengar et al.'s baseline",
    parse,
};

/// The baseline's keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NpConfig {
    /// Loss.
    #[serde(default)]
    pub loss: LossKind,
    /// Inverse regularisation strength C of Σℓ·C + ½‖θ‖² (scikit-learn's default 1).
    #[serde(default = "one")]
    pub c: f64,
}

fn one() -> f64 {
    1.0
}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    let c: NpConfig = parse_table(table)?;
    if !(c.c > 0.0 && c.c.is_finite()) {
        return Err(format!(
            "c` = {} must be > 0 and finite",
            crate::quoting::number(c.c)
        ));
    }
    Ok(Box::new(c))
}

/// What a non-private cell records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NpDetails {
    /// Solver iterations.
    pub iterations: Iterations,
}

/// Solver iterations of one fit, or of each class's.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Iterations {
    /// A binary problem.
    One(usize),
    /// One-vs-all: each class's.
    PerClass(Vec<usize>),
}

impl Method for NpConfig {
    /// Trains one binary problem per class (Iyengar et al.'s multi-class protocol).
    fn one_vs_all(&self) -> bool {
        true
    }

    fn kind(&self) -> &'static str {
        NP.kind
    }

    fn non_private(&self) -> bool {
        true
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    fn run(&self, ctx: &Context<'_>, _cell: &Cell) -> anyhow::Result<CellOutcome> {
        let x = ctx.train.x().with_bias_column(1.0);
        let data = GlmData::from_owned(x, ctx.train.y())?;
        let n = data.n() as f64;
        // C·Σℓ + ½‖θ‖² is n·C × the mean objective with l2 = 1/(n·C).
        let fit = |d: &GlmData<'_>| {
            fit_glm(d, self.loss.glm(), 1.0 / (n * self.c), 1e-10)
                .context("the non-private baseline did not converge")
        };
        let test_x = ctx.test.x.with_bias_column(1.0);
        let (accuracy, iterations) = match ctx.test.classes.as_deref() {
            Some(classes) if !ctx.classes.is_empty() => {
                // One-vs-all, as the private methods: one fit per class, argmax prediction.
                let (mut thetas, mut iterations) = (Vec::new(), Vec::new());
                for c in &ctx.classes {
                    let f = fit(&data.relabel(c.y())?)?;
                    iterations.push(f.iterations);
                    thetas.push(f.x);
                }
                (
                    multiclass_accuracy(&test_x, classes, &thetas),
                    Iterations::PerClass(iterations),
                )
            }
            _ => {
                let f = fit(&data)?;
                let acc = accuracy_random_ties(&test_x, &ctx.test.y, &f.x);
                (acc, Iterations::One(f.iterations))
            }
        };
        Ok(CellOutcome::new(
            100.0 * accuracy,
            Event::NonPrivate,
            &NpDetails { iterations },
        ))
    }
}
