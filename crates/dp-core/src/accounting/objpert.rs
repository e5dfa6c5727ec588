//! Objective perturbation for GLMs (Redberg, Koskela & Wang 2023): Kifer et al.'s baseline,
//! the RDP bound (Thm 3.2), the privacy profile (Thm 3.1), the Gaussian lower bound (Lemma 3.4)
//! and the non-GLM RDP bound (Thm E.1).
//!
//! Notation: noise σ, regulariser λ > β (β bounds the per-example Hessian), gradient norm bound
//! L, `c = −ln(1 − β/λ)`, `s = L/σ`. The privacy loss is dominated by
//! `ω = c + s²/2 + |N(0, s²)|`.
//!
//! Where the paper's displayed formulas have typos we follow `docs/derivations.md` §4:
//! Thm 3.1's subscripts are restated as closed forms in ε̂ = ε − c − s²/2,
//! Appendix C's last line (L/(2σ²), missing 1/(α−1) log) and Thm E.1's L/(2σ²) are read as
//! L²/(2σ²) with the 1/(α−1) log, as the proofs establish.

use std::f64::consts::{FRAC_1_SQRT_2, LN_2};

use crate::accounting::calibrate::calibrate_decreasing;
use crate::accounting::gaussian;
use crate::accounting::quadrature::log_integrate;
use crate::accounting::rdp_curve::{RdpCurve, check_order};
use crate::error::{Result, check_delta, check_epsilon, check_nonnegative, check_positive, ensure};
use crate::special::{ln_gamma, log_norm_cdf, log_norm_cdf_scaled, log_sub_exp, log1m_exp};

/// s = L/σ from which the privacy profile forms e^{s²/2} Φ(−s) in one piece: far below the
/// overflow of s² (s ≈ 1.3e154), and where s²/2 = 200 and ln Φ(−s) ≈ −204 already cancel
/// most of their digits when added apart.
const SCALED_FROM: f64 = 20.0;

/// ln E[exp(a|X|)] for X ~ N(0, 1), a ≥ 0: `ln(2Φ(a)) + a²/2`.
pub(crate) fn log_mgf_half_normal(a: f64) -> f64 {
    // ln(2Φ(a)) = ln(1 + erf(a/√2)) keeps full relative precision for small a (orders near 1).
    let ln_2phi = if a < 5.0 {
        libm::erf(a * FRAC_1_SQRT_2).ln_1p()
    } else {
        LN_2 + log_norm_cdf(a)
    };
    ln_2phi + 0.5 * a * a
}

/// ln E[exp(a R)] for R ~ χ_d, a ≥ 0, by log-space quadrature around the integrand's mode.
fn log_mgf_chi(a: f64, dim: usize) -> f64 {
    let d = dim as f64;
    let log_norm = (0.5 * d - 1.0) * LN_2 + ln_gamma(0.5 * d);
    let g = |r: f64| {
        let shape = if dim == 1 { 0.0 } else { (d - 1.0) * r.ln() };
        shape - 0.5 * r * r + a * r - log_norm
    };
    // The log-integrand is concave with curvature ≤ −1: 40 units either side of the mode hold
    // all but e^{−800} of the mass.
    let mode = 0.5 * (a + (a * a + 4.0 * (d - 1.0)).sqrt());
    let (lo, hi) = ((mode - 40.0).max(0.0), mode + 40.0);
    log_integrate(g, lo, hi, (hi - lo).ceil() as usize)
}

/// Objective perturbation parameters (noise σ, regulariser λ, smoothness β, gradient bound L).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ObjPert {
    /// Standard deviation of the linear perturbation b ~ N(0, σ² I).
    pub sigma: f64,
    /// Regularisation strength λ (must exceed β).
    pub lambda: f64,
    /// Bound on a single example's Hessian (β-smoothness of f times max ‖x‖²).
    pub beta: f64,
    /// Bound L on per-example gradient norms.
    pub lipschitz: f64,
}

