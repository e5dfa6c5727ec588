//! Calibration of a privacy parameter through a monotone map, returning the parameter on the
//! safe side of the target.
//!
//! Every accountant calibration (σ for a target (ε, δ), ε for a given δ, the DP-SGD noise
//! multiplier, the ObjPert regulariser λ) is a 1-D monotone root find. The search variable is
//! `u = ln(x − lo)`, so brackets expand geometrically and the refinement works in relative
//! terms. The returned `x` always satisfies `f(x) ≤ target` (re-verified before returning): an
//! accountant that rounds towards the unsafe side would under-report the privacy loss.

use crate::accounting::accountant::{Accountant, epsilon_of};
use crate::accounting::event::Event;
use crate::error::{DpError, Result};

/// Relative width of the final bracket (`docs/derivations.md` §1 asks for ≤ 1e-10).
pub const REL_TOL: f64 = 1e-11;

/// Largest factor by which the bracket search may move away from `start` (in `x − lo`).
const MAX_SPAN: f64 = 1e300;
/// Largest `ln(x − lo)` probed when `hi = ∞` (x − lo ≈ 8.2e307): probes stay finite, since an
/// infinite parameter is no parameter (events reject it).
const U_FINITE: f64 = 709.0;
/// Iteration cap of the refinement; bisection alone needs < 100 steps from any bracket.
const MAX_ITER: usize = 400;

/// Smallest `x ∈ (lo, hi]` with `f(x) ≤ target`, for `f` non-increasing in `x`.
///
/// `start ∈ (lo, hi]` seeds the bracket search; `hi` may be `+∞` (it is evaluated when finite;
/// otherwise no probe exceeds `lo + e^709 ≈ 8.2e307`). At most ~11 probes find the bracket and
/// at most 400 refine it.
/// If `f` is already below the target as `x → lo`, the smallest probed `x` (about
/// `lo + (start − lo)·1e-300`) is returned. Errors when no `x ≤ hi` meets the target, when `f`
/// returns NaN, or when `f` itself fails.
pub fn calibrate_decreasing<F>(f: F, target: f64, start: f64, lo: f64, hi: f64) -> Result<f64>
where
    F: FnMut(f64) -> Result<f64>,
{
    search(f, target, start, lo, hi, Direction::Decreasing)
}

/// Largest `x ∈ (lo, hi]` with `f(x) ≤ target`, for `f` non-decreasing in `x`.
///
/// Same conventions as [`calibrate_decreasing`]; if `f(hi) ≤ target` (or `f` stays below the
/// target up to the bracket limit when `hi = ∞`) that end is returned.
pub fn calibrate_increasing<F>(f: F, target: f64, start: f64, lo: f64, hi: f64) -> Result<f64>
where
    F: FnMut(f64) -> Result<f64>,
{
    search(f, target, start, lo, hi, Direction::Increasing)
}

