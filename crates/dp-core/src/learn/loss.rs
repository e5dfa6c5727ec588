//! Margin-based GLM losses `f(u; y) = g(y·u)` for labels `y ∈ {−1, +1}`.
//!
//! Both losses are convex and non-increasing in the margin `z = y·u` with `g'(z) ∈ [−1, 0]`,
//! which is what the clipped-gradient construction ([`super::clipped`]) and the privacy
//! analysis (Lipschitz constant, smoothness β) rely on.

/// Width `h` of the quadratic zone of the Huber SVM loss used by Iyengar et al. (2019).
pub const HUBER_H: f64 = 0.1;

/// A convex margin loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GlmLoss {
    /// `g(z) = log(1 + e^{−z})`.
    Logistic,
    /// Huber SVM: `0` for `z > 1+h`, `(1+h−z)²/(4h)` for `|1−z| ≤ h`, `1−z` for `z < 1−h`.
    Huber {
        /// Half-width of the quadratic zone, `> 0`.
        h: f64,
    },
}

impl GlmLoss {
    /// The Huber SVM loss with the paper's `h = 0.1`.
    pub fn huber() -> Self {
        GlmLoss::Huber { h: HUBER_H }
    }

    /// `g(z)`, evaluated without overflow for any finite margin.
    #[inline]
    pub fn margin_value(self, z: f64) -> f64 {
        match self {
            GlmLoss::Logistic => {
                if z > 0.0 {
                    (-z).exp().ln_1p()
                } else {
                    -z + z.exp().ln_1p()
                }
            }
            GlmLoss::Huber { h } => {
                if z > 1.0 + h {
                    0.0
                } else if z < 1.0 - h {
                    1.0 - z
                } else {
                    let t = 1.0 + h - z;
                    t * t / (4.0 * h)
                }
            }
        }
    }

    /// `g'(z) ∈ [−1, 0]`.
    #[inline]
    pub fn margin_deriv(self, z: f64) -> f64 {
        match self {
            // −σ(−z) = −1/(1 + eᶻ): exact to rounding for every z (eᶻ = ∞ gives −0, eᶻ → 0
            // gives −1), and branch-free, which matters in the DP-SGD loop.
            GlmLoss::Logistic => -1.0 / (1.0 + z.exp()),
            GlmLoss::Huber { h } => {
                if z > 1.0 + h {
                    0.0
                } else if z < 1.0 - h {
                    -1.0
                } else {
                    -(1.0 + h - z) / (2.0 * h)
                }
            }
        }
    }

    /// `(g(z), g'(z))` in one call (shares the exponential for the logistic loss).
    #[inline]
    pub fn margin_value_deriv(self, z: f64) -> (f64, f64) {
        match self {
            GlmLoss::Logistic => {
                if z > 0.0 {
                    let e = (-z).exp();
                    (e.ln_1p(), -e / (1.0 + e))
                } else {
                    let e = z.exp();
                    (-z + e.ln_1p(), -1.0 / (1.0 + e))
                }
            }
            GlmLoss::Huber { .. } => (self.margin_value(z), self.margin_deriv(z)),
        }
    }

    /// `g''(z)` (the right derivative at the Huber knots).
    #[inline]
    pub fn margin_second(self, z: f64) -> f64 {
        match self {
            GlmLoss::Logistic => {
                let e = (-z.abs()).exp();
                e / ((1.0 + e) * (1.0 + e))
            }
            GlmLoss::Huber { h } => {
                if z < 1.0 - h || z >= 1.0 + h {
                    0.0
                } else {
                    1.0 / (2.0 * h)
                }
            }
        }
    }

    /// `f(u; y) = g(y·u)`.
    #[inline]
    pub fn value(self, u: f64, y: f64) -> f64 {
        self.margin_value(y * u)
    }

    /// `∂f/∂u = y·g'(y·u)`.
    #[inline]
    pub fn deriv(self, u: f64, y: f64) -> f64 {
        y * self.margin_deriv(y * u)
    }

    /// The coefficient on `xᵢ` of DP-SGD's per-example gradient clipped to norm `clip`:
    /// `y·g'(y·u)·s`, where `s = min(1, clip/‖∇‖)` and `‖∇‖ = |g'|·‖xᵢ‖` (`row_norm`); exactly 0
    /// where the loss is flat.
    #[inline(always)]
    pub fn clipped_deriv(self, u: f64, y: f64, row_norm: f64, clip: f64) -> f64 {
        let dz = self.margin_deriv(y * u);
        // g' ≤ 0 for both losses, so −g' is |g'|.
        let g_norm = -dz * row_norm;
        let scale = if g_norm > clip { clip / g_norm } else { 1.0 };
        if dz != 0.0 { y * dz * scale } else { 0.0 }
    }

