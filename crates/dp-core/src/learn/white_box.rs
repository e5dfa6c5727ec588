//! What a white-box auditor sees of a learner that releases every step's noisy sum of
//! clipped gradients (audit.md §3, the Dirac gradient canary), for DP-SGD and P-SGD alike.

use super::data::GlmData;
use crate::accounting::event::Event;
use crate::error::Result;

/// What a white-box auditor sees and inserts: a coordinate per canary beyond the data's
/// features, which no row's gradient touches, and, for each canary that is in, one more
/// example whose clipped gradient is G·e_j at its coordinate j (G the bound every per-example
/// gradient is clipped or bounded to), sampled by its own Poisson coin like every row. Each
/// step's released noisy sum at each coordinate, in units of G, is recorded: Bernoulli(q)
/// when its canary is in, 0 when out, plus z·N(0, 1). One canary is the many-run audit's
/// view; many, in one run, the one-run audit's.
#[derive(Clone, Debug, PartialEq)]
pub struct WhiteBox {
    /// For each of the auditor's coordinates, whether its canary is in the dataset (D′) or
    /// not (D).
    pub canaries: Vec<bool>,
    /// The noisy sums at the canaries' coordinates divided by G, step by step: step t's sum
    /// at canary i's coordinate is `updates[t * canaries.len() + i]`.
    pub updates: Vec<f64>,
}

impl WhiteBox {
    /// The view of one canary, in (D′) or out (D).
    pub fn one(canary: bool) -> WhiteBox {
        WhiteBox {
            canaries: vec![canary],
            updates: Vec::new(),
        }
    }

    /// Clears the recorded sums before a run of `steps` steps, refusing a view with no
    /// canary (it would record nothing, and an audit of it would measure 0 silently).
    pub(crate) fn begin(&mut self, steps: usize) -> Result<()> {
        if self.canaries.is_empty() {
            return Err(crate::error::DpError::Invalid(
                "a white-box view needs at least one canary".into(),
            ));
        }
        self.updates.clear();
        self.updates
            .reserve(steps.saturating_mul(self.canaries.len()));
        Ok(())
    }

    /// Canary `i`'s noisy sums, one per step.
    pub fn canary_updates(&self, i: usize) -> impl Iterator<Item = f64> + '_ {
        let k = self.canaries.len();
        self.updates.iter().skip(i).step_by(k.max(1)).copied()
    }
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
    /// The most canaries one run can carry: 1 where the view is built for one (objective
    /// perturbation's), unbounded where every canary is a coordinate of its own.
    fn max_canaries(&self) -> usize {
        usize::MAX
    }
    /// The event of what the auditor sees, the certificate a white-box audit answers to:
    /// every step's release for DP-SGD and P-SGD; for Algorithm 1, whose view is the
    /// minimiser before its output noise, objective perturbation alone.
    fn view_event(&self) -> Event;
}
