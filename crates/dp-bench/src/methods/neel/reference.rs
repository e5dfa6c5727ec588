//! The non-private reference lines of Neel et al.'s figure (not in the paper; the reference
//! notes add them): `zero_one_erm`, the exact 0/1 optimum over `{−B..B}^d ∩ ‖w‖² ≤ D²` (the
//! OPDisc oracle with η = 0), and `logreg_erm`, unregularised logistic regression without an
//! intercept (scikit-learn's `C = 1e14`, `fit_intercept = False`). Each runs once per config.

use anyhow::Context as _;
use dp_core::learn::{GlmLoss, fit_glm};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::oracle::{OracleKeys, release, training_rows};
use crate::experiment::grid::Cell;
use crate::methods::{CellOutcome, Context, Method, MethodEntry, parse_table, test_accuracy};

/// `zero_one_erm`'s entry.
pub const ZERO_ONE_ERM: MethodEntry = MethodEntry {
    kind: "zero_one_erm",
    summary: "Non-private reference: exact 0/1-loss minimiser over an integer grid (MIP), run once",
    parse: parse_zero_one,
};

/// `logreg_erm`'s entry.
pub const LOGREG_ERM: MethodEntry = MethodEntry {
    kind: "logreg_erm",
    summary: "Non-private reference: logistic regression without intercept or penalty (L-BFGS), run once",
    parse: parse_logreg,
};

/// The grid of `zero_one_erm`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Grid {
    /// Coordinate bound B (default 1: RSPM's grid, which HiGHS can certify at n = 1,000).
    #[serde(default = "one")]
    bound: i32,
    /// D² (default d).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    radius_sq: Option<i64>,
}

fn one() -> i32 {
    1
}

/// `zero_one_erm`'s keys.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ZeroOneConfig {
    #[serde(flatten)]
    grid: Grid,
    #[serde(flatten)]
    oracle: OracleKeys,
}

fn parse_zero_one(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let oracle = OracleKeys::take(&mut table)?;
    let grid: Grid = parse_table(table)?;
    if !(1..=64).contains(&grid.bound) {
        return Err(format!("bound` = {} must be in 1..=64", grid.bound));
    }
    Ok(Box::new(ZeroOneConfig { grid, oracle }))
}

impl Method for ZeroOneConfig {
    fn kind(&self) -> &'static str {
        ZERO_ONE_ERM.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    fn reference(&self) -> bool {
        true
    }

    /// A MIP solve may use its whole node budget.
    fn cost(&self) -> f64 {
        self.oracle.cost()
    }

    fn run(&self, ctx: &Context<'_>, _cell: &Cell) -> anyhow::Result<CellOutcome> {
        let rows = training_rows(ctx);
        let radius_sq = self.grid.radius_sq.unwrap_or(rows.d as i64);
        let eta = vec![0.0; rows.d + 1];
        let answer = dp_mip::opdisc(
            &rows,
            self.grid.bound,
            radius_sq,
            &eta,
            &self.oracle.options(),
        );
        let details = json!({ "bound": self.grid.bound, "radius_sq": radius_sq });
        let mut out = release(ctx, &self.oracle, &answer, &rows, f64::INFINITY, details)?;
        out.epsilon_accounted = f64::INFINITY;
        Ok(out)
    }
}

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
        Ok(CellOutcome {
            accuracy: test_accuracy(ctx, &fit.x),
            epsilon_accounted: f64::INFINITY,
            details: json!({ "iterations": fit.iterations, "w": fit.x }),
        })
    }
}
