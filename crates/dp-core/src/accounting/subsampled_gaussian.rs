//! RDP of the Poisson-subsampled Gaussian mechanism (DP-SGD), Mironov, Talwar & Zhang 2019.
//!
//! One step with sampling rate q and noise multiplier z has, for add/remove neighbours,
//! `ε(α) = ln A_α / (α − 1)` with `A_α = E_{x∼N(0,z²)}[(1 − q + q·e^{(2x−1)/(2z²)})^α]`.
//!
//! - Integer α: `A_α = Σ_k C(α,k)(1−q)^{α−k} q^k e^{(k²−k)/(2z²)}`. Since the binomial weights
//!   sum to one, we sum `A_α − 1 = Σ_{k≥2} C(α,k)(1−q)^{α−k} q^k expm1((k²−k)/(2z²))`, whose terms
//!   are all positive: ε stays accurate to full relative precision even when it is ~1e-16.
//! - Fractional α: the two-series expansion (split at `z₀ = z² ln(1/q − 1) + ½`), both tails
//!   with `Φ` in log space. Past i > α the binomial coefficients alternate in sign; we stop once
//!   terms are below 1e-13 of the sum and decreasing, then add the last term of each series (a
//!   bound on an alternating remainder) and a floating-point rounding bound, so the returned
//!   `A_α` is rounded up, never down. The leading terms are combined with the −1 analytically,
//!   so `A_α − 1` keeps its relative precision when ε is tiny (tiny q, large z). ln A_α is also
//!   convex in α (a log moment generating function, with ln A_1 = 0), so linear interpolation of
//!   the exact integer values at ⌊α⌋ and ⌈α⌉ is another upper bound; we return the smaller of the
//!   two. Where the alternating tails converge too slowly (q near ½ on the scale of 1/z², more
//!   than 2α + 5000 terms) or the terms cancel so much that the rounding margin exceeds 1e-9 of
//!   `A_α − 1` (q near 1 with large z), `A_α − 1` is instead integrated numerically, in a form
//!   whose integrand is non-negative, and rounded up by a relative 1e-10.
//!
//! Tiny z (ε in the thousands and beyond): the series and the quadrature work with `1/(2z²)`,
//! which overflows below z ≈ 1e-154 and defeats both long before; their inf − inf once made
//! ε come out 0. Each fractional-order value is therefore checked against the lower bound
//! `ln A_α ≥ α ln q + α(α−1)/(2z²)` (keep only the k = α part of the binomial), and below
//! [`MIN_SERIES_NOISE`] they are not evaluated at all. Their place is taken by Minkowski's
//! inequality in L^α, `A_α^{1/α} ≤ (1 − q) + q·e^{(α−1)/(2z²)}`, which exceeds that lower bound
//! by at most `α ln(1 + (1/q − 1)e^{−(α−1)/(2z²)})`, negligible at such z. Integer orders are
//! exact at every z; where their terms overflow, ε(α) = +∞.
//!
//! [`SubsampledGaussian`] caches everything that depends on (q, α) only, so evaluating many noise
//! multipliers (calibration) only redoes the z-dependent work.

use crate::accounting::accountant::{Accountant, epsilon_of};
use crate::accounting::calibrate::{Bracket, Target, calibrate};
use crate::accounting::event::Event;
use crate::accounting::quadrature::log_integrate;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::accounting::rdp_curve::{RdpCurve, check_order};
use crate::error::{DpError, Result, check_delta, check_positive, check_sampling_rate, ensure};
use crate::special::{
    LN_SQRT_2PI, ln_expm1, ln_factorial, log_add_exp, log_norm_cdf, log_sub_exp, log1m_exp,
};

/// Relative size below which fractional-series terms are negligible (the remainder is still
/// bounded and added).
const LN_TOL: f64 = -29.933_606_208_922_594; // ln(1e-13)
/// Largest relative rounding/truncation margin accepted from the series (ln 1e-9); beyond it
/// the quadrature fallback is used.
const LN_MAX_MARGIN: f64 = -20.723_265_836_946_41;
/// Cap on fractional-series terms beyond 2α; past it the quadrature fallback is used.
const MAX_TERMS: usize = 5_000;
/// Below this noise multiplier fractional orders skip the series and the quadrature (which
/// needs ~α/z² panels there) for the closed-form bounds of the module docs.
pub const MIN_SERIES_NOISE: f64 = 0.01;

