//! RDP of the Gaussian mechanism on a lot of exactly m = γ·n records drawn uniformly without
//! replacement, for replace-one neighbours: Wang, Balle & Kasiviswanathan (2019, AISTATS;
//! arXiv 1808.00087), Theorems 9 and 27, as autodp 0.1 (`rdp_acct.py`) and dp_accounting
//! (`_compute_rdp_sample_wor_gaussian_int`) evaluate it. This is DPareto's privacy oracle
//! (Avent et al. 2020). Formula sheet: `docs/derivations.md` §8.
//!
//! Per step, for integer α ≥ 2, with ε(α) = α/(2z²) and Mⱼ the j-th forward difference of
//! `e^{(α−1)ε(α)}` at 0 (module `forward_differences`):
//!
//! ```text
//! A_α = 1 + Σ_{j=2..α} γʲ C(α,j) min(4·√(M_{2⌊j/2⌋} M_{2⌈j/2⌉}), 2·e^{(j−1)ε(j)}),
//! ε'(α) = min(ln A_α/(α − 1), ε(α))
//! ```
//!
//! (at j = 2 this is the theorem's `min(4(e^{ε(2)} − 1), 2e^{ε(2)})`). The cap ε(α) is the plain
//! Gaussian's RDP: a lot that differs from its neighbour's in at most one record under the
//! natural coupling, joint convexity keeps the subsampled divergence below it, and at γ = 1
//! (the whole dataset) it is exact, where the theorem alone is looser.
//!
//! Differences from autodp (each more accurate, or never smaller):
//! - the Mⱼ are computed to full precision (quadrature of a non-negative integrand) instead of
//!   by pairwise log-space differences, which lose every digit at large z (they change the
//!   eleven reference ε of Avent et al. by < 1e-12 relative, but elsewhere make autodp's RDP
//!   too small by up to 6e-4 relative, see `forward_differences`);
//! - orders 801–1000 use the full bound; autodp drops the Δ terms there (keeping only
//!   `2e^{(j−1)ε(j)}`, never smaller);
//! - above [`MAX_ORDER`] the bound is not evaluated and only the Gaussian cap applies (autodp
//!   and this module's integer grid stop at 1000: the optimum order is below 1000 unless ε ≪ 0.1);
//! - fractional orders interpolate the log-moment (α − 1)ε'(α) linearly between the integers
//!   around them (WBK19 Corollary 10; a Rényi CGF is convex with value 0 at α = 1).
//!
//! Cost: [`WorGaussian::new`] does the z-dependent work once (the Mⱼ, ~2–4 ms); each order α
//! then costs O(α) for a given γ, so a full integer curve is ~5·10⁵ terms. Below z = 0.1 the Mⱼ
//! are bounded in closed form instead of integrated (`forward_differences`): there
//! `4√(M M) > 2e^{(j−1)ε(j)}` for every j, so the theorem's minimum is the Gaussian branch and
//! nothing is lost, and time and memory stay bounded for every z > 0. Where z is so small that
//! `e^{(j−1)ε(j)}` overflows, the bound is +∞ (no guarantee), never a NaN or a 0.

use std::f64::consts::LN_2;

use crate::accounting::forward_differences::log_even_differences;
use crate::accounting::rdp_curve::{Conversion, RdpCurve, check_order};
use crate::error::{DpError, Result, check_delta, check_positive, check_sampling_rate, ensure};
use crate::special::{ln_factorials, log_add_exp};

/// Largest order at which the bound is evaluated (autodp's limit).
pub const MAX_ORDER: u32 = 1000;

/// Terms of A_α − 1 more than this far below the largest (in log) are counted at that size
/// instead of exactly (at most 1000·e^{−40} ≈ 4e-15 of the sum, upwards).
const NEGLIGIBLE: f64 = 40.0;

/// The integer orders 2, 3, …, [`MAX_ORDER`] on which DPareto minimises.
pub fn integer_orders() -> Vec<f64> {
    (2..=MAX_ORDER).map(f64::from).collect()
}

/// The bound's z-dependent part for one noise multiplier, reusable for any sampling rate,
/// order and number of steps.
#[derive(Clone, Debug)]
pub struct WorGaussian {
    z: f64,
    /// ln of the j-th term's factor `min(4√(M_{2⌊j/2⌋} M_{2⌈j/2⌉}), 2e^{(j−1)ε(j)})`, j = 0..=MAX_ORDER
    /// (entries 0 and 1 unused).
    factor: Vec<f64>,
}

