//! `zero_one_erm`, a non-private reference line of Neel et al.'s figure (not in the paper; the
//! reference notes add it): the exact 0/1 optimum over `{−B..B}^d ∩ ‖w‖² ≤ D²` (the OPDisc
//! oracle with η = 0), run once per config.

use serde::{Deserialize, Serialize};

use super::oracle::{GridDetails, Guarantee, OracleKeys, release, training_rows};
use crate::experiment::grid::Cell;
use crate::methods::{CellOutcome, Context, Method, MethodEntry, parse_table};

/// `zero_one_erm`'s entry.
pub const ZERO_ONE_ERM: MethodEntry = MethodEntry {
    kind: "zero_one_erm",
    summary: "Non-private reference: exact 0/1-loss minimiser over an integer grid (MIP), run once",
    parse: parse_zero_one,
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
        let details = GridDetails {
            bound: self.grid.bound,
            radius_sq,
        };
        release(ctx, &self.oracle, &answer, &rows, Guarantee::None, &details)
    }
}
