//! Special functions needed by the accountants, evaluated stably in log space.
//!
//! Privacy bounds routinely need Φ(x) far in the tail (x ≈ −40 for large σ or ε), where
//! `ln(Φ(x))` computed naively underflows to −∞ and would make an accountant report δ = 0.

use std::f64::consts::{LN_2, PI, SQRT_2};
use std::sync::OnceLock;

/// ln(√(2π)).
pub const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// Complementary error function (musl's implementation, full double precision).
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// Standard normal CDF Φ(x).
pub fn norm_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / SQRT_2)
}

/// Standard normal survival function 1 − Φ(x) = Φ(−x), accurate in the upper tail.
pub fn norm_sf(x: f64) -> f64 {
    norm_cdf(-x)
}

/// Standard normal density φ(x).
pub fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x - LN_SQRT_2PI).exp()
}

/// ln Φ(x), accurate for every finite x (asymptotic series below −20, `ln_1p` above 0).
pub fn log_norm_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 5.0 {
        return (-norm_cdf(-x)).ln_1p();
    }
    if x > -20.0 {
        return norm_cdf(x).ln();
    }
    if x == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    // −x²/2 first and six terms: another order or length changes the last bit of
    // accountants' results, which are compared byte for byte.
    -0.5 * x * x - LN_SQRT_2PI - (-x).ln() + mills_series(x, 6).ln()
}

/// x²/2 + ln Φ(x), i.e. ln(√(π/2)·erfcx(−x/√2)), accurate for every x: at x ≪ 0 both terms
/// are huge and nearly cancel (at x = −1e10 each is 5e19, the sum about −24), and x²
/// overflows below −1.3e154 while the sum stays finite (−∞ only at x = −∞).
pub fn log_norm_cdf_scaled(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return x;
    }
    if x > -20.0 {
        return 0.5 * x * x + log_norm_cdf(x);
    }
    // Stopped after a negative term (the 1/x¹⁴ one): the series alternates with falling
    // terms, so the sum is below the true value by less than the next term (2027025/x¹⁶, 3e-15
    // relative at x = −20), and the privacy profile's δ = 1 − 2e^{ε̂}·(this) is rounded up,
    // up to the last bit of the arithmetic.
    -LN_SQRT_2PI - (-x).ln() + mills_series(x, 7).ln()
}

/// For x ≤ −20, the first `terms` + 1 terms of the Mills-ratio expansion
/// Φ(x) = φ(x)/|x| · (1 − 1/x² + 3/x⁴ − 15/x⁶ + …); after the 1/x¹² term (six) the truncation
/// is below 1e-13 relative.
fn mills_series(x: f64, terms: i32) -> f64 {
    let z = 1.0 / (x * x);
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=terms {
        term *= -((2 * k - 1) as f64) * z;
        sum += term;
    }
    sum
}

/// ln(1 − Φ(x)) = ln Φ(−x).
pub fn log_norm_sf(x: f64) -> f64 {
    log_norm_cdf(-x)
}

/// ln(e^a + e^b) without overflow.
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// ln(e^a − e^b) for a ≥ b; −∞ when a == b, NaN when a < b.
pub fn log_sub_exp(a: f64, b: f64) -> f64 {
    if b == f64::NEG_INFINITY {
        return a;
    }
    if a < b {
        return f64::NAN;
    }
    if a == b {
        return f64::NEG_INFINITY;
    }
    a + log1m_exp(b - a)
}

/// ln(e^x − 1) for x ≥ 0 (−∞ at 0).
pub fn ln_expm1(x: f64) -> f64 {
    if x > 40.0 { x } else { x.exp_m1().ln() }
}

/// ln(1 − e^x) for x ≤ 0, accurate near 0 and for very negative x (Mächler 2012).
pub fn log1m_exp(x: f64) -> f64 {
    if x > 0.0 {
        return f64::NAN;
    }
    if x > -LN_2 {
        (-x.exp_m1()).ln()
    } else {
        (-x.exp()).ln_1p()
    }
}

/// ln Σ e^{xᵢ}; −∞ for an empty slice.
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m.is_infinite() {
        return m;
    }
    m + xs.iter().map(|&x| (x - m).exp()).sum::<f64>().ln()
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error ≈ 1e-15).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series in its accurate range.
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = COEF[0];
    let t = x + G + 0.5;
    for (i, &c) in COEF.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// ln n!, from a process-wide table for the orders of typical grids (lgamma is the slow part
