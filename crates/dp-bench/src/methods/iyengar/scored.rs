//! One grid point's run, and how it is scored: on the rows a choice may read (validation, or
//! test under the papers' protocol), and on the test rows once it is released.

use std::sync::Arc;

use anyhow::Context as _;
use dp_core::accounting::event::Event;
use dp_core::features::FeatureMatrix;
use dp_core::learn::{accuracy_random_ties, multiclass_accuracy};

use crate::methods::Context;
use crate::methods::row_clip::ClippedData;

/// One point of a cell, run; a refused release (calibration impossible, solver short of its
/// gradient target, a row over the bound) releases nothing: θ = 0, which scores 50%.
pub struct Scored<'c> {
    /// The released model: one θ, or one per class for one-vs-all.
    pub thetas: Vec<Vec<f64>>,
    /// The clipped rows it was trained on and is scored on.
    pub(super) data: Arc<ClippedData<'c>>,
    /// ε the accountants certify for what ran under the config's relation (∞: no guarantee).
    pub epsilon: f64,
    /// The event of what ran (`NoOp` when refused).
    pub event: Event,
    /// The run's noise scale (NaN when refused).
    pub noise: f64,
    /// Why the point released nothing, if it did not.
    pub refused: Option<String>,
}

impl Scored<'_> {
    /// Accuracy (a fraction) on clipped rows `x` labelled `y` (binary) or `classes`.
    fn accuracy_on(&self, x: &FeatureMatrix, rows: &dp_data::Dataset) -> anyhow::Result<f64> {
        Ok(if self.data.classes.is_empty() {
            accuracy_random_ties(x, &rows.y, &self.thetas[0])
        } else {
            let classes = rows
                .classes
                .as_deref()
                .context("one-vs-all needs the rows' classes")?;
            multiclass_accuracy(x, classes, &self.thetas)
        })
    }

    /// Test accuracy in percent: read once for a released model.
    pub fn test_accuracy(&self, ctx: &Context<'_>) -> anyhow::Result<f64> {
        Ok(100.0 * self.accuracy_on(&self.data.test_x, ctx.test)?)
    }

    /// The accuracy in percent on the rows choices read: validation, or test under the
    /// papers' protocol.
    pub fn selection_accuracy(&self, ctx: &Context<'_>) -> anyhow::Result<f64> {
        let fraction = match (&self.data.valid_x, ctx.valid) {
            (Some(x), Some(rows)) => self.accuracy_on(x, rows)?,
            (None, None) => self.accuracy_on(&self.data.test_x, ctx.test)?,
            _ => anyhow::bail!(
                "the clipped rows have no validation copy: a choice would read test rows"
            ),
        };
        Ok(100.0 * fraction)
    }
}
