//! A discretised privacy-loss distribution: masses on the uniform grid ω_i = i·h plus a mass
//! at +∞, and the privacy profile δ(ε) read off it.

use crate::error::{DpError, Result, check_positive, ensure};

/// Slack allowed on the total mass of a user-supplied PMF (summation round-off).
const MASS_SLACK: f64 = 1e-9;

/// Distribution of the privacy loss L = log(P(o)/Q(o)), o ~ P, on the grid
/// ω_i = (offset + i)·h, together with the probability of infinite loss.
///
/// Read as a pair of measures, the masses `p_i` at ω_i are P's and `p_i e^{-ω_i}` are Q's
/// (any remaining Q-mass sits where P has none), so a `Pmf` is itself a pair of
/// distributions and may be composed like a mechanism.
#[derive(Clone, Debug, PartialEq)]
pub struct Pmf {
    grid_step: f64,
    offset: i64,
    probs: Vec<f64>,
    infinity_mass: f64,
}

impl Pmf {
    /// Validated constructor: `probs[i]` is the mass at loss `(offset + i)·grid_step`.
    pub fn new(grid_step: f64, offset: i64, probs: Vec<f64>, infinity_mass: f64) -> Result<Self> {
        check_positive("grid-step", grid_step)?;
        ensure(
            (0.0..=1.0).contains(&infinity_mass),
            "infinity-mass",
            infinity_mass,
            "must be in [0, 1]",
        )?;
        if probs.is_empty() {
            return Err(DpError::Invalid(
                "a PLD needs at least one grid point".into(),
            ));
        }
        if let Some(&bad) = probs.iter().find(|p| !(p.is_finite() && **p >= 0.0)) {
            return Err(DpError::OutOfRange {
                name: "probability",
                value: bad,
                allowed: "must be finite and >= 0",
            });
        }
        let total = probs.iter().sum::<f64>() + infinity_mass;
        ensure(
            total <= 1.0 + MASS_SLACK,
            "total-mass",
            total,
            "must be <= 1",
        )?;
        Ok(Self::from_parts(grid_step, offset, probs, infinity_mass))
    }

    /// Unchecked constructor for the accountant's own (already valid) results.
    pub(crate) fn from_parts(
        grid_step: f64,
        offset: i64,
        probs: Vec<f64>,
        infinity_mass: f64,
    ) -> Self {
        debug_assert!(!probs.is_empty());
        Self {
            grid_step,
            offset,
            probs,
            infinity_mass,
        }
    }

    /// Grid spacing h.
    pub fn grid_step(&self) -> f64 {
        self.grid_step
    }

    /// Grid index of `probs()[0]`.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// Masses at the grid points, lowest loss first.
    pub fn probs(&self) -> &[f64] {
        &self.probs
    }

    /// Probability of infinite privacy loss (includes every pessimistic error term).
    pub fn infinity_mass(&self) -> f64 {
        self.infinity_mass
    }

    /// Privacy loss at position `i` of `probs()`.
    pub fn loss(&self, i: usize) -> f64 {
        (self.offset + i as i64) as f64 * self.grid_step
    }

    /// Hockey-stick divergence δ(ε) = m_∞ + Σ_i p_i (1 − e^{ε − ω_i})₊ for any real ε.
    pub fn delta(&self, epsilon: f64) -> f64 {
        let n = self.probs.len();
        // Atoms at or below ε contribute nothing; start just below the first one above ε.
        let start =
            ((epsilon / self.grid_step).floor() - self.offset as f64).clamp(0.0, n as f64) as usize;
        let start = start.saturating_sub(1);
        let mut sum = 0.0;
        for (i, &p) in self.probs.iter().enumerate().skip(start) {
            let w = self.loss(i);
            if w > epsilon {
                sum += p * -(epsilon - w).exp_m1();
            }
        }
        self.infinity_mass + sum
    }

    /// Smallest ε ≥ 0 with δ(ε) ≤ `delta` (`f64::INFINITY` if the infinity mass exceeds it).
    ///
    /// δ(ε) is linear in e^ε between grid points, so the crossing is solved exactly on its
    /// segment; the candidate is then re-checked with [`Pmf::delta`] and moved up if
    /// round-off put it on the wrong side, so the returned ε never violates the target.
    pub fn epsilon(&self, delta: f64) -> f64 {
        if self.infinity_mass > delta {
            return f64::INFINITY;
        }
        let h = self.grid_step;
        let decay = (-h).exp();
        let one_m_decay = -(-h).exp_m1();
        let n = self.probs.len();
        // Walk down the grid keeping d = δ(ω_g) and c = Σ_{i≥g} p_i e^{−(ω_i − ω_g)}; then
        // δ(ω_g − t) = d + c (1 − e^{−t}) for 0 ≤ t ≤ h. All terms are non-negative, so the
        // recursion has no cancellation.
        let mut g = n - 1;
        let mut d = self.infinity_mass;
        let mut c = self.probs[g];
        while g > 0 {
            let d_prev = d + one_m_decay * c;
            if d_prev > delta {
                break;
            }
            g -= 1;
            d = d_prev;
            c = self.probs[g] + decay * c;
        }
        // Solve on the segment; retry with a slightly smaller target before falling back to
        // bisection, since an exact solve lands on either side of the target by round-off.
        let solve = |target: f64| {
            let slack = target - d;
            let t = if c <= 0.0 || slack >= c {
                f64::INFINITY
            } else {
                -(-slack / c).ln_1p()
            };
            let t = if g > 0 { t.min(h) } else { t };
            (self.loss(g) - t).max(0.0)
        };
        let candidate = solve(delta);
        if self.delta(candidate) <= delta {
            return candidate;
        }
        self.verified_epsilon(solve(delta * (1.0 - 1e-9)), delta)
    }

