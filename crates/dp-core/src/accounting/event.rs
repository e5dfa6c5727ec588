//! Privacy events: what a mechanism did, described by exactly the quantities an accountant
//! needs and nothing else (modelled on Google dp_accounting's `DpEvent`).
//!
//! A mechanism *describes* its privacy with an [`Event`] built from public quantities only
//! (noise scales, sampling rates, step counts, norm bounds fixed before the data are read);
//! an [`crate::accounting::Accountant`] turns events into (ε, δ). Compatibility rule, as in
//! dp_accounting: never change what a variant means; add a variant instead.
//!
//! Sampling events carry their neighbouring relation ([`Event::neighbours`]): Poisson sampling
//! is for add/remove-one neighbours, [`Event::SampledWithoutReplacement`] and
//! [`Event::SampledWithReplacement`] for replace-one. `Gaussian` and `EpsilonDelta` carry none:
//! their sensitivities are in the units of the relation they are certified under, as in the
//! JSON vocabulary (`event_json`). `ObjPert` is add/remove (its bound is proved for it).
//! Sensitivities are normalised to 1: a Gaussian with noise σ on a query of ℓ2 sensitivity Δ
//! is `Gaussian { noise_multiplier: σ/Δ }`.

use serde::{Deserialize, Serialize};

use crate::accounting::objpert::ObjPert;
use crate::accounting::private_selection::Selection;
use crate::accounting::with_replacement;
use crate::error::{DpError, Result, check_epsilon_delta, check_positive, check_sampling_rate};

/// Which datasets an event's guarantee treats as neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Neighbours {
    /// Datasets that differ by adding or removing one record (every event but one).
    AddRemove,
    /// Datasets of the same public size that differ in one record
    /// ([`Event::SampledWithoutReplacement`], [`Event::SampledWithReplacement`]).
    ReplaceOne,
}

