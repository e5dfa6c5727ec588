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
///
/// # Example
/// DP-SGD over n = 400 rows, expected batch 40, 5 epochs: its event is 50 Poisson-sampled
/// Gaussian steps at rate 0.1, and a run samples records at that rate.
/// ```
/// use dp_core::accounting::{Event, RdpAccountant, epsilon_of};
/// use dp_core::learn::synthetic::halfspace;
/// use dp_core::learn::{DpSgd, GlmData, Mechanism, dpsgd};
/// use rand::SeedableRng;
/// use rand::rngs::StdRng;
///
/// let m = DpSgd::paper(400, 40, 5, 1.0, 1.2, 0.05).checked()?;
/// assert_eq!(m.event(), Event::dpsgd(0.1, 1.2, 50)?);
///
/// let (x, y) = halfspace(400, 4, 0.1, 7);
/// let data = GlmData::new(&x, &y)?;
/// let (theta, report) = m.fit(&data, 1)?;
/// assert_eq!((theta.len(), report.steps), (4, 50));
/// assert_eq!(m.fit(&data, 1)?.0, theta);
/// assert_ne!(m.fit(&data, 2)?.0, theta);
///
/// // 50 steps over 400 rows draw Binomial(20000, 0.1) records: the rate's sd is 0.002.
/// let run = dpsgd(&data, &m, &mut StdRng::seed_from_u64(3))?;
/// let rate = run.examples_seen as f64 / (400.0 * 50.0);
/// assert!((rate - 0.1).abs() < 0.01, "sampled at {rate}");
///
/// // Without noise nothing is private, and the event says so.
/// let open = DpSgd { noise_multiplier: 0.0, ..m };
/// assert_eq!(open.event(), Event::NonPrivate);
/// assert_eq!(epsilon_of(RdpAccountant::new(), &open.event(), 1e-5)?, f64::INFINITY);
/// # Ok::<(), dp_core::DpError>(())
/// ```
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