impl WorGaussian {
    /// Precomputes the forward differences for noise multiplier `z > 0` (σ over the replace-one
    /// sensitivity).
    pub fn new(noise_multiplier: f64) -> Result<Self> {
        check_positive("noise-multiplier", noise_multiplier)?;
        let z = noise_multiplier;
        let max = MAX_ORDER as usize;
        let ln_m = log_even_differences(z, max.div_ceil(2));
        let ln_4 = 2.0 * LN_2;
        let mut factor = vec![f64::NEG_INFINITY; max + 1];
        for (j, f) in factor.iter_mut().enumerate().skip(2) {
            let delta_term = ln_4 + 0.5 * (ln_m[j / 2] + ln_m[j.div_ceil(2)]);
            let jf = j as f64;
            *f = delta_term.min(LN_2 + (jf - 1.0) * jf / (2.0 * z * z));
        }
        if factor.iter().skip(2).any(|f| f.is_nan()) {
            return Err(DpError::Invalid(format!(
                "sampling-without-replacement bound is NaN for noise multiplier {z}"
            )));
        }
        Ok(Self { z, factor })
    }

    /// The noise multiplier z.
    pub fn noise_multiplier(&self) -> f64 {
        self.z
    }

    /// The plain Gaussian's RDP α/(2z²), which caps the bound.
    fn gaussian(&self, alpha: f64) -> f64 {
        alpha / (2.0 * self.z * self.z)
    }

    /// ln A_α of the theorem (without the cap) at integer α ∈ [2, MAX_ORDER], ln γ given,
    /// rounded up by its floating-point error bound.
    fn log_a(&self, ln_rate: f64, alpha: u32) -> f64 {
        let a = alpha as usize;
        let ln_fact = &ln_factorials()[..=a];
        // Terms jγ + ln C(α,j) + factor_j for j = 2..=α, then their log-sum-exp.
        let mut terms = [0.0; MAX_ORDER as usize + 1];
        let terms = &mut terms[2..=a];
        let (mut m, mut scale) = (f64::NEG_INFINITY, 0.0f64);
        for (j, t) in (2..=a).zip(terms.iter_mut()) {
            let (rate_part, factor) = (j as f64 * ln_rate, self.factor[j]);
            *t = rate_part + ln_fact[a] - ln_fact[j] - ln_fact[a - j] + factor;
            m = m.max(*t);
            // Each term is off by a few ulps of its largest parts (ln α! reaches 5912).
            scale = scale.max(rate_part.abs() + 2.0 * ln_fact[a] + factor.abs());
        }
        if m == f64::INFINITY {
            // A factor overflowed (tiny z): the sum below would meet ∞ − ∞.
            return m;
        }
        // Terms below e^{−40} of the largest are not exponentiated; they are added as e^{−40}
        // each, so the sum stays rounded up.
        let (mut sum, mut skipped) = (0.0, 0.0);
        for &t in terms.iter() {
            if t - m > -NEGLIGIBLE {
                sum += (t - m).exp();
            } else {
                skipped += 1.0;
            }
        }
        sum += skipped * (-NEGLIGIBLE).exp();
        let rounding = f64::EPSILON * (4.0 * scale + a as f64);
        // ln(1 + S), which keeps its relative precision when S is tiny.
        log_add_exp(0.0, m + sum.ln() + rounding)
    }

    /// Uncapped per-step bound ln A_α/(α − 1) of the theorem at an integer order α ∈
    /// [2, [`MAX_ORDER`]] (for tests of the theorem itself; use [`WorGaussian::rdp`]).
    pub fn theorem_bound(&self, rate: f64, alpha: u32) -> Result<f64> {
        check_sampling_rate(rate)?;
        ensure(
            (2..=MAX_ORDER).contains(&alpha),
            "order",
            f64::from(alpha),
            "must be an integer in [2, 1000]",
        )?;
        Ok(self.log_a(rate.ln(), alpha) / f64::from(alpha - 1))
    }

    /// Per-step RDP at integer order α ≥ 2 (the Gaussian cap alone above [`MAX_ORDER`]).
    fn rdp_integer(&self, ln_rate: f64, alpha: u32) -> f64 {
        let cap = self.gaussian(f64::from(alpha));
        if ln_rate == 0.0 || alpha > MAX_ORDER {
            return cap;
        }
        (self.log_a(ln_rate, alpha) / f64::from(alpha - 1)).min(cap)
    }