/// One privacy event. Build with the checked constructors ([`Event::gaussian`], …) when the
/// values come from outside; the accountants re-check every field anyway.
///
/// Events of the same mechanism compose however they are written. Gaussian noise adds up like
/// variances, so k Gaussians of multiplier z are exactly one Gaussian of multiplier z/√k, and a
/// DP-SGD run that samples every record (rate 1) is that composition too:
/// ```
/// use dp_core::accounting::gaussian;
/// use dp_core::accounting::{Event, PldAccountant, RdpAccountant, epsilon_of};
///
/// let (z, k, delta) = (3.0, 16, 1e-6);
/// let one = Event::gaussian(z / (k as f64).sqrt())?;
/// let written_out = [
///     Event::gaussian(z)?.self_composed(k),
///     Event::Composed(vec![Event::gaussian(z)?; k as usize]),
///     Event::dpsgd(1.0, z, k)?,
/// ];
/// let rdp = |e: &Event| epsilon_of(RdpAccountant::new(), e, delta);
/// let eps_one = rdp(&one)?;
/// for e in &written_out {
///     let eps = rdp(e)?;
///     assert!((eps - eps_one).abs() <= 1e-9 * eps_one, "{}: {eps} vs {eps_one}", e.kind());
/// }
///
/// // PLD composes the 16 losses by FFT; it must land on the safe side of the exact ε of one
/// // Gaussian of multiplier z/4 (Balle & Wang 2018) and close to it.
/// let exact = gaussian::epsilon(delta, z / 4.0, 1.0)?;
/// let eps_pld = epsilon_of(PldAccountant::new(), &written_out[0], delta)?;
/// assert!(exact <= eps_pld && eps_pld <= exact + 1e-4, "{eps_pld} vs {exact}");
/// # Ok::<(), dp_core::DpError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// Nothing was released: costs nothing (e.g. K = 0 runs of a selection).
    NoOp,
    /// A release with no privacy guarantee: every accountant reports ε = ∞ (and δ = 1).
    NonPrivate,
    /// A mechanism known only to be (ε, δ)-DP (AMP, report-noisy-max steps, …). δ = 0 is
    /// pure ε-DP, which RDP accountants can compose (ε(α) ≤ min(ε, αε²/2), Bun & Steinke 2016).
    /// It carries no relation: ε must be the one for the relation it is certified under.
    EpsilonDelta {
        /// ε ≥ 0.
        epsilon: f64,
        /// δ ∈ [0, 1).
        delta: f64,
    },
    /// The Gaussian mechanism N(f(D), σ²I) on a query of ℓ2 sensitivity Δ, with
    /// `noise_multiplier` = σ/Δ (Balle & Wang 2018; RDP α/(2z²)). It carries no relation: Δ
    /// must be the sensitivity for the relation it is certified under (a clipped sum's is C
    /// under add/remove, 2C under replace-one), also beside a sampling event that fixes one.
    Gaussian {
        /// z = σ/Δ > 0.
        noise_multiplier: f64,
    },
    /// Objective perturbation for GLMs (Redberg et al. 2023, Thm 3.1/3.2): noise σ on the
    /// linear term, regulariser λ > β, per-example Hessian bound β and gradient bound L, in the
    /// units of the fields of [`ObjPert`] (not normalised: L is the gradient bound itself).
    ObjPert(ObjPert),
    /// `event` run on a Poisson subsample that keeps each record independently with
    /// probability `rate` (DP-SGD's batches). Accountants support it around a Gaussian.
    PoissonSampled {
        /// Sampling rate q ∈ (0, 1].
        rate: f64,
        /// The mechanism run on the subsample.
        event: Box<Event>,
    },
    /// `event` run on a lot of exactly m = `rate`·n records drawn uniformly without replacement
    /// from the n records, afresh each time it runs (DPareto's DP-SGD, Avent et al. 2020).
    ///
    /// Its guarantee is for **replace-one** neighbours: datasets of the same, public size n that
    /// differ in one record. So `event`'s parameters are in replace-one units: a Gaussian's
    /// noise multiplier is σ over the replace-one sensitivity (2C for a sum of gradients
    /// clipped to norm C, twice the add/remove sensitivity). A replace-one neighbour is an
    /// add/remove neighbour twice over, and a replace-one guarantee says nothing about datasets
    /// of another size, so the two kinds of ε are not interchangeable and accountants refuse to
    /// compose this event with add/remove events. The RDP accountant supports it around a
    /// Gaussian (Wang, Balle & Kasiviswanathan 2019; `subsampled_gaussian_wor`).
    SampledWithoutReplacement {
        /// Sampling rate γ = m/n ∈ (0, 1].
        rate: f64,
        /// The mechanism run on the lot.
        event: Box<Event>,
    },
    /// `event` run on a batch of `draws` records drawn uniformly *with replacement* from the
    /// `population` records, afresh each time it runs (Iyengar et al.'s P-FW minibatches).
    ///
    /// Replace-one neighbours, as [`Event::SampledWithoutReplacement`]. `event`'s parameters
    /// are per copy: its guarantee is against replacing one element of the batch, so a record
    /// drawn k times costs k of them (group privacy). Accountants support it around a pure
    /// ε-DP event, through the bound of [`crate::accounting::with_replacement`], and around a
    /// Gaussian through the looser one of [`crate::accounting::with_replacement_gaussian`].
    SampledWithReplacement {
        /// n, the records drawn from (≥ 1).
        population: u64,
        /// m, the draws per batch (≤ [`crate::accounting::with_replacement::MAX_DRAWS`]).
        draws: u64,
        /// The mechanism run on the batch, per copy.
        event: Box<Event>,
    },
    /// `count` independent runs of `event` (adaptive composition).
    SelfComposed {
        /// The repeated mechanism.
        event: Box<Event>,
        /// Number of runs.
        count: u64,
    },
    /// Each event in turn (adaptive composition).
    Composed(Vec<Event>),
    /// One of these events, picked at random independently of the data (a tuned run that draws
    /// its hyperparameters from a fixed grid). Its RDP is at most the pointwise maximum of the
    /// components' (Rényi divergence is jointly quasi-convex: van Erven & Harremoës 2014,
    /// Thm 13), also when the pick is released with the output.
    Mixture(Vec<Event>),
    /// Papernot & Steinke (2022) private selection: `event` run a random number K of times
    /// (K drawn from `selection`), only the best run released. Their theorems need K
    /// independent runs of *one* randomised algorithm, whose event this is.
    RepeatAndSelect {
        /// Event of one run of the base algorithm.
        event: Box<Event>,
        /// Distribution of the number of runs K.
        selection: Selection,
    },
}

