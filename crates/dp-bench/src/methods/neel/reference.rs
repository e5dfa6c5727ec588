//! `logreg_erm`, a non-private reference line of Neel et al.'s figure (not in the paper; the
//! reference notes add it): unregularised logistic regression without an intercept
//! (scikit-learn's `C = 1e14`, `fit_intercept = False`), run once per config. Its MIP twin
//! `zero_one_erm` is in `zero_one.rs`, built only with the `mip` feature.

use anyhow::Context as _;
use dp_core::accounting::Event;
use dp_core::learn::{GlmLoss, fit_glm};
use serde::{Deserialize, Serialize};

use crate::experiment::grid::Cell;
use crate::methods::{CellOutcome, Context, Method, MethodEntry, parse_table, test_accuracy};

/// `logreg_erm`'s entry.
pub const LOGREG_ERM: MethodEntry = MethodEntry {
    kind: "logreg_erm",
    summary: "Non-private reference: logistic regression without intercept or penalty (L-BFGS), run once",
    parse: parse_logreg,
};

/// `logreg_erm`'s keys (none).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LogregConfig {}

fn parse_logreg(table: toml::Table) -> Result<Box<dyn Method>, String> {
    Ok(Box::new(parse_table::<LogregConfig>(table)?))
}

impl Method for LogregConfig {
    fn kind(&self) -> &'static str {
        LOGREG_ERM.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    fn reference(&self) -> bool {
        true
    }

    fn run(&self, ctx: &Context<'_>, _cell: &Cell) -> anyhow::Result<CellOutcome> {
        // l2 = 1/(n·C) with C = 1e14: numerically unpenalised, but keeps L-BFGS well posed.
        let l2 = 1.0 / (ctx.train.n() as f64 * 1e14);
        let fit = fit_glm(&ctx.train, GlmLoss::Logistic, l2, 1e-10)
            .context("non-private logistic regression did not converge")?;
        let accuracy = test_accuracy(ctx, &fit.x);
        let details = ReferenceDetails {
            iterations: fit.iterations,
            w: fit.x,
        };
        Ok(CellOutcome::new(accuracy, Event::NonPrivate, &details))
    }
}

/// What the non-private reference records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ReferenceDetails {
    /// L-BFGS iterations.
    pub iterations: usize,
    /// The minimiser.
    pub w: Vec<f64>,
}
