//! Even-order forward differences of the Gaussian mechanism's Rényi moments: the Δ terms of the
//! sampling-without-replacement bound (`subsampled_gaussian_wor`, `docs/derivations.md` §8).
//!
//! With `a_i = e^{(i−1)·ε(i)} = e^{i(i−1)/(2z²)}` (ε(α) = α/(2z²), the Gaussian's RDP), `a_i` is
//! the i-th moment E[Lⁱ] of the likelihood ratio `L = e^{X/z − 1/(2z²)}`, X ∼ N(0, 1), so the
//! k-th forward difference at 0 is `Δᵏa₀ = Σᵢ (−1)^{k−i} C(k,i) a_i = E[(L − 1)ᵏ]`.
//!
//! autodp and dp_accounting compute Δᵏ by k rounds of pairwise differences in log space. In
//! double precision that cancels catastrophically once z is large: the differences are up to
//! ~(2z)ᵏ/(k−1)!! smaller than the terms. At z = 8 the pairwise Δ⁶⁰ comes out e⁹ too large, and
//! at z = 6.8, γ = 0.1, α = 200 the per-step RDP built from them is 6e-4 too *small*. The bound
//! only needs even k, where `(L − 1)ᵏ ≥ 0`: the expectation is the integral of a non-negative
//! function, which Gauss–Legendre quadrature gets to full relative precision whatever the
//! cancellation in the sum.
//!
//! The integrand `φ(x)(e^{x/z − 1/(2z²)} − 1)ᵏ` vanishes only at x₀ = 1/(2z) and is log-concave
//! on each side of it with curvature at most −1 (`ln|eᵘ − 1|` is concave on each side). So each
//! side is a bump around its own maximum, found by bisection on the log-derivative, and the
//! integrand is below e^{−50} of that maximum farther than [`HALF_WINDOW`] from it: each side
//! is integrated over ±`HALF_WINDOW` around its maximum, on a fixed grid of unit panels whose
//! node values are computed once and shared by every k.
//!
//! The maxima sit about k/z from x₀, so the grid spans ~k/z panels: below
//! [`MIN_QUADRATURE_NOISE`] the moments are not integrated but bounded in closed form,
//! `E[(L − 1)^{2i}] ≤ E[L^{2i}] + P(L < 1) ≤ a_{2i} + 1`, which keeps time and memory bounded
//! for every z > 0 (at such z the bound's other branch is the smaller one anyway, module
//! `subsampled_gaussian_wor`).

use crate::accounting::quadrature;
use crate::special::{LN_SQRT_2PI, ln_expm1, log_add_exp, log1m_exp};

/// Half-width of the integration window around each side's maximum (in units of X): the
/// integrand there is below e^{−HALF_WINDOW²/2} = e^{−50} of its maximum.
const HALF_WINDOW: f64 = 10.0;

/// Relative slack added to every quadrature value so that it errs upwards: the rule's own
/// error on these smooth unit-scale bumps is ~1e-15.
const SLACK: f64 = 1e-12;

/// Smallest noise multiplier whose moments are integrated (the grid then spans at most
/// ~1000/z = 10⁴ unit panels for k ≤ 1000); below it the closed-form bound is used.
pub(crate) const MIN_QUADRATURE_NOISE: f64 = 0.1;

/// Nodes of one unit panel: `(ln w + ln φ(x), ln|L(x) − 1|)` per node.
type PanelNodes = Vec<(f64, f64)>;

/// One side of x₀: its unit panels, filled on first use.
struct Side {
    /// +1 for x > x₀ (panel i covers [x₀ + i, x₀ + i + 1]), −1 for x < x₀ (covers
    /// [x₀ − i − 1, x₀ − i]).
    dir: f64,
    panels: Vec<Option<PanelNodes>>,
}

/// `ln E[(L − 1)^{2i}]` for i = 0..=`half_max`, with L the likelihood ratio of the Gaussian
/// mechanism with noise multiplier `z` (entry i is the 2i-th forward difference of
/// `e^{(α−1)α/(2z²)}` at α = 0). Entry 0 is ln 1 = 0; entry 1 is the closed form
/// `ln(e^{1/z²} − 1)`. Each value is rounded up by a relative 1e-12 plus its floating-point
/// error bound; below [`MIN_QUADRATURE_NOISE`] entries i ≥ 2 are the upper bound
/// `ln(1 + e^{2i(2i−1)/(2z²)})` instead (+∞ where it overflows).
pub(crate) fn log_even_differences(z: f64, half_max: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(half_max + 1);
    out.push(0.0);
    if half_max >= 1 {
        out.push(ln_expm1(1.0 / (z * z)));
    }
    if z < MIN_QUADRATURE_NOISE {
        out.extend((2..=half_max).map(|i| {
            let k = (2 * i) as f64;
            log_add_exp(0.0, k * (k - 1.0) / (2.0 * z * z))
        }));
        return out;
    }
    let mut grid = Grid::new(z);
    for i in 2..=half_max {
        out.push(grid.log_moment(2 * i));
    }
    out
}