impl Event {
    /// Whether any part of the event releases without guarantee (`NonPrivate`): no
    /// accountant can bound it, and its ε is ∞ at every δ < 1.
    pub fn contains_non_private(&self) -> bool {
        match self {
            Event::NonPrivate => true,
            Event::PoissonSampled { event, .. }
            | Event::SampledWithoutReplacement { event, .. }
            | Event::SampledWithReplacement { event, .. }
            | Event::SelfComposed { event, .. }
            | Event::RepeatAndSelect { event, .. } => event.contains_non_private(),
            Event::Composed(v) | Event::Mixture(v) => v.iter().any(Event::contains_non_private),
            _ => false,
        }
    }

    /// Checked `Gaussian` event: z > 0.
    pub fn gaussian(noise_multiplier: f64) -> Result<Event> {
        check_positive("noise-multiplier", noise_multiplier)?;
        Ok(Event::Gaussian { noise_multiplier })
    }

    /// Checked `EpsilonDelta` event: ε ≥ 0, δ ∈ [0, 1).
    pub fn epsilon_delta(epsilon: f64, delta: f64) -> Result<Event> {
        check_epsilon_delta(epsilon, delta)?;
        Ok(Event::EpsilonDelta { epsilon, delta })
    }

    /// Checked `PoissonSampled` event: q ∈ (0, 1].
    pub fn poisson_sampled(rate: f64, event: Event) -> Result<Event> {
        check_sampling_rate(rate)?;
        Ok(Event::PoissonSampled {
            rate,
            event: Box::new(event),
        })
    }

    /// Checked `SampledWithoutReplacement` event: γ = m/n ∈ (0, 1].
    pub fn sampled_without_replacement(rate: f64, event: Event) -> Result<Event> {
        check_sampling_rate(rate)?;
        Ok(Event::SampledWithoutReplacement {
            rate,
            event: Box::new(event),
        })
    }

    /// Checked `SampledWithReplacement` event: a population of at least one record and at most
    /// [`crate::accounting::with_replacement::MAX_DRAWS`] draws.
    pub fn sampled_with_replacement(population: u64, draws: u64, event: Event) -> Result<Event> {
        with_replacement::check_sizes(draws, population)?;
        Ok(Event::SampledWithReplacement {
            population,
            draws,
            event: Box::new(event),
        })
    }

    /// `count` runs of `self`.
    pub fn self_composed(self, count: u64) -> Event {
        Event::SelfComposed {
            event: Box::new(self),
            count,
        }
    }

    /// `self` run K ~ `selection` times, the best released.
    pub fn repeat_and_select(self, selection: Selection) -> Event {
        Event::RepeatAndSelect {
            event: Box::new(self),
            selection,
        }
    }

    /// DP-SGD: `steps` Poisson-subsampled Gaussian steps (rate q, noise multiplier z).
    pub fn dpsgd(sampling_rate: f64, noise_multiplier: f64, steps: u64) -> Result<Event> {
        let step = Event::poisson_sampled(sampling_rate, Event::gaussian(noise_multiplier)?)?;
        Ok(step.self_composed(steps))
    }

