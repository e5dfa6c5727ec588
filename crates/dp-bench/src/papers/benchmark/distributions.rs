//! The distribution functions the leaderboard's tests need, Student's t (Welch's test, and its
//! quantile for the t interval) and Fisher's F (Iman–Davenport), both through the regularised
//! incomplete beta function: the workspace has no statistics crate, and these few lines are
//! cheaper than one.

use dp_core::special::{ln_gamma, norm_cdf};

/// The regularised incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1] (NaN
/// outside), by its continued fraction (modified Lentz), which converges fast for
/// x < (a+1)/(a+b+2); above that the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) is used.
pub fn beta_inc(a: f64, b: f64, x: f64) -> f64 {
    if !(a > 0.0 && b > 0.0 && (0.0..=1.0).contains(&x)) {
        return f64::NAN;
    }
    if x == 0.0 || x == 1.0 {
        return x;
    }
    // x^a (1−x)^b / (a B(a, b)), in logs so that large a, b do not overflow.
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of I_x(a, b) (Numerical Recipes' `betacf`).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        for aa in [
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ] {
            d = 1.0 + aa * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + aa / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
            if aa != 0.0 && (d * c - 1.0).abs() < 1e-15 {
                return h;
            }
        }
        if (d * c - 1.0).abs() < 1e-15 {
            return h;
        }
    }
    h
}

/// P[T ≤ t] for Student's t with `nu` > 0 degrees of freedom (∞: the standard normal).
pub fn t_cdf(t: f64, nu: f64) -> f64 {
    if t.is_nan() || nu.is_nan() || nu <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    // Past 1e6 the t differs from the normal by < 1e-7, while ln Γ(ν/2) loses digits.
    if nu > 1e6 {
        return norm_cdf(t);
    }
    let tail = 0.5 * beta_inc(nu / 2.0, 0.5, nu / (nu + t * t));
    if t > 0.0 { 1.0 - tail } else { tail }
}