    /// `out[i] = ∂f/∂u (u[i]; y[i])` for a whole batch. The logistic branch uses
    /// [`crate::fast_exp::exp`] (within 2 ulp of libm) so the loop vectorises; full-gradient
    /// learners spend most of their time here.
    pub fn deriv_into(self, u: &[f64], y: &[f64], out: &mut [f64]) {
        assert!(
            u.len() == y.len() && u.len() == out.len(),
            "batch lengths differ"
        );
        match self {
            GlmLoss::Logistic => {
                for ((o, &u), &y) in out.iter_mut().zip(u).zip(y) {
                    *o = -y / (1.0 + crate::fast_exp::exp(y * u));
                }
            }
            GlmLoss::Huber { .. } => {
                for ((o, &u), &y) in out.iter_mut().zip(u).zip(y) {
                    *o = self.deriv(u, y);
                }
            }
        }
    }

    /// `sup |f'|`: the Lipschitz constant of `f` in `u` (1 for both losses).
    pub fn max_abs_deriv(self) -> f64 {
        1.0
    }

    /// `sup f''`: the smoothness of `f` in `u` (1/4 logistic, 1/(2h) Huber).
    pub fn max_second_deriv(self) -> f64 {
        match self {
            GlmLoss::Logistic => 0.25,
            GlmLoss::Huber { h } => 1.0 / (2.0 * h),
        }
    }

    /// The margin `z*` below which `|g'(z)| > c`, for a slope bound `c > 0`; `None` when
    /// `|g'| ≤ c` everywhere (then clipping at `c` never binds).
    ///
    /// Closed forms: logistic `σ(−z*) = c ⇒ z* = ln((1−c)/c)`; Huber `(1+h−z*)/(2h) = c`.
    pub fn margin_at_slope(self, c: f64) -> Option<f64> {
        if c >= self.max_abs_deriv() || c.is_nan() {
            return None;
        }
        assert!(c > 0.0, "slope bound must be > 0");
        Some(match self {
            GlmLoss::Logistic => (-c).ln_1p() - c.ln(),
            GlmLoss::Huber { h } => 1.0 + h - 2.0 * h * c,
        })
    }

    /// Checks the loss parameters.
    pub fn validate(self) -> crate::Result<()> {
        match self {
            GlmLoss::Logistic => Ok(()),
            GlmLoss::Huber { h } => crate::error::check_positive("huber-h", h),
        }
    }
}

/// Per-example Hessian bound β = `sup f'' · max ‖x‖²` (Redberg et al. Thm 3.2 / 4.1).
pub fn beta(loss: GlmLoss, max_row_norm: f64) -> f64 {
    loss.max_second_deriv() * max_row_norm * max_row_norm
}