/// The panel grids of both sides for one noise multiplier.
pub(crate) struct Grid {
    /// 1/z.
    s: f64,
    /// x₀ = 1/(2z), where L = 1.
    x0: f64,
    right: Side,
    left: Side,
}

impl Grid {
    pub(crate) fn new(z: f64) -> Self {
        let s = 1.0 / z;
        let side = |dir| Side {
            dir,
            panels: Vec::new(),
        };
        Self {
            s,
            x0: 0.5 * s,
            right: side(1.0),
            left: side(-1.0),
        }
    }

    /// ln E[(L − 1)ᵏ] for even k ≥ 2, rounded up.
    pub(crate) fn log_moment(&mut self, k: usize) -> f64 {
        debug_assert!(k >= 2 && k.is_multiple_of(2));
        let kf = k as f64;
        let (right, right_err) = self.side_integral(true, kf);
        // The left side is at most P(X < x₀) ≤ 1: negligible once the right side is e⁴⁰.
        let (left, left_err) = if right > 40.0 {
            (f64::NEG_INFINITY, 0.0)
        } else {
            self.side_integral(false, kf)
        };
        log_add_exp(right, left) + SLACK + right_err.max(left_err)
    }

    /// ln ∫ φ(x)|L(x) − 1|ᵏ over one side, and a bound on its floating-point error.
    fn side_integral(&mut self, right: bool, k: f64) -> (f64, f64) {
        let peak = self.peak(right, k);
        let (s, x0) = (self.s, self.x0);
        let side = if right {
            &mut self.right
        } else {
            &mut self.left
        };
        // Distance of the peak from x₀ in panel units, and the panels within the window.
        let d = side.dir * (peak - x0);
        let first = (d - HALF_WINDOW).floor().max(0.0) as usize;
        let last = (d + HALF_WINDOW).ceil().max(1.0) as usize;
        if side.panels.len() < last {
            side.panels.resize(last, None);
        }
        let mut m = f64::NEG_INFINITY;
        let mut scale: f64 = 0.0;
        for i in first..last {
            let nodes = side.panels[i].get_or_insert_with(|| side_nodes(side.dir, i, s, x0));
            for &(base, ell) in nodes.iter() {
                m = m.max(base + k * ell);
                scale = scale.max(base.abs() + k * ell.abs());
            }
        }
        if m == f64::NEG_INFINITY {
            return (m, 0.0);
        }
        let mut sum = 0.0;
        for nodes in side.panels[first..last].iter().flatten() {
            for &(base, ell) in nodes {
                sum += (base + k * ell - m).exp();
            }
        }
        // Each log term carries a few ulps of its magnitude.
        (m + sum.ln(), 8.0 * f64::EPSILON * scale)
    }