impl ObjPert {
    /// Validated constructor: σ, L > 0, β ≥ 0, λ > β.
    pub fn new(sigma: f64, lambda: f64, beta: f64, lipschitz: f64) -> Result<Self> {
        let p = Self {
            sigma,
            lambda,
            beta,
            lipschitz,
        };
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<()> {
        check_positive("sigma", self.sigma)?;
        check_positive("lipschitz", self.lipschitz)?;
        check_nonnegative("beta", self.beta)?;
        ensure(
            self.lambda > self.beta && self.lambda.is_finite(),
            "lambda",
            self.lambda,
            "must be > beta and finite",
        )
    }

    /// c = −ln(1 − β/λ), the Jacobian term.
    pub fn c(&self) -> f64 {
        -(-self.beta / self.lambda).ln_1p()
    }

    /// s = L/σ.
    pub fn s(&self) -> f64 {
        self.lipschitz / self.sigma
    }

    /// RDP at order α > 1 (Thm 3.2): `c + s²/2 + ln E[e^{(α−1)|X|}]/(α−1)`, X ~ N(0, s²).
    pub fn rdp(&self, alpha: f64) -> Result<f64> {
        self.check()?;
        check_order(alpha)?;
        let (c, s, t) = (self.c(), self.s(), alpha - 1.0);
        Ok(c + 0.5 * s * s + log_mgf_half_normal(t * s) / t)
    }

    /// Thm 3.2 RDP curve on the given orders.
    pub fn rdp_curve(&self, orders: &[f64]) -> Result<RdpCurve> {
        RdpCurve::try_from_fn(orders, |a| self.rdp(a))
    }

    /// ε at δ from the RDP bound (improved conversion over `orders`).
    pub fn rdp_epsilon(&self, delta: f64, orders: &[f64]) -> Result<f64> {
        Ok(self.rdp_curve(orders)?.epsilon(delta)?.0)
    }

    /// δ at ε from the RDP bound.
    pub fn rdp_delta(&self, eps: f64, orders: &[f64]) -> Result<f64> {
        self.rdp_curve(orders)?.delta(eps)
    }

    /// ln δ(ε) of the privacy profile (Thm 3.1), ε ≥ 0: `ln E[(1 − e^{ε−ω})₊]`.
    pub fn profile_log_delta(&self, eps: f64) -> Result<f64> {
        self.check()?;
        check_nonnegative("epsilon", eps)?;
        let s = self.s();
        let e_hat = eps - self.c() - 0.5 * s * s;
        Ok(if e_hat >= 0.0 {
            // 2[Φ(−u) − e^{ε̂+s²/2} Φ(−u − s)] with u = ε̂/s.
            if s < SCALED_FROM {
                let first = log_norm_cdf(-e_hat / s);
                let second = e_hat + 0.5 * s * s + log_norm_cdf(-e_hat / s - s);
                if second < first {
                    LN_2 + log_sub_exp(first, second)
                } else {
                    f64::NEG_INFINITY
                }
            } else {
                // ε̂ + s²/2 − (u + s)²/2 = −u²/2: both terms are e^{−u²/2} times a scaled Φ,
                // so nothing of size s²/2 cancels (apart, the two rounded to equal, δ = 0,
                // from s ≈ 1e9 on). e^{x²/2}Φ(x) increases in x: the difference is positive.
                let u = e_hat / s;
                let (first, second) = (log_norm_cdf_scaled(-u), log_norm_cdf_scaled(-u - s));
                if second < first {
                    LN_2 - 0.5 * u * u + log_sub_exp(first, second)
                } else {
                    f64::NEG_INFINITY
                }
            }
        } else {
            // 1 − e^{ε̂} E[e^{−|X|}] with E[e^{−|X|}] = 2 e^{s²/2} Φ(−s). Small noise makes s²
            // huge (+∞ below σ ≈ 1e-154·L), where ε̂ + s²/2 would be −∞ + ∞ = NaN: from s = 20
            // on, e^{s²/2} Φ(−s) is formed in one piece (ε̂ → −∞ and δ → 1 as σ → 0). Below,
            // the sum keeps the order the committed figures were computed in.
            if s < SCALED_FROM {
                log1m_exp(e_hat + 0.5 * s * s + LN_2 + log_norm_cdf(-s))
            } else {
                log1m_exp(e_hat + LN_2 + log_norm_cdf_scaled(-s))
            }
        })
    }

    /// δ(ε) of the privacy profile (Thm 3.1).
    pub fn profile_delta(&self, eps: f64) -> Result<f64> {
        Ok(self.profile_log_delta(eps)?.exp())
    }

    /// Smallest ε ≥ 0 with profile δ(ε) ≤ `delta`.
    pub fn profile_epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        if self.profile_delta(0.0)? <= delta {
            return Ok(0.0);
        }
        // As for the Gaussian: below σ ≈ 1e-154·L no double is a large enough ε (the
        // calibration probes up to e^709, so that is where it is asked).
        if self.profile_delta(709f64.exp())? > delta {
            return Ok(f64::INFINITY);
        }
        let s = self.s();
        let start = self.c() + 0.5 * s * s + s * (2.0 * (1.0 / delta).ln()).sqrt();
        calibrate_decreasing(
            |e| self.profile_delta(e),
            delta,
            start.min(f64::MAX),
            0.0,
            f64::INFINITY,
        )
    }

