//! The one answer to "what ε does this event certify at δ?": the smallest bound of the
//! accountants that support the event. Every cell of every method, built-in or outside, is
//! certified here, from the event of what ran, so the same event always gets the same ε.
//!
//! The accountants, each a valid upper bound, the minimum taken:
//! - **RDP** on the default orders (supports every event but `NonPrivate`);
//! - **PLD**, where it supports the event (it may decline a long, low-noise composition whose
//!   discretisation window would be too large: RDP's answer stands then);
//! - **the revealed closed form** for T steps of a Gaussian on batches drawn with replacement
//!   (paper P-SGD: `with_replacement_gaussian.rs`), which PLD declines;
//! - **single release**: one `EpsilonDelta{ε, δ₀}` is (ε, δ₀)-DP, so ε at any δ ≥ δ₀ and ∞
//!   below (RDP cannot bound an approximate-DP release at all, and pays a conversion term on a
//!   pure one);
//! - **basic composition with the δ split evenly** for a top-level `Composed` of k ≥ 2 parts:
//!   part i is (εᵢ(δ/k), δ/k)-DP, so the whole is (Σ εᵢ(δ/k), δ)-DP (Dwork et al. 2006). One
//!   level only: each part is certified by RDP and PLD. This is one-vs-all's split (each class
//!   at δ/K, as Iyengar et al. split it), which beats the joint composition when the parts
//!   are few pure-ish releases.
//!
//! A composition of pure ε-DP parts is left to RDP and PLD: basic composition of them would
//! certify P-FW's T pure steps lower than its calibration reaches (a valid bound, but every
//! stored P-FW cell would move). A top-level `Composed` of pure releases still gets Σ εᵢ
//! through the split, each part being a single release.
//!
//! `NonPrivate` (or any event containing it) certifies ∞.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::accounting::accountant::{Accountant, epsilon_of};
use crate::accounting::event::Event;
use crate::accounting::pld_accountant::PldAccountant;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::accounting::with_replacement_gaussian;
use crate::error::Result;

/// Certifies events at a δ with the smallest bound among the accountants that support them,
/// remembering its answers (grid points repeat their events across trials).
pub struct Certifier {
    rdp: RdpAccountant,
    pld: PldAccountant,
    cache: Mutex<HashMap<(String, u64, bool), f64>>,
}

impl Default for Certifier {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Certifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Certifier")
    }
}

impl Certifier {
    /// RDP on the default orders and PLD with their default settings.
    pub fn new() -> Self {
        Self::with(RdpAccountant::new(), PldAccountant::new())
    }