    /// Returns `candidate` if δ(candidate) ≤ target, else bisects up towards the top grid
    /// point, where δ equals the infinity mass (≤ target by the caller's check).
    fn verified_epsilon(&self, candidate: f64, target: f64) -> f64 {
        if self.delta(candidate) <= target {
            return candidate;
        }
        let mut lo = candidate;
        let mut hi = self.loss(self.probs.len() - 1).max(candidate);
        while hi - lo > 1e-13 * hi.abs().max(1.0) {
            let mid = 0.5 * (lo + hi);
            if self.delta(mid) <= target {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// Removes the lower and upper tails of mass ≤ `tail_mass / 2` each, pessimistically:
    /// the lower tail is rounded up onto the first kept grid point, the upper tail becomes
    /// infinite loss. With `tail_mass = 0` only zero-mass ends are dropped.
    pub(crate) fn truncate_tails(mut self, tail_mass: f64) -> Self {
        let half = 0.5 * tail_mass;
        let n = self.probs.len();
        let (mut lo, mut low_mass) = (0usize, 0.0);
        while lo + 1 < n && low_mass + self.probs[lo] <= half {
            low_mass += self.probs[lo];
            lo += 1;
        }
        let (mut hi, mut high_mass) = (n - 1, 0.0);
        while hi > lo && high_mass + self.probs[hi] <= half {
            high_mass += self.probs[hi];
            hi -= 1;
        }
        self.probs.truncate(hi + 1);
        self.probs.drain(..lo);
        self.probs[0] += low_mass;
        self.offset += lo as i64;
        self.infinity_mass = (self.infinity_mass + high_mass).min(1.0);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_delta(p: &Pmf, eps: f64) -> f64 {
        p.infinity_mass()
            + (0..p.probs().len())
                .map(|i| p.probs()[i] * (1.0 - (eps - p.loss(i)).exp()).max(0.0))
                .sum::<f64>()
    }

    fn sample() -> Pmf {
        Pmf::new(0.1, -3, vec![0.1, 0.2, 0.05, 0.3, 0.15, 0.1, 0.05], 0.01).unwrap()
    }

    #[test]
    fn delta_matches_brute_force_sum() {
        let p = sample();
        for k in -50..60 {
            let eps = k as f64 * 0.013;
            assert!(
                (p.delta(eps) - brute_delta(&p, eps)).abs() < 1e-15,
                "eps={eps}"
            );
        }
    }

    #[test]
    fn epsilon_is_the_smallest_feasible_value() {
        let p = sample();
        for &target in &[0.011, 0.02, 0.05, 0.1, 0.2] {
            let eps = p.epsilon(target);
            assert!(p.delta(eps) <= target, "target {target}");
            if eps > 0.0 {
                assert!(
                    p.delta(eps - 1e-9) > target,
                    "target {target}: eps {eps} not tight"
                );
            }
        }
        assert_eq!(p.epsilon(0.005), f64::INFINITY);
        assert_eq!(p.epsilon(0.9), 0.0);
    }

    #[test]
    fn truncation_is_pessimistic() {
        let p = Pmf::new(1.0, 0, vec![1e-9, 2e-9, 0.5, 0.5 - 6e-9, 1e-9, 2e-9], 0.0).unwrap();
        let t = p.clone().truncate_tails(1e-8);
        assert_eq!(t.probs().len(), 2);
        assert_eq!(t.offset(), 2);
        assert!((t.infinity_mass() - 3e-9).abs() < 1e-20);
        for k in -5..10 {
            let eps = k as f64 * 0.5;
            assert!(t.delta(eps) >= p.delta(eps) - 1e-16);
        }
    }

    #[test]
    fn constructor_rejects_bad_input() {
        assert!(Pmf::new(0.0, 0, vec![1.0], 0.0).is_err());
        assert!(Pmf::new(0.1, 0, vec![0.7, 0.7], 0.0).is_err());
        assert!(Pmf::new(0.1, 0, vec![-0.1, 0.5], 0.0).is_err());
        assert!(Pmf::new(0.1, 0, vec![], 0.5).is_err());
    }
}
