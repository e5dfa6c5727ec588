//! What a cell of honest tuning records, the same for every tuned learner (Iyengar et al.'s
//! grids and outside learners' priors; DP-SGD keeps its own, with the noise it calibrated).

use serde::{Deserialize, Serialize};

/// K, every run's score and what was released.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HonestDetails {
    /// K, the runs drawn.
    pub runs: usize,
    /// The released point in words (`None` when K = 0).
    pub chosen: Option<String>,
    /// `[point index, test accuracy]` of every run.
    pub scores: Vec<(usize, f64)>,
    /// The per-run target ε.
    pub run_epsilon: f64,
    /// ε certified for the tuned procedure (inner `None`: ∞), where the learner records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuned_epsilon: Option<Option<f64>>,
}
