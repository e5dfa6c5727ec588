//! A method's one mechanism, calibrated as its cells calibrate it, for `dp-bench audit`: what
//! an audit runs thousands of times on two neighbouring datasets is exactly what a cell runs.

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::learn::{GlmData, Mechanism, NoisySteps};

use super::row_clip::RowClip;

/// One run of a mechanism: its release and the event of what ran (for most mechanisms the
/// event fixed at construction; paper-mode AMP's depends on the γ its retries reached).
pub trait Release: Send + Sync {
    /// Runs on `data` with randomness from `seed`.
    fn release(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, Event)>;
}

/// A [`Mechanism`] whose event does not depend on the run.
pub struct Fixed<M>(pub M);

impl<M: Mechanism> Release for Fixed<M> {
    fn release(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, Event)> {
        let (theta, _) = self.0.fit(data, seed)?;
        Ok((theta, self.0.event()))
    }
}

/// What a white-box auditor sees of a mechanism that releases every step (audit.md §3): the
/// noisy sums at a coordinate only its Dirac gradient canary touches, scored by their
/// likelihood ratio ([`dp_core::audit::white_box`]).
pub trait WhiteBox: Send + Sync {
    /// One run on `data` with the gradient canary in (`canary`, D′) or out (D): the statistic.
    fn score(&self, data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64>;
    /// One run with a gradient canary per entry of `canaries` (in where it holds), each on a
    /// coordinate of its own: one statistic per canary, the one-run audit's scores. The
    /// default is for a view that carries one canary per run: it refuses.
    fn scores_one_run(
        &self,
        _data: &GlmData<'_>,
        _seed: u64,
        canaries: &[bool],
    ) -> dp_core::Result<Vec<f64>> {
        Err(dp_core::DpError::Invalid(format!(
            "this white-box view carries {} canary per run, not {}: audit it with \
             `audit.test = \"threshold\"`",
            self.max_canaries(),
            canaries.len()
        )))
    }
    /// The most canaries one run carries ([`NoisySteps::max_canaries`]).
    fn max_canaries(&self) -> usize;
    /// The noisy sums the view records per canary (the steps T).
    fn steps(&self) -> usize;
    /// μ when the trade-off of what the auditor sees is μ-GDP (full-batch DP-SGD and P-SGD),
    /// or its counts at the central threshold are the μ-GDP pair's and the view is at least
    /// as distinguishable (objective perturbation: `dp_core::learn::objpert_white_box`):
    /// where the GDP estimate is a valid bound.
    fn gaussian_mu(&self) -> Option<f64>;
    /// The Poisson-subsampled Gaussian family (q < 1, its T) that each canary's view is in
    /// when it is not Gaussian (sampled DP-SGD and P-SGD): the one-run f-DP test's family.
    fn sampled_family(&self) -> Option<dp_core::audit::sampled_family::SampledFamily> {
        None
    }
    /// The event of what the auditor sees: the certificate the audit compares with.
    fn event(&self) -> Event;
    /// An event whose privacy-loss distribution is this view's on `data`, or the closest known
    /// pair that dominates it, where that is below the certificate (P-FW's exact curve,
    /// P-SCPSGD's Gaussian at its largest shift): the ceiling reads it instead of the
    /// certificate. Dominating keeps the ceiling an upper bound.
    fn exact_view(&self, _data: &GlmData<'_>) -> dp_core::Result<Option<Event>> {
        Ok(None)
    }
    /// The view's exact trade-off curve where it is known in closed form (SVT's table): the
    /// ceiling reads it before [`WhiteBox::exact_view`].
    fn exact_curve(&self) -> Option<dp_core::audit::ceiling::Tradeoff> {
        None
    }
    /// Where the law of the score is known on both sides (P-FW's vertex count, P-PSGD's
    /// mixture), candidate thresholds (t, α(t), β(t)) of the rule "score > t means D′": the
    /// audit then fixes its threshold before the runs
    /// ([`dp_core::audit::planned_threshold::planned_threshold`]) and every run counts. `None`:
    /// the threshold is chosen on half the runs.
    fn planned_candidates(
        &self,
        _data: &GlmData<'_>,
    ) -> dp_core::Result<Option<Vec<(f64, f64, f64)>>> {
        Ok(None)
    }
    /// The `audit.canary` this view answers to: a gradient canary, or SVT's chosen answers.
    fn canary(&self) -> super::audit_settings::Canary {
        super::audit_settings::Canary::Gradient
    }
    /// The relation between the canary's two datasets: add/remove where the canary's gradient
    /// is in the sum or not, replace-one where it takes one of two values.
    fn neighbours(&self) -> Neighbours {
        Neighbours::AddRemove
    }
}

/// A learner whose white-box view is noisy gradient sums ([`NoisySteps`]: DP-SGD's and
/// certified P-SGD's steps, Algorithm 1's minimiser at the canary's coordinate), scored by the
/// likelihood ratio of its claimed sampling rate and noise multiplier.
pub struct Steps<M>(pub M);

impl<M: NoisySteps> WhiteBox for Steps<M> {
    fn score(&self, data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64> {
        let mut view = dp_core::learn::WhiteBox::one(canary);
        self.0.run_white_box(data, seed, &mut view)?;
        dp_core::audit::white_box::likelihood_ratio(
            &view.updates,
            self.0.sampling_rate(),
            self.0.noise_multiplier(),
        )
    }

    fn scores_one_run(
        &self,
        data: &GlmData<'_>,
        seed: u64,
        canaries: &[bool],
    ) -> dp_core::Result<Vec<f64>> {
        let mut view = dp_core::learn::WhiteBox {
            canaries: canaries.to_vec(),
            updates: Vec::new(),
        };
        self.0.run_white_box(data, seed, &mut view)?;
        let (q, z) = (self.0.sampling_rate(), self.0.noise_multiplier());
        let mut updates = Vec::with_capacity(self.0.steps());
        (0..canaries.len())
            .map(|i| {
                updates.clear();
                updates.extend(view.canary_updates(i));
                dp_core::audit::white_box::likelihood_ratio(&updates, q, z)
            })
            .collect()
    }

    fn max_canaries(&self) -> usize {
        self.0.max_canaries()
    }

    fn steps(&self) -> usize {
        self.0.steps()
    }

    fn gaussian_mu(&self) -> Option<f64> {
        dp_core::audit::white_box::full_batch_mu(
            self.0.sampling_rate(),
            self.0.steps(),
            self.0.noise_multiplier(),
        )
    }

    fn sampled_family(&self) -> Option<dp_core::audit::sampled_family::SampledFamily> {
        let q = self.0.sampling_rate();
        (q < 1.0 && self.0.noise_multiplier() > 0.0).then(|| {
            dp_core::audit::sampled_family::SampledFamily {
                sampling_rate: q,
                steps: self.0.steps() as u64,
            }
        })
    }

    fn event(&self) -> Event {
        self.0.view_event()
    }
}

/// The mechanism of one (method, ε), ready to be audited.
pub struct Audited<'a> {
    /// Runs it.
    pub release: Box<dyn Release + 'a>,
    /// Its event as calibrated, before any run.
    pub event: Event,
    /// How the method clips rows before training (applied to both datasets of an audit).
    pub clip: Option<RowClip>,
    /// The neighbouring relation of the audit's pair of datasets: replace-one for mechanisms
    /// built for a fixed, public n (they refuse data of another size), else add/remove.
    pub neighbours: Neighbours,
    /// The relation the certified ε of [`Audited::event`] is for. When it is add/remove and
    /// the pair is replace-one, the audit compares against the group-of-two certificate (a
    /// replace-one pair is two add/remove steps and may legitimately reach about 2ε).
    pub certificate: Neighbours,
    /// The hyperparameters in words, for the audit table.
    pub label: String,
    /// What a white-box auditor sees (`audit.canary = "gradient"`); `None` for mechanisms
    /// that release only their final model.
    pub white_box: Option<Box<dyn WhiteBox + 'a>>,
}
