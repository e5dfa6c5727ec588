//! The "half-normal" reference mechanism of Redberg et al. (2023, Appendix C.2, Figure 3):
//! `M(Z) = f(Z) + |N(0, σ²)|` for a scalar `f` with sensitivity L.
//!
//! # Which divergence is finite
//! For neighbours with `f(Z) = f(Z') + L`, write P = M(Z) (support `[f(Z') + L, ∞)`) and
//! Q = M(Z') (support `[f(Z'), ∞)`). P's support sits inside Q's, so `D_α(P‖Q)` is finite,
//! while Q puts mass `2Φ(L/σ) − 1 > 0` where P has none, so `D_α(Q‖P) = ∞` for every α > 1:
//! the mechanism is not RDP in the symmetric sense of Def. 2.7. The paper plots
//! `ε(α) := D_α(M(Z) ‖ M(Z'))` (text of Figure C.2), i.e. the finite direction, and reads the
//! gap to ObjPert as "due entirely to the leading term" −ln(1 − β/λ) of Thm 3.2. Both readings
//! agree: on `[L, ∞)` (taking f(Z') = 0) the density ratio is the Gaussian one,
//! `p/q = exp((2xL − L²)/(2σ²))`, and `∫_L^∞ p^α q^{1−α} = 2 e^{α(α−1)s²/2} Φ((α−1)s)` with
//! s = L/σ, so
//!
//! ```text
//! D_α(P‖Q) = α s²/2 + ln(2Φ((α−1)s))/(α−1) = s²/2 + ln E[e^{(α−1)|X|}]/(α−1),  X ~ N(0, s²),
//! ```
//!
//! which is Thm 3.2 without the −ln(1 − β/λ) term. Because `1 ≤ 2Φ ≤ 2`, it lies between the
//! Gaussian RDP `α s²/2` and that plus `ln 2/(α − 1)`.

use crate::accounting::objpert::log_mgf_half_normal;
use crate::accounting::rdp_curve::{RdpCurve, check_order};
use crate::error::{Result, check_positive};

/// `D_α(f(Z) + |N(0, σ²)| ‖ f(Z') + |N(0, σ²)|)` for `f(Z) − f(Z') = sensitivity`, α > 1: the
/// finite direction of the shifted half-normals (see the module docs).
pub fn rdp(alpha: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    check_order(alpha)?;
    check_positive("sigma", sigma)?;
    check_positive("sensitivity", sensitivity)?;
    let (s, t) = (sensitivity / sigma, alpha - 1.0);
    Ok(0.5 * s * s + log_mgf_half_normal(t * s) / t)
}

/// [`rdp`] on the given orders.
pub fn rdp_curve(sigma: f64, sensitivity: f64, orders: &[f64]) -> Result<RdpCurve> {
    RdpCurve::try_from_fn(orders, |a| rdp(a, sigma, sensitivity))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::gaussian;
    use crate::accounting::objpert::ObjPert;
    use crate::accounting::quadrature::log_integrate;
    use crate::special::LN_SQRT_2PI;

    /// ln density of `shift + |N(0, σ²)|`, −∞ off its support.
    fn ln_shifted_half_normal(x: f64, shift: f64, sigma: f64) -> f64 {
        if x < shift {
            return f64::NEG_INFINITY;
        }
        let z = (x - shift) / sigma;
        std::f64::consts::LN_2 - LN_SQRT_2PI - sigma.ln() - 0.5 * z * z
    }

    /// D_α(P‖Q) by quadrature of p^α q^{1−α} over P's support [L, ∞) straight from the densities.
    fn renyi_by_quadrature(alpha: f64, sigma: f64, l: f64) -> f64 {
        let g = |x: f64| {
            alpha * ln_shifted_half_normal(x, l, sigma)
                + (1.0 - alpha) * ln_shifted_half_normal(x, 0.0, sigma)
        };
        // The integrand is a Gaussian bump centred at αL with sd σ, cut at L.
        let hi = alpha * l + 40.0 * sigma;
        log_integrate(g, l, hi, 400) / (alpha - 1.0)
    }

    #[test]
    fn closed_form_matches_quadrature_of_the_shifted_half_normals() {
        for &(sigma, l) in &[
            (1.0, 1.0),
            (5.0, 1.0),
            (0.5, 1.0),
            (10.0, std::f64::consts::SQRT_2),
            (2.0, 3.0),
        ] {
            for &alpha in &[1.01, 1.5, 2.0, 3.7, 10.0, 32.0, 100.0] {
                let exact = rdp(alpha, sigma, l).unwrap();
                let quad = renyi_by_quadrature(alpha, sigma, l);
                assert!(
                    (exact - quad).abs() <= 1e-10 * exact.max(1e-3),
                    "σ={sigma} L={l} α={alpha}: closed form {exact} vs quadrature {quad}"
                );
            }
        }
    }

    #[test]
    fn reverse_direction_is_infinite_so_only_the_forward_one_is_plotted() {
        // Q = |N| has mass on [0, L) where P = L + |N| has density 0: p^α q^{1−α} is fine but
        // q^α p^{1−α} = ∞ there for α > 1.
        let (sigma, l) = (5.0f64, 1.0f64);
        let x = 0.5 * l;
        let reverse_log_integrand =
            2.0 * ln_shifted_half_normal(x, 0.0, sigma) - ln_shifted_half_normal(x, l, sigma);
        assert_eq!(reverse_log_integrand, f64::INFINITY);
        assert!(renyi_by_quadrature(2.0, sigma, l).is_finite());
    }

    #[test]
    fn lies_between_gaussian_and_gaussian_plus_ln2_over_order() {
        for &sigma in &[0.3, 1.0, 8.0] {
            for &alpha in &[1.05, 2.0, 20.0, 500.0] {
                let hn = rdp(alpha, sigma, 1.0).unwrap();
                let g = gaussian::rdp(alpha, sigma, 1.0).unwrap();
                assert!(
                    hn >= g * (1.0 - 1e-14)
                        && hn <= g * (1.0 + 1e-14) + std::f64::consts::LN_2 / (alpha - 1.0),
                    "σ={sigma} α={alpha}: half-normal {hn}, Gaussian {g}"
                );
            }
        }
    }

    #[test]
    fn objpert_exceeds_it_by_exactly_the_jacobian_term() {
        for &lambda in &[1.5, 5.0, 20.0, 1000.0] {
            let op = ObjPert::new(5.0, lambda, 1.0, 1.0).unwrap();
            for &alpha in &[1.1, 4.0, 64.0] {
                let gap = op.rdp(alpha).unwrap() - rdp(alpha, 5.0, 1.0).unwrap();
                assert!(
                    (gap - op.c()).abs() < 1e-12,
                    "λ={lambda} α={alpha}: gap {gap} vs c {}",
                    op.c()
                );
            }
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(rdp(1.0, 1.0, 1.0).is_err());
        assert!(rdp(2.0, 0.0, 1.0).is_err());
        assert!(rdp(2.0, 1.0, -1.0).is_err());
        assert_eq!(rdp_curve(2.0, 1.0, &[2.0, 3.0]).unwrap().eps.len(), 2);
    }
}
