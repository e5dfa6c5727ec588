//! An outside learner as one mechanism for `dp-bench audit`: the harness builds the two
//! neighbouring datasets (and the canary) as for a built-in learner, writes each as the
//! arrays a fit reads, and sends ordinary fit requests at the cell's target with the fixed
//! hyperparameters. Nothing in a request says it is an audit, so a learner cannot answer one
//! differently; the θ it returns is scored, the event it declares is certified. A learner
//! whose measured lower bound exceeds its certificate is refuted.

use std::path::PathBuf;
use std::sync::Mutex;

use dp_core::accounting::{Event, Target};
use dp_core::learn::GlmData;

use super::External;
use super::npy::{self, DataFiles};
use crate::experiment::audited::Release;

/// A dataset by the addresses of its features and labels and its size.
type DataKey = (usize, usize, usize);

/// Fits of one outside learner at one target, on whatever data the audit gives.
pub(super) struct ExternalRelease<'c> {
    pub(super) learner: &'c External,
    pub(super) target: Target,
    /// Where the datasets' arrays go (`<results>/external`).
    pub(super) root: PathBuf,
    /// The arrays of each dataset seen, by (x, y) address and size: an audit has two.
    pub(super) files: Mutex<Vec<(DataKey, DataFiles)>>,
}

impl ExternalRelease<'_> {
    /// The arrays of `data`, written once and checked (and written again if changed) before
    /// every fit, as for a grid's cells.
    fn files(&self, data: &GlmData<'_>) -> dp_core::Result<DataFiles> {
        let key = (
            std::ptr::from_ref(data.x()) as usize,
            data.y().as_ptr() as usize,
            data.n(),
        );
        let mut seen = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, f)) = seen
            .iter()
            .find(|(k, f)| *k == key && f.changed().is_empty())
        {
            return Ok(f.clone());
        }
        let f = npy::write_once(&self.root, data.x(), data.y(), None)
            .map_err(|e| dp_core::DpError::Invalid(format!("{e:#}")))?;
        seen.retain(|(k, _)| *k != key);
        seen.push((key, f.clone()));
        Ok(f)
    }
}

impl Release for ExternalRelease<'_> {
    fn release(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, Event)> {
        let files = self.files(data)?;
        let m = self.learner;
        // `mechanism` admits `output = "theta"` only: d values.
        let shape = (data.n(), data.d());
        m.fit_on(&files, shape, data.d(), &m.points[0], self.target, seed)
            .map(|fit| (fit.values, fit.event))
            .map_err(|why| {
                // A timeout is the machine's, not the learner's answer: it stops the audit.
                if why.starts_with(super::worker::TIMED_OUT) {
                    dp_core::DpError::Irreproducible(why)
                } else {
                    dp_core::DpError::Invalid(why)
                }
            })
    }
}
