//! Analytic Gaussian mechanism (Balle & Wang 2018): tight privacy profile, its inverses, and
//! the Gaussian RDP curve.
//!
//! Only the ratio σ/Δ matters; with `a = Δ/(2σ)` and `b = εσ/Δ`,
//! `δ(ε) = Φ(a − b) − e^ε Φ(−a − b)`, evaluated as a log-space difference because both terms
//! sit deep in the normal tail for large ε or σ.

use crate::accounting::calibrate::calibrate_decreasing;
use crate::accounting::rdp_curve::{RdpCurve, check_order};
use crate::error::{Result, check_delta, check_epsilon, check_nonnegative, check_positive};
use crate::special::{log_norm_cdf, log_sub_exp};

fn check_noise(sigma: f64, sensitivity: f64) -> Result<()> {
    check_positive("sigma", sigma)?;
    check_positive("sensitivity", sensitivity)
}

/// ln δ(ε) of the Gaussian mechanism with noise `sigma` and L2 sensitivity `sensitivity`, ε ≥ 0.
pub fn log_delta(eps: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    check_nonnegative("epsilon", eps)?;
    check_noise(sigma, sensitivity)?;
    let a = sensitivity / (2.0 * sigma);
    let b = eps * sigma / sensitivity;
    let first = log_norm_cdf(a - b);
    let second = eps + log_norm_cdf(-a - b);
    // δ > 0 mathematically; equal logs only when δ is below double resolution of the terms.
    Ok(if second < first {
        log_sub_exp(first, second)
    } else {
        f64::NEG_INFINITY
    })
}

/// δ(ε) of the Gaussian mechanism (tight, Balle & Wang 2018 Thm 8), ε ≥ 0.
pub fn delta(eps: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    Ok(log_delta(eps, sigma, sensitivity)?.exp())
}

/// Smallest ε ≥ 0 with δ(ε) ≤ `delta` for the Gaussian mechanism.
pub fn epsilon(delta: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    check_delta(delta)?;
    check_noise(sigma, sensitivity)?;
    if self::delta(0.0, sigma, sensitivity)? <= delta {
        return Ok(0.0);
    }
    // ε ≈ Δ²/(2σ²) exceeds every double once σ ≲ 1e-154·Δ: the smallest valid ε is then +∞.
    if self::delta(f64::MAX, sigma, sensitivity)? > delta {
        return Ok(f64::INFINITY);
    }
    // Classic calibration σ = Δ√(2 ln(1.25/δ))/ε solved for ε is a good starting point.
    let start = sensitivity * (2.0 * (1.25 / delta).ln()).sqrt() / sigma;
    calibrate_decreasing(
        |e| self::delta(e, sigma, sensitivity),
        delta,
        start.min(f64::MAX),
        0.0,
        f64::MAX,
    )
}

/// Smallest noise σ with δ(ε) ≤ `delta` (analytic Gaussian calibration).
pub fn sigma(eps: f64, delta: f64, sensitivity: f64) -> Result<f64> {
    check_epsilon(eps)?;
    check_delta(delta)?;
    check_positive("sensitivity", sensitivity)?;
    let start = sensitivity * (2.0 * (1.25 / delta).ln()).sqrt() / eps;
    calibrate_decreasing(
        |s| self::delta(eps, s, sensitivity),
        delta,
        start,
        0.0,
        f64::INFINITY,
    )
}

/// RDP of the Gaussian mechanism at order α > 1: α Δ² / (2σ²).
pub fn rdp(alpha: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    check_order(alpha)?;
    check_noise(sigma, sensitivity)?;
    Ok(alpha * sensitivity * sensitivity / (2.0 * sigma * sigma))
}

