//! Privacy of Algorithm 1 (approximate minima perturbation with gradient clipping, Redberg et
//! al. 2023, Thm 4.1) and its calibration (working sheet §5).
//!
//! Algorithm 1 is an adaptive composition of objective perturbation (gradient bound L = clip C)
//! and a Gaussian release of θ̃ − θ^P, whose sensitivity is 2τ/λ (stopping rule ‖∇‖ ≤ τ plus
//! λ-strong convexity), so its RDP is `ObjPert RDP(α) + 2τ²α/(σ_out² λ²)`.

use crate::accounting::calibrate::calibrate_decreasing;
use crate::accounting::gaussian;
use crate::accounting::objpert::ObjPert;
use crate::accounting::rdp_curve::{RdpCurve, default_orders};
use crate::error::{
    DpError, Result, check_delta, check_epsilon, check_nonnegative, check_positive,
};

/// Privacy parameters of one Algorithm 1 release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alg1Privacy {
    /// Objective-perturbation noise σ.
    pub sigma: f64,
    /// Output-perturbation noise σ_out.
    pub sigma_out: f64,
    /// Gradient-norm stopping threshold τ.
    pub tau: f64,
    /// Regularisation strength λ > β.
    pub lambda: f64,
    /// Per-example Hessian bound β.
    pub beta: f64,
    /// Per-example gradient clipping norm C (the L of the ObjPert bound).
    pub clip: f64,
}

impl Alg1Privacy {
    fn objpert(&self) -> Result<ObjPert> {
        check_positive("sigma-out", self.sigma_out)?;
        check_nonnegative("tau", self.tau)?;
        ObjPert::new(self.sigma, self.lambda, self.beta, self.clip)
    }

    /// RDP at order α > 1 (Thm 4.1).
    pub fn rdp(&self, alpha: f64) -> Result<f64> {
        let op = self.objpert()?.rdp(alpha)?;
        let (t, so, l) = (self.tau, self.sigma_out, self.lambda);
        Ok(op + 2.0 * t * t * alpha / (so * so * l * l))
    }

    /// Thm 4.1 RDP curve on the given orders.
    pub fn rdp_curve(&self, orders: &[f64]) -> Result<RdpCurve> {
        RdpCurve::try_from_fn(orders, |a| self.rdp(a))
    }

    /// ε at δ via RDP on the default order grid.
    pub fn epsilon(&self, delta: f64) -> Result<f64> {
        self.epsilon_with_orders(delta, &default_orders())
    }

    /// ε at δ via RDP on the given orders.
    pub fn epsilon_with_orders(&self, delta: f64, orders: &[f64]) -> Result<f64> {
        Ok(self.rdp_curve(orders)?.epsilon(delta)?.0)
    }

    /// Calibration (sheet §5) on the default order grid: σ = `noise_factor`·σ_G(ε, δ; Δ = clip),
    /// then the smallest λ > β whose RDP converts to at most ε at δ.
    pub fn calibrate(
        eps: f64,
        delta: f64,
        noise_factor: f64,
        beta: f64,
        clip: f64,
        tau: f64,
        sigma_out: f64,
    ) -> Result<Self> {
        Self::calibrate_with_orders(
            eps,
            delta,
            noise_factor,
            beta,
            clip,
            tau,
            sigma_out,
            &default_orders(),
        )
    }