    /// DPareto's DP-SGD: `steps` Gaussian steps (noise multiplier z over the replace-one
    /// sensitivity), each on a fresh lot of m = `sampling_rate`·n records drawn without
    /// replacement. Replace-one neighbours ([`Event::SampledWithoutReplacement`]).
    pub fn dpsgd_without_replacement(
        sampling_rate: f64,
        noise_multiplier: f64,
        steps: u64,
    ) -> Result<Event> {
        let step =
            Event::sampled_without_replacement(sampling_rate, Event::gaussian(noise_multiplier)?)?;
        Ok(step.self_composed(steps))
    }

    /// The neighbouring relation this event's guarantee is for: `None` when it holds for any
    /// (`NoOp`, `NonPrivate`) or is read in the units of the relation it is certified under
    /// (`Gaussian`, `EpsilonDelta`: a validation score's Laplace count moves by one under
    /// either), an error when its parts mix relations (then it bounds neither).
    pub fn neighbours(&self) -> Result<Option<Neighbours>> {
        let join = |a: Option<Neighbours>, b: Option<Neighbours>| match (a, b) {
            (Some(x), Some(y)) if x != y => Err(DpError::Invalid(format!(
                "a {} event mixes add/remove-one and replace-one neighbours",
                self.kind()
            ))),
            (x, y) => Ok(x.or(y)),
        };
        match self {
            Event::NoOp
            | Event::NonPrivate
            | Event::EpsilonDelta { .. }
            | Event::Gaussian { .. } => Ok(None),
            // The inner event's parameters are in replace-one units; the relation is this one.
            Event::SampledWithoutReplacement { .. } | Event::SampledWithReplacement { .. } => {
                Ok(Some(Neighbours::ReplaceOne))
            }
            Event::PoissonSampled { event, .. } => {
                join(Some(Neighbours::AddRemove), event.neighbours()?)
            }
            Event::SelfComposed { event, .. } | Event::RepeatAndSelect { event, .. } => {
                event.neighbours()
            }
            Event::Composed(events) | Event::Mixture(events) => events
                .iter()
                .try_fold(None, |acc, e| join(acc, e.neighbours()?)),
            Event::ObjPert(_) => Ok(Some(Neighbours::AddRemove)),
        }
    }

    /// The ε of basic composition when every part is pure ε-DP (`NoOp`, `EpsilonDelta{ε, 0}`,
    /// a `SampledWithReplacement` around one at its ε′, and compositions of them): the bound
    /// that holds with δ = 0. `None` for anything else, including Poisson-amplified or
    /// selected pure parts, whose bounds here are approximate.
    pub fn pure_epsilon(&self) -> Option<f64> {
        match self {
            Event::NoOp => Some(0.0),
            Event::EpsilonDelta { epsilon, delta } if *delta == 0.0 => Some(*epsilon),
            Event::SampledWithReplacement {
                population,
                draws,
                event,
            } => match event.as_ref() {
                Event::EpsilonDelta { epsilon, delta } if *delta == 0.0 => {
                    with_replacement::pure_epsilon(*epsilon, *draws, *population).ok()
                }
                _ => None,
            },
            Event::SelfComposed { event, count } => Some(event.pure_epsilon()? * *count as f64),
            Event::Composed(parts) => parts.iter().map(Event::pure_epsilon).sum(),
            _ => None,
        }
    }

    /// A short human-readable name of the variant, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::NoOp => "NoOp",
            Event::NonPrivate => "NonPrivate",
            Event::EpsilonDelta { .. } => "EpsilonDelta",
            Event::Gaussian { .. } => "Gaussian",
            Event::ObjPert(_) => "ObjPert",
            Event::PoissonSampled { .. } => "PoissonSampled",
            Event::SampledWithoutReplacement { .. } => "SampledWithoutReplacement",
            Event::SampledWithReplacement { .. } => "SampledWithReplacement",
            Event::SelfComposed { .. } => "SelfComposed",
            Event::Composed(_) => "Composed",
            Event::Mixture(_) => "Mixture",
            Event::RepeatAndSelect { .. } => "RepeatAndSelect",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pure_epsilon_is_basic_composition_of_pure_parts_only() {
        let pure = Event::epsilon_delta(0.25, 0.0).unwrap();
        let three = Event::Composed(vec![
            pure.clone(),
            Event::NoOp,
            pure.clone().self_composed(2),
        ]);
        assert_eq!(three.pure_epsilon(), Some(0.75));
        assert_eq!(
            Event::epsilon_delta(0.25, 1e-9).unwrap().pure_epsilon(),
            None
        );
        let with_gaussian = Event::Composed(vec![pure.clone(), Event::gaussian(1.0).unwrap()]);
        assert_eq!(with_gaussian.pure_epsilon(), None);
        let sampled = Event::poisson_sampled(0.1, pure).unwrap();
        assert_eq!(sampled.pure_epsilon(), None);
        assert_eq!(Event::NonPrivate.pure_epsilon(), None);
    }

