//! The strong-Wolfe line search of the L-BFGS solver: bracketing, then a safeguarded cubic
//! zoom (Nocedal & Wright Alg. 3.5/3.6). Once objective values are at round-off level it
//! decides by the sign of the directional derivative (valid for the convex objectives used
//! here), and it accepts at once any trial point whose gradient meets the tolerance.

use super::state::Solver;
use super::{Objective, dot, norm};

/// One point on the search line: step, value, directional derivative.
#[derive(Clone, Copy, Debug)]
struct Point {
    a: f64,
    f: f64,
    dphi: f64,
}

/// Strong-Wolfe line search along `d` from `x` (Nocedal & Wright Alg. 3.5/3.6).
pub(super) struct LineSearch {
    pub(super) f0: f64,
    pub(super) dphi0: f64,
    pub(super) c1: f64,
    pub(super) c2: f64,
    pub(super) grad_tol: f64,
    pub(super) budget: usize,
}

enum Trial {
    /// Meets the gradient tolerance or the strong Wolfe conditions.
    Accept(f64),
    /// Evaluated; the caller decides.
    Point(Point),
}

impl LineSearch {
    /// Returns the new value with the accepted point in `s.xt`/`s.gt`, or `None`.
    pub(super) fn run<O: Objective + ?Sized>(
        &self,
        obj: &mut O,
        s: &mut Solver,
        evals: &mut usize,
    ) -> Option<f64> {
        let mut used = 0;
        let mut prev = Point {
            a: 0.0,
            f: self.f0,
            dphi: self.dphi0,
        };
        let mut a = 1.0;
        loop {
            if used >= self.budget {
                return self.fallback(obj, s, evals, prev);
            }
            let p = match self.trial(obj, s, evals, &mut used, a) {
                Trial::Accept(f) => return Some(f),
                Trial::Point(p) => p,
            };
            if !p.f.is_finite() || !self.decrease_ok(p) || p.f > prev.f + self.f_noise() {
                return self.zoom(obj, s, evals, &mut used, prev, p);
            }
            if p.dphi >= 0.0 {
                return self.zoom(obj, s, evals, &mut used, p, prev);
            }
            prev = p;
            a *= 4.0;
        }
    }

    /// Round-off level of objective values; below it, values cannot rank two points.
    fn f_noise(&self) -> f64 {
        1e-12 * self.f0.abs().max(1.0)
    }

    /// Armijo, or (when values are at round-off level) no increase beyond that level.
    fn decrease_ok(&self, p: Point) -> bool {
        p.f <= self.f0 + self.c1 * p.a * self.dphi0 || p.f <= self.f0 + self.f_noise()
    }

    fn trial<O: Objective + ?Sized>(
        &self,
        obj: &mut O,
        s: &mut Solver,
        evals: &mut usize,
        used: &mut usize,
        a: f64,
    ) -> Trial {
        for j in 0..s.x.len() {
            s.xt[j] = s.x[j] + a * s.d[j];
        }
        let f = obj.eval(&s.xt, &mut s.gt);
        *evals += 1;
        *used += 1;
        let dphi = dot(&s.gt, &s.d);
        let p = Point { a, f, dphi };
        if f.is_finite() && dphi.is_finite() {
            let gnorm = norm(&s.gt);
            if gnorm <= self.grad_tol && f <= self.f0 + self.f_noise() {
                return Trial::Accept(f);
            }
            if self.decrease_ok(p) && dphi.abs() <= -self.c2 * self.dphi0 {
                return Trial::Accept(f);
            }
        }
        Trial::Point(p)
    }

    /// Zoom on the bracket: `lo` satisfies sufficient decrease and has the best value so far,
    /// and the 1-D minimiser lies between `lo` and `hi`.
    fn zoom<O: Objective + ?Sized>(
        &self,
        obj: &mut O,
        s: &mut Solver,
        evals: &mut usize,
        used: &mut usize,
        mut lo: Point,
        mut hi: Point,
    ) -> Option<f64> {
        loop {
            let width = (hi.a - lo.a).abs();
            if *used >= self.budget || width <= 1e-14 * hi.a.abs().max(lo.a.abs()) {
                return self.fallback(obj, s, evals, lo);
            }
            let a = interpolate(lo, hi);
            let p = match self.trial(obj, s, evals, used, a) {
                Trial::Accept(f) => return Some(f),
                Trial::Point(p) => p,
            };
            if !p.f.is_finite() || !self.decrease_ok(p) || p.f > lo.f + self.f_noise() {
                hi = p;
            } else {
                if p.dphi * (hi.a - lo.a) >= 0.0 {
                    hi = lo;
                }
                lo = p;
            }
        }
    }

    /// Out of budget: accept the best sufficient-decrease point if it moved at all.
    fn fallback<O: Objective + ?Sized>(
        &self,
        obj: &mut O,
        s: &mut Solver,
        evals: &mut usize,
        lo: Point,
    ) -> Option<f64> {
        if lo.a > 0.0 && lo.f < self.f0 {
            for j in 0..s.x.len() {
                s.xt[j] = s.x[j] + lo.a * s.d[j];
            }
            *evals += 1;
            Some(obj.eval(&s.xt, &mut s.gt))
        } else {
            None
        }
    }
}

/// Minimiser of the cubic through `(lo, hi)` values and slopes, kept in the middle 80% of
/// the bracket; bisection when the cubic is unusable.
fn interpolate(lo: Point, hi: Point) -> f64 {
    let (a, b) = (lo.a, hi.a);
    let (left, right) = (a.min(b), a.max(b));
    let w = right - left;
    let mid = 0.5 * (a + b);
    if !hi.f.is_finite() || !hi.dphi.is_finite() {
        return mid;
    }
    let d1 = lo.dphi + hi.dphi - 3.0 * (lo.f - hi.f) / (a - b);
    let disc = d1 * d1 - lo.dphi * hi.dphi;
    if disc < 0.0 || disc.is_nan() {
        return mid;
    }
    let d2 = (b - a).signum() * disc.sqrt();
    let t = b - (b - a) * (hi.dphi + d2 - d1) / (hi.dphi - lo.dphi + 2.0 * d2);
    if t.is_finite() && t >= left + 0.1 * w && t <= right - 0.1 * w {
        t
    } else {
        mid
    }
}
