//! The clipped-gradient GLM loss of Song et al. (2020, Lemma 5.1), used by Algorithm 1
//! (Redberg et al. 2023, Thm F.2/F.3).
//!
//! Clipping the per-example gradient `f'(xᵀθ)·x` to norm `C` is the same as clamping `f'` to
//! `[−c, c]` with `c = C/‖x‖`. The implicit loss `f_C` equals `f` where `|f'| ≤ c` and is
//! continued linearly (slope `∓c`) beyond the threshold. For our margin losses `|g'|` is
//! non-increasing in the margin `z = y·u`, so there is a single threshold `z*` per example:
//! `g_C(z) = g(z*) − c·(z − z*)` for `z < z*`, else `g(z)`. `g_C` is convex and has the same
//! smoothness bound as `g`.
//!
//! The paper's display of `f_C` omits the constant `f(u_L)` on the linear pieces, which makes
//! `f_C` discontinuous; the constant changes neither gradients nor the minimiser, and we keep
//! it so that value and gradient are consistent (line searches compare values).

use super::loss::GlmLoss;

/// The clipped loss of one example: slope bound `c = C/‖x‖` and its threshold margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipKnot {
    /// Threshold margin `z*`; `−∞` when clipping never binds.
    z: f64,
    /// `g(z*)` (unused when `z = −∞`).
    g: f64,
    /// Slope bound `c`.
    c: f64,
}

impl ClipKnot {
    /// Knot for an example with feature norm `row_norm`, clipping gradients to norm `clip`
    /// (`clip = ∞` disables clipping).
    pub fn new(loss: GlmLoss, clip: f64, row_norm: f64) -> Self {
        assert!(clip > 0.0, "clip must be > 0");
        // A zero row has zero gradient: nothing to clip.
        let c = if row_norm > 0.0 {
            clip / row_norm
        } else {
            f64::INFINITY
        };
        match loss.margin_at_slope(c) {
            Some(z) => ClipKnot {
                z,
                g: loss.margin_value(z),
                c,
            },
            None => ClipKnot {
                z: f64::NEG_INFINITY,
                g: 0.0,
                c,
            },
        }
    }

    /// Whether clipping ever changes this example's gradient.
    pub fn binds(&self) -> bool {
        self.z > f64::NEG_INFINITY
    }

    /// `g_C(z)`.
    #[inline]
    pub fn value(&self, loss: GlmLoss, z: f64) -> f64 {
        if z < self.z {
            self.g - self.c * (z - self.z)
        } else {
            loss.margin_value(z)
        }
    }

    /// `g_C'(z) = max(g'(z), −c)`.
    #[inline]
    pub fn deriv(&self, loss: GlmLoss, z: f64) -> f64 {
        if z < self.z {
            -self.c
        } else {
            loss.margin_deriv(z)
        }
    }

    /// `(g_C(z), g_C'(z))`.
    #[inline]
    pub fn value_deriv(&self, loss: GlmLoss, z: f64) -> (f64, f64) {
        if z < self.z {
            (self.g - self.c * (z - self.z), -self.c)
        } else {
            loss.margin_value_deriv(z)
        }
    }
}

/// Clipped losses of a whole dataset: one knot per example.
#[derive(Clone, Debug)]
pub struct ClippedGlm {
    loss: GlmLoss,
    clip: f64,
    knots: Vec<ClipKnot>,
}

impl ClippedGlm {
    /// Clipping at `clip` for examples with the given row norms (`clip = ∞`: plain loss).
    pub fn new(loss: GlmLoss, clip: f64, row_norms: &[f64]) -> Self {
        let knots = row_norms
            .iter()
            .map(|&r| ClipKnot::new(loss, clip, r))
            .collect();
        ClippedGlm { loss, clip, knots }
    }

    /// The underlying loss.
    pub fn loss(&self) -> GlmLoss {
        self.loss
    }

    /// The clipping norm `C`.
    pub fn clip(&self) -> f64 {
        self.clip
    }

