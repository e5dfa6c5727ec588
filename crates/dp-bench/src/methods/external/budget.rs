//! A declared release against its budget: the ε this project's accountants certify for it
//! under the config's relation, and a cell's outcome that never reports an accuracy above
//! its target.

use std::time::{Duration, Instant};

use dp_core::accounting::Event;
use dp_core::accounting::event::Neighbours;
use serde::Serialize;

use super::{CellOutcome, Context};

/// The learner's time for one release: what its fit took (`spent`) and its
/// `timeout_seconds` (`limit`). Certifying what it declared counts against the same limit,
/// so a declaration cannot buy time that a slow fit could not.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    pub spent: Duration,
    pub limit: Duration,
}

/// ε our accountants certify for one declared release (the runner certifies the cell's
/// event the same way; this is for the decisions a cell makes on it), or why not: the event
/// cannot be bounded, or its fit and certification together overran the learner's time.
pub(super) fn certify(
    ctx: &Context<'_>,
    relation: Neighbours,
    event: &Event,
    clock: Clock,
) -> Result<f64, String> {
    let start = Instant::now();
    let eps = ctx
        .certify_as(event, Some(relation))
        .map_err(|e| format!("the accountants cannot bound the declared event: {e:#}"))?;
    let certifying = start.elapsed();
    if clock.spent + certifying > clock.limit {
        return Err(format!(
            "the fit ({:.2} s) and the certification of its declared event ({:.2} s) took \
             more than timeout_seconds = {} together: certification counts against the \
             learner's time; declare repeated parts folded (SelfComposed, docs/limits.md)",
            clock.spent.as_secs_f64(),
            certifying.as_secs_f64(),
            crate::quoting::number(clock.limit.as_secs_f64())
        ));
    }
    Ok(eps)
}

/// A cell's outcome from its released accuracy and declared event: over the target, the cell
/// reports no accuracy (NaN), `details.over_budget = true` and the accuracy in
/// `details.accuracy`, so it is never shown as an accuracy at the target.
pub(super) fn outcome<D: Serialize>(
    ctx: &Context<'_>,
    relation: Neighbours,
    accuracy: f64,
    event: Event,
    target: f64,
    details: &D,
    clock: Clock,
) -> Result<CellOutcome, String> {
    let over_budget = certify(ctx, relation, &event, clock)? > target;
    let details = Budgeted {
        run: details,
        over_budget,
        accuracy: over_budget.then_some(accuracy),
    };
    let released = if over_budget { f64::NAN } else { accuracy };
    Ok(CellOutcome::new(released, event, &details))
}

/// A cell's details with whether it met its budget.
#[derive(Serialize)]
struct Budgeted<'a, D: Serialize> {
    #[serde(flatten)]
    run: &'a D,
    over_budget: bool,
    /// Over budget: the accuracy, kept out of the `accuracy` column.
    #[serde(skip_serializing_if = "Option::is_none")]
    accuracy: Option<f64>,
}