/// of preparing binomial terms otherwise).
pub fn ln_factorial(n: u64) -> f64 {
    match ln_factorials().get(n as usize) {
        Some(&v) => v,
        None => libm::lgamma(n as f64 + 1.0),
    }
}

/// The table behind [`ln_factorial`]: ln n! for n = 0..=16384, for loops that index it
/// directly.
pub fn ln_factorials() -> &'static [f64] {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=1u64 << 14)
            .map(|k| libm::lgamma(k as f64 + 1.0))
            .collect()
    })
}

/// ln C(n, k) for real n ≥ k ≥ 0 via ln Γ.
pub fn ln_binom(n: f64, k: f64) -> f64 {
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_cdf_known_values() {
        assert!((norm_cdf(0.0) - 0.5).abs() < 1e-16);
        assert!((norm_cdf(1.959_963_984_540_054) - 0.975).abs() < 1e-15);
        assert!((norm_cdf(-3.0) - 0.001_349_898_031_630_094_6).abs() < 1e-17);
    }

    #[test]
    fn log_norm_cdf_is_continuous_at_the_series_switch() {
        for &x in &[-20.0, 5.0] {
            let lo = log_norm_cdf(x - 1e-9);
            let hi = log_norm_cdf(x + 1e-9);
            assert!(
                (lo - hi).abs() < 1e-6 * lo.abs().max(1e-12),
                "jump at {x}: {lo} vs {hi}"
            );
        }
    }

    #[test]
    fn log_norm_cdf_deep_tail_matches_reference() {
        // scipy.special.log_ndtr(-40) = -804.6084420137538
        assert!((log_norm_cdf(-40.0) + 804.608_442_013_753_8).abs() < 1e-9);
        // log_ndtr(-20) = -203.91715537109706
        assert!((log_norm_cdf(-20.0) + 203.917_155_371_097_06).abs() < 1e-9);
        // log_ndtr(10) = -7.619853024160527e-24
        assert!((log_norm_cdf(10.0) + 7.619_853_024_160_527e-24).abs() < 1e-36);
    }

    #[test]
    fn log_norm_cdf_scaled_matches_the_sum_and_stays_finite() {
        // scipy: log_ndtr(-20) + 200 and log_ndtr(-40) + 800 (inputs of the series branch).
        assert!((log_norm_cdf_scaled(-20.0) + 3.917_155_371_097_06).abs() < 1e-11);
        assert!((log_norm_cdf_scaled(-40.0) + 4.608_442_013_753_8).abs() < 1e-11);
        // Continuous where the series takes over, and the closed form where x² overflows.
        let (lo, hi) = (
            log_norm_cdf_scaled(-20.0 - 1e-9),
            log_norm_cdf_scaled(-20.0 + 1e-9),
        );
        assert!((lo - hi).abs() < 1e-8, "{lo} vs {hi}");
        for x in [-1e10, -1e160, -f64::MAX] {
            let want = -LN_SQRT_2PI - (-x).ln();
            assert!((log_norm_cdf_scaled(x) - want).abs() < 1e-12, "{x}");
        }
        assert_eq!(log_norm_cdf_scaled(f64::NEG_INFINITY), f64::NEG_INFINITY);
    }

    #[test]
    fn log_arithmetic() {
        assert!((log_add_exp(0.0, 0.0) - LN_2).abs() < 1e-15);
        assert!((log_sub_exp(LN_2, 0.0) - 0.0).abs() < 1e-15);
        assert!((log1m_exp(-1e-20) - (1e-20f64).ln()).abs() < 1e-12);
        assert!(
            (log_sum_exp(&[1.0, 2.0, 3.0]) - (1f64.exp() + 2f64.exp() + 3f64.exp()).ln()).abs()
                < 1e-14
        );
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut f = 1.0f64;
        for n in 1..30 {
            f *= n as f64;
            assert!(
                (ln_gamma(n as f64 + 1.0) - f.ln()).abs() < 1e-12 * f.ln().max(1.0),
                "n={n}"
            );
        }
        assert!((ln_gamma(0.5) - 0.5 * PI.ln()).abs() < 1e-14);
        assert!((ln_binom(10.0, 3.0) - 120f64.ln()).abs() < 1e-12);
    }
}