/// Per-order work that does not depend on the noise multiplier.
enum OrderTerms {
    /// q = 1: the plain Gaussian mechanism, ε = α/(2z²).
    Full,
    /// Integer α: `ln C(α,k) + k ln q + (α−k) ln(1−q)` for k = 2..=α.
    Integer(Vec<f64>),
    /// Fractional α: z-independent parts of both series, extended on demand.
    Fractional(FracTerms),
}

/// Terms `ln|C(α,i)| + i ln q + (α−i) ln(1−q)` (series 0) and with q ↔ 1−q (series 1), plus
/// the integer coefficients at ⌊α⌋ and ⌈α⌉ for the convexity bound.
struct FracTerms {
    alpha: f64,
    /// Integer coefficients at ⌊α⌋ (empty for ⌊α⌋ = 1, where ln A_1 = 0) and ⌊α⌋ + 1.
    floor_coef: Vec<f64>,
    ceil_coef: Vec<f64>,
    log_t0: Vec<f64>,
    log_t1: Vec<f64>,
    negative: Vec<bool>,
    /// Recurrence state: ln|C(α, len)| and its sign.
    next_log_binom: f64,
    next_negative: bool,
}

impl FracTerms {
    fn new(alpha: f64, ln_q: f64, ln_1mq: f64) -> Self {
        let n = alpha.floor() as u64;
        Self {
            alpha,
            floor_coef: integer_coefficients(n, ln_q, ln_1mq),
            ceil_coef: integer_coefficients(n + 1, ln_q, ln_1mq),
            log_t0: Vec::new(),
            log_t1: Vec::new(),
            negative: Vec::new(),
            next_log_binom: 0.0,
            next_negative: false,
        }
    }

    fn extend_to(&mut self, n: usize, ln_q: f64, ln_1mq: f64) {
        while self.log_t0.len() < n {
            let i = self.log_t0.len() as f64;
            let j = self.alpha - i;
            let lb = self.next_log_binom;
            self.log_t0.push(lb + i * ln_q + j * ln_1mq);
            self.log_t1.push(lb + j * ln_q + i * ln_1mq);
            self.negative.push(self.next_negative);
            // C(α, i+1) = C(α, i)·(α − i)/(i + 1)
            self.next_log_binom = lb + j.abs().ln() - (i + 1.0).ln();
            if j < 0.0 {
                self.next_negative = !self.next_negative;
            }
        }
    }
}

/// Poisson-subsampled Gaussian RDP on a fixed grid of orders, for a fixed sampling rate.
pub struct SubsampledGaussian {
    q: f64,
    ln_q: f64,
    ln_1mq: f64,
    orders: Vec<f64>,
    terms: Vec<OrderTerms>,
    scratch: Vec<f64>,
}

impl SubsampledGaussian {
    /// Prepares the per-order work for sampling rate `q ∈ (0, 1]` on `orders` (each > 1).
    pub fn new(q: f64, orders: &[f64]) -> Result<Self> {
        check_sampling_rate(q)?;
        let ln_q = q.ln();
        let ln_1mq = (-q).ln_1p();
        let mut terms = Vec::with_capacity(orders.len());
        for &alpha in orders {
            check_order(alpha)?;
            terms.push(if q == 1.0 {
                OrderTerms::Full
            } else if alpha.fract() == 0.0 && alpha <= 1e7 {
                OrderTerms::Integer(integer_coefficients(alpha as u64, ln_q, ln_1mq))
            } else {
                OrderTerms::Fractional(FracTerms::new(alpha, ln_q, ln_1mq))
            });
        }
        Ok(Self {
            q,
            ln_q,
            ln_1mq,
            orders: orders.to_vec(),
            terms,
            scratch: Vec::new(),
        })
    }

    /// Sampling rate.
    pub fn sampling_rate(&self) -> f64 {
        self.q
    }

    /// Orders of the grid.
    pub fn orders(&self) -> &[f64] {
        &self.orders
    }

