//! Error type shared by the accountants and learners.

/// An input outside a function's domain or a computation that could not meet its guarantee.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum DpError {
    /// A parameter is outside its allowed range; `name` is the user-facing parameter name.
    #[error("{name} = {value} is out of range: {allowed}")]
    OutOfRange {
        /// Parameter name as the user knows it (e.g. `delta`, `sampling-rate`).
        name: &'static str,
        /// The offending value.
        value: f64,
        /// Human-readable allowed range, e.g. `must be in (0, 1)`.
        allowed: &'static str,
    },
    /// A calibration could not find a parameter meeting the privacy target.
    #[error("calibration failed: {0}")]
    Calibration(String),
    /// An optimiser did not reach its stopping criterion (nothing may be released).
    #[error("did not converge: {0}")]
    NoConvergence(String),
    /// An accountant cannot bound this event (e.g. PLD with private selection).
    #[error("the {accountant} accountant cannot bound a {event} event: {reason}")]
    Unsupported {
        /// Accountant name (`RDP`, `PLD`).
        accountant: &'static str,
        /// Kind of the first unsupported (sub-)event.
        event: &'static str,
        /// Why, and what to use instead.
        reason: &'static str,
    },
    /// Any other invalid input.
    #[error("{0}")]
    Invalid(String),
    /// The run's outcome would depend on the machine (a solver's wall-clock safety net was
    /// reached): nothing of it may be recorded, not even as a failed release.
    #[error("not reproducible: {0}")]
    Irreproducible(String),
}

/// Result alias for dp-core.
pub type Result<T> = std::result::Result<T, DpError>;

/// Returns `Err(OutOfRange)` unless `ok` holds.
pub fn ensure(ok: bool, name: &'static str, value: f64, allowed: &'static str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(DpError::OutOfRange {
            name,
            value,
            allowed,
        })
    }
}

/// An (ε, δ) pair's fields: ε ≥ 0 and finite, δ ∈ [0, 1) (δ = 0 is pure DP).
pub fn check_epsilon_delta(epsilon: f64, delta: f64) -> Result<()> {
    check_nonnegative("epsilon", epsilon)?;
    ensure(
        (0.0..1.0).contains(&delta),
        "delta",
        delta,
        "must be in [0, 1)",
    )
}

/// Checks δ ∈ (0, 1).
pub fn check_delta(delta: f64) -> Result<()> {
    ensure(
        delta > 0.0 && delta < 1.0,
        "delta",
        delta,
        "must be in (0, 1)",
    )
}

/// Checks a sampling rate q ∈ (0, 1] (`sampling-rate`).
pub fn check_sampling_rate(q: f64) -> Result<()> {
    ensure(q > 0.0 && q <= 1.0, "sampling-rate", q, "must be in (0, 1]")
}

/// Checks ε > 0 and finite.
pub fn check_epsilon(eps: f64) -> Result<()> {
    ensure(
        eps > 0.0 && eps.is_finite(),
        "epsilon",
        eps,
        "must be > 0 and finite",
    )
}

/// Checks a strictly positive finite value.
pub fn check_positive(name: &'static str, v: f64) -> Result<()> {
    ensure(v > 0.0 && v.is_finite(), name, v, "must be > 0 and finite")
}

/// Checks a non-negative finite value.
pub fn check_nonnegative(name: &'static str, v: f64) -> Result<()> {
    ensure(
        v >= 0.0 && v.is_finite(),
        name,
        v,
        "must be >= 0 and finite",
    )
}
