//! GPflowOpt's hypervolume-based probability of improvement (HV-PoI) in two objectives, the
//! acquisition DPareto maximises (Couckuyt et al. 2014; GPflowOpt `acquisition/hvpoi.py`).
//!
//! With P = p₁..p_k the front of the GP means at the training inputs (first coordinate
//! ascending, so a₁ < … < a_k and b₁ > … > b_k), a₀ = −∞, a_{k+1} = R₁ and b₀ = R₂, cell i
//! (i = 0..k) is [a_i, a_{i+1}] × (−∞, b_i]; the cells tile the non-dominated region below R.
//! For a candidate with means μ and variances s² (floored at 1e-6 as GPflowOpt does):
//!
//! ```text
//! PoI = Σ_i [Φ((a_{i+1}−μ₁)/s₁) − Φ((a_i−μ₁)/s₁)] · Φ((b_i−μ₂)/s₂)
//! ΔHV = Σ_{i: μ₁<a_{i+1}, μ₂<b_i} (a_{i+1} − max(a_i, μ₁)) · (b_i − μ₂)
//! α   = ΔHV · PoI
//! ```

use super::pareto::{Point2, non_dominated_with_multiplicity};
use crate::error::{DpError, Result, ensure};
use crate::special::{norm_cdf, norm_pdf};

/// GPflowOpt's floor on the predictive variances (`settings.jitter`, `hvpoi.py:109`).
pub const VARIANCE_FLOOR: f64 = 1e-6;

/// Where the reference point R bounding the non-dominated region comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reference {
    /// GPflowOpt's re-estimate, R = max(P) + 2·(max(P) − min(P))/k per coordinate, with k
    /// the front size counting exact duplicates as GPflowOpt does. It overrides DPareto's
    /// anti-ideal point in the authors' runs.
    Estimated,
    /// A fixed point (e.g. the transformed anti-ideal point). Front points at or beyond it
    /// bound nothing inside the box and are left out of the cells.
    Fixed(Point2),
}

/// One staircase cell [x_lo, x_hi] × (−∞, y_hi].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Left edge (−∞ for the first cell).
    pub x_lo: f64,
    /// Right edge.
    pub x_hi: f64,
    /// Upper edge.
    pub y_hi: f64,
}

/// The HV-PoI acquisition for one front; construct once per BO iteration, evaluate per
/// candidate in O(k).
#[derive(Clone, Debug)]
pub struct HvPoi {
    front: Vec<Point2>,
    reference: Point2,
    /// a₀ = −∞, a₁..a_m, a_{m+1} = R₁ for the m front points inside the reference box.
    xs: Vec<f64>,
    /// b₀ = R₂, b₁..b_m.
    ys: Vec<f64>,
}

/// A cell edge standardised for one candidate: t = (edge − μ)/s and Φ(t).
///
/// Plain Φ differences suffice: they lose precision only for edges far right of μ₁, and then
/// cell 0, which reaches −∞ and has the highest top, holds x-mass ≥ ½ and dominates the sum.
#[derive(Clone, Copy)]
struct Edge {
    t: f64,
    cdf: f64,
}

impl Edge {
    fn new(edge: f64, mu: f64, s: f64) -> Edge {
        let t = (edge - mu) / s;
        Edge {
            t,
            cdf: norm_cdf(t),
        }
    }

    /// φ(t) and t·φ(t), zero at an infinite edge.
    fn pdf_terms(self) -> (f64, f64) {
        if self.t.is_infinite() {
            (0.0, 0.0)
        } else {
            let p = norm_pdf(self.t);
            (p, self.t * p)
        }
    }
}

fn floored_sd(var: f64) -> f64 {
    var.max(VARIANCE_FLOOR).sqrt()
}

impl HvPoi {
    /// Builds the front of `means` (the GP means at the training inputs), the reference point
    /// and the cells.
    pub fn new(means: &[Point2], reference: Reference) -> Result<HvPoi> {
        if means.is_empty() {
            return Err(DpError::Invalid("HV-PoI needs at least one mean".into()));
        }
        let (front, k) = non_dominated_with_multiplicity(means)?;
        if front.iter().any(|p| !(p.0.is_finite() && p.1.is_finite())) {
            return Err(DpError::Invalid("HV-PoI needs finite means".into()));
        }
        let reference = match reference {
            Reference::Estimated => {
                // The front is sorted: its extremes are the first and last points.
                let (lo, hi) = (front[0], front[front.len() - 1]);
                let (min1, max1, min2, max2) = (lo.0, hi.0, hi.1, lo.1);
                let k = k as f64;
                (
                    max1 + 2.0 * (max1 - min1) / k,
                    max2 + 2.0 * (max2 - min2) / k,
                )
            }
            Reference::Fixed(r) => {
                ensure(r.0.is_finite(), "reference", r.0, "must be finite")?;
                ensure(r.1.is_finite(), "reference", r.1, "must be finite")?;
                r
            }
        };
        let inside = front
            .iter()
            .filter(|p| p.0 < reference.0 && p.1 < reference.1);
        let mut xs = vec![f64::NEG_INFINITY];
        let mut ys = vec![reference.1];
        for p in inside {
            xs.push(p.0);
            ys.push(p.1);
        }
        xs.push(reference.0);
        Ok(HvPoi {
            front,
            reference,
            xs,
            ys,
        })
    }