/// The p-quantile of Student's t with `nu` > 0 degrees of freedom: the t with
/// [`t_cdf`]`(t, nu) = p`, for p in (0, 1) (NaN outside). ν = 1 and 2 have closed forms;
/// otherwise the CDF is inverted by bisection on a bracket grown from the normal quantile's
/// side, which converges whatever ν (Newton's steps can overshoot in the heavy tails of small
/// ν), to the last bit the CDF resolves.
pub fn t_ppf(p: f64, nu: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) || nu.is_nan() || nu <= 0.0 {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    if nu == 1.0 {
        return (std::f64::consts::PI * (p - 0.5)).tan();
    }
    if nu == 2.0 {
        let a = 4.0 * p * (1.0 - p);
        return (2.0 * p - 1.0) * (2.0 / a).sqrt();
    }
    // The t is symmetric: solve in the upper tail, where the CDF is increasing from ½.
    let (q, sign) = if p > 0.5 { (p, 1.0) } else { (1.0 - p, -1.0) };
    let (mut lo, mut hi) = (0.0, 1.0);
    while t_cdf(hi, nu) < q {
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return sign * f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if t_cdf(mid, nu) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    sign * 0.5 * (lo + hi)
}

/// P[F ≤ x] for Fisher's F with (d1, d2) degrees of freedom.
pub fn f_cdf(x: f64, d1: f64, d2: f64) -> f64 {
    if x.is_nan() || d1.is_nan() || d2.is_nan() || d1 <= 0.0 || d2 <= 0.0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x.is_infinite() {
        return 1.0;
    }
    beta_inc(d1 / 2.0, d2 / 2.0, d1 * x / (d1 * x + d2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() < tol, "{a} vs {b}");
    }

    /// Closed forms: I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(2, 3) = Σ_{j≥2} C(4,j) x^j (1−x)^{4−j},
    /// I_x(½, ½) = (2/π) asin √x; and scipy.special.betainc(10, 20, 0.3).
    #[test]
    fn benchmark_incomplete_beta_matches_closed_forms() {
        close(beta_inc(1.0, 1.0, 0.37), 0.37, 1e-14);
        close(beta_inc(3.0, 1.0, 0.6), 0.216, 1e-14);
        close(beta_inc(2.0, 3.0, 0.4), 0.5248, 1e-14);
        close(beta_inc(2.0, 3.0, 0.9), 0.9963, 1e-13);
        let asin = 2.0 / std::f64::consts::PI * 0.3f64.sqrt().asin();
        close(beta_inc(0.5, 0.5, 0.3), asin, 1e-13);
        close(beta_inc(10.0, 20.0, 0.3), 0.364_004_081_071_943_7, 1e-12);
        assert_eq!(beta_inc(2.0, 3.0, 0.0), 0.0);
        assert_eq!(beta_inc(2.0, 3.0, 1.0), 1.0);
        assert!(beta_inc(2.0, 3.0, 1.5).is_nan() && beta_inc(-1.0, 3.0, 0.5).is_nan());
    }

    /// t(1) is Cauchy: ½ + atan(t)/π; t(2): ½ + t/(2√(2+t²)); the rest from
    /// `scipy.stats.t.cdf` (scipy 1.x), fractional ν included as Welch's test needs.
    #[test]
    fn benchmark_t_cdf_matches_closed_forms_and_scipy() {
        for t in [-3.0, -0.4, 0.0, 1.0, 7.5] {
            close(
                t_cdf(t, 1.0),
                0.5 + f64::atan(t) / std::f64::consts::PI,
                1e-13,
            );
            close(t_cdf(t, 2.0), 0.5 + t / (2.0 * (2.0 + t * t).sqrt()), 1e-13);
        }
        close(t_cdf(1.5, 7.3), 0.912_218_453_598_457, 1e-12);
        close(t_cdf(-2.0, 3.0), 0.069_662_984_279_421_52, 1e-12);
        close(t_cdf(2.5, 18.0), 0.988_845_989_883_988_9, 1e-12);
        close(t_cdf(0.0, 12.5), 0.5, 1e-15);
        // ν → ∞ is the normal: Φ(1.959964) = 0.975.
        close(t_cdf(1.959_963_984_540_054, f64::INFINITY), 0.975, 1e-9);
        assert!(t_cdf(1.0, 0.0).is_nan());
    }

    /// `scipy.stats.t.ppf(0.975, df)` for the trial counts a cell can have (n − 1 = df):
    /// python3 -c "import scipy.stats as s; [print(d, repr(s.t.ppf(0.975, d))) for d in
    /// [1, 2, 4, 9, 29, 1000]]" (scipy 1.17); and a lower tail, a far tail, a fractional ν:
    /// s.t.ppf(0.025, 4), s.t.ppf(0.999, 3), s.t.ppf(0.6, 7.5).
    #[test]
    fn benchmark_t_ppf_matches_scipy() {
        for (df, want) in [
            (1.0, 12.706_204_736_174_694),
            (2.0, 4.302_652_729_749_462),
            (4.0, 2.776_445_105_197_793_4),
            (9.0, 2.262_157_162_798_205),
            (29.0, 2.045_229_642_132_703),
            (1000.0, 1.962_339_080_826_408_3),
        ] {
            let got = t_ppf(0.975, df);
            assert!(
                (got - want).abs() < 1e-10 * want,
                "df {df}: {got} vs {want}"
            );
            // And it inverts the CDF.
            close(t_cdf(got, df), 0.975, 1e-13);
        }
        close(t_ppf(0.025, 4.0), -2.776_445_105_197_794_3, 1e-10);
        close(t_ppf(0.999, 3.0), 10.214_531_852_407_383, 1e-9);
        close(t_ppf(0.6, 7.5), 0.262_501_898_804_294_86, 1e-11);
        assert_eq!(t_ppf(0.5, 9.0), 0.0);
        assert!(t_ppf(1.0, 9.0).is_nan() && t_ppf(0.3, 0.0).is_nan());
    }

    /// F(1, 1) at x is (2/π) atan √x; the rest from `scipy.stats.f.cdf`.
    #[test]
    fn benchmark_f_cdf_matches_closed_forms_and_scipy() {
        close(
            f_cdf(0.3, 1.0, 1.0),
            2.0 / std::f64::consts::PI * 0.3f64.sqrt().atan(),
            1e-13,
        );
        close(f_cdf(0.3, 1.0, 1.0), 0.319_005_720_039_977_1, 1e-12);
        close(f_cdf(1.0, 5.0, 10.0), 0.534_880_573_462_199_6, 1e-12);
        close(f_cdf(2.5, 2.0, 30.0), 0.900_962_845_117_167_3, 1e-12);
        close(f_cdf(3.687, 3.0, 39.0), 0.980_191_720_697_760_5, 1e-12);
        assert_eq!(f_cdf(-1.0, 2.0, 3.0), 0.0);
    }
}