    /// The maximiser of ln φ(x) + k ln|L(x) − 1| on one side of x₀ (bisection on the
    /// derivative, which decreases from +∞ to −∞ on each side).
    fn peak(&self, right: bool, k: f64) -> f64 {
        let (s, x0) = (self.s, self.x0);
        // d/dx [−x²/2 + k ln|e^u − 1|] with u = s·x − s²/2: −x + k·s/(1 − e^{−u}).
        let slope = |x: f64| {
            let u = s * x - 0.5 * s * s;
            -x + k * s / (-(-u).exp_m1())
        };
        // Beyond ±(ks + √k + 1) the slope has the sign that brackets the root (module tests).
        let reach = k * s + k.sqrt() + 1.0;
        let (mut lo, mut hi) = if right {
            (x0, x0 + reach)
        } else {
            (-reach, x0)
        };
        while hi - lo > 0.25 {
            let mid = 0.5 * (lo + hi);
            // At magnitudes where 0.25 is below an ulp the bracket cannot shrink further.
            if mid <= lo || mid >= hi {
                break;
            }
            if slope(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

/// Node values of panel `i` on the side `dir` of x₀.
fn side_nodes(dir: f64, i: usize, s: f64, x0: f64) -> PanelNodes {
    let a = if dir > 0.0 {
        x0 + i as f64
    } else {
        x0 - i as f64 - 1.0
    };
    quadrature::panel(a, 1.0)
        .map(|(x, ln_w)| {
            let u = s * x - 0.5 * s * s;
            let ell = if u > 0.0 { ln_expm1(u) } else { log1m_exp(u) };
            (ln_w - 0.5 * x * x - LN_SQRT_2PI, ell)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σᵢ (−1)^{k−i} C(k,i) e^{i(i−1)/(2z²)} in plain floating point (fine where it does not
    /// cancel: small k, small z).
    fn alternating_sum(z: f64, k: u64) -> f64 {
        let mut sum = 0.0;
        let mut binom = 1.0;
        for i in 0..=k {
            let sign = if (k - i).is_multiple_of(2) { 1.0 } else { -1.0 };
            sum += sign * binom * ((i * i - i) as f64 / (2.0 * z * z)).exp();
            binom = binom * (k - i) as f64 / (i + 1) as f64;
        }
        sum
    }

    #[test]
    fn second_difference_matches_its_closed_form() {
        for z in [0.3, 1.0, 8.0, 300.0] {
            let q = Grid::new(z).log_moment(2);
            let exact = ln_expm1(1.0 / (z * z));
            assert!(
                (q - exact).abs() < 2e-12 * exact.abs().max(1.0),
                "z {z}: {q} vs {exact}"
            );
            assert!(q >= exact, "z {z}: rounded down");
        }
    }

    #[test]
    fn low_orders_match_the_alternating_sum_where_it_is_well_conditioned() {
        for z in [0.5, 1.0, 2.0] {
            let mut g = Grid::new(z);
            for k in [4, 6, 8, 12] {
                let exact = alternating_sum(z, k).ln();
                let q = g.log_moment(k as usize);
                assert!(
                    (q - exact).abs() < 1e-10 * exact.abs().max(1.0),
                    "z {z} k {k}: {q} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn large_noise_limit_is_the_normal_moment() {
        // For z → ∞, L − 1 ≈ X/z, so E[(L − 1)^k] z^k → (k − 1)!!.
        let z = 1e4;
        for k in [2usize, 4, 10] {
            let v = Grid::new(z).log_moment(k) + k as f64 * z.ln();
            let double_fact: f64 = (1..k).step_by(2).map(|j| (j as f64).ln()).sum();
            assert!(
                (v - double_fact).abs() < 1e-3,
                "k {k}: {v} vs {double_fact}"
            );
        }
    }

    #[test]
    fn the_bisection_brackets_hold() {
        // The slope is positive at the bracket's inner end and negative at the outer end.
        for z in [0.1, 1.0, 30.0] {
            let g = Grid::new(z);
            for k in [2.0, 50.0, 1000.0] {
                let (s, x0) = (g.s, g.x0);
                let slope = |x: f64| {
                    let u = s * x - 0.5 * s * s;
                    -x + k * s / (-(-u).exp_m1())
                };
                let reach = k * s + k.sqrt() + 1.0;
                assert!(slope(x0 + 1e-9) > 0.0 && slope(x0 + reach) < 0.0);
                assert!(slope(-reach) > 0.0 && slope(x0 - 1e-9) < 0.0);
            }
        }
    }

    #[test]
    fn the_closed_form_bounds_the_moments_and_keeps_tiny_z_bounded() {
        // E[(L − 1)^{2i}] ≤ a_{2i} + 1 where the quadrature runs, up to its own rounding.
        for z in [0.1, 0.3, 1.0] {
            let mut g = Grid::new(z);
            for i in [2usize, 5, 50, 500] {
                let k = (2 * i) as f64;
                let closed = log_add_exp(0.0, k * (k - 1.0) / (2.0 * z * z));
                let quad = g.log_moment(2 * i);
                assert!(
                    closed >= quad - 1e-9 * closed,
                    "z {z} i {i}: {closed} < {quad}"
                );
            }
        }
        // z = 1e-10 once asked for 840 GB of panels, z = 1e-150 never left the bisection.
        for z in [1e-300, 1e-200, 1e-150, 1e-10, 1e-5, 0.0999] {
            let t = log_even_differences(z, 500);
            assert_eq!(t.len(), 501);
            assert!(t.iter().skip(1).all(|v| *v > 0.0), "z {z:e}: {t:?}");
        }
    }

    #[test]
    fn the_table_starts_with_the_closed_forms() {
        let t = log_even_differences(2.0, 3);
        assert_eq!(t.len(), 4);
        assert_eq!(t[0], 0.0);
        assert_eq!(t[1], ln_expm1(0.25));
        assert!((t[2] - alternating_sum(2.0, 4).ln()).abs() < 1e-10);
    }
}