    /// Per-step RDP ε(α) at every order for noise multiplier `z > 0`.
    pub fn rdp_per_step(&mut self, z: f64) -> Result<Vec<f64>> {
        check_positive("noise-multiplier", z)?;
        let (ln_q, ln_1mq) = (self.ln_q, self.ln_1mq);
        let mut out = Vec::with_capacity(self.orders.len());
        for (&alpha, terms) in self.orders.iter().zip(self.terms.iter_mut()) {
            let eps = match terms {
                OrderTerms::Full => alpha / (2.0 * z * z),
                OrderTerms::Integer(coef) => {
                    log_a_integer(coef, z, &mut self.scratch) / (alpha - 1.0)
                }
                OrderTerms::Fractional(t) => {
                    log_a_fractional_capped(t, ln_q, ln_1mq, z, &mut self.scratch) / (alpha - 1.0)
                }
            };
            if eps.is_nan() {
                return Err(DpError::Invalid(format!(
                    "subsampled-Gaussian RDP is NaN at order {alpha} (q = {}, z = {z})",
                    self.q
                )));
            }
            out.push(eps.max(0.0));
        }
        Ok(out)
    }

    /// RDP curve of `steps` compositions with noise multiplier `z`.
    pub fn curve(&mut self, z: f64, steps: u64) -> Result<RdpCurve> {
        let per_step = self.rdp_per_step(z)?;
        let eps = if steps == 0 {
            vec![0.0; per_step.len()]
        } else {
            per_step.iter().map(|e| e * steps as f64).collect()
        };
        RdpCurve::new(self.orders.clone(), eps)
    }
}

/// `ln C(n,k) + k ln q + (n−k) ln(1−q)` for k = 2..=n (empty for n < 2).
fn integer_coefficients(n: u64, ln_q: f64, ln_1mq: f64) -> Vec<f64> {
    let ln_n = ln_factorial(n);
    (2..=n)
        .map(|k| {
            ln_n - ln_factorial(k) - ln_factorial(n - k) + k as f64 * ln_q + (n - k) as f64 * ln_1mq
        })
        .collect()
}

/// ln A_α for integer α from cached coefficients, via the all-positive expansion of A_α − 1.
fn log_a_integer(coef: &[f64], z: f64, scratch: &mut Vec<f64>) -> f64 {
    let inv2s2 = 0.5 / (z * z);
    scratch.clear();
    let mut m = f64::NEG_INFINITY;
    for (idx, &c) in coef.iter().enumerate() {
        let k = (idx + 2) as f64;
        let e = c + ln_expm1((k * k - k) * inv2s2);
        if e.is_nan() {
            // `max` below would drop it, and with it a term of the sum.
            return e;
        }
        m = m.max(e);
        scratch.push(e);
    }
    if m == f64::INFINITY {
        return m;
    }
    if m == f64::NEG_INFINITY {
        return 0.0; // every term underflowed: A_α = 1 to double precision
    }
    let s: f64 = scratch
        .iter()
        .filter(|&&e| e - m > -745.0)
        .map(|&e| (e - m).exp())
        .sum();
    log_add_exp(0.0, m + s.ln())
}

/// ln A_α for fractional α: the smaller of the two-series value and the convexity bound, or
/// of the convexity and Minkowski bounds below [`MIN_SERIES_NOISE`] or where the series value
/// fails its lower-bound check (module docs).
fn log_a_fractional_capped(
    t: &mut FracTerms,
    ln_q: f64,
    ln_1mq: f64,
    z: f64,
    scratch: &mut Vec<f64>,
) -> f64 {
    let theta = t.alpha.fract();
    let lower = if t.floor_coef.is_empty() {
        0.0
    } else {
        log_a_integer(&t.floor_coef, z, scratch)
    };
    let upper = log_a_integer(&t.ceil_coef, z, scratch);
    let convex = (1.0 - theta) * lower + theta * upper;
    let alpha = t.alpha;
    // Rounded up by a relative 1e-13: where it binds it equals ln A_α to all digits.
    let minkowski =
        || alpha * log_add_exp(ln_1mq, ln_q + (alpha - 1.0) * 0.5 / (z * z)) * (1.0 + CLOSED_SLACK);
    if z < MIN_SERIES_NOISE {
        return convex.min(minkowski());
    }
    let direct = match log_a_fractional(t, ln_q, ln_1mq, z) {
        Ok(series) => series,
        // Slowly converging alternating tails (q near ½ in log-odds units of 1/z²) or heavy
        // cancellation: integrate instead.
        Err(_) => log_add_exp(
            0.0,
            log_a_minus_one_quadrature(t.alpha, ln_q.exp(), z) + QUADRATURE_SLACK,
        ),
    };
    // A value below what A_α provably exceeds is a numerical failure, not a tighter bound
    // (NaN fails the test too).
    let floor = alpha * ln_q + alpha * (alpha - 1.0) * 0.5 / (z * z);
    let bar = floor
        * if floor >= 0.0 {
            1.0 - FLOOR_SLACK
        } else {
            1.0 + FLOOR_SLACK
        };
    if direct.is_nan() || direct < bar {
        return convex.min(minkowski());
    }
    direct.min(convex)
}

