//! The white-box views of Wu et al.'s output-perturbation SGD (P-PSGD and P-SCPSGD): on a
//! dataset the auditor chooses, n − 1 rows at the origin and a canary whose gradient is +G·e₁
//! (D) or −G·e₁ (D′), G = L·sup|ℓ′|, a run is scored by the first coordinate of its last
//! iterate plus the output noise. The pair is replace-one, the certificates' relation; only n
//! is read from the config's rows.

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::audit::ceiling::Tradeoff;
use dp_core::learn::iyengar::permutation::{Ppsgd, Pscpsgd};
use dp_core::learn::{GlmData, Mechanism};
use dp_core::special::norm_cdf;

use crate::methods::audited::WhiteBox;

/// The white-box view of P-SCPSGD ([`Pscpsgd::white_box_release`]), at the auditor's width
/// [`OutputShift::WIDTH`].
pub struct OutputShift(pub Pscpsgd);

impl OutputShift {
    /// The auditor's number of features. The random start θ₀ ~ U[−C, C]^d is projected onto
    /// the radius-C ball by the first step and its trace in the last iterate is noise the
    /// auditor cannot remove; spread over d coordinates it leaves C/√d on the canary's, about
    /// 1 % of C here, small beside the output noise at the audited targets (at the data's 100 or
    /// so features it was as large as the noise and hid half the view).
    const WIDTH: usize = 8192;
}

impl WhiteBox for OutputShift {
    fn score(&self, _data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64> {
        let g = self.0.gradient_bound();
        let mut gradient = vec![0.0; Self::WIDTH];
        gradient[0] = if canary { -g } else { g };
        Ok(self.0.white_box_release(Self::WIDTH, seed, &gradient)?[0])
    }

    /// The canary's coordinate is one of θ's: one per run.
    fn max_canaries(&self) -> usize {
        1
    }

    /// One release, the last iterate.
    fn steps(&self) -> usize {
        1
    }

    /// A mixture over the canary's batch of Gaussian pairs, not one Gaussian pair.
    fn gaussian_mu(&self) -> Option<f64> {
        None
    }

    fn event(&self) -> Event {
        self.0.event()
    }

    /// The Gaussian pair at the largest distance the two runs can end apart
    /// ([`Pscpsgd::white_box_shift`]), which dominates the view's mixture.
    fn exact_view(&self, _data: &GlmData<'_>) -> dp_core::Result<Option<Event>> {
        Event::gaussian(self.0.noise() / self.0.white_box_shift()?).map(Some)
    }

    fn neighbours(&self) -> Neighbours {
        Neighbours::ReplaceOne
    }
}

/// The white-box view of P-PSGD ([`Ppsgd::white_box_release`]): from θ = 0, without a
/// projection, so one feature is enough. Its curve is known exactly: the mixture over the
/// canary's batch of Gaussian pairs ([`Ppsgd::white_box_shifts`]).
pub struct PpsgdOutput {
    mech: Ppsgd,
    /// The view's mixture as (weight, distance) ([`Ppsgd::white_box_shifts`]).
    shifts: Vec<(f64, f64)>,
    /// Its trade-off curve ([`Tradeoff::gaussian_mixture`]).
    curve: Tradeoff,
}

impl PpsgdOutput {
    /// The view of `mech`; an error where it has none (η > 2/β: no certificate).
    pub fn new(mech: Ppsgd) -> dp_core::Result<Self> {
        let sigma = mech.noise();
        let shifts = mech.white_box_shifts()?;
        let in_noise_units: Vec<(f64, f64)> = shifts.iter().map(|&(w, s)| (w, s / sigma)).collect();
        let curve = Tradeoff::gaussian_mixture(&in_noise_units)?;
        Ok(Self {
            mech,
            shifts,
            curve,
        })
    }
}

impl WhiteBox for PpsgdOutput {
    fn score(&self, _data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64> {
        let g = self.mech.gradient_bound();
        let gradient = [if canary { -g } else { g }];
        Ok(self.mech.white_box_release(1, seed, &gradient)?[0])
    }

    /// The canary's coordinate is θ's only one: one per run.
    fn max_canaries(&self) -> usize {
        1
    }

    /// One release, the last iterate.
    fn steps(&self) -> usize {
        1
    }

    /// Exactly μ-GDP where every batch has one size (the canary's distance is then fixed).
    fn gaussian_mu(&self) -> Option<f64> {
        match self.shifts.as_slice() {
            [(_, s)] => Some(s / self.mech.noise()),
            _ => None,
        }
    }

    fn event(&self) -> Event {
        self.mech.event()
    }

    /// The mixture's own curve ([`Tradeoff::gaussian_mixture`]), read on a grid from below so
    /// that the ceiling comes out high rather than low.
    fn exact_curve(&self) -> Option<Tradeoff> {
        Some(self.curve.clone())
    }

    /// The release's first coordinate is Σ w_i N(−s_i/2, σ²) on D and Σ w_i N(+s_i/2, σ²) on
    /// D′ ([`Ppsgd::white_box_shifts`]); thresholds on a grid over both laws' bulk.
    fn planned_candidates(
        &self,
        _data: &GlmData<'_>,
    ) -> dp_core::Result<Option<Vec<(f64, f64, f64)>>> {
        let sigma = self.mech.noise();
        let widest = self.shifts.iter().fold(0.0f64, |m, &(_, s)| m.max(s));
        let reach = widest / 2.0 + 8.0 * sigma;
        let mix = |z: &dyn Fn(f64) -> f64| -> f64 {
            self.shifts
                .iter()
                .map(|&(w, s)| w * norm_cdf(z(s)))
                .sum::<f64>()
                .min(1.0)
        };
        Ok(Some(
            (0..=400)
                .map(|j| {
                    let t = -reach + 2.0 * reach * j as f64 / 400.0;
                    // α: D's runs above t; β: D′'s at or below it.
                    let alpha = mix(&|s| -(t + s / 2.0) / sigma);
                    let beta = mix(&|s| (t - s / 2.0) / sigma);
                    (t, alpha, beta)
                })
                .collect(),
        ))
    }

    fn neighbours(&self) -> Neighbours {
        Neighbours::ReplaceOne
    }
}
