//! Dominating privacy loss of objective perturbation for GLMs (Redberg et al., Thm 3.1):
//! ω = c + s²/2 + |N(0, s²)| with c = −log(1 − β/λ), s = L/σ. Its Q-measure,
//! Q(ω ∈ ·) = E_P[e^{−ω}; ω ∈ ·], has total mass 2e^{−c}Φ(−s) < 1:
//! Q(ω > l) = 2 e^{−c} Φ(−u − s) with u = (l − c − s²/2)/s ≥ 0. Then
//! δ(ε) = P(ω > ε) − e^ε Q(ω > ε) reproduces the profile as restated in `docs/derivations.md` §4 (the
//! paper's displayed Theorem 3.1 has typos in its subscripts; `docs/derivations.md` is
//! followed).

use std::f64::consts::{LN_2, SQRT_2};

use super::discretise::{LogTails, PrivacyLoss};
use crate::special::{log_norm_cdf, log_sub_exp, log1m_exp};

/// Median of |N(0, 1)|.
const HALF_NORMAL_MEDIAN: f64 = 0.674_489_750_196_081_7;

/// ObjPert dominating loss: `floor + s·|Z|`.
pub(crate) struct ObjPertLoss {
    c: f64,
    s: f64,
    floor: f64,
}

impl ObjPertLoss {
    /// Parameters validated by the caller (σ, L > 0, 0 ≤ β < λ).
    pub(crate) fn new(sigma: f64, lambda: f64, beta: f64, lipschitz: f64) -> Self {
        let c = -(-beta / lambda).ln_1p();
        let s = lipschitz / sigma;
        Self {
            c,
            s,
            floor: c + 0.5 * s * s,
        }
    }

    /// Standardised distance above the floor, clipped at 0.
    fn u(&self, l: f64) -> f64 {
        ((l - self.floor) / self.s).max(0.0)
    }
}

impl PrivacyLoss for ObjPertLoss {
    fn p_tails(&self, l: f64) -> LogTails {
        let u = self.u(l);
        let sf = LN_2 + log_norm_cdf(-u);
        // P(|Z| ≤ u) = erf(u/√2) keeps full relative precision just above the floor.
        let cdf = if u < 1.0 {
            libm::erf(u / SQRT_2).ln()
        } else {
            log1m_exp(sf)
        };
        LogTails { cdf, sf }
    }

    fn q_tails(&self, l: f64) -> LogTails {
        let u = self.u(l);
        let scale = LN_2 - self.c;
        let sf = scale + log_norm_cdf(-u - self.s);
        let cdf = if u > 0.0 {
            scale + log_sub_exp(log_norm_cdf(-self.s), log_norm_cdf(-u - self.s))
        } else {
            f64::NEG_INFINITY
        };
        LogTails { cdf, sf }
    }

    fn support(&self) -> (f64, f64) {
        (self.floor, f64::INFINITY)
    }

    fn centre(&self) -> f64 {
        self.floor + HALF_NORMAL_MEDIAN * self.s
    }
}
