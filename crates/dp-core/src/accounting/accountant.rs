//! The accountant contract (modelled on dp_accounting's `PrivacyAccountant`): compose
//! [`Event`]s, then ask for ε at a δ or δ at an ε.
//!
//! # Contract
//! - [`Accountant::supports`] is `Ok(())` exactly when [`Accountant::compose`] would accept the
//!   event; otherwise it names the first sub-event the accountant cannot bound
//!   ([`DpError::Unsupported`]). Callers never decide this themselves.
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
