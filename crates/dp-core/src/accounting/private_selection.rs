//! Private hyperparameter tuning by random repetition (Papernot & Steinke 2022).
//!
//! A base mechanism with RDP curve ε(·) is run K times (K random) and only the best run is
//! released. [`Selection::apply`] maps the base curve to the curve of the whole procedure:
//! - K ~ Poisson(μ) (their Thm 6): `ε′(λ) = ε(λ) + μ·δ̂(λ) + ln μ/(λ − 1)` with δ̂(λ) the δ of the
//!   base curve at `ε̂ = ln(1 + 1/(λ − 1))` (improved conversion and KL cap, over the grid);
//! - K ~ truncated negative binomial (η, γ) (their Thm 2):
//!   `ε′(λ) = ε(λ) + ln E[K]/(λ − 1) + (1 + η)·min_λ̂ [(1 − 1/λ̂) ε(λ̂) + ln(1/γ)/λ̂]`;
//!
//! followed by the monotone envelope ε′(λᵢ) ← min_{λⱼ ≥ λᵢ} ε′(λⱼ) (RDP is non-decreasing in λ).

use crate::accounting::calibrate::{calibrate_decreasing, calibrate_increasing};
use crate::accounting::rdp_curve::{DeltaEvaluator, RdpCurve};
use crate::error::{Result, check_nonnegative, check_positive, ensure};
use crate::special::{ln_gamma, log_sum_exp};

/// Distribution of the number of repetitions K.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// K ~ Poisson(μ).
    Poisson {
        /// Mean μ > 0.
        mu: f64,
    },
    /// K ~ truncated negative binomial: P[K = k] ∝ (1 − γ)^k Π_{l<k} (l + η)/(l + 1), k ≥ 1.
    /// η = 0 is the logarithmic distribution, η = 1 the geometric.
    TruncatedNegativeBinomial {
        /// Shape η ≥ 0.
        eta: f64,
        /// γ ∈ (0, 1).
        gamma: f64,
    },
}

impl Selection {
    /// K ~ Poisson(μ), μ > 0.
    pub fn poisson(mu: f64) -> Result<Self> {
        check_positive("mu", mu)?;
        Ok(Self::Poisson { mu })
    }

    /// Truncated negative binomial with shape η ≥ 0 and γ ∈ (0, 1).
    pub fn truncated_negative_binomial(eta: f64, gamma: f64) -> Result<Self> {
        check_nonnegative("eta", eta)?;
        ensure(
            gamma > 0.0 && gamma < 1.0,
            "gamma",
            gamma,
            "must be in (0, 1)",
        )?;
        Ok(Self::TruncatedNegativeBinomial { eta, gamma })
    }

    /// Logarithmic distribution (η = 0).
    pub fn logarithmic(gamma: f64) -> Result<Self> {
        Self::truncated_negative_binomial(0.0, gamma)
    }

    /// Geometric distribution (η = 1), E\[K\] = 1/γ.
    pub fn geometric(gamma: f64) -> Result<Self> {
        Self::truncated_negative_binomial(1.0, gamma)
    }

    /// Truncated negative binomial with shape η and the γ giving E\[K\] = `mean` (> 1).
    ///
    /// γ is found numerically; [`Selection::mean`] reports the mean of the returned distribution
    /// (within ~1e-10 of `mean`, never above it), which is what the accounting uses.
    pub fn from_shape_mean(eta: f64, mean: f64) -> Result<Self> {
        check_nonnegative("eta", eta)?;
        ensure(
            mean > 1.0 && mean.is_finite(),
            "mean",
            mean,
            "must be > 1 and finite",
        )?;
        // E[K] is increasing in u = ln(1/γ).
        let u = calibrate_increasing(|u| Ok(tnb_mean(eta, u)), mean, 1.0, 0.0, f64::INFINITY)?;
        Self::truncated_negative_binomial(eta, (-u).exp())
    }