    /// Lower bound (Lemma 3.4): δ(ε) of the Gaussian mechanism with sensitivity L and noise σ.
    /// No valid ObjPert bound can lie below it.
    pub fn gaussian_lower_delta(&self, eps: f64) -> Result<f64> {
        self.check()?;
        gaussian::delta(eps, self.sigma, self.lipschitz)
    }

    /// ε(δ) of the Gaussian lower bound.
    pub fn gaussian_lower_epsilon(&self, delta: f64) -> Result<f64> {
        self.check()?;
        gaussian::epsilon(delta, self.sigma, self.lipschitz)
    }

    /// Kifer et al. (Thm 2.8): (ε, δ)-DP holds if λ ≥ 2β/ε and σ ≥ L√(8 ln(2/δ) + 4ε)/ε.
    pub fn kifer_is_private(&self, eps: f64, delta: f64) -> Result<bool> {
        self.check()?;
        Ok(self.lambda >= kifer_min_lambda(eps, self.beta)?
            && self.sigma >= kifer_sigma(eps, delta, self.lipschitz)?)
    }

    /// Smallest δ at which Kifer et al.'s theorem certifies ε (1 when λ < 2β/ε).
    pub fn kifer_delta(&self, eps: f64) -> Result<f64> {
        self.check()?;
        check_epsilon(eps)?;
        if self.lambda * eps < 2.0 * self.beta {
            return Ok(1.0);
        }
        // σ²ε²/L² ≥ 8 ln(2/δ) + 4ε  ⇔  δ ≥ 2 exp(−(σ²ε²/L² − 4ε)/8)
        let r = self.sigma * eps / self.lipschitz;
        Ok((LN_2 - (r * r - 4.0 * eps) / 8.0).exp().min(1.0))
    }

    /// Smallest ε at which Kifer et al.'s theorem certifies δ: the larger of 2β/λ and the
    /// positive root of σ²ε² − 4L²ε − 8L² ln(2/δ) = 0.
    pub fn kifer_epsilon(&self, delta: f64) -> Result<f64> {
        self.check()?;
        check_delta(delta)?;
        // In r = L/σ the root is 2r² + r√(4r² + 8 ln(2/δ)): no L²/σ² of two overflows
        // (∞/∞ = NaN at σ ≳ 1e154), and it is +∞ exactly when r or r² is.
        let r = self.s();
        let root = 2.0 * r * r + r * (4.0 * r * r + 8.0 * (2.0 / delta).ln()).sqrt();
        Ok(root.max(2.0 * self.beta / self.lambda))
    }

    /// Non-GLM RDP (Thm E.1) in dimension d:
    /// `−d ln(1 − β/λ) + s²/2 + ln E[e^{(α−1) s R}]/(α−1)`, R ~ χ_d.
    pub fn rdp_non_glm(&self, alpha: f64, dim: usize) -> Result<f64> {
        self.check()?;
        check_order(alpha)?;
        ensure(dim >= 1, "dimension", dim as f64, "must be >= 1")?;
        let (s, t) = (self.s(), alpha - 1.0);
        Ok(dim as f64 * self.c() + 0.5 * s * s + log_mgf_chi(t * s, dim) / t)
    }

    /// Thm E.1 RDP curve.
    pub fn rdp_non_glm_curve(&self, dim: usize, orders: &[f64]) -> Result<RdpCurve> {
        RdpCurve::try_from_fn(orders, |a| self.rdp_non_glm(a, dim))
    }
}

/// Kifer et al.'s noise requirement σ ≥ L√(8 ln(2/δ) + 4ε)/ε.
pub fn kifer_sigma(eps: f64, delta: f64, lipschitz: f64) -> Result<f64> {
    check_epsilon(eps)?;
    check_delta(delta)?;
    check_positive("lipschitz", lipschitz)?;
    Ok(lipschitz * (8.0 * (2.0 / delta).ln() + 4.0 * eps).sqrt() / eps)
}

