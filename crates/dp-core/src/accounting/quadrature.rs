//! Composite Gauss–Legendre quadrature of `exp(g(x))` in log space.
//!
//! Used for expectations without a closed form (the χ_d moment generating function of the
//! non-GLM ObjPert bound) and, in tests, as an independent check of closed forms. Working with
//! `g = ln(integrand)` keeps integrands such as `exp((α−1)·s·r)` representable at large orders.

use std::sync::OnceLock;

/// Nodes per panel; exact for polynomials of degree 39 on each panel.
const NODES: usize = 20;

/// Gauss–Legendre nodes and weights on [−1, 1] (Newton iteration on P_n).
fn rule() -> &'static ([f64; NODES], [f64; NODES]) {
    static RULE: OnceLock<([f64; NODES], [f64; NODES])> = OnceLock::new();
    RULE.get_or_init(|| {
        let n = NODES;
        let mut x = [0.0; NODES];
        let mut w = [0.0; NODES];
        for i in 0..n.div_ceil(2) {
            let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p1, mut p2) = (1.0, 0.0);
                for j in 0..n {
                    let p3 = p2;
                    p2 = p1;
                    p1 = ((2 * j + 1) as f64 * z * p2 - j as f64 * p3) / (j + 1) as f64;
                }
                dp = n as f64 * (z * p1 - p2) / (z * z - 1.0);
                let dz = p1 / dp;
                z -= dz;
                if dz.abs() < 1e-16 {
                    break;
                }
            }
            x[i] = -z;
            x[n - 1 - i] = z;
            w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
            w[n - 1 - i] = w[i];
        }
        (x, w)
    })
}

/// ln ∫_a^b exp(g(x)) dx with `panels` equal Gauss–Legendre panels.
///
/// The integrand must be smooth on each panel (split the range at kinks). Points where `g` is
/// −∞ contribute zero. Returns −∞ for an integrand that vanishes everywhere.
pub(crate) fn log_integrate(g: impl Fn(f64) -> f64, a: f64, b: f64, panels: usize) -> f64 {
    let h = (b - a) / panels as f64;
    let mut logs = Vec::with_capacity(panels * NODES);
    for p in 0..panels {
        for (x, ln_w) in panel(a + p as f64 * h, h) {
            logs.push(g(x) + ln_w);
        }
    }
    crate::special::log_sum_exp(&logs)
}

/// The rule on one panel `[a, a + h]`: each node and the log of its weight, for callers that
/// reuse node values across many integrands.
pub(crate) fn panel(a: f64, h: f64) -> impl Iterator<Item = (f64, f64)> {
    let (nodes, weights) = rule();
    let mid = a + 0.5 * h;
    nodes
        .iter()
        .zip(weights)
        .map(move |(&t, &w)| (mid + 0.5 * h * t, (0.5 * h * w).ln()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::special::LN_SQRT_2PI;

    #[test]
    fn weights_sum_to_two_and_integrate_polynomials() {
        let (x, w) = rule();
        assert!((w.iter().sum::<f64>() - 2.0).abs() < 1e-14);
        // ∫_{-1}^{1} x^38 dx = 2/39
        let m: f64 = x.iter().zip(w).map(|(x, w)| w * x.powi(38)).sum();
        assert!((m - 2.0 / 39.0).abs() < 1e-14, "{m}");
    }

    #[test]
    fn normal_density_and_moment_generating_function() {
        let ln_one = log_integrate(|x| -0.5 * x * x - LN_SQRT_2PI, -40.0, 40.0, 80);
        assert!(ln_one.abs() < 1e-14, "{ln_one}");
        // E[e^{tX}] = e^{t²/2} far in the log domain (t = 30).
        let t = 30.0;
        let v = log_integrate(
            |x| t * x - 0.5 * x * x - LN_SQRT_2PI,
            t - 40.0,
            t + 40.0,
            80,
        );
        assert!((v - 0.5 * t * t).abs() < 1e-12, "{v}");
    }
}