    /// E\[K\].
    pub fn mean(&self) -> f64 {
        match *self {
            Self::Poisson { mu } => mu,
            Self::TruncatedNegativeBinomial { eta, gamma } => tnb_mean(eta, -gamma.ln()),
        }
    }

    /// RDP curve of "run K times, release the best" from the base mechanism's curve (on the
    /// same orders), with the monotone envelope applied.
    pub fn apply(&self, base: &RdpCurve) -> Result<RdpCurve> {
        let raw: Vec<f64> = match *self {
            Self::Poisson { mu } => {
                check_positive("mu", mu)?;
                let deltas = DeltaEvaluator::new(base)?;
                base.orders
                    .iter()
                    .zip(&base.eps)
                    .map(|(&lam, &e)| {
                        let eps_hat = (1.0 / (lam - 1.0)).ln_1p();
                        let delta_hat = deltas.log_delta(eps_hat).exp();
                        e + mu * delta_hat + mu.ln() / (lam - 1.0)
                    })
                    .collect()
            }
            Self::TruncatedNegativeBinomial { eta, gamma } => {
                Self::truncated_negative_binomial(eta, gamma)?;
                let ln_inv_gamma = -gamma.ln();
                let second = base
                    .orders
                    .iter()
                    .zip(&base.eps)
                    .map(|(&l, &e)| (1.0 - 1.0 / l) * e + ln_inv_gamma / l)
                    .fold(f64::INFINITY, f64::min);
                let ln_mean = self.mean().ln();
                base.orders
                    .iter()
                    .zip(&base.eps)
                    .map(|(&lam, &e)| e + ln_mean / (lam - 1.0) + (1.0 + eta) * second)
                    .collect()
            }
        };
        // A Rényi divergence is ≥ 0, so flooring a (never negative in practice) bound at 0 is safe.
        let raw: Vec<f64> = raw.into_iter().map(|e| e.max(0.0)).collect();
        RdpCurve::new(base.orders.clone(), monotone_envelope(&base.orders, &raw))
    }
}

/// E[K] of the truncated negative binomial in terms of u = ln(1/γ) > 0:
/// η(e^u − 1)/(1 − e^{−ηu}) for η > 0 and (e^u − 1)/u for η = 0.
fn tnb_mean(eta: f64, u: f64) -> f64 {
    if u == 0.0 {
        return 1.0;
    }
    if eta == 0.0 {
        u.exp_m1() / u
    } else {
        eta * u.exp_m1() / -(-eta * u).exp_m1()
    }
}

/// eᵢ ← min over orders ≥ orderᵢ of eⱼ (orders may be unsorted).
fn monotone_envelope(orders: &[f64], eps: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..orders.len()).collect();
    idx.sort_by(|&a, &b| orders[a].total_cmp(&orders[b]));
    let mut out = eps.to_vec();
    let mut running = f64::INFINITY;
    for &i in idx.iter().rev() {
        running = running.min(eps[i]);
        out[i] = running;
    }
    out
}

/// Largest `s` of [`poisson_mean_for_tail`] (a tuned learner's `grid_size`). K ~ Poisson(μ)
/// with μ ≥ s runs are drawn, held and run one after another in one cell, and the tail sum
/// has s + 1 terms: 10⁴ runs is already days of DP-SGD per cell and far beyond any tuning
/// budget in the papers (10 to 100), while 4·10⁹ asked for a 32 GB vector.
pub const MAX_TUNING_RUNS: u64 = 10_000;

