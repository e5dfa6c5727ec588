//! Privacy loss of the Gaussian mechanism: for the dominating pair P = N(Δ, σ²),
//! Q = N(0, σ²), L ~ N(μ, 2μ) under P and L ~ N(−μ, 2μ) under Q, with μ = Δ²/(2σ²).

use super::discretise::{LogTails, PrivacyLoss};
use crate::special::log_norm_cdf;

/// Gaussian privacy loss with mean `mu` under P.
pub(crate) struct GaussianLoss {
    mu: f64,
    sd: f64,
}

impl GaussianLoss {
    /// Loss of noise `sigma` at sensitivity `sensitivity` (both validated by the caller).
    pub(crate) fn new(sigma: f64, sensitivity: f64) -> Self {
        let r = sensitivity / sigma;
        Self {
            mu: 0.5 * r * r,
            sd: r,
        }
    }

    fn tails(&self, l: f64, mean: f64) -> LogTails {
        let x = (l - mean) / self.sd;
        LogTails {
            cdf: log_norm_cdf(x),
            sf: log_norm_cdf(-x),
        }
    }
}

impl PrivacyLoss for GaussianLoss {
    fn p_tails(&self, l: f64) -> LogTails {
        self.tails(l, self.mu)
    }

    fn q_tails(&self, l: f64) -> LogTails {
        self.tails(l, -self.mu)
    }

    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }

    fn centre(&self) -> f64 {
        self.mu
    }
}
