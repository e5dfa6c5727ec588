//! `kind = "constant"`: releases θ = 0 whatever the data (every score 0, so every test example
//! is predicted −1). It touches no training record, so it is 0-DP: the floor a private learner
//! must beat (the majority class on data whose majority is −1, Neel et al.'s "refuse"), and
//! the cheapest real cell, which the store benchmark runs 100,000 of.

use dp_core::accounting::Event;
use serde::{Deserialize, Serialize};

use super::{CellOutcome, Context, Method, MethodEntry, NoDetails, parse_table, test_accuracy};
use crate::experiment::grid::Cell;

/// The table entry.
pub const CONSTANT: MethodEntry = MethodEntry {
    kind: "constant",
    summary: "releases theta = 0 regardless of the data (0-DP floor; the cheapest cell)",
    parse,
};

/// `constant`'s keys (none).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConstantConfig {}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    Ok(Box::new(parse_table::<ConstantConfig>(table)?))
}

impl Method for ConstantConfig {
    fn kind(&self) -> &'static str {
        CONSTANT.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    fn cost(&self) -> f64 {
        0.01
    }

    fn run(&self, ctx: &Context<'_>, _cell: &Cell) -> anyhow::Result<CellOutcome> {
        let theta = vec![0.0; ctx.test.x.ncols()];
        Ok(CellOutcome::new(
            test_accuracy(ctx, &theta),
            Event::NoOp,
            &NoDetails {},
        ))
    }
}