    /// Example `i`'s knot.
    #[inline]
    pub fn knot(&self, i: usize) -> &ClipKnot {
        &self.knots[i]
    }

    /// All knots, in row order.
    pub fn knots(&self) -> &[ClipKnot] {
        &self.knots
    }

    /// Number of examples whose gradient clipping can change.
    pub fn binding_count(&self) -> usize {
        self.knots.iter().filter(|k| k.binds()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::loss::HUBER_H;

    const LOSSES: [GlmLoss; 2] = [GlmLoss::Logistic, GlmLoss::Huber { h: HUBER_H }];

    fn grid() -> impl Iterator<Item = f64> {
        (-300..=300).map(|k| k as f64 * 0.0231 + 0.0007)
    }

    #[test]
    fn value_and_gradient_agree_by_finite_differences() {
        let eps = 1e-6;
        for loss in LOSSES {
            for (clip, norm) in [(0.1, 1.0), (0.5, 2f64.sqrt()), (1.0, 3.0), (0.05, 0.2)] {
                let k = ClipKnot::new(loss, clip, norm);
                assert!(k.binds());
                for z in grid() {
                    let fd = (k.value(loss, z + eps) - k.value(loss, z - eps)) / (2.0 * eps);
                    assert!((fd - k.deriv(loss, z)).abs() < 1e-6, "{loss:?} z={z}");
                    let (v, d) = k.value_deriv(loss, z);
                    assert_eq!(v, k.value(loss, z));
                    assert!((d - k.deriv(loss, z)).abs() <= 2.0 * f64::EPSILON * d.abs());
                }
            }
        }
    }

    #[test]
    fn clipped_gradient_norm_is_min_of_gradient_and_c() {
        for loss in LOSSES {
            let (clip, norm) = (0.3, 2f64.sqrt());
            let k = ClipKnot::new(loss, clip, norm);
            for z in grid() {
                let raw = loss.margin_deriv(z).abs() * norm;
                let clipped = k.deriv(loss, z).abs() * norm;
                assert!((clipped - raw.min(clip)).abs() < 1e-12, "{loss:?} z={z}");
            }
        }
    }

    #[test]
    fn clipped_loss_is_convex_and_continuous() {
        for loss in LOSSES {
            let k = ClipKnot::new(loss, 0.2, 1.0);
            let zs: Vec<f64> = grid().collect();
            for w in zs.windows(2) {
                assert!(k.deriv(loss, w[1]) >= k.deriv(loss, w[0]));
            }
            let z = k.z;
            assert!((k.value(loss, z - 1e-12) - k.value(loss, z + 1e-12)).abs() < 1e-10);
            // Below the knot the loss is linear; above it coincides with the loss.
            assert!((k.value(loss, z - 2.0) - (k.value(loss, z) + 2.0 * 0.2)).abs() < 1e-12);
            assert_eq!(k.value(loss, z + 0.5), loss.margin_value(z + 0.5));
        }
    }

    #[test]
    fn no_op_when_clip_exceeds_the_lipschitz_bound() {
        // Unit-norm features plus a bias: ‖x‖ = √2 and C = √2 gives c = 1 = sup|g'|.
        let norms = [2f64.sqrt(), 1.0, 0.5, 0.0];
        for loss in LOSSES {
            let cl = ClippedGlm::new(loss, 2f64.sqrt(), &norms);
            assert_eq!(cl.binding_count(), 0);
            for (i, _) in norms.iter().enumerate() {
                for z in grid() {
                    assert_eq!(cl.knot(i).value(loss, z), loss.margin_value(z));
                    assert_eq!(cl.knot(i).deriv(loss, z), loss.margin_deriv(z));
                }
            }
            let unclipped = ClippedGlm::new(loss, f64::INFINITY, &norms);
            assert_eq!(unclipped.binding_count(), 0);
            assert_eq!(ClippedGlm::new(loss, 1.0, &norms).binding_count(), 1);
        }
    }
}