/// Relative slack on the Minkowski bound (a few ulps of rounding in its two logs).
const CLOSED_SLACK: f64 = 1e-13;

/// Relative rounding allowed between a correct series value and the lower bound it is
/// checked against (both are sums of a few terms of that size).
const FLOOR_SLACK: f64 = 1e-12;

/// Relative slack added to the quadrature fallback (its accuracy is ~1e-13).
const QUADRATURE_SLACK: f64 = 1e-10;

/// ln(A_α − 1) = ln E_{x∼N(0,z²)}[(1 + u)^α − 1 − αu], u = q(e^y − 1), y = (2x−1)/(2z²).
///
/// The subtracted αu has mean zero (E[e^y] = 1) and makes the integrand non-negative
/// (convexity of (1 + u)^α), so no cancellation happens between regions.
fn log_a_minus_one_quadrature(alpha: f64, q: f64, z: f64) -> f64 {
    let ln_q = q.ln();
    let g = |x: f64| {
        let y = (2.0 * x - 1.0) / (2.0 * z * z);
        -0.5 * (x / z).powi(2) - LN_SQRT_2PI - z.ln() + ln_convex_gap(y, alpha, q, ln_q)
    };
    // Mass sits between the untilted Gaussian at 0 and the fully tilted one at α.
    let (lo, hi) = (-40.0 * z - 1.0, alpha.max(2.0) + 40.0 * z + 1.0);
    // The integrand's features have width ~z (the Gaussian) and ~z² (the switch of the mixture).
    let width = (0.5 * z).min(z * z).max(1e-3);
    log_integrate(g, lo, hi, ((hi - lo) / width).ceil() as usize)
}

/// ln((1 + u)^α − 1 − αu) with u = q(e^y − 1) > −1, α > 1 (the quantity is ≥ 0), in log space
/// for large y where u itself overflows.
fn ln_convex_gap(y: f64, alpha: f64, q: f64, ln_q: f64) -> f64 {
    if y == 0.0 {
        return f64::NEG_INFINITY;
    }
    if y < 0.0 || ln_q + ln_expm1(y) < (0.01 / alpha).ln() {
        let u = q * y.exp_m1();
        if (u * alpha).abs() < 0.01 {
            // Σ_{k≥2} C(α,k) u^k, dominated by its positive first term.
            let mut term = 0.5 * alpha * (alpha - 1.0) * u * u;
            let mut sum = term;
            for k in 2..40 {
                term *= (alpha - k as f64) * u / (k + 1) as f64;
                sum += term;
                if term.abs() <= 1e-18 * sum {
                    break;
                }
            }
            return sum.ln();
        }
        // −q < u < 0: (1 + u)^α − 1 − αu = α|u| − (1 − (1 + u)^α).
        return log_sub_exp((alpha * -u).ln(), (-(alpha * u.ln_1p()).exp_m1()).ln());
    }
    let ln_u = ln_q + ln_expm1(y);
    let v = alpha * log_add_exp(0.0, ln_u); // α ln(1 + u)
    log_sub_exp(v, log_add_exp(0.0, alpha.ln() + ln_u))
}

/// `b ln(1 − q) + ln(1 + bq) = −Σ_{k≥2} (b + (−1)^k b^k) q^k / k` (≤ 0), accurate when the two
/// logs nearly cancel (small bq).
fn head_exponent(b: f64, q: f64, ln_1mq: f64) -> f64 {
    if b * q >= 0.1 || q >= 0.1 {
        return b * ln_1mq + (b * q).ln_1p();
    }
    let (mut sum, mut qk, mut bk) = (0.0, q, b);
    for k in 2..60 {
        qk *= q;
        bk *= -b;
        sum -= (b - bk) * qk / k as f64;
        // Odd terms vanish at b = 1, so stop on the size of the coefficient, not the term.
        if (b + bk.abs()) * qk <= 1e-18 * sum.abs() {
            break;
        }
    }
    sum
}

