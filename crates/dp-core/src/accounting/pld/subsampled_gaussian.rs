//! Privacy loss of the Poisson-subsampled Gaussian mechanism (rate q, noise multiplier z,
//! sensitivity 1) under add/remove neighbours. With the null N(0, z²) and the mixture
//! M = (1 − q)N(0, z²) + qN(1, z²):
//! - remove: P = M, Q = null, L(x) = log(1 − q + q e^{(2x − 1)/(2z²)}), increasing in x,
//!   bounded below by log(1 − q);
//! - add: P = null, Q = M, L(x) = −(the above), decreasing in x, bounded above by
//!   −log(1 − q).
//!
//! Loss tails are output tails mapped through the inverse of the monotone loss.

use super::discretise::{LogTails, PrivacyLoss};
use crate::special::{log_add_exp, log_norm_cdf, log_sub_exp};

/// Which neighbouring relation the pair (P, Q) describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// P is the mechanism on the larger dataset.
    Remove,
    /// P is the mechanism on the smaller dataset.
    Add,
}

/// Subsampled-Gaussian privacy loss in one direction.
pub(crate) struct SubsampledGaussianLoss {
    z: f64,
    ln_q: f64,
    ln_1mq: f64,
    direction: Direction,
}

impl SubsampledGaussianLoss {
    /// Parameters validated by the caller (0 < q ≤ 1, z > 0).
    pub(crate) fn new(q: f64, z: f64, direction: Direction) -> Self {
        Self {
            z,
            ln_q: q.ln(),
            ln_1mq: (-q).ln_1p(),
            direction,
        }
    }

    /// Output x at which the remove-direction loss equals `l` (−∞ at or below its floor).
    fn output_at_remove_loss(&self, l: f64) -> f64 {
        if l <= self.ln_1mq {
            return f64::NEG_INFINITY;
        }
        self.z * self.z * (log_sub_exp(l, self.ln_1mq) - self.ln_q) + 0.5
    }

    fn null_tails(&self, x: f64) -> LogTails {
        LogTails {
            cdf: log_norm_cdf(x / self.z),
            sf: log_norm_cdf(-x / self.z),
        }
    }

    fn mixture_tails(&self, x: f64) -> LogTails {
        let (a, b) = (x / self.z, (x - 1.0) / self.z);
        LogTails {
            cdf: log_add_exp(self.ln_1mq + log_norm_cdf(a), self.ln_q + log_norm_cdf(b)),
            sf: log_add_exp(self.ln_1mq + log_norm_cdf(-a), self.ln_q + log_norm_cdf(-b)),
        }
    }

    /// Loss tails when L ≤ l ⟺ x ≤ x(l) (remove) or L ≤ l ⟺ x ≥ x(−l) (add).
    fn loss_tails(&self, l: f64, output: impl Fn(f64) -> LogTails) -> LogTails {
        match self.direction {
            Direction::Remove => output(self.output_at_remove_loss(l)),
            Direction::Add => {
                let t = output(self.output_at_remove_loss(-l));
                LogTails {
                    cdf: t.sf,
                    sf: t.cdf,
                }
            }
        }
    }
}

impl PrivacyLoss for SubsampledGaussianLoss {
    fn p_tails(&self, l: f64) -> LogTails {
        match self.direction {
            Direction::Remove => self.loss_tails(l, |x| self.mixture_tails(x)),
            Direction::Add => self.loss_tails(l, |x| self.null_tails(x)),
        }
    }

    fn q_tails(&self, l: f64) -> LogTails {
        match self.direction {
            Direction::Remove => self.loss_tails(l, |x| self.null_tails(x)),
            Direction::Add => self.loss_tails(l, |x| self.mixture_tails(x)),
        }
    }

    fn support(&self) -> (f64, f64) {
        match self.direction {
            Direction::Remove => (self.ln_1mq, f64::INFINITY),
            Direction::Add => (f64::NEG_INFINITY, -self.ln_1mq),
        }
    }

    fn centre(&self) -> f64 {
        0.0
    }
}