/// Poisson mean μ with P\[K > s\] = p for K ~ Poisson(μ) (e.g. s = 10, p = 0.9 gives
/// μ ≈ 15.41); s ≤ [`MAX_TUNING_RUNS`].
pub fn poisson_mean_for_tail(s: u64, p: f64) -> Result<f64> {
    ensure(
        s <= MAX_TUNING_RUNS,
        "grid-size",
        s as f64,
        "must be <= 10000 (MAX_TUNING_RUNS: each of the ~grid_size runs is a whole training)",
    )?;
    ensure(
        p > 0.0 && p < 1.0,
        "tail-probability",
        p,
        "must be in (0, 1)",
    )?;
    // P[K ≤ s] is decreasing in μ; find where it drops to 1 − p.
    let cdf = |mu: f64| {
        let terms: Vec<f64> = (0..=s)
            .map(|k| -mu + k as f64 * mu.ln() - ln_gamma(k as f64 + 1.0))
            .collect();
        Ok(log_sum_exp(&terms).exp())
    };
    calibrate_decreasing(cdf, 1.0 - p, s as f64 + 1.0, 0.0, f64::INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::rdp_curve::default_orders;
    use crate::accounting::subsampled_gaussian::dpsgd_curve;
    use crate::error::DpError;

    fn gaussian(rho: f64, orders: &[f64]) -> RdpCurve {
        RdpCurve::from_fn(orders, |a| rho * a).unwrap()
    }

    #[test]
    fn hand_computed_values() {
        // Values from a separate straightforward computation (Python, math module only) for the
        // curve ε(α) = 0.05α on orders {2, 4, 8}.
        let base = gaussian(0.05, &[2.0, 4.0, 8.0]);
        let p = Selection::poisson(3.0).unwrap().apply(&base).unwrap();
        let expect = [0.8094275957621346, 0.8094275957621346, 0.9431745216577292];
        for (g, e) in p.eps.iter().zip(expect) {
            assert!((g - e).abs() < 1e-13, "poisson: {g} vs {e}");
        }
        let g = Selection::geometric(0.1).unwrap();
        assert!((g.mean() - 10.0).abs() < 1e-12);
        let t = g.apply(&base).unwrap();
        for e in &t.eps {
            assert!((e - 2.0045870008190896).abs() < 1e-13, "geometric: {e}");
        }
    }

    /// Straightforward Poisson (Thm 6) implementation, independent of `DeltaEvaluator`.
    fn poisson_reference(base: &RdpCurve, mu: f64) -> Vec<f64> {
        let n = base.orders.len();
        let mut raw = vec![0.0; n];
        for (i, out) in raw.iter_mut().enumerate() {
            let lam = base.orders[i];
            let eps_hat = (lam / (lam - 1.0)).ln();
            let mut delta_hat = 1.0f64;
            for j in 0..n {
                let (a, r) = (base.orders[j], base.eps[j]);
                let kl = (1.0 - (-r).exp()).sqrt();
                let conv =
                    ((a - 1.0) * (r - eps_hat) + (a - 1.0) * (1.0 - 1.0 / a).ln() - a.ln()).exp();
                delta_hat = delta_hat.min(kl).min(conv);
            }
            *out = base.eps[i] + mu * delta_hat + mu.ln() / (lam - 1.0);
        }
        (0..n)
            .map(|i| (i..n).map(|j| raw[j]).fold(f64::INFINITY, f64::min))
            .collect()
    }

    #[test]
    fn poisson_matches_reference_on_dpsgd() {
        let orders = default_orders();
        let base = dpsgd_curve(0.01, 1.1, 2000, &orders).unwrap();
        for mu in [1.0, 5.0, 15.41] {
            let tuned = Selection::poisson(mu).unwrap().apply(&base).unwrap();
            let reference = poisson_reference(&base, mu);
            for (g, r) in tuned.eps.iter().zip(&reference) {
                assert!(
                    (g - r).abs() <= 1e-10 * r.abs().max(1e-12),
                    "mu {mu}: {g} vs {r}"
                );
            }
        }
    }

    #[test]
    fn tuned_is_never_cheaper_and_grows_with_mu() {
        let orders = default_orders();
        let base = dpsgd_curve(0.01, 1.0, 1000, &orders).unwrap();
        let mut prev = base.clone();
        for mu in [1.0, 2.0, 10.0, 15.41, 50.0] {
            let t = Selection::poisson(mu).unwrap().apply(&base).unwrap();
            for (i, a) in orders.iter().enumerate() {
                assert!(t.eps[i] >= base.eps[i], "mu {mu} order {a}");
                assert!(t.eps[i] >= prev.eps[i], "not increasing in mu at order {a}");
            }
            assert!(t.epsilon(1e-5).unwrap().0 > base.epsilon(1e-5).unwrap().0);
            prev = t;
        }
        for sel in [
            Selection::geometric(0.1).unwrap(),
            Selection::logarithmic(0.05).unwrap(),
        ] {
            let t = sel.apply(&base).unwrap();
            assert!(t.eps.iter().zip(&base.eps).all(|(t, b)| t >= b));
        }
    }

    #[test]
    fn envelope_is_monotone() {
        let base = gaussian(0.02, &default_orders());
        let t = Selection::poisson(15.41).unwrap().apply(&base).unwrap();
        assert!(t.eps.windows(2).all(|w| w[0] <= w[1]));
        // Unsorted orders get the same envelope.
        let env = monotone_envelope(&[4.0, 2.0, 8.0], &[1.0, 3.0, 0.5]);
        assert_eq!(env, vec![0.5, 0.5, 0.5]);
        let env = monotone_envelope(&[4.0, 2.0, 8.0], &[1.0, 0.2, 3.0]);
        assert_eq!(env, vec![1.0, 0.2, 3.0]);
    }

    #[test]
    fn negative_binomial_means() {
        for (eta, mean) in [(0.0, 10.0), (0.5, 10.0), (1.0, 4.0), (2.0, 25.0)] {
            let s = Selection::from_shape_mean(eta, mean).unwrap();
            assert!(
                (s.mean() - mean).abs() <= 1e-9 * mean && s.mean() <= mean,
                "eta {eta}: {}",
                s.mean()
            );
        }
        // Geometric: E[K] = 1/γ.
        let g = Selection::from_shape_mean(1.0, 8.0).unwrap();
        if let Selection::TruncatedNegativeBinomial { gamma, .. } = g {
            assert!((gamma - 0.125).abs() < 1e-10);
        }
        // η → 0 is continuous with the logarithmic distribution.
        let u = 3.0;
        assert!((tnb_mean(1e-9, u) - tnb_mean(0.0, u)).abs() < 1e-6);
        // Logarithmic mean by direct summation of the pmf.
        let gamma: f64 = 0.05;
        let (mut num, mut den) = (0.0, 0.0);
        for k in 1..2000 {
            let w = (1.0 - gamma).powi(k) / k as f64;
            num += k as f64 * w;
            den += w;
        }
        assert!((Selection::logarithmic(gamma).unwrap().mean() - num / den).abs() < 1e-9);
    }

    #[test]
    fn poisson_tail_mean() {
        let mu = poisson_mean_for_tail(10, 0.9).unwrap();
        assert!((mu - 15.40664117197652).abs() < 1e-8, "{mu}");
    }

    #[test]
    fn input_validation() {
        assert!(matches!(
            Selection::poisson(0.0),
            Err(DpError::OutOfRange { name: "mu", .. })
        ));
        assert!(matches!(
            Selection::geometric(1.0),
            Err(DpError::OutOfRange { name: "gamma", .. })
        ));
        assert!(matches!(
            Selection::truncated_negative_binomial(-1.0, 0.5),
            Err(DpError::OutOfRange { name: "eta", .. })
        ));
        assert!(matches!(
            Selection::from_shape_mean(1.0, 1.0),
            Err(DpError::OutOfRange { name: "mean", .. })
        ));
        assert!(matches!(
            poisson_mean_for_tail(10, 1.0),
            Err(DpError::OutOfRange {
                name: "tail-probability",
                ..
            })
        ));
    }
}