/// Kifer et al.'s regularisation requirement λ ≥ 2β/ε.
pub fn kifer_min_lambda(eps: f64, beta: f64) -> Result<f64> {
    check_epsilon(eps)?;
    check_nonnegative("beta", beta)?;
    Ok(2.0 * beta / eps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::rdp_curve::default_orders;
    use crate::special::LN_SQRT_2PI;

    fn fig1() -> [ObjPert; 2] {
        [
            ObjPert::new(5.0, 20.0, 1.0, 1.0).unwrap(),
            ObjPert::new(10.0, 5.0, 1.0, 1.0).unwrap(),
        ]
    }

    /// ln of the N(0, s²) density.
    fn log_normal_pdf(x: f64, s: f64) -> f64 {
        -0.5 * (x / s).powi(2) - LN_SQRT_2PI - s.ln()
    }

    /// δ(ε) = E[(1 − e^{ε−ω})₊], ω = c + s²/2 + |N(0,s²)|, by quadrature (split at the kink).
    fn profile_by_quadrature(p: &ObjPert, eps: f64) -> f64 {
        let s = p.s();
        let e_hat = eps - p.c() - 0.5 * s * s;
        let lo = e_hat.max(0.0);
        let g = |x: f64| LN_2 + log_normal_pdf(x, s) + log1m_exp(e_hat - x);
        log_integrate(g, lo, lo + 40.0 * s, 400).exp()
    }

    #[test]
    fn rdp_matches_half_normal_quadrature() {
        for p in fig1()
            .iter()
            .chain([ObjPert::new(0.8, 3.0, 0.5, 2f64.sqrt()).unwrap()].iter())
        {
            let s = p.s();
            for &a in &[1.01, 1.5, 2.0, 10.0, 64.0, 1000.0] {
                let t = a - 1.0;
                let g = |x: f64| LN_2 + log_normal_pdf(x, s) + t * x;
                let mode = t * s * s;
                let lo = (mode - 40.0 * s).max(0.0);
                let ln_mgf = log_integrate(g, lo, mode + 40.0 * s, 400);
                let expect = p.c() + 0.5 * s * s + ln_mgf / t;
                let got = p.rdp(a).unwrap();
                assert!(
                    (got - expect).abs() <= 1e-11 * expect,
                    "a {a}: {got} vs {expect}"
                );
                // Never below the Gaussian mechanism's RDP α s²/2 (Lemma 3.4 for Rényi).
                assert!(got >= a * s * s / 2.0);
            }
        }
    }

    #[test]
    fn profile_matches_quadrature_on_both_branches() {
        for p in fig1() {
            let pivot = p.c() + 0.5 * p.s() * p.s();
            for &eps in &[0.0, 0.5 * pivot, pivot, pivot + 1e-3, 0.3, 1.0, 2.0] {
                let closed = p.profile_delta(eps).unwrap();
                let quad = profile_by_quadrature(&p, eps);
                assert!(
                    (closed - quad).abs() <= 1e-10 * quad,
                    "eps {eps}: {closed} vs {quad}"
                );
            }
        }
    }

    #[test]
    fn bounds_are_ordered_on_figure_1_settings() {
        let orders = default_orders();
        for p in fig1() {
            for &delta in &[1e-2, 1e-4, 1e-6, 1e-8, 1e-10] {
                let lower = p.gaussian_lower_epsilon(delta).unwrap();
                let profile = p.profile_epsilon(delta).unwrap();
                let rdp = p.rdp_epsilon(delta, &orders).unwrap();
                let kifer = p.kifer_epsilon(delta).unwrap();
                assert!(
                    lower <= profile,
                    "{p:?} δ {delta}: lower {lower} > profile {profile}"
                );
                assert!(
                    profile <= rdp,
                    "{p:?} δ {delta}: profile {profile} > rdp {rdp}"
                );
                assert!(rdp <= kifer, "{p:?} δ {delta}: rdp {rdp} > kifer {kifer}");
            }
            for &eps in &[0.25, 0.5, 1.0, 2.0, 4.0] {
                let lower = p.gaussian_lower_delta(eps).unwrap();
                let profile = p.profile_delta(eps).unwrap();
                let rdp = p.rdp_delta(eps, &orders).unwrap();
                let kifer = p.kifer_delta(eps).unwrap();
                assert!(
                    lower <= profile && profile <= rdp && rdp <= kifer,
                    "{p:?} ε {eps}: {lower} {profile} {rdp} {kifer}"
                );
            }
        }
    }

    #[test]
    fn profile_inverse_is_safe_and_tight() {
        for p in fig1() {
            for &delta in &[1e-3, 1e-5, 1e-9] {
                let e = p.profile_epsilon(delta).unwrap();
                assert!(p.profile_delta(e).unwrap() <= delta);
                assert!(p.profile_delta(e * (1.0 - 1e-8)).unwrap() > delta);
            }
        }
        // Profile δ(0) can already be small: then ε = 0.
        let weak = ObjPert::new(1e4, 1e9, 1.0, 1.0).unwrap();
        assert_eq!(weak.profile_epsilon(0.5).unwrap(), 0.0);
    }

    #[test]
    fn large_lambda_limit_is_the_half_normal_curve() {
        // c → 0: for ε ≥ s²/2 the profile is twice the Gaussian δ(ε) with sensitivity L.
        let p = ObjPert::new(5.0, 1e12, 1.0, 1.0).unwrap();
        for &eps in &[0.05, 0.2, 0.5, 1.0] {
            let prof = p.profile_delta(eps).unwrap();
            let gauss = 2.0 * gaussian::delta(eps, 5.0, 1.0).unwrap();
            assert!(
                (prof - gauss).abs() <= 1e-9 * gauss,
                "eps {eps}: {prof} vs {gauss}"
            );
        }
        // and the RDP bound tends to the half-normal RDP s²/2 + ln E[e^{t|X|}]/t.
        let s = p.s();
        let e = p.rdp(3.0).unwrap();
        let half_normal = 0.5 * s * s + (LN_2 + 2.0 * s * s + log_norm_cdf(2.0 * s)) / 2.0;
        assert!((e - half_normal).abs() < 1e-11);
        // Monotone approach from above as λ grows.
        let mut prev = f64::INFINITY;
        for lam in [2.0, 5.0, 20.0, 1e3, 1e6] {
            let d = ObjPert::new(5.0, lam, 1.0, 1.0)
                .unwrap()
                .profile_delta(0.5)
                .unwrap();
            assert!(d < prev);
            prev = d;
        }
    }

    #[test]
    fn the_profile_is_one_function_across_its_two_forms() {
        // From s = L/σ = 20 on, the profile forms s²/2 + ln Φ(−s) in one piece; where the sum
        // apart is still accurate (s up to ~40), both must give the same δ, so a slip in
        // either form (a term counted twice under-reports δ) fails here.
        for s_target in [19.9, 20.0, 20.1, 25.0, 30.0, 40.0] {
            let p = ObjPert::new(1.0 / s_target, 20.0, 1.0, 1.0).unwrap();
            let s = p.s();
            for eps in [0.1, 1.0, 10.0, 100.0] {
                let e_hat = eps - p.c() - 0.5 * s * s;
                if e_hat >= 0.0 {
                    continue;
                }
                let apart = log1m_exp(e_hat + 0.5 * s * s + LN_2 + log_norm_cdf(-s)).exp();
                let got = p.profile_delta(eps).unwrap();
                assert!(
                    (got - apart).abs() <= 1e-9 * apart,
                    "s {s} ε {eps}: {got} vs {apart}"
                );
            }
        }
    }

    #[test]
    fn tiny_noise_at_large_eps_keeps_its_delta() {
        // ε̂ ≥ 0 with s = L/σ = 1e10: the two terms apart are each ~5e19 and rounded to equal
        // (δ = 0); at ε = c + s²/2 + 0.5 s the true δ = 2[Φ(−0.5) − e^{0.5 s + s²/2 …}] is
        // 2Φ(−0.5) − (≈ 0) ≈ 0.617.
        let p = ObjPert::new(1e-10, 20.0, 1.0, 1.0).unwrap();
        let s = p.s();
        let d = p.profile_delta(p.c() + 0.5 * s * s + 0.5 * s).unwrap();
        assert!((d - 0.617_075_077_6).abs() < 1e-5, "δ = {d}");
        // And ε(δ) is then above c + s²/2 by several s, not at it.
        let e = p.profile_epsilon(1e-5).unwrap();
        assert!(e > p.c() + 0.5 * s * s + 3.0 * s, "ε = {e}");
    }

    #[test]
    fn vanishing_noise_tends_to_no_privacy_never_nan() {
        // σ → 0: the loss ω → ∞, so δ(ε) → 1 and ε(δ) → ∞. s² overflows below σ ≈ 7e-155.
        for sigma in [1e-8, 1e-10, 1e-100, 1e-155, 1e-160, 1e-300, 5e-324] {
            let p = ObjPert::new(sigma, 20.0, 1.0, 1.0).unwrap();
            for eps in [1e-6, 1.0, 1e3] {
                let d = p.profile_delta(eps).unwrap();
                assert!(d > 1.0 - 1e-6 && d <= 1.0, "σ {sigma} ε {eps}: δ = {d}");
                let k = p.kifer_delta(eps).unwrap();
                assert!(
                    k > 1.0 - 1e-6 && k <= 1.0,
                    "σ {sigma} ε {eps}: Kifer δ = {k}"
                );
            }
            let e = p.kifer_epsilon(1e-5).unwrap();
            assert!(e >= 1e15, "σ {sigma}: Kifer ε = {e}");
        }
        // σ → ∞: δ(ε) → 0 for ε ≥ c, and Kifer's ε → 2β/λ.
        let p = ObjPert::new(1e300, 20.0, 1.0, 1.0).unwrap();
        assert_eq!(p.profile_delta(1.0).unwrap(), 0.0);
        assert_eq!(p.kifer_epsilon(1e-5).unwrap(), 0.1);
    }

    #[test]
    fn kifer_closed_forms_are_consistent() {
        for p in fig1() {
            for &delta in &[1e-3, 1e-6] {
                let e = p.kifer_epsilon(delta).unwrap();
                assert!(p.kifer_is_private(e * (1.0 + 1e-12), delta).unwrap());
                assert!(!p.kifer_is_private(e * (1.0 - 1e-6), delta).unwrap());
                let d = p.kifer_delta(e * (1.0 + 1e-12)).unwrap();
                assert!(d <= delta * (1.0 + 1e-9), "{d} vs {delta}");
            }
            assert_eq!(p.kifer_delta(0.9 * 2.0 * p.beta / p.lambda).unwrap(), 1.0);
        }
        let s = kifer_sigma(1.0, 1e-5, 1.0).unwrap();
        assert!((s - (8.0 * (2e5f64).ln() + 4.0).sqrt()).abs() < 1e-12);
        assert_eq!(kifer_min_lambda(0.5, 1.0).unwrap(), 4.0);
    }

    #[test]
    fn non_glm_bound() {
        let p = ObjPert::new(3.0, 10.0, 1.0, 1.5).unwrap();
        for &a in &[1.01, 2.0, 7.5, 100.0] {
            // d = 1: χ_1 = |N(0,1)|, so Thm E.1 reduces to Thm 3.2.
            let glm = p.rdp(a).unwrap();
            let d1 = p.rdp_non_glm(a, 1).unwrap();
            assert!((glm - d1).abs() <= 1e-11 * glm, "a {a}: {d1} vs {glm}");
            // d = 2: Rayleigh MGF 1 + x e^{x²/2} √(2π) Φ(x), x = (α−1)s.
            let x = (a - 1.0) * p.s();
            let ln_mgf = crate::special::log_add_exp(
                0.0,
                x.ln() + 0.5 * x * x + LN_SQRT_2PI + log_norm_cdf(x),
            );
            let expect = 2.0 * p.c() + 0.5 * p.s() * p.s() + ln_mgf / (a - 1.0);
            let d2 = p.rdp_non_glm(a, 2).unwrap();
            assert!(
                (d2 - expect).abs() <= 1e-10 * expect,
                "a {a}: {d2} vs {expect}"
            );
            // Increasing in the dimension.
            let d50 = p.rdp_non_glm(a, 50).unwrap();
            let d5000 = p.rdp_non_glm(a, 5000).unwrap();
            assert!(d1 < d2 && d2 < d50 && d50 < d5000);
        }
    }

    #[test]
    fn input_validation() {
        assert!(matches!(
            ObjPert::new(1.0, 0.5, 1.0, 1.0),
            Err(crate::DpError::OutOfRange { name: "lambda", .. })
        ));
        assert!(matches!(
            ObjPert::new(0.0, 5.0, 1.0, 1.0),
            Err(crate::DpError::OutOfRange { name: "sigma", .. })
        ));
        assert!(matches!(
            ObjPert::new(1.0, 5.0, -1.0, 1.0),
            Err(crate::DpError::OutOfRange { name: "beta", .. })
        ));
        let p = ObjPert::new(1.0, 5.0, 1.0, 1.0).unwrap();
        assert!(matches!(
            p.rdp_non_glm(2.0, 0),
            Err(crate::DpError::OutOfRange {
                name: "dimension",
                ..
            })
        ));
        assert!(matches!(
            p.profile_epsilon(1.0),
            Err(crate::DpError::OutOfRange { name: "delta", .. })
        ));
    }
}