/// Per-example gradient-norm bound L = `sup |f'| · max ‖x‖`.
pub fn lipschitz(loss: GlmLoss, max_row_norm: f64) -> f64 {
    loss.max_abs_deriv() * max_row_norm
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOSSES: [GlmLoss; 3] = [
        GlmLoss::Logistic,
        GlmLoss::Huber { h: HUBER_H },
        GlmLoss::Huber { h: 0.5 },
    ];

    fn grid() -> impl Iterator<Item = f64> {
        (-400..=400).map(|k| k as f64 * 0.0173 + 0.0011)
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let eps = 1e-6;
        for loss in LOSSES {
            for z in grid() {
                let fd = (loss.margin_value(z + eps) - loss.margin_value(z - eps)) / (2.0 * eps);
                assert!(
                    (fd - loss.margin_deriv(z)).abs() < 1e-6,
                    "{loss:?} z={z}: fd {fd}"
                );
                let fd2 = (loss.margin_deriv(z + eps) - loss.margin_deriv(z - eps)) / (2.0 * eps);
                // Huber's second derivative jumps at the knots; skip points straddling them.
                let near_knot =
                    matches!(loss, GlmLoss::Huber { h } if ((z - 1.0).abs() - h).abs() < 2.0 * eps);
                if !near_knot {
                    assert!((fd2 - loss.margin_second(z)).abs() < 1e-5, "{loss:?} z={z}");
                }
                let (v, d) = loss.margin_value_deriv(z);
                assert_eq!(v, loss.margin_value(z));
                assert!((d - loss.margin_deriv(z)).abs() <= 2.0 * f64::EPSILON * d.abs());
                // f(u; y) = g(yu) and f' = y g'.
                for y in [-1.0, 1.0] {
                    let u = z * y;
                    assert_eq!(loss.value(u, y), loss.margin_value(z));
                    assert_eq!(loss.deriv(u, y), y * loss.margin_deriv(z));
                }
            }
        }
    }

    #[test]
    fn batch_derivatives_match_the_scalar_ones() {
        let u: Vec<f64> = grid().collect();
        let y: Vec<f64> = (0..u.len())
            .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
            .collect();
        for loss in LOSSES {
            let mut out = vec![0.0; u.len()];
            loss.deriv_into(&u, &y, &mut out);
            for i in 0..u.len() {
                let want = loss.deriv(u[i], y[i]);
                assert!(
                    (out[i] - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                    "{loss:?} u={}",
                    u[i]
                );
            }
        }
    }

    #[test]
    fn bounds_hold_and_are_attained() {
        for loss in LOSSES {
            let mut max_d: f64 = 0.0;
            let mut max_s: f64 = 0.0;
            for z in grid() {
                let d = loss.margin_deriv(z);
                assert!((-1.0..=0.0).contains(&d));
                max_d = max_d.max(d.abs());
                max_s = max_s.max(loss.margin_second(z));
            }
            assert!(max_d <= loss.max_abs_deriv() && max_d > 0.99 * loss.max_abs_deriv());
            assert!(max_s <= loss.max_second_deriv() * (1.0 + 1e-12));
            assert!(max_s > 0.99 * loss.max_second_deriv(), "{loss:?}: {max_s}");
        }
        assert!((beta(GlmLoss::Logistic, 2f64.sqrt()) - 0.5).abs() < 1e-15);
        assert!((beta(GlmLoss::huber(), 2f64.sqrt()) - 10.0).abs() < 1e-12);
        assert_eq!(lipschitz(GlmLoss::Logistic, 3.0), 3.0);
    }

    #[test]
    fn logistic_is_stable_in_the_tails() {
        let l = GlmLoss::Logistic;
        assert_eq!(l.margin_value(800.0), 0.0);
        assert!((l.margin_value(-800.0) - 800.0).abs() < 1e-9);
        assert!((l.margin_value(40.0) - (-40f64).exp()).abs() < 1e-30);
        assert_eq!(l.margin_deriv(-800.0), -1.0);
        assert_eq!(l.margin_deriv(800.0), -0.0);
        assert!((l.margin_value(0.0) - 2f64.ln()).abs() < 1e-15);
        assert!((l.margin_second(0.0) - 0.25).abs() < 1e-15);
        assert_eq!(l.margin_second(-800.0), 0.0);
    }

    #[test]
    fn slope_threshold_is_where_the_slope_equals_c() {
        for loss in LOSSES {
            for c in [1e-6, 0.01, 0.3, 0.5, 0.9, 0.999] {
                let z = loss.margin_at_slope(c).unwrap();
                assert!((loss.margin_deriv(z) + c).abs() < 1e-12, "{loss:?} c={c}");
                // Steeper than c exactly to the left.
                assert!(loss.margin_deriv(z - 1e-6) < -c);
                assert!(loss.margin_deriv(z + 1e-6) > -c);
            }
            assert_eq!(loss.margin_at_slope(1.0), None);
            assert_eq!(loss.margin_at_slope(f64::INFINITY), None);
        }
    }

    #[test]
    fn huber_matches_the_piecewise_definition() {
        let l = GlmLoss::huber();
        assert_eq!(l.margin_value(1.2), 0.0);
        assert!((l.margin_value(0.5) - 0.5).abs() < 1e-15);
        assert!((l.margin_value(1.0) - 0.1 * 0.1 / 0.4).abs() < 1e-15);
        // Continuity at the knots.
        for z in [0.9, 1.1] {
            assert!((l.margin_value(z - 1e-12) - l.margin_value(z + 1e-12)).abs() < 1e-10);
        }
        assert!(GlmLoss::Huber { h: 0.0 }.validate().is_err());
        assert!(GlmLoss::Huber { h: 0.1 }.validate().is_ok());
    }
}
