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

impl Clock {
    /// A release whose fit took `spent`, of a learner with `timeout_seconds`.
    pub(super) fn after(spent: Duration, timeout_seconds: f64) -> Clock {
        Clock {
            spent,
            limit: Duration::from_secs_f64(timeout_seconds),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::config::Config;
    use crate::methods::Prepared;

    /// A fit that used the learner's whole time leaves none for certifying its declaration:
    /// the cell fails with both times, while the same declaration within its time certifies.
    #[test]
    fn certification_counts_against_the_learners_time() {
        let cfg = Config::parse(
            "seed = 1\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-5\n[dataset]\n\
             name = \"synthetic-l\"\nsubsample = 200\n[methods.np]\nkind = \"np\"\n",
            std::path::Path::new("budget-test.toml"),
        )
        .unwrap();
        let prepared = Prepared::new(&cfg).unwrap();
        let ctx = prepared.context().unwrap();
        let event = Event::Gaussian {
            noise_multiplier: 2.0,
        };
        let limit = Duration::from_secs(60);
        let roomy = Clock {
            spent: Duration::from_secs(1),
            limit,
        };
        let eps = certify(&ctx, Neighbours::AddRemove, &event, roomy).unwrap();
        assert!(eps > 0.0 && eps.is_finite(), "{eps}");
        let spent = Clock {
            spent: limit,
            limit,
        };
        let e = certify(&ctx, Neighbours::AddRemove, &event, spent).unwrap_err();
        assert!(
            e.contains("timeout_seconds = 60") && e.contains("60.00 s"),
            "{e}"
        );
    }
}
