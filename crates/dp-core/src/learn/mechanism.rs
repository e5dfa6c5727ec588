//! A release paired with its privacy (OpenDP's `Measurement`): one value holds what a learner
//! runs and the [`Event`] an accountant needs, so what is accounted is what ran.

use serde::Serialize;

use super::data::GlmData;
use crate::accounting::event::Event;
use crate::error::Result;

/// A differentially private learner.
///
/// # Privacy contract
/// [`Mechanism::event`] reads only public quantities fixed at construction (noise scales,
/// sampling rates, step counts, public norm bounds, n), never the rows, and describes every
/// release [`Mechanism::fit`] makes from the data. Parameter ranges are checked when the value is
/// built, so a constructed mechanism always has a valid event.
///
/// # Randomness
/// `fit` draws everything from streams seeded by `seed` (`rand::rngs::StdRng`), so the same
/// seed gives the same θ on any platform and thread count. Seeds rather than a `&mut Rng` let
/// wrappers give each inner run its own stream derived from the seed (see
/// [`super::tuning::RepeatAndSelect`]), independent of how many runs came before.
pub trait Mechanism: Send + Sync {
    /// Diagnostics of one run (iterations, chosen hyperparameter, …): recorded with the
    /// results, not part of the release and not covered by the privacy guarantee.
    type Report: Serialize;

    /// Short name of the mechanism, e.g. `alg1`.
    fn name(&self) -> &'static str;

    /// What the accountant needs to bound this mechanism's release.
    fn event(&self) -> Event;

    /// Runs the mechanism on `data`, returning the released model and the run's report.
    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, Self::Report)>;
}

/// An output-perturbation mechanism: a non-private descent, then noise scaled to its
/// sensitivity. Only [`OutputPerturbation::release`] depends on the privacy target, so a sweep
/// over ε may run one descent and release it at every ε (each release is still exactly the
/// mechanism: the descent's randomness is not part of the guarantee's noise).
pub trait OutputPerturbation: Mechanism {
    /// The non-private model, from randomness drawn from `seed`.
    fn descend(&self, data: &GlmData<'_>, seed: u64) -> Result<Vec<f64>>;

    /// The release of a [`OutputPerturbation::descend`] result, noise drawn from `seed`.
    fn release(&self, theta: Vec<f64>, seed: u64) -> (Vec<f64>, Self::Report);
}