    /// A certifier on these (fresh) accountants; each certification composes on a fresh copy.
    pub fn with(rdp: RdpAccountant, pld: PldAccountant) -> Self {
        Self {
            rdp,
            pld,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The RDP accountant it certifies with (calibrations use it so that they aim at the
    /// same bound).
    pub fn rdp(&self) -> &RdpAccountant {
        &self.rdp
    }

    /// The tightest ε at `delta` this project can certify for `event`: ∞ for a release without
    /// guarantee.
    pub fn epsilon(&self, event: &Event, delta: f64) -> Result<f64> {
        self.certify(event, delta, true)
    }

    /// The smallest δ at `epsilon` among the bounds that support `event`: RDP's, PLD's, the
    /// revealed closed form's and a single (ε₀, δ₀) release's δ₀ where ε ≥ ε₀; 1 for a
    /// release without guarantee. An error only where none supports it (the last one's).
    pub fn delta(&self, event: &Event, epsilon: f64) -> Result<f64> {
        crate::error::check_nonnegative("epsilon", epsilon)?;
        if event.contains_non_private() {
            return Ok(1.0);
        }
        let single = match event {
            Event::EpsilonDelta {
                epsilon: e0,
                delta: d0,
            } if epsilon >= *e0 => Some(Ok(*d0)),
            _ => None,
        };
        let revealed = revealed_parts(event).map(|(z, draws, population, steps)| {
            with_replacement_gaussian::revealed_delta(z, draws, population, steps, epsilon)
        });
        let mut best: Option<f64> = None;
        let mut last = None;
        let all = [
            delta_of(self.rdp.fresh(), event, epsilon),
            delta_of(self.pld.fresh(), event, epsilon),
        ];
        for r in all.into_iter().chain(single).chain(revealed) {
            match r {
                Ok(d) => best = Some(best.map_or(d, |b| b.min(d))),
                Err(e) => last = Some(e),
            }
        }
        match (best, last) {
            (Some(d), _) => Ok(d.min(1.0)),
            (None, Some(e)) => Err(e),
            (None, None) => unreachable!("two accountants always answer"),
        }
    }

    /// [`Certifier::epsilon`], with the split bound only where `split` holds (the parts of a
    /// split are certified without it: one level only). Answers are cached by event, δ and
    /// `split`, so the K equal parts of a one-vs-all composition are certified once.
    fn certify(&self, event: &Event, delta: f64, split: bool) -> Result<f64> {
        if let Some(eps) = self.single(event, delta) {
            return Ok(eps);
        }
        let key = (
            serde_json::to_string(event).expect("events serialise"),
            delta.to_bits(),
            split,
        );
        if let Some(e) = self.cache.lock().expect("certificate cache").get(&key) {
            return Ok(*e);
        }
        let joint = self.joint(event, delta);
        let parts = if split {
            self.split(event, delta)
        } else {
            None
        };
        let eps = match (joint, parts) {
            (Ok(j), Some(Ok(b))) => j.min(b),
            (Ok(j), _) => j,
            // RDP cannot bound an approximate-DP part; the split can.
            (Err(_), Some(Ok(b))) => b,
            (Err(e), _) => return Err(e),
        };
        self.cache
            .lock()
            .expect("certificate cache")
            .insert(key, eps);
        Ok(eps)
    }

    /// Basic composition of a top-level `Composed` of k ≥ 2 parts, each certified at δ/k
    /// (`None` for any other event).
    fn split(&self, event: &Event, delta: f64) -> Option<Result<f64>> {
        let Event::Composed(parts) = event else {
            return None;
        };
        // Parts proved for different relations cannot be summed into either relation's ε.
        if parts.len() < 2 || event.neighbours().is_err() {
            return None;
        }
        let share = delta / parts.len() as f64;
        Some(
            parts
                .iter()
                .try_fold(0.0, |sum, part| Ok(sum + self.certify(part, share, false)?)),
        )
    }

    /// The single-release accountant: `Some` for `NonPrivate` (∞) and one `EpsilonDelta{ε, δ₀}`
    /// release (ε where δ ≥ δ₀, else ∞), `None` for everything else.
    fn single(&self, event: &Event, delta: f64) -> Option<f64> {
        match event {
            Event::NonPrivate => Some(f64::INFINITY),
            Event::EpsilonDelta { epsilon, delta: d0 } => Some(if delta >= *d0 {
                *epsilon
            } else {
                f64::INFINITY
            }),
            _ => None,
        }
    }

    /// The smallest of RDP's, PLD's (where it supports the event) and the revealed closed
    /// form's (where the event is one).
    fn joint(&self, event: &Event, delta: f64) -> Result<f64> {
        let rdp = epsilon_of(self.rdp.fresh(), event, delta)?;
        let pld = match self.pld.supports(event) {
            Ok(()) => epsilon_of(self.pld.fresh(), event, delta).map_or(rdp, |p| p.min(rdp)),
            Err(_) => rdp,
        };
        Ok(match revealed(event, delta) {
            Some(r) => r?.min(pld),
            None => pld,
        })
    }
}

/// δ at `epsilon` of `event` by one fresh accountant.
fn delta_of<A: Accountant>(mut a: A, event: &Event, epsilon: f64) -> Result<f64> {
    a.compose(event, 1)?;
    a.delta(epsilon)
}

/// T steps (or one) of a Gaussian on batches drawn with replacement, in the closed form that
/// reveals each step's multiplicity ([`with_replacement_gaussian::revealed_epsilon`]); `None`
/// for any other event.
fn revealed(event: &Event, delta: f64) -> Option<Result<f64>> {
    revealed_parts(event).map(|(z, draws, population, steps)| {
        with_replacement_gaussian::revealed_epsilon(z, draws, population, steps, delta)
    })
}

/// (z, draws, population, steps) of an event the revealed closed form covers.
fn revealed_parts(event: &Event) -> Option<(f64, u64, u64, u64)> {
    let (step, steps) = match event {
        Event::SelfComposed { event, count } => (event.as_ref(), *count),
        other => (other, 1),
    };
    let Event::SampledWithReplacement {
        population,
        draws,
        event: inner,
    } = step
    else {
        return None;
    };
    let Event::Gaussian { noise_multiplier } = inner.as_ref() else {
        return None;
    };
    Some((*noise_multiplier, *draws, *population, steps))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_is_the_smallest_bound_and_inverts_epsilon() {
        let c = Certifier::new();
        let swr = Event::sampled_with_replacement(1000, 50, Event::gaussian(0.5).unwrap())
            .unwrap()
            .self_composed(100);
        let eps = c.epsilon(&swr, 1e-6).unwrap();
        let d = c.delta(&swr, eps).unwrap();
        assert!(d > 0.0 && d <= 1e-6, "{d}");
        // RDP alone says far more there: the closed form is taken.
        assert!(d < delta_of(RdpAccountant::new(), &swr, eps).unwrap());
        assert_eq!(c.delta(&Event::NonPrivate, 5.0).unwrap(), 1.0);
        let one = Event::EpsilonDelta {
            epsilon: 1.0,
            delta: 1e-6,
        };
        assert!(c.delta(&one, 2.0).unwrap() <= 1e-6);
        assert!(c.delta(&Event::gaussian(1.0).unwrap(), -1.0).is_err());
    }

    #[test]
    fn no_guarantee_and_nothing_released_are_infinity_and_zero() {
        let c = Certifier::new();
        assert_eq!(c.epsilon(&Event::NonPrivate, 1e-5).unwrap(), f64::INFINITY);
        let with = Event::Composed(vec![Event::gaussian(1.0).unwrap(), Event::NonPrivate]);
        assert_eq!(c.epsilon(&with, 1e-5).unwrap(), f64::INFINITY);
        assert_eq!(c.epsilon(&Event::NoOp, 1e-5).unwrap(), 0.0);
    }

    #[test]
    fn one_approximate_release_holds_from_its_delta_on_only() {
        let c = Certifier::new();
        let e = Event::epsilon_delta(0.7, 1e-6).unwrap();
        assert_eq!(c.epsilon(&e, 1e-6).unwrap(), 0.7);
        assert_eq!(c.epsilon(&e, 1e-3).unwrap(), 0.7);
        assert_eq!(c.epsilon(&e, 1e-7).unwrap(), f64::INFINITY);
        // A pure release is exactly its ε, where RDP adds a conversion term.
        let pure = Event::epsilon_delta(0.7, 0.0).unwrap();
        assert_eq!(c.epsilon(&pure, 1e-9).unwrap(), 0.7);
        assert!(c.joint(&pure, 1e-9).unwrap() > 0.7);
        let three = Event::Composed(vec![pure.clone(), pure.clone(), pure]);
        assert!((c.epsilon(&three, 1e-9).unwrap() - 2.1).abs() < 1e-12);
    }

    /// A top-level composition of parts proved for different relations is refused, not summed
    /// part by part; a relation-free part (a validation score) composes with either.
    #[test]
    fn parts_of_different_relations_are_not_summed() {
        let c = Certifier::new();
        let poisson = Event::dpsgd(0.01, 1.1, 100).unwrap();
        let wor = Event::dpsgd_without_replacement(0.01, 1.1, 100).unwrap();
        assert!(
            c.epsilon(&Event::Composed(vec![poisson, wor.clone()]), 1e-5)
                .is_err()
        );
        let score = Event::epsilon_delta(0.1, 0.0).unwrap();
        let swr = Event::sampled_with_replacement(1000, 100, score.clone())
            .unwrap()
            .self_composed(10);
        for train in [wor, swr] {
            let e = Event::Composed(vec![train.clone(), score.clone()]);
            let both = c.epsilon(&e, 1e-5).unwrap();
            assert!(both > c.epsilon(&train, 1e-5).unwrap(), "{}", train.kind());
        }
    }

    #[test]
    fn the_answer_is_the_smallest_valid_bound() {
        let c = Certifier::new();
        let g = Event::gaussian(2.0).unwrap();
        let rdp = epsilon_of(RdpAccountant::new(), &g, 1e-5).unwrap();
        let pld = epsilon_of(PldAccountant::new(), &g, 1e-5).unwrap();
        assert_eq!(c.epsilon(&g, 1e-5).unwrap(), rdp.min(pld));
        assert!(pld < rdp);
        // Two approximate releases: only the split bound exists (RDP cannot bound them).
        let two = Event::Composed(vec![
            Event::epsilon_delta(0.5, 1e-6).unwrap(),
            Event::epsilon_delta(0.25, 1e-6).unwrap(),
        ]);
        assert_eq!(c.epsilon(&two, 2e-6).unwrap(), 0.75);
        assert_eq!(c.epsilon(&two, 1.9e-6).unwrap(), f64::INFINITY);
    }

    #[test]
    fn the_split_never_exceeds_the_joint_bound_and_wins_only_where_valid() {
        let c = Certifier::new();
        let g = Event::gaussian(3.0).unwrap();
        let k = 10;
        let composed = Event::Composed(vec![g.clone(); k]);
        let joint = c.joint(&composed, 1e-5).unwrap();
        let split = k as f64 * c.joint(&g, 1e-5 / k as f64).unwrap();
        assert_eq!(c.epsilon(&composed, 1e-5).unwrap(), joint.min(split));
        // The ten equal parts were certified once: one entry for them, one for the whole.
        assert_eq!(c.cache.lock().unwrap().len(), 2);
        // Certifying again answers from the cache, the same bits.
        assert_eq!(
            c.epsilon(&composed, 1e-5).unwrap().to_bits(),
            joint.min(split).to_bits()
        );
    }

    #[test]
    fn more_composition_never_certifies_less() {
        let c = Certifier::new();
        let g = Event::gaussian(1.5).unwrap();
        let mut last = 0.0;
        for k in 1..6 {
            let e = c
                .epsilon(&Event::Composed(vec![g.clone(); k]), 1e-5)
                .unwrap();
            assert!(e > last, "{k}: {e} after {last}");
            last = e;
        }
    }
}
