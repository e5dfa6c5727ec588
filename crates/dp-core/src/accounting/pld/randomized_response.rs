//! The PLD of ε-randomised response, the dominating pair of every pure ε-DP mechanism.
//!
//! Any ε-DP mechanism's trade-off curve lies above f_{ε,0} = max(0, 1 − e^ε α, e^{−ε}(1 − α)),
//! which is exactly the curve of binary randomised response with P = (σ(ε), σ(−ε)),
//! Q = (σ(−ε), σ(ε)), σ the logistic function (Kairouz, Oh & Viswanath 2015, Thm 2.4;
//! Dong, Roth & Su 2022, Prop. 2.5). Composition preserves dominance, so the k-fold PLD of
//! this pair bounds every composition of k ε-DP steps: the optimal composition theorem, far
//! tighter than the RDP route (Bun & Steinke's ε²/2 zCDP) the certifier calibrates with.

use super::discretise::share_up;
use super::{Pld, PldConfig, Pmf};
use crate::error::{DpError, Result, check_epsilon_delta};

/// The most grid points one atom pair may span: ε up to 500 at the default h = 1e-4.
const MAX_POINTS: f64 = 1e7;

impl Pld {
    /// The PLD of ε-randomised response (symmetric): loss +ε with P-mass σ(ε), −ε with
    /// σ(−ε), each atom split between its two neighbouring grid points with its P- and Q-mass
    /// preserved (connect-the-dots, pessimistic by the argument of `discretise.rs`). Keeping
    /// Q's mass whole matters to a trade-off curve read in both directions: mass dropped from
    /// Q would read, swapped, as an event only D shows. `None` for ε = 0, which releases
    /// nothing.
    pub fn randomized_response(epsilon: f64, config: &PldConfig) -> Result<Option<Self>> {
        Self::epsilon_delta(epsilon, 0.0, config)
    }

    /// The PLD of the pair that dominates every (ε, δ)-DP mechanism (Kairouz, Oh & Viswanath
    /// 2015, Thm 2.4; Murtagh & Vadhan 2016): with chance δ an outcome only D shows (loss +∞),
    /// otherwise ε-randomised response. δ = 0 is [`Pld::randomized_response`]. `None` for
    /// ε = δ = 0, which releases nothing.
    pub fn epsilon_delta(epsilon: f64, delta: f64, config: &PldConfig) -> Result<Option<Self>> {
        check_epsilon_delta(epsilon, delta)?;
        config.validate()?;
        if epsilon == 0.0 && delta == 0.0 {
            return Ok(None);
        }
        let h = config.grid_step;
        if !epsilon.is_finite() || 2.0 * epsilon / h > MAX_POINTS {
            return Err(DpError::Invalid(format!(
                "randomised response at ε = {epsilon} spans more than {MAX_POINTS} grid points \
                 of step {h}"
            )));
        }
        let lo = (-epsilon / h).floor() as i64;
        let hi = (epsilon / h).floor() as i64 + 1;
        let mut probs = vec![0.0; (hi - lo + 1) as usize];
        // σ(−ε) = 1/(1 + e^ε), computed without cancellation for large ε.
        let low = (1.0 - delta) / (1.0 + epsilon.exp());
        let one_m_decay = -(-h).exp_m1();
        for (loss, mass) in [(-epsilon, low), (epsilon, 1.0 - delta - low)] {
            let below = (loss / h).floor();
            let up = share_up(below * h - loss, one_m_decay);
            let i = (below as i64 - lo) as usize;
            probs[i] += mass * (1.0 - up);
            probs[i + 1] += mass * up;
        }
        let pmf = Pmf::new(h, lo, probs, delta)?;
        Pld::from_pmfs(pmf, None, config).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The (ε, δ) pair's hockey-stick divergences in closed form: δ at every ε′ ≥ ε (the
    /// outcome only D shows), δ + (1 − δ)·tanh(ε/2) at 0; k-fold, the infinite masses
    /// combine as 1 − (1 − δ)^k and the rest is k-fold randomised response scaled by
    /// (1 − δ)^k.
    #[test]
    fn the_epsilon_delta_pair_is_randomised_response_beside_an_infinite_loss() {
        let cfg = PldConfig::default();
        let h = cfg.grid_step;
        for &(eps, delta) in &[(0.5, 1e-6), (2.0, 1e-3), (0.0, 1e-4)] {
            let pld = Pld::epsilon_delta(eps, delta, &cfg).unwrap().unwrap();
            let d = pld.delta(eps + 2.0 * h).unwrap();
            assert!(
                d >= delta && d < delta * (1.0 + 1e-9) + 1e-15,
                "{d} vs {delta}"
            );
            let at_zero = delta + (1.0 - delta) * (eps / 2.0).tanh();
            let d0 = pld.delta(0.0).unwrap();
            assert!(d0 >= at_zero && d0 < at_zero + 2.0 * h, "{d0} vs {at_zero}");
            if eps == 0.0 {
                continue;
            }
            let rr = Pld::randomized_response(eps, &cfg).unwrap().unwrap();
            let (three, rr3) = (pld.self_compose(3).unwrap(), rr.self_compose(3).unwrap());
            let keep = (1.0 - delta).powi(3);
            for x in [0.0, eps, 2.0 * eps] {
                let want = 1.0 - keep + keep * rr3.delta(x).unwrap();
                let got = three.delta(x).unwrap();
                assert!((got - want).abs() < 1e-9, "ε′ = {x}: {got} vs {want}");
            }
        }
        assert!(Pld::epsilon_delta(0.0, 0.0, &cfg).unwrap().is_none());
        assert!(Pld::epsilon_delta(1.0, 1.0, &cfg).is_err());
        assert!(Pld::epsilon_delta(1.0, -0.1, &cfg).is_err());
    }
}