/// ln A_α for fractional α by the two-series expansion, rounded up (see module docs).
///
/// The sum is organised as `A_α − 1` so that tiny ε keeps its relative precision: the first two
/// terms of series 0 are combined analytically with the −1, using Φ(x) = 1 − Φ(−x):
/// `T₀ + T₁ − 1 = expm1((α−1) ln(1−q) + ln(1 + (α−1)q)) − (1−q)^{α−1}[(1−q)Φ(−a₀) + αqΦ(−a₁)]`
/// with `aᵢ = (z₀ − i)/z`; both parts are ≤ 0 and second order in q when q is small.
fn log_a_fractional(t: &mut FracTerms, ln_q: f64, ln_1mq: f64, z: f64) -> Result<f64> {
    let alpha = t.alpha;
    let inv2s2 = 0.5 / (z * z);
    let z0 = z * z * (ln_1mq - ln_q) + 0.5;
    let head_gap = log1m_exp(head_exponent(alpha - 1.0, ln_q.exp(), ln_1mq));
    let head_tails = (alpha - 1.0) * ln_1mq
        + log_add_exp(
            ln_1mq + log_norm_cdf(-z0 / z),
            alpha.ln() + ln_q + log_norm_cdf(-(z0 - 1.0) / z),
        );
    let (mut pos, mut neg) = (f64::NEG_INFINITY, log_add_exp(head_gap, head_tails));
    let (mut prev0, mut prev1) = (f64::INFINITY, f64::INFINITY);
    let mut i = 0usize;
    let bound = loop {
        if i == t.log_t0.len() {
            t.extend_to(2 * i + 16, ln_q, ln_1mq);
        }
        let fi = i as f64;
        let j = alpha - fi;
        let s0 = if i < 2 {
            f64::NEG_INFINITY // folded into the head above
        } else {
            t.log_t0[i] + (fi * fi - fi) * inv2s2 + log_norm_cdf((z0 - fi) / z)
        };
        let s1 = t.log_t1[i] + (j * j - j) * inv2s2 + log_norm_cdf((j - z0) / z);
        let s = log_add_exp(s0, s1);
        if t.negative[i] {
            neg = log_add_exp(neg, s);
        } else {
            pos = log_add_exp(pos, s);
        }
        i += 1;
        let current = if pos > neg {
            log_sub_exp(pos, neg)
        } else {
            pos
        };
        if fi > alpha + 1.0 && s0 <= prev0 && s1 <= prev1 && s < current + LN_TOL {
            // Alternating tails: each remainder is at most its series' last term.
            break s;
        }
        if i >= MAX_TERMS + 2 * alpha as usize {
            return Err(DpError::Invalid(format!(
                "fractional-order series did not converge (alpha = {alpha}, z = {z})"
            )));
        }
        prev0 = s0;
        prev1 = s1;
    };
    // Each log-space addition is accurate to a few ulps of the running magnitude.
    let rounding = log_add_exp(pos, neg) + (4.0 * i as f64 * f64::EPSILON).ln();
    let margin = log_add_exp(bound, rounding);
    let upper = log_add_exp(pos, margin);
    if neg >= upper {
        return Err(DpError::Invalid(format!(
            "cancellation in the fractional-order series (alpha = {alpha}, z = {z})"
        )));
    }
    let log_gap = log_sub_exp(upper, neg); // ln(A_α − 1), rounded up
    if margin - log_gap > LN_MAX_MARGIN {
        // The terms nearly cancel (A_α − 1 ≪ the terms, e.g. q near 1 with large z): the rounded-up
        // value would be needlessly loose.
        return Err(DpError::Invalid(format!(
            "imprecise fractional-order series (alpha = {alpha}, z = {z})"
        )));
    }
    // ln A_α = ln(1 + (A_α − 1)); A_α ≥ 1 always (Rényi divergences are ≥ 0).
    Ok(log_add_exp(0.0, log_gap))
}

