//! DPareto's privacy oracle P_δ(λ): ε at the study's δ of the event a learner reports, on the
//! study's accountant.
//!
//! The study's ε is a reproduced quantity (Avent et al. through autodp 0.1): the Wang–Balle–
//! Kasiviswanathan bound on the integer orders 2..=1000 with the classic RDP → (ε, δ)
//! conversion, or the improved one on request. So the accountant is dp-core's RDP accountant
//! on exactly those orders with that conversion, not its default grid (whose fractional
//! orders interpolate and whose orders above 1000 fall back to the plain Gaussian, giving
//! other numbers).

use dp_core::accounting::subsampled_gaussian_wor::integer_orders;
use dp_core::accounting::{Conversion, Event, RdpAccountant, epsilon_of};

use super::config::AccountantKind;

/// The RDP → (ε, δ) conversion an accountant option names.
pub fn conversion(kind: AccountantKind) -> Conversion {
    match kind {
        AccountantKind::Paper => Conversion::Classic,
        AccountantKind::Improved => Conversion::Improved,
    }
}

/// ε of events on one study's accountant, at its δ.
#[derive(Clone, Debug)]
pub struct PrivacyOracle {
    accountant: RdpAccountant,
    delta: f64,
}

impl PrivacyOracle {
    /// The accountant `kind` names (integer orders 2..=1000, its conversion) at `delta`.
    pub fn new(kind: AccountantKind, delta: f64) -> PrivacyOracle {
        let accountant = RdpAccountant::with_orders(&integer_orders())
            .expect("the integer orders are valid")
            .with_conversion(conversion(kind));
        PrivacyOracle { accountant, delta }
    }

    /// The accountant (nothing composed) that answers ε.
    pub fn accountant(&self) -> &RdpAccountant {
        &self.accountant
    }

    /// ε at the study's δ of `event` on a fresh accountant (sharing the caches of the others).
    pub fn epsilon(&self, event: &Event) -> dp_core::Result<f64> {
        epsilon_of(self.accountant.fresh(), event, self.delta)
    }
}