/// Largest `x ∈ [lo, hi]` with `f(x) ≤ target`, for `f` non-decreasing in `x`, to a relative
/// bracket: bisection at geometric means `√(lo·hi)` until `hi/lo ≤ 1 + rel`, returning the end
/// that meets the target (`hi` itself when it does).
///
/// For maps too expensive for [`calibrate_increasing`]'s 1e-11 (each probe is a calibration of
/// its own, as honest tuning's per-run target is): at most `log₂(ln(hi/lo)/ln(1 + rel)) + 2`
/// probes. Every returned `x` was probed and met the target. Errors when `f(lo)` misses it,
/// or when `f` returns NaN or fails; `f`'s error type only has to take a [`DpError`].
pub fn calibrate_increasing_coarse<E, F>(
    mut f: F,
    target: f64,
    lo: f64,
    hi: f64,
    rel: f64,
) -> std::result::Result<f64, E>
where
    E: From<DpError>,
    F: FnMut(f64) -> std::result::Result<f64, E>,
{
    if !(target.is_finite() && lo > 0.0 && lo <= hi && hi.is_finite() && rel > 0.0) {
        return Err(DpError::Invalid(format!(
            "coarse calibration needs finite target, 0 < lo <= hi finite and rel > 0 (target \
             {target:e}, lo {lo:e}, hi {hi:e}, rel {rel:e})"
        ))
        .into());
    }
    // NaN compares false, so it counts as missing the target.
    let mut ok = |x: f64| f(x).map(|v| v <= target);
    if !ok(lo)? {
        return Err(DpError::Calibration(format!(
            "even the bracket's lower end {lo:e} misses the target {target:e}"
        ))
        .into());
    }
    let (mut lo, mut hi) = (lo, hi);
    if ok(hi)? {
        return Ok(hi);
    }
    while hi / lo > 1.0 + rel {
        let mid = (lo * hi).sqrt();
        if ok(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// A privacy target (ε, δ): the one argument order for targets everywhere. Its fields are
/// private, so a `Target` can only be made by [`Target::new`] and is always valid: code that
/// takes one need not check it again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    epsilon: f64,
    delta: f64,
}

impl Target {
    /// Checked target: ε > 0 finite, δ ∈ (0, 1).
    pub fn new(epsilon: f64, delta: f64) -> Result<Self> {
        crate::error::check_epsilon(epsilon)?;
        crate::error::check_delta(delta)?;
        Ok(Self { epsilon, delta })
    }

    /// ε > 0, finite.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// δ ∈ (0, 1).
    pub fn delta(&self) -> f64 {
        self.delta
    }
}

/// Where [`calibrate`] searches for a parameter whose ε is non-increasing in it (a noise scale,
/// a regulariser): `(lo, hi]`, starting at `start`; `name` is used in messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bracket {
    /// What the parameter is, e.g. `noise multiplier`.
    pub name: &'static str,
    /// First point probed, in `(lo, hi]`; only affects speed.
    pub start: f64,
    /// Exclusive lower end.
    pub lo: f64,
    /// Inclusive upper end (may be `+∞`).
    pub hi: f64,
}

/// Smallest parameter `x` in the bracket whose event meets the target on a fresh accountant
/// (dp_accounting's `calibrate_dp_mechanism`): ε of `event_of(x)` must be non-increasing in `x`.
///
/// The returned `x` is verified: a fresh accountant composing `event_of(x)` reports
/// ε ≤ `target.epsilon` at `target.delta`. An event the accountant does not support is an
/// [`DpError::Unsupported`] error before any search.
///
/// The Gaussian mechanism's noise multiplier for (ε, δ) = (1, 1e-5) under RDP with the classic
/// conversion. Over all orders that accountant reports ε(z) = 1/(2z²) + √(2L)/z with
/// L = ln(1/δ), so the continuum answer solves a quadratic in 1/z:
/// z = 1/(√(2L + 2ε) − √(2L)). A grid of orders can only ask for more noise than that, and the
/// exact analysis (analytic Gaussian) for less.
/// ```
/// use dp_core::accounting::{
///     Bracket, Conversion, Event, RdpAccountant, Target, calibrate, epsilon_of, gaussian,
/// };
///
/// let target = Target::new(1.0, 1e-5)?;
/// let rdp = RdpAccountant::new().with_conversion(Conversion::Classic);
/// let bracket = Bracket { name: "noise multiplier", start: 1.0, lo: 0.0, hi: f64::INFINITY };
/// let z = calibrate(|| rdp.fresh(), Event::gaussian, target, bracket)?;
///
/// // Safe side, and the least noise that is: a millionth less misses the target.
/// let eps_at = |z: f64| epsilon_of(rdp.fresh(), &Event::gaussian(z)?, target.delta());
/// assert!(eps_at(z)? <= target.epsilon(), "{}", eps_at(z)?);
/// assert!(eps_at(z * (1.0 - 1e-6))? > target.epsilon());
///
/// let l = (1.0 / target.delta()).ln();
/// let z_closed = 1.0 / ((2.0 * l + 2.0 * target.epsilon()).sqrt() - (2.0 * l).sqrt());
/// assert!(z_closed <= z && z <= 1.001 * z_closed, "{z} vs {z_closed}");
/// assert!(gaussian::sigma(target.epsilon(), target.delta(), 1.0)? < z);
/// # Ok::<(), dp_core::DpError>(())
/// ```
pub fn calibrate<A: Accountant>(
    mut fresh: impl FnMut() -> A,
    mut event_of: impl FnMut(f64) -> Result<Event>,
    target: Target,
    bracket: Bracket,
) -> Result<f64> {
    fresh().supports(&event_of(bracket.start)?)?;
    let f = |x: f64| epsilon_of(fresh(), &event_of(x)?, target.delta);
    let (lo, hi) = (bracket.lo, bracket.hi);
    calibrate_decreasing(f, target.epsilon, bracket.start, lo, hi).map_err(|e| match e {
        DpError::Calibration(msg) => DpError::Calibration(format!(
            "no {} reaches epsilon = {:e} at delta = {:e} ({msg}); ask for a larger epsilon or delta",
            bracket.name, target.epsilon, target.delta
        )),
        other => other,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Decreasing,
    Increasing,
}

/// A probed point: `u = ln(x − lo)`, `x` and `v = f(x)` (ok ⇔ `v ≤ target`).
#[derive(Clone, Copy)]
struct Probe {
    u: f64,
    x: f64,
    v: f64,
}

fn search<F>(mut f: F, target: f64, start: f64, lo: f64, hi: f64, dir: Direction) -> Result<f64>
where
    F: FnMut(f64) -> Result<f64>,
{
    if !(target.is_finite() && lo.is_finite() && start > lo && start <= hi && !hi.is_nan()) {
        return Err(DpError::Invalid(format!(
            "calibration needs finite target and lo < start <= hi (target {target:e}, lo {lo:e}, start {start:e}, hi {hi:e})"
        )));
    }
    let top = if hi.is_finite() {
        hi
    } else {
        lo + U_FINITE.exp()
    };
    let u_max = if hi.is_finite() {
        (hi - lo).ln()
    } else {
        U_FINITE
    };
    let mut eval = |u: f64| -> Result<Probe> {
        let x = if u >= u_max { top } else { lo + u.exp() };
        let v = f(x)?;
        if v.is_nan() {
            return Err(DpError::Calibration(format!(
                "the calibrated map returned NaN at {x:e}"
            )));
        }
        Ok(Probe { u, x, v })
    };
    let ok = |p: &Probe| p.v <= target;

    // Bracket: `good` meets the target, `bad` does not. For a decreasing map the good side is
    // the larger u; for an increasing map the smaller u.
    let u0 = (start - lo).ln();
    let p0 = eval(u0)?;
    // Direction in u towards the other side of the target.
    let outward = match (dir, ok(&p0)) {
        (Direction::Decreasing, false) | (Direction::Increasing, true) => 1.0,
        _ => -1.0,
    };
    let mut prev = p0;
    let mut step = std::f64::consts::LN_2;
    let (mut good, mut bad) = loop {
        let span = MAX_SPAN.ln();
        let u = (prev.u + outward * step)
            .clamp(u0 - span, u0 + span)
            .min(u_max);
        if u == prev.u || lo + u.exp() <= lo {
            // Ran off the search range without a sign change.
            return if ok(&prev) {
                Ok(prev.x) // the boundary itself meets the target
            } else {
                Err(DpError::Calibration(format!(
                    "none of the values tried meets {target:e}; the last, {:.3e}, gives {:.3e}",
                    prev.x, prev.v
                )))
            };
        }
        let p = eval(u)?;
        if ok(&p) != ok(&prev) {
            break if ok(&p) { (p, prev) } else { (prev, p) };
        }
        prev = p;
        step *= 2.0;
    };

    // Refine with the Illinois variant of regula falsi in u, interpolating ln(f/target) when
    // both ends are positive (privacy maps are close to power laws or Gaussian tails there).
    // A bisection step is forced whenever the bracket fails to halve in four steps; either way
    // the bracket keeps a verified good end.
    let (mut w_good, mut w_bad) = (1.0, 1.0);
    let mut last_side_good: Option<bool> = None;
    let mut width = (good.u - bad.u).abs();
    let mut stalled = 0;
    for _ in 0..MAX_ITER {
        if (good.x - bad.x).abs() <= REL_TOL * good.x.abs().max(f64::MIN_POSITIVE) {
            break;
        }
        let mid = 0.5 * (good.u + bad.u);
        let log_mode = target > 0.0 && good.v > 0.0 && bad.v > 0.0 && bad.v.is_finite();
        let h = |v: f64| {
            if log_mode {
                v.ln() - target.ln()
            } else {
                v - target
            }
        };
        let (hg, hb) = (w_good * h(good.v), w_bad * h(bad.v));
        let mut u = if stalled < 4 && hg.is_finite() && hb.is_finite() && hg < 0.0 {
            good.u - hg * (good.u - bad.u) / (hg - hb)
        } else {
            mid
        };
        // Keep strictly inside the bracket so that it always shrinks.
        let (a, b) = (good.u.min(bad.u), good.u.max(bad.u));
        let margin = 1e-3 * (b - a);
        if !(u > a + margin && u < b - margin) {
            u = u.clamp(a + margin, b - margin);
        }
        if u <= a || u >= b {
            break; // bracket is at floating-point resolution
        }
        let p = eval(u)?;
        let side_good = ok(&p);
        if side_good {
            good = p;
            w_good = 1.0;
            if last_side_good == Some(true) {
                w_bad *= 0.5;
            }
        } else {
            bad = p;
            w_bad = 1.0;
            if last_side_good == Some(false) {
                w_good *= 0.5;
            }
        }
        last_side_good = Some(side_good);
        let new_width = (good.u - bad.u).abs();
        if new_width > 0.5 * width {
            stalled += 1;
        } else {
            stalled = 0;
            width = new_width;
        }
    }

    // Never hand back a parameter whose value exceeds the target (`good` holds f at `good.x`).
    if !ok(&good) {
        return Err(DpError::Calibration(format!(
            "verification failed: value {:e} at {:e} exceeds the target {target:e}",
            good.v, good.x
        )));
    }
    Ok(good.x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decreasing_finds_the_smallest_safe_point() {
        // f(x) = 1/x, target 0.25 → x = 4.
        let x = calibrate_decreasing(|x| Ok(1.0 / x), 0.25, 1.0, 0.0, f64::INFINITY).unwrap();
        assert!(1.0 / x <= 0.25);
        assert!((x - 4.0).abs() <= 1e-10 * 4.0, "{x}");
        // From far above the root as well.
        let x = calibrate_decreasing(|x| Ok(1.0 / x), 0.25, 1e6, 0.0, f64::INFINITY).unwrap();
        assert!(1.0 / x <= 0.25 && (x - 4.0).abs() <= 1e-10 * 4.0, "{x}");
    }

    #[test]
    fn increasing_finds_the_largest_safe_point() {
        // f(x) = x², target 2 → √2.
        let x = calibrate_increasing(|x| Ok(x * x), 2.0, 10.0, 0.0, f64::INFINITY).unwrap();
        assert!(x * x <= 2.0);
        assert!((x - 2f64.sqrt()).abs() <= 1e-10 * 2f64.sqrt(), "{x}");
    }

    #[test]
    fn respects_a_shifted_lower_bound() {
        // λ-style domain (β, ∞): f(λ) = 1/(λ − 0.5), target 2 → λ = 1.
        let x =
            calibrate_decreasing(|x| Ok(1.0 / (x - 0.5)), 2.0, 3.0, 0.5, f64::INFINITY).unwrap();
        assert!(1.0 / (x - 0.5) <= 2.0);
        assert!((x - 1.0).abs() < 1e-10, "{x}");
    }

    #[test]
    fn handles_steps_and_infinities_on_the_bad_side() {
        // A step function: Illinois cannot interpolate, bisection must still converge.
        let f = |x: f64| {
            Ok(if x < std::f64::consts::PI {
                f64::INFINITY
            } else {
                0.0
            })
        };
        let x = calibrate_decreasing(f, 0.5, 1.0, 0.0, f64::INFINITY).unwrap();
        assert!(
            x >= std::f64::consts::PI && x - std::f64::consts::PI <= 1e-10 * x,
            "{x}"
        );
    }

    #[test]
    fn errors_without_a_bracket() {
        let r = calibrate_decreasing(|_| Ok(1.0), 0.5, 1.0, 0.0, f64::INFINITY);
        assert!(matches!(r, Err(DpError::Calibration(_))), "{r:?}");
        let r = calibrate_decreasing(|x| Ok(1.0 / x), 0.5, 1.0, 0.0, 1.5);
        assert!(matches!(r, Err(DpError::Calibration(_))), "{r:?}");
        let r = calibrate_decreasing(|_| Ok(f64::NAN), 0.5, 1.0, 0.0, f64::INFINITY);
        assert!(r.is_err());
    }

    #[test]
    fn probes_stay_finite_and_failures_read_short() {
        // An unreachable target once walked the probes to x = ∞, which events reject.
        let f = |x: f64| {
            if x.is_finite() {
                Ok(1.0)
            } else {
                Err(DpError::Invalid("infinite probe".into()))
            }
        };
        match calibrate_decreasing(f, 0.5, 1e9, 0.0, f64::INFINITY) {
            Err(DpError::Calibration(msg)) => assert!(msg.len() < 120, "{msg}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn returns_the_boundary_when_everything_is_safe() {
        let x = calibrate_decreasing(|_| Ok(0.0), 0.5, 1.0, 0.0, f64::INFINITY).unwrap();
        assert!(x < 1e-200, "{x}");
        let x = calibrate_increasing(Ok, 5.0, 1.0, 0.0, 3.0).unwrap();
        assert_eq!(x, 3.0);
    }

    #[test]
    fn coarse_keeps_the_safe_end_to_the_relative_bracket() {
        // f(x) = x², target 2: the answer is within 2% below √2 and meets the target.
        for rel in [0.02, 1e-6] {
            let x: f64 =
                calibrate_increasing_coarse::<DpError, _>(|x| Ok(x * x), 2.0, 1e-4, 10.0, rel)
                    .unwrap();
            assert!(x * x <= 2.0, "{x}");
            assert!(x * (1.0 + rel) >= 2f64.sqrt(), "{x} not within {rel}");
        }
        // The upper end is returned when it is safe; a lower end that misses is an error.
        let x = calibrate_increasing_coarse::<DpError, _>(Ok, 5.0, 1.0, 3.0, 0.02).unwrap();
        assert_eq!(x, 3.0);
        let r = calibrate_increasing_coarse::<DpError, _>(Ok, 0.5, 1.0, 3.0, 0.02);
        assert!(matches!(r, Err(DpError::Calibration(_))), "{r:?}");
        let r = calibrate_increasing_coarse::<DpError, _>(|_| Ok(f64::NAN), 0.5, 1.0, 3.0, 0.02);
        assert!(r.is_err());
        // A step map: the returned point is on the safe side of the step.
        let f = |x: f64| Ok(if x > std::f64::consts::E { 1.0 } else { 0.0 });
        let x = calibrate_increasing_coarse::<DpError, _>(f, 0.5, 1e-3, 1e3, 0.02).unwrap();
        assert!(
            x <= std::f64::consts::E && x * 1.02 > std::f64::consts::E,
            "{x}"
        );
    }

    #[test]
    fn never_returns_an_unsafe_point_for_a_kinked_map() {
        // Minimum of several lines, like an RDP conversion over orders.
        let f = |x: f64| {
            Ok([3.0 / x, 2.0 / x + 0.1, 1.0 / x + 0.4]
                .into_iter()
                .fold(f64::INFINITY, f64::min))
        };
        for &t in &[0.45, 0.6, 1.0, 3.0] {
            let x = calibrate_decreasing(f, t, 1.0, 0.0, f64::INFINITY).unwrap();
            assert!(f(x).unwrap() <= t);
            assert!(
                f(x * (1.0 - 1e-9)).unwrap() > t,
                "not minimal for target {t}: {x}"
            );
        }
    }
}