    /// The non-dominated set P of the means, sorted by the first coordinate.
    pub fn front(&self) -> &[Point2] {
        &self.front
    }

    /// The reference point R in use.
    pub fn reference(&self) -> Point2 {
        self.reference
    }

    /// The staircase cells, left to right.
    pub fn cells(&self) -> Vec<Cell> {
        (0..self.ys.len())
            .map(|i| Cell {
                x_lo: self.xs[i],
                x_hi: self.xs[i + 1],
                y_hi: self.ys[i],
            })
            .collect()
    }

    /// ΔHV(μ) = HV(P ∪ {μ}) − HV(P) inside the reference box.
    pub fn delta_hv(&self, mean: Point2) -> f64 {
        let (m1, m2) = mean;
        let mut sum = 0.0;
        for i in 0..self.ys.len() {
            let (a_lo, a_hi, b) = (self.xs[i], self.xs[i + 1], self.ys[i]);
            if m1 < a_hi && m2 < b {
                sum += (a_hi - a_lo.max(m1)) * (b - m2);
            }
        }
        sum
    }

    /// PoI: the probability that independent N(μ_j, s_j²) outputs land in the non-dominated
    /// region below R.
    pub fn poi(&self, mean: Point2, var: Point2) -> f64 {
        let (s1, s2) = (floored_sd(var.0), floored_sd(var.1));
        let mut lo = Edge::new(self.xs[0], mean.0, s1);
        let mut sum = 0.0;
        for i in 0..self.ys.len() {
            let hi = Edge::new(self.xs[i + 1], mean.0, s1);
            let mass = hi.cdf - lo.cdf;
            // Skipping empty cells and stopping once Φ has rounded to 1 changes nothing: the
            // skipped terms are exactly 0.
            if mass > 0.0 {
                sum += mass * Edge::new(self.ys[i], mean.1, s2).cdf;
            }
            if hi.cdf == 1.0 {
                break;
            }
            lo = hi;
        }
        sum
    }

    /// α = ΔHV(μ)·PoI(μ, s²).
    pub fn eval(&self, mean: Point2, var: Point2) -> f64 {
        let dhv = self.delta_hv(mean);
        if dhv == 0.0 {
            return 0.0;
        }
        dhv * self.poi(mean, var)
    }

    /// α and its gradient w.r.t. (μ₁, μ₂, s₁², s₂²); the variance derivatives are 0 where
    /// the floor is active.
    pub fn eval_grad(&self, mean: Point2, var: Point2) -> (f64, [f64; 4]) {
        let (m1, m2) = mean;
        let (mut h, mut dh1, mut dh2) = (0.0, 0.0, 0.0);
        for i in 0..self.ys.len() {
            let (a_lo, a_hi, b) = (self.xs[i], self.xs[i + 1], self.ys[i]);
            if m1 < a_hi && m2 < b {
                let width = a_hi - a_lo.max(m1);
                h += width * (b - m2);
                dh2 -= width;
                if m1 > a_lo {
                    dh1 -= b - m2;
                }
            }
        }
        let (v1, v2) = (var.0.max(VARIANCE_FLOOR), var.1.max(VARIANCE_FLOOR));
        let (s1, s2) = (v1.sqrt(), v2.sqrt());
        let (mut p, mut dp) = (0.0, [0.0; 4]);
        let mut lo = Edge::new(self.xs[0], m1, s1);
        for i in 0..self.ys.len() {
            let hi = Edge::new(self.xs[i + 1], m1, s1);
            let y = Edge::new(self.ys[i], m2, s2);
            let (mass, g) = (hi.cdf - lo.cdf, y.cdf);
            let ((pl, tpl), (ph, tph), (py, tpy)) = (lo.pdf_terms(), hi.pdf_terms(), y.pdf_terms());
            p += mass * g;
            // dΦ(t)/dμ = −φ(t)/s and dΦ(t)/ds² = −t·φ(t)/(2s²) for t = (edge − μ)/s.
            dp[0] += g * (pl - ph) / s1;
            dp[1] -= mass * py / s2;
            dp[2] += g * (tpl - tph) / (2.0 * v1);
            dp[3] -= mass * tpy / (2.0 * v2);
            lo = hi;
        }
        if var.0 < VARIANCE_FLOOR {
            dp[2] = 0.0;
        }
        if var.1 < VARIANCE_FLOOR {
            dp[3] = 0.0;
        }
        let grad = [
            dh1 * p + h * dp[0],
            dh2 * p + h * dp[1],
            h * dp[2],
            h * dp[3],
        ];
        (h * p, grad)
    }
}

#[cfg(test)]
#[path = "hvpoi_tests.rs"]
mod tests;