/// Per-step RDP of the Poisson-subsampled Gaussian at one order.
pub fn rdp(q: f64, z: f64, alpha: f64) -> Result<f64> {
    Ok(SubsampledGaussian::new(q, &[alpha])?.rdp_per_step(z)?[0])
}

/// RDP curve of DP-SGD: `steps` Poisson-subsampled Gaussian steps.
pub fn dpsgd_curve(q: f64, z: f64, steps: u64, orders: &[f64]) -> Result<RdpCurve> {
    SubsampledGaussian::new(q, orders)?.curve(z, steps)
}

/// (ε at the given δ) of DP-SGD via RDP.
pub fn dpsgd_epsilon(q: f64, z: f64, steps: u64, delta: f64, orders: &[f64]) -> Result<f64> {
    check_delta(delta)?;
    Ok(dpsgd_curve(q, z, steps, orders)?.epsilon(delta)?.0)
}

/// Smallest noise multiplier whose DP-SGD run (q, steps) is (ε, δ)-DP by RDP accounting; the
/// returned z satisfies `dpsgd_epsilon(q, z, steps, δ) ≤ ε`. A convenience over
/// [`calibrate_dpsgd`] with [`Event::dpsgd`] on a fresh [`RdpAccountant`].
pub fn calibrate_noise_multiplier(
    q: f64,
    steps: u64,
    eps: f64,
    delta: f64,
    orders: &[f64],
) -> Result<f64> {
    let rdp = RdpAccountant::with_orders(orders)?;
    let target = Target::new(eps, delta)?;
    calibrate_dpsgd(
        || rdp.fresh(),
        |z| Event::dpsgd(q, z, steps),
        target,
        q,
        steps,
    )
}

/// Smallest noise multiplier a DP-SGD calibration returns. At z = 10⁻³ one step already costs
/// ε(α) ≈ α/(2z²) = 5·10⁵ per unit order at any sampling rate: a target that only a smaller z
/// misses is no privacy target, and refusing it keeps every calibration on a range where
/// the accountants are fast and accurate.
pub const MIN_CALIBRATED_NOISE: f64 = 1e-3;

/// [`calibrate`] of a DP-SGD noise multiplier over [`dpsgd_bracket`] (`event_of` builds the
/// run for a given z: Poisson or without replacement, tuned or not).
///
/// Errors ([`DpError::Calibration`]) when [`MIN_CALIBRATED_NOISE`] already meets the target:
/// the answer would lie below it.
pub fn calibrate_dpsgd<A: Accountant>(
    mut fresh: impl FnMut() -> A,
    mut event_of: impl FnMut(f64) -> Result<Event>,
    target: Target,
    q: f64,
    steps: u64,
) -> Result<f64> {
    let bracket = dpsgd_bracket(q, steps, target)?;
    let floor = MIN_CALIBRATED_NOISE;
    let at_floor = epsilon_of(fresh(), &event_of(floor)?, target.delta())?;
    if at_floor <= target.epsilon() {
        return Err(DpError::Calibration(format!(
            "target epsilon = {:e} at delta = {:e} is beyond what any noise multiplier >= \
             {floor:e} reaches: z = {floor:e} already gives epsilon = {at_floor:.3e}, and smaller \
             noise multipliers are not calibrated; ask for a smaller epsilon",
            target.epsilon(),
            target.delta()
        )));
    }
    calibrate(fresh, event_of, target, bracket)
}

/// Search range of a DP-SGD noise multiplier, started at the Gaussian-composition heuristic
/// `q·√(2T ln(1/δ))/ε` (only affects speed).
pub fn dpsgd_bracket(q: f64, steps: u64, target: Target) -> Result<Bracket> {
    check_sampling_rate(q)?;
    ensure(steps >= 1, "steps", steps as f64, "must be >= 1")?;
    let (eps, delta) = (target.epsilon(), target.delta());
    Ok(Bracket {
        name: "noise multiplier",
        start: (q * (2.0 * steps as f64 * (1.0 / delta).ln()).sqrt() / eps).max(0.3),
        lo: 0.0,
        hi: f64::INFINITY,
    })
}

#[cfg(test)]
#[path = "subsampled_gaussian_tests.rs"]
mod tests;
