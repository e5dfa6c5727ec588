//! The white-box view of paper P-SGD, whose batches are drawn with replacement: the canary
//! replaces the last row, its term +G·e_j on D′ and −G·e_j on D at a coordinate no other row
//! touches, and each step releases the noisy sum there. A step's canary copies k are
//! Bin(k_batch, 1/n) on both datasets, hidden from the auditor, so a step shows
//! Σ_k w_k N(±k/z, 1) in noise units ([`Psgd::canary_view`]) and a run is scored by the sum of
//! the steps' privacy losses, the Neyman–Pearson statistic of that view.
//!
//! That view's curve is its T-step PLD, exactly (up to the grid and the charged tail of
//! multiplicities): the ceiling reads it, and the threshold is planned from it, so every run
//! counts. It lies below the certificate, which reveals k. θ's coordinates, which the score
//! leaves out, also carry a little about k (the batch's other rows), so the mechanism's
//! worst case can lie above this view's; the audit's bound is of this view, a lower bound on
//! either. The pair is replace-one, as the certificate.

use std::sync::OnceLock;

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::accounting::pld::{GaussianShiftMixture, PldConfig, Pmf};
use dp_core::audit::ceiling::{Tradeoff, pmf_error_rates};
use dp_core::learn::iyengar::sgd::Psgd;
use dp_core::learn::{GlmData, Mechanism, NoisySteps};

use crate::methods::audited::WhiteBox;

/// The view's grid: coarser than the accountant's default, as the ceiling and the planned
/// threshold need ε to about 1e-3, not 1e-4.
const VIEW_GRID: f64 = 1e-3;

/// Paper P-SGD's white-box view (module docs).
pub struct WithReplacementSteps {
    mech: Psgd,
    step: GaussianShiftMixture,
    /// The T-step PLD (symmetric: one PMF), built when first read.
    composed: OnceLock<Result<Pmf, String>>,
}

impl WithReplacementSteps {
    /// The view of paper-mode `mech`.
    pub fn new(mech: Psgd) -> dp_core::Result<Self> {
        let step = mech.canary_view()?;
        Ok(Self {
            mech,
            step,
            composed: OnceLock::new(),
        })
    }

    fn composed(&self) -> dp_core::Result<&Pmf> {
        let built = self.composed.get_or_init(|| {
            let config = PldConfig {
                grid_step: VIEW_GRID,
                ..PldConfig::default()
            };
            let pld = self
                .step
                .pld(&config)
                .and_then(|p| p.self_compose(self.mech.steps() as u64));
            pld.map(|p| p.remove().clone()).map_err(|e| e.to_string())
        });
        built
            .as_ref()
            .map_err(|e| dp_core::DpError::Invalid(format!("paper P-SGD's view: {e}")))
    }
}

impl WhiteBox for WithReplacementSteps {
    fn score(&self, data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64> {
        let mut view = dp_core::learn::WhiteBox::one(canary);
        self.mech.run_white_box(data, seed, &mut view)?;
        dp_core::audit::white_box::mixture_likelihood_ratio(
            &view.updates,
            &self.step,
            self.mech.noise_multiplier(),
        )
    }

    /// The canary is the last row: one per run.
    fn max_canaries(&self) -> usize {
        1
    }

    fn steps(&self) -> usize {
        self.mech.steps()
    }

    /// A mixture over the hidden multiplicity, not one Gaussian pair.
    fn gaussian_mu(&self) -> Option<f64> {
        None
    }

    /// The certificate: T steps revealing the multiplicity.
    fn event(&self) -> Event {
        self.mech.event()
    }

    /// The view's own T-step curve (infinite loss counted as always detected: the curve is
    /// low, so the ceiling high).
    fn exact_curve(&self) -> Option<Tradeoff> {
        self.composed().ok().map(Tradeoff::from_pmf)
    }

    /// The score is the view's privacy loss, whose laws the T-step PMF holds: P-masses on D′
    /// and P-mass·e^{−ω} on D. Threshold ω_j: α = D's mass above it, β = D′'s at or below.
    fn planned_candidates(
        &self,
        _data: &GlmData<'_>,
    ) -> dp_core::Result<Option<Vec<(f64, f64, f64)>>> {
        let pmf = self.composed()?;
        // Threshold ω_i is the test "L ≥ ω_{i+1}": rates at index i + 1.
        let (alpha, beta) = pmf_error_rates(pmf);
        let out = (0..pmf.probs().len())
            .map(|i| (pmf.loss(i), alpha[i + 1].min(1.0), beta[i + 1].min(1.0)))
            .collect();
        Ok(Some(out))
    }

    fn neighbours(&self) -> Neighbours {
        Neighbours::ReplaceOne
    }
}