    /// Per-step RDP ε'(α) at sampling rate γ = m/n ∈ (0, 1] and any order α > 1 (module docs).
    pub fn rdp(&self, rate: f64, alpha: f64) -> Result<f64> {
        Ok(self.curve(rate, &[alpha])?.eps[0])
    }

    /// Per-step RDP curve at sampling rate γ on the given orders (each > 1).
    pub fn curve(&self, rate: f64, orders: &[f64]) -> Result<RdpCurve> {
        check_sampling_rate(rate)?;
        let ln_rate = rate.ln();
        // Each integer order is evaluated once, however many fractional orders share it.
        let mut at_integer = vec![f64::NAN; MAX_ORDER as usize + 2];
        let mut at = |n: u32| -> f64 {
            let slot = &mut at_integer[n as usize];
            if slot.is_nan() {
                *slot = self.rdp_integer(ln_rate, n);
            }
            *slot
        };
        RdpCurve::try_from_fn(orders, |alpha| {
            check_order(alpha)?;
            let cap = self.gaussian(alpha);
            if alpha > f64::from(MAX_ORDER) {
                return Ok(cap);
            }
            let lo = alpha.floor();
            let t = alpha - lo;
            let lo = lo as u32;
            if t == 0.0 {
                return Ok(at(lo));
            }
            // The log moment (α − 1)ε(α) is 0 at α = 1.
            let k_lo = if lo < 2 {
                0.0
            } else {
                f64::from(lo - 1) * at(lo)
            };
            let k_hi = f64::from(lo) * at(lo + 1);
            Ok((((1.0 - t) * k_lo + t * k_hi) / (alpha - 1.0))
                .min(cap)
                .max(0.0))
        })
    }

    /// Per-step RDP curve on the integer orders 2..=[`MAX_ORDER`] ([`integer_orders`]).
    pub fn integer_curve(&self, rate: f64) -> Result<RdpCurve> {
        self.curve(rate, &integer_orders())
    }

    /// ε at δ after `steps` steps at sampling rate γ, minimised over the integer orders
    /// 2..=[`MAX_ORDER`], and the order attaining it.
    ///
    /// Orders are evaluated in doubling blocks, stopping once the last order α cannot be beaten
    /// by a larger one: with ε'(α) non-decreasing in α (as every Rényi divergence is, and the
    /// bound is, module tests), any α' ≥ α costs at least `T·ε'(α) − (1 + ln α)/(α − 1)` under
    /// either conversion. Were the bound not monotone somewhere, stopping early could only
    /// miss a smaller ε, never report one that is too small.
    pub fn epsilon(
        &self,
        rate: f64,
        steps: u64,
        delta: f64,
        conversion: Conversion,
    ) -> Result<(f64, f64)> {
        check_delta(delta)?;
        check_sampling_rate(rate)?;
        let ln_rate = rate.ln();
        let mut eps = Vec::with_capacity(MAX_ORDER as usize);
        let mut block_end = 32;
        loop {
            let first = eps.len() as u32 + 2;
            eps.extend((first..=block_end).map(|a| self.rdp_integer(ln_rate, a)));
            let orders: Vec<f64> = (2..=block_end).map(f64::from).collect();
            let best = RdpCurve::new(orders, eps.clone())?
                .scaled(steps)
                .epsilon_with(delta, conversion)?;
            let last = f64::from(block_end);
            let floor = steps as f64 * eps[eps.len() - 1] - (1.0 + last.ln()) / (last - 1.0);
            if block_end == MAX_ORDER || floor >= best.0 {
                return Ok(best);
            }
            block_end = (2 * block_end).min(MAX_ORDER);
        }
    }
}

/// ε at δ (and the optimal order) of `steps` steps of the Gaussian with noise multiplier z on
/// lots drawn without replacement at rate γ = m/n: DPareto's privacy oracle with
/// [`Conversion::Classic`].
pub fn epsilon(
    rate: f64,
    noise_multiplier: f64,
    steps: u64,
    delta: f64,
    conversion: Conversion,
) -> Result<(f64, f64)> {
    WorGaussian::new(noise_multiplier)?.epsilon(rate, steps, delta, conversion)
}

#[cfg(test)]
#[path = "subsampled_gaussian_wor_tests.rs"]
mod tests;
