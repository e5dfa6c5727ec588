//! The accountant contract (modelled on dp_accounting's `PrivacyAccountant`): compose
//! [`Event`]s, then ask for ε at a δ or δ at an ε.
//!
//! # Contract
//! - [`Accountant::supports`] is `Ok(())` exactly when [`Accountant::compose`] would accept the
//!   event; otherwise it names the first sub-event the accountant cannot bound
//!   ([`DpError::Unsupported`](crate::error::DpError::Unsupported)). Callers never decide this
//!   themselves.
//! - `epsilon(δ)` and `delta(ε)` are upper bounds on the true privacy loss of everything
//!   composed so far, rounded to the safe side; a fresh accountant reports ε = 0 and δ = 0.
//! - Composing more never lowers ε or δ, and `compose(e, k)` equals `k` calls of
//!   `compose(e, 1)`.
//!
//! `crates/dp-core/tests/accountant_contract.rs` runs these checks against every
//! implementation.

use crate::accounting::event::Event;
use crate::error::Result;

/// A privacy accountant: a running composition of events.
///
/// Both accountants on one Gaussian mechanism of noise multiplier z, each against a closed form
/// computed here. RDP with the classic conversion reports min over α of α/(2z²) + ln(1/δ)/(α − 1);
/// over all α > 1 that minimum is 1/(2z²) + √(2 ln(1/δ))/z, and the accountant's grid of orders
/// may only miss it from above. PLD must reproduce the exact privacy profile
/// δ(ε) = Φ(1/(2z) − εz) − e^ε Φ(−1/(2z) − εz) (Balle & Wang 2018, Thm 8) from the safe side:
/// the exact δ at its ε is at most δ, yet 0.001 less ε would already exceed δ.
/// ```
/// use dp_core::accounting::{Accountant, Conversion, Event, PldAccountant, RdpAccountant};
/// use dp_core::special::norm_cdf;
///
/// let (z, delta) = (2.0_f64, 1e-5_f64);
/// let event = Event::gaussian(z)?;
///
/// let mut rdp = RdpAccountant::new().with_conversion(Conversion::Classic);
/// rdp.compose(&event, 1)?;
/// let eps_rdp = rdp.epsilon(delta)?;
/// let closed_form = 1.0 / (2.0 * z * z) + (2.0 * (1.0 / delta).ln()).sqrt() / z;
/// assert!(
///     closed_form <= eps_rdp && eps_rdp <= 1.001 * closed_form,
///     "{eps_rdp} vs {closed_form}"
/// );
///
/// let exact_delta =
///     |eps: f64| norm_cdf(0.5 / z - eps * z) - eps.exp() * norm_cdf(-0.5 / z - eps * z);
/// let mut pld = PldAccountant::new();
/// pld.compose(&event, 1)?;
/// let eps_pld = pld.epsilon(delta)?;
/// assert!(exact_delta(eps_pld) <= delta, "unsafe: ε = {eps_pld}");
/// assert!(exact_delta(eps_pld - 1e-3) > delta, "loose: ε = {eps_pld}");
/// assert!(eps_pld < eps_rdp);
///
/// // The answers are upper bounds that composing more can only raise.
/// pld.compose(&event, 1)?;
/// assert!(pld.epsilon(delta)? > eps_pld && pld.delta(eps_pld)? > delta);
/// # Ok::<(), dp_core::DpError>(())
/// ```
pub trait Accountant {
    /// Short name used in messages and results (`RDP`, `PLD`).
    fn name(&self) -> &'static str;

    /// `Ok(())` if this accountant can bound `event`, else the first sub-event it cannot.
    fn supports(&self, event: &Event) -> Result<()>;

    /// Adds `count` independent runs of `event` to the composition (`count = 0` adds nothing).
    fn compose(&mut self, event: &Event, count: u64) -> Result<&mut Self>;

    /// Smallest ε (as far as this accountant can tell) such that everything composed is
    /// (ε, δ)-DP; `f64::INFINITY` for a non-private composition.
    fn epsilon(&self, delta: f64) -> Result<f64>;

    /// Smallest δ (as far as this accountant can tell) such that everything composed is
    /// (ε, δ)-DP.
    fn delta(&self, epsilon: f64) -> Result<f64>;
}

/// ε at δ of one event on a fresh accountant: the usual question of a calculator.
pub fn epsilon_of<A: Accountant>(mut accountant: A, event: &Event, delta: f64) -> Result<f64> {
    accountant.compose(event, 1)?;
    accountant.epsilon(delta)
}
