//! Honest hyperparameter tuning's privacy (Papernot & Steinke 2022): the event of K ~
//! [`Selection`] runs of one base mechanism with the best run released, and the calibration of
//! the base mechanism so that this tuned event meets a target. Every learner that tunes
//! honestly (Redberg et al.'s DP-SGD, Iyengar et al.'s grids) goes through [`HonestTuning`];
//! only which candidates and which learner are theirs.
//!
//! Two calibrations, both through `calibrate.rs` (one root finder each) and both on the safe side
//! (the tuned event's ε ≤ the target's, as the accountant certifies it):
//! - [`HonestTuning::calibrate_noise`]: the smallest noise parameter (ε non-increasing in it)
//!   of a base mechanism whose privacy does not depend on the candidate (DP-SGD's z);
//! - [`HonestTuning::calibrate_run_target`]: the largest per-run target (ε_run, δ) when each
//!   candidate calibrates itself to a target of its own (a mixture of differently calibrated
//!   grid points), to a relative bracket of [`RUN_TARGET_REL`].

use crate::accounting::accountant::Accountant;
use crate::accounting::calibrate::{Bracket, Target, calibrate, calibrate_increasing_coarse};
use crate::accounting::event::Event;
use crate::accounting::private_selection::{Selection, poisson_mean_for_tail};
use crate::error::{DpError, Result};

/// Relative width of the per-run ε search: each probe calibrates every candidate, so the
/// search stops when hi/lo ≤ 1 + this (2% of ε_run costs little utility).
pub const RUN_TARGET_REL: f64 = 0.02;

/// Smallest per-run ε tried, as a fraction of the target's: a tuned procedure that needs
/// less than this per run is refused rather than run with almost pure noise.
pub const RUN_TARGET_FLOOR: f64 = 1e-4;

/// Honest tuning with K ~ `selection` runs of one base mechanism, the best released.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct HonestTuning {
    /// Distribution of the number of runs K.
    pub selection: Selection,
}

impl HonestTuning {
    /// Tuning with K ~ `selection`.
    pub fn new(selection: Selection) -> Self {
        Self { selection }
    }

    /// K ~ Poisson(μ) with μ such that P\[K > `runs`\] = `tail` (Redberg et al.: 10 and 0.9).
    pub fn poisson_tail(runs: u64, tail: f64) -> Result<Self> {
        Ok(Self::new(Selection::poisson(poisson_mean_for_tail(
            runs, tail,
        )?)?))
    }

    /// Event of the tuned procedure: `base` run K ~ selection times, the best released.
    pub fn event(&self, base: Event) -> Event {
        base.repeat_and_select(self.selection)
    }

    /// Smallest parameter `x` in `bracket` whose tuned event `self.event(base_of(x))` meets
    /// `target` on a fresh accountant ([`calibrate`]; ε must be non-increasing in `x`).
    pub fn calibrate_noise<A: Accountant>(
        &self,
        fresh: impl FnMut() -> A,
        mut base_of: impl FnMut(f64) -> Result<Event>,
        target: Target,
        bracket: Bracket,
    ) -> Result<f64> {
        calibrate(fresh, |x| Ok(self.event(base_of(x)?)), target, bracket)
    }

    /// Largest per-run target (ε_run, target δ) with ε_run ∈ [[`RUN_TARGET_FLOOR`]·ε, ε] whose
    /// tuned event `self.event(base_of(run target))` `certify` puts at ε ≤ the target's, to a
    /// relative bracket of [`RUN_TARGET_REL`] ([`calibrate_increasing_coarse`]; the certified ε
    /// must be non-decreasing in ε_run). `certify` gives an event's ε at the target's δ.
    ///
    /// Errors when even the smallest ε_run misses the target.
    pub fn calibrate_run_target<E: From<DpError>>(
        &self,
        mut certify: impl FnMut(&Event) -> std::result::Result<f64, E>,
        mut base_of: impl FnMut(Target) -> std::result::Result<Event, E>,
        target: Target,
    ) -> std::result::Result<Target, E> {
        let (epsilon, delta) = (target.epsilon(), target.delta());
        let tuned_epsilon = |eps_run: f64| {
            let base = base_of(Target::new(eps_run, delta)?)?;
            certify(&self.event(base))
        };
        let lo = epsilon * RUN_TARGET_FLOOR;
        let eps_run =
            calibrate_increasing_coarse(tuned_epsilon, epsilon, lo, epsilon, RUN_TARGET_REL)?;
        Ok(Target::new(eps_run, delta)?)
    }
}

#[cfg(test)]
#[path = "honest_tuning_tests.rs"]
mod tests;