    /// [`Alg1Privacy::calibrate`] on a caller-chosen order grid.
    #[allow(clippy::too_many_arguments)]
    pub fn calibrate_with_orders(
        eps: f64,
        delta: f64,
        noise_factor: f64,
        beta: f64,
        clip: f64,
        tau: f64,
        sigma_out: f64,
        orders: &[f64],
    ) -> Result<Self> {
        check_epsilon(eps)?;
        check_delta(delta)?;
        check_positive("noise-factor", noise_factor)?;
        check_positive("clip", clip)?;
        check_nonnegative("beta", beta)?;
        let sigma = noise_factor * gaussian::sigma(eps, delta, clip)?;
        let with_lambda = |lambda: f64| Self {
            sigma,
            sigma_out,
            tau,
            lambda,
            beta,
            clip,
        };
        with_lambda(2.0 * beta + 1.0).objpert()?; // validates tau and sigma_out up front
        // ε is decreasing in λ: both c = −ln(1 − β/λ) and the output-noise term shrink.
        let f = |lambda: f64| with_lambda(lambda).epsilon_with_orders(delta, orders);
        let start = if beta > 0.0 { 2.0 * beta } else { 1.0 };
        let lambda = calibrate_decreasing(f, eps, start, beta, f64::INFINITY).map_err(|e| match e {
            DpError::Calibration(msg) => DpError::Calibration(format!(
                "no lambda > beta = {beta} makes Algorithm 1 ({eps}, {delta})-DP with sigma = {sigma} \
                 (noise factor {noise_factor}): {msg}"
            )),
            other => other,
        })?;
        Ok(with_lambda(lambda))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adult() -> Result<Alg1Privacy> {
        Alg1Privacy::calibrate(1.0, 1e-5, 1.3, 0.5, 2f64.sqrt(), 0.01, 0.15)
    }

    #[test]
    fn adult_check_values() {
        let p = adult().unwrap();
        let sigma_g = gaussian::sigma(1.0, 1e-5, 2f64.sqrt()).unwrap();
        assert!((sigma_g - 5.276).abs() < 1e-3, "sigma_G {sigma_g}");
        assert!((p.sigma - 6.859).abs() < 1e-3, "sigma {}", p.sigma);
        assert!((p.lambda - 4.02).abs() < 0.01, "lambda {}", p.lambda);
        let e = p.epsilon(1e-5).unwrap();
        assert!(e <= 1.0 && e > 1.0 - 1e-6, "{e}");
        // Minimal: a slightly smaller λ is not private enough.
        let smaller = Alg1Privacy {
            lambda: p.lambda * (1.0 - 1e-8),
            ..p
        };
        assert!(smaller.epsilon(1e-5).unwrap() > 1.0 - 1e-9);
    }

    #[test]
    fn rdp_is_objpert_plus_gaussian_output_term() {
        let p = Alg1Privacy {
            sigma: 6.0,
            sigma_out: 0.15,
            tau: 0.01,
            lambda: 4.0,
            beta: 0.5,
            clip: 2f64.sqrt(),
        };
        let op = ObjPert::new(6.0, 4.0, 0.5, 2f64.sqrt()).unwrap();
        for &a in &[1.5, 10.0, 100.0] {
            let out = gaussian::rdp(a, 0.15, 2.0 * 0.01 / 4.0).unwrap();
            assert!((p.rdp(a).unwrap() - op.rdp(a).unwrap() - out).abs() < 1e-13);
        }
        // τ = 0 is plain objective perturbation.
        let exact = Alg1Privacy { tau: 0.0, ..p };
        assert_eq!(exact.rdp(3.0).unwrap(), op.rdp(3.0).unwrap());
    }

    #[test]
    fn epsilon_decreases_in_lambda() {
        let mut prev = f64::INFINITY;
        for lam in [0.6, 1.0, 2.0, 4.0, 10.0, 100.0] {
            let p = Alg1Privacy {
                sigma: 6.859,
                sigma_out: 0.15,
                tau: 0.01,
                lambda: lam,
                beta: 0.5,
                clip: 2f64.sqrt(),
            };
            let e = p.epsilon(1e-5).unwrap();
            assert!(e < prev, "lambda {lam}");
            prev = e;
        }
    }

    #[test]
    fn impossible_targets_error() {
        // σ below the Gaussian mechanism's can never work (Lemma 3.4).
        let r = Alg1Privacy::calibrate(1.0, 1e-5, 0.9, 0.5, 2f64.sqrt(), 0.01, 0.15);
        assert!(matches!(r, Err(DpError::Calibration(_))), "{r:?}");
        // A huge output-noise term (tiny σ_out) is fine once λ is large, but τ must be finite.
        let r = Alg1Privacy::calibrate(1.0, 1e-5, 1.3, 0.5, 2f64.sqrt(), f64::NAN, 0.15);
        assert!(matches!(r, Err(DpError::OutOfRange { name: "tau", .. })));
        let r = Alg1Privacy::calibrate(1.0, 1e-5, 1.3, 0.5, 2f64.sqrt(), 0.01, 0.0);
        assert!(matches!(
            r,
            Err(DpError::OutOfRange {
                name: "sigma-out",
                ..
            })
        ));
    }
}