    #[test]
    fn constructors_check_their_fields() {
        assert!(matches!(
            Event::gaussian(0.0),
            Err(DpError::OutOfRange {
                name: "noise-multiplier",
                ..
            })
        ));
        assert!(matches!(
            Event::poisson_sampled(1.5, Event::NoOp),
            Err(DpError::OutOfRange {
                name: "sampling-rate",
                ..
            })
        ));
        assert!(matches!(
            Event::epsilon_delta(1.0, 1.0),
            Err(DpError::OutOfRange { name: "delta", .. })
        ));
        let e = Event::dpsgd(0.01, 1.1, 100).unwrap();
        assert_eq!(e.kind(), "SelfComposed");
        assert!(matches!(
            Event::dpsgd_without_replacement(0.0, 1.0, 10),
            Err(DpError::OutOfRange {
                name: "sampling-rate",
                ..
            })
        ));
        assert!(matches!(
            Event::dpsgd_without_replacement(0.1, -1.0, 10),
            Err(DpError::OutOfRange {
                name: "noise-multiplier",
                ..
            })
        ));
        let w = Event::sampled_without_replacement(1.0, Event::gaussian(2.0).unwrap()).unwrap();
        assert_eq!(w.kind(), "SampledWithoutReplacement");
    }

    #[test]
    fn neighbouring_relations_combine_and_never_mix() {
        let wor = Event::dpsgd_without_replacement(0.01, 1.0, 10).unwrap();
        let poisson = Event::dpsgd(0.01, 1.0, 10).unwrap();
        assert_eq!(wor.neighbours(), Ok(Some(Neighbours::ReplaceOne)));
        assert_eq!(poisson.neighbours(), Ok(Some(Neighbours::AddRemove)));
        assert_eq!(Event::NonPrivate.neighbours(), Ok(None));
        let with_noop = Event::Composed(vec![Event::NoOp, wor.clone(), Event::NonPrivate]);
        assert_eq!(with_noop.neighbours(), Ok(Some(Neighbours::ReplaceOne)));
        let tuned = wor
            .clone()
            .repeat_and_select(Selection::poisson(3.0).unwrap());
        assert_eq!(tuned.neighbours(), Ok(Some(Neighbours::ReplaceOne)));
        for mixed in [
            Event::Composed(vec![wor.clone(), poisson.clone()]),
            Event::Mixture(vec![poisson, wor.clone()]),
            Event::poisson_sampled(1.0, wor).unwrap(),
        ] {
            assert!(
                matches!(mixed.neighbours(), Err(DpError::Invalid(_))),
                "{}",
                mixed.kind()
            );
        }
    }

    #[test]
    fn events_serialise_with_their_parameters() {
        let e = Event::dpsgd(0.01, 1.1, 100).unwrap();
        let s = serde_json::to_string(&e).unwrap();
        assert!(
            s.contains("\"rate\":0.01") && s.contains("1.1") && s.contains("100"),
            "{s}"
        );
        let w = Event::dpsgd_without_replacement(0.25, 2.5, 7).unwrap();
        let s = serde_json::to_string(&w).unwrap();
        assert!(
            s.contains("sampled_without_replacement") && s.contains("\"rate\":0.25"),
            "{s}"
        );
    }
}