/// Gaussian RDP curve on the given orders.
pub fn rdp_curve(sigma: f64, sensitivity: f64, orders: &[f64]) -> Result<RdpCurve> {
    RdpCurve::try_from_fn(orders, |a| rdp(a, sigma, sensitivity))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::quadrature::log_integrate;
    use crate::special::LN_SQRT_2PI;

    /// δ(ε) = E[(1 − e^{ε−L})₊] with the PLRV L ~ N(μ, 2μ), μ = Δ²/(2σ²), by quadrature.
    fn delta_by_plrv_quadrature(eps: f64, sigma: f64, sens: f64) -> f64 {
        delta_by_plrv_quadrature_log(eps, sigma, sens).exp()
    }

    fn delta_by_plrv_quadrature_log(eps: f64, sigma: f64, sens: f64) -> f64 {
        let mu = sens * sens / (2.0 * sigma * sigma);
        let sd = (2.0 * mu).sqrt();
        let lo = eps.max(mu - 40.0 * sd);
        let hi = (mu + 40.0 * sd).max(lo + 1.0);
        let g = |l: f64| {
            let log_pdf = -0.5 * ((l - mu) / sd).powi(2) - LN_SQRT_2PI - sd.ln();
            log_pdf + crate::special::log1m_exp(eps - l)
        };
        log_integrate(g, lo, hi, 400)
    }

    #[test]
    fn known_calibration_value() {
        let s = sigma(1.0, 1e-5, 1.0).unwrap();
        assert!((s - 3.7305).abs() < 5e-4, "{s}");
        assert!(delta(1.0, s, 1.0).unwrap() <= 1e-5);
        // The classic calibration √(2 ln(1.25/δ))/ε = 4.84 is looser.
        assert!(s < (2.0 * (1.25f64 / 1e-5).ln()).sqrt());
    }

    #[test]
    fn matches_plrv_quadrature() {
        for &(eps, sigma, sens) in &[
            (1.0, 3.7305, 1.0),
            (0.1, 1.0, 1.0),
            (3.0, 0.7, 1.0),
            (0.5, 10.0, 2.0),
            (8.0, 1.0, 1.0),
        ] {
            let closed = delta(eps, sigma, sens).unwrap();
            let quad = delta_by_plrv_quadrature(eps, sigma, sens);
            assert!(
                (closed - quad).abs() <= 1e-9 * quad,
                "eps {eps} sigma {sigma}: {closed} vs {quad}"
            );
        }
    }

    #[test]
    fn deep_tail_is_positive_and_consistent() {
        // δ ≈ e^{-800}: both Φ terms underflow, so only a log-space difference works.
        let ld = log_delta(20.0, 2.0, 1.0).unwrap();
        assert!(ld.is_finite() && ld < -700.0, "{ld}");
        let quad = delta_by_plrv_quadrature_log(20.0, 2.0, 1.0);
        assert!((ld - quad).abs() < 1e-8, "{ld} vs {quad}");
    }

    #[test]
    fn monotone_in_epsilon_and_sigma() {
        let mut prev = f64::INFINITY;
        for k in 0..60 {
            let d = delta(0.1 * k as f64, 2.0, 1.0).unwrap();
            assert!(d < prev, "not decreasing in eps at {k}");
            prev = d;
        }
        let mut prev = f64::INFINITY;
        for k in 1..60 {
            let d = delta(1.0, 0.2 * k as f64, 1.0).unwrap();
            assert!(d < prev, "not decreasing in sigma at {k}");
            prev = d;
        }
    }

    #[test]
    fn round_trips() {
        for &(eps, del) in &[
            (0.1, 1e-5),
            (1.0, 1e-5),
            (1.0, 1e-10),
            (8.0, 1e-6),
            (0.01, 1e-3),
        ] {
            let s = sigma(eps, del, 1.0).unwrap();
            assert!(delta(eps, s, 1.0).unwrap() <= del);
            let d_back = delta(eps, s, 1.0).unwrap();
            assert!(
                (d_back - del).abs() <= 1e-8 * del,
                "delta round trip {d_back} vs {del}"
            );
            let e = epsilon(del, s, 1.0).unwrap();
            assert!((e - eps).abs() <= 1e-9 * eps, "eps round trip {e} vs {eps}");
            assert!(delta(e, s, 1.0).unwrap() <= del);
        }
    }

    #[test]
    fn sensitivity_scaling() {
        let s1 = sigma(0.7, 1e-6, 1.0).unwrap();
        let s3 = sigma(0.7, 1e-6, 3.0).unwrap();
        assert!((s3 - 3.0 * s1).abs() <= 1e-10 * s3);
        let d1 = delta(0.4, 2.0, 1.0).unwrap();
        let d2 = delta(0.4, 4.0, 2.0).unwrap();
        assert!((d1 - d2).abs() <= 1e-14 * d1);
    }

    #[test]
    fn epsilon_zero_when_delta_is_large() {
        let e = epsilon(0.9, 1.0, 1.0).unwrap();
        assert_eq!(e, 0.0);
    }

    #[test]
    fn rdp_closed_form_and_errors() {
        assert_eq!(rdp(2.0, 2.0, 1.0).unwrap(), 0.25);
        assert!(matches!(
            sigma(1.0, 0.0, 1.0),
            Err(crate::DpError::OutOfRange { name: "delta", .. })
        ));
        assert!(matches!(
            delta(1.0, -1.0, 1.0),
            Err(crate::DpError::OutOfRange { name: "sigma", .. })
        ));
        assert!(matches!(
            sigma(0.0, 1e-5, 1.0),
            Err(crate::DpError::OutOfRange {
                name: "epsilon",
                ..
            })
        ));
    }
}
