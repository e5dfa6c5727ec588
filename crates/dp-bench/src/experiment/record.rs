//! One finished cell: fixed core columns every method fills, plus `details` for what is
//! specific to a method (noise, λ, chosen learning rate, per-candidate scores, …).

/// The outcome of one cell, as stored in `cells.parquet` / `cells.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct CellRecord {
    /// Method name (its config table).
    pub method: String,
    /// Method kind (`alg1`, `dpsgd`, …).
    pub kind: String,
    /// Target ε.
    pub epsilon: f64,
    /// Target δ.
    pub delta: f64,
    /// Trial index.
    pub trial: u32,
    /// Seed of the cell.
    pub seed: u64,
    /// Test accuracy (percent) of what the cell released.
    pub accuracy: f64,
    /// ε the accountant certifies for the mechanism that ran (must be ≤ the target).
    pub epsilon_accounted: f64,
    /// Wall time of the cell in milliseconds.
    pub wall_ms: f64,
    /// Cell key (method, ε, trial, parameter fingerprint) used for resume.
    pub key: String,
    /// Method-specific values (a JSON object).
    pub details: serde_json::Value,
}

/// The keys of `details` the runner writes beside a method's own (under a config's
/// `relation`: the method's own relation's ε and whether the certified ε is pure).
pub const RUNNER_KEYS: &[&str] = &[EPSILON_ADD_REMOVE, PURE_DP];

/// `details` key: the add/remove ε of a method certified under replace-one by group privacy.
pub const EPSILON_ADD_REMOVE: &str = "epsilon_add_remove";

/// `details` key: whether the certified ε holds with δ = 0.
pub const PURE_DP: &str = "pure_dp";

impl CellRecord {
    /// `details` as the method wrote them, without [`RUNNER_KEYS`] (what a method's typed
    /// details parse).
    pub fn method_details(&self) -> serde_json::Value {
        let mut d = self.details.clone();
        if let Some(m) = d.as_object_mut() {
            for k in RUNNER_KEYS {
                m.remove(*k);
            }
        }
        d
    }

    /// A number from `details` (NaN when absent or not a number).
    pub fn detail(&self, key: &str) -> f64 {
        self.details
            .get(key)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(f64::NAN)
    }
}
