//! What a white-box auditor sees of a learner that releases every step's noisy sum of
//! clipped gradients (audit.md §3, the Dirac gradient canary), for DP-SGD and P-SGD alike.

use super::data::GlmData;
use crate::accounting::event::Event;
use crate::error::Result;

/// What a white-box auditor sees and inserts: one coordinate beyond the data's features,
/// which no row's gradient touches, and, when `canary` holds, one more example whose clipped
/// gradient is G·e_j there (G the bound every per-example gradient is clipped or bounded
/// to), sampled by its own Poisson coin like every row. Each step's released noisy sum at
/// that coordinate, in units of G, is recorded: Bernoulli(q) when the canary is in, 0 when
/// out, plus z·N(0, 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WhiteBox {
    /// Whether the canary is in the dataset (D′) or not (D).
    pub canary: bool,
    /// The noisy sums at the canary's coordinate, one per step, divided by G.
    pub updates: Vec<f64>,
}

/// A learner whose every step releases a Poisson-subsampled Gaussian sum of bounded
/// per-example gradients, the event its accounting composes; run with the auditor's
/// coordinate and canary.
pub trait NoisySteps: Send + Sync {
    /// One run on `data` from `seed`, recording every step's noisy sum at the auditor's
    /// coordinate into `view` (which says whether the canary is in).
    fn run_white_box(&self, data: &GlmData<'_>, seed: u64, view: &mut WhiteBox) -> Result<()>;
    /// The sampling rate q of every step (the canary's coin).
    fn sampling_rate(&self) -> f64;
    /// The noise multiplier z: the noise's standard deviation over G.
    fn noise_multiplier(&self) -> f64;
    /// The number of steps T.
    fn steps(&self) -> usize;
    /// The event of what the auditor sees, the certificate a white-box audit answers to:
    /// every step's release for DP-SGD and P-SGD; for Algorithm 1, whose view is the
    /// minimiser before its output noise, objective perturbation alone.
    fn view_event(&self) -> Event;
}
