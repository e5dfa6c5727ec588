//! What can be checked in an event that an outside learner declares, before it is certified:
//! a fit that read the data must cost something, and certifying the declaration must take
//! bounded time.
//!
//! - **Nothing free.** A release that trains on the records cannot be `NoOp`, a zero count,
//!   a zero sampling rate or ε = 0: [`releases_nothing`] finds such a declaration (the whole
//!   event, not a part: `Composed[Gaussian, NoOp]` is fine).
//! - **Folded.** Composition is commutative and RDP and PLD compose identical parts exactly as
//!   a self-composition, so [`fold`] writes k equal parts of a `Composed` as one
//!   `SelfComposed` of count k (nested counts multiply), and a `Mixture` of one distinct part
//!   as that part. PLD composes a `SelfComposed` by powering one loss distribution, a
//!   `Composed` one convolution per part: a declared `Composed` of 1,000 Gaussians took over
//!   40 s per cell unfolded and a fraction of a second folded.
//! - **Capped.** What folding cannot shrink, distinct parts of compositions, is what costs
//!   PLD time: [`check_cost`] refuses more than [`MAX_DISTINCT_PARTS`] of them in one
//!   declaration (docs/limits.md).

use crate::accounting::event::Event;
use crate::error::{DpError, Result};

/// Most distinct parts summed over every `Composed` of a folded declaration.
pub const MAX_DISTINCT_PARTS: usize = 256;

/// Whether `event` as a whole releases nothing a neighbour could change: `NoOp`, a zero count,
/// a zero sampling rate, ε = 0, or a composition, mixture or selection of such.
pub fn releases_nothing(event: &Event) -> bool {
    match event {
        Event::NoOp => true,
        Event::EpsilonDelta { epsilon, .. } => *epsilon == 0.0,
        Event::SelfComposed { event, count } => *count == 0 || releases_nothing(event),
        Event::PoissonSampled { rate, event }
        | Event::SampledWithoutReplacement { rate, event } => {
            *rate == 0.0 || releases_nothing(event)
        }
        Event::SampledWithReplacement { draws, event, .. } => {
            *draws == 0 || releases_nothing(event)
        }
        Event::Composed(parts) | Event::Mixture(parts) => parts.iter().all(releases_nothing),
        Event::RepeatAndSelect { event, .. } => releases_nothing(event),
        _ => false,
    }
}

/// `event` with equal parts folded (module docs); the same privacy curve, written so that
/// the accountants compose it in time that does not grow with the number of equal parts.
/// `None` when a folded count would overflow u64.
pub fn fold(event: &Event) -> Option<Event> {
    Some(match event {
        Event::SelfComposed { event, count } => match fold(event)? {
            Event::SelfComposed {
                event,
                count: inner,
            } => Event::SelfComposed {
                event,
                count: count.checked_mul(inner)?,
            },
            e => Event::SelfComposed {
                event: Box::new(e),
                count: *count,
            },
        },
        Event::Composed(parts) => {
            // (part, count) in order of first appearance.
            let mut groups: Vec<(Event, u64)> = Vec::new();
            for p in parts {
                let (e, k) = match fold(p)? {
                    Event::SelfComposed { event, count } => (*event, count),
                    e => (e, 1),
                };
                match groups.iter_mut().find(|g| g.0 == e) {
                    Some(g) => g.1 = g.1.checked_add(k)?,
                    None => groups.push((e, k)),
                }
            }
            let mut folded: Vec<Event> = groups
                .into_iter()
                .map(|(e, k)| if k == 1 { e } else { e.self_composed(k) })
                .collect();
            if folded.len() == 1 {
                folded.pop().expect("one part")
            } else {
                Event::Composed(folded)
            }
        }
        Event::Mixture(parts) => {
            let mut distinct: Vec<Event> = Vec::new();
            for p in parts {
                let e = fold(p)?;
                if !distinct.contains(&e) {
                    distinct.push(e);
                }
            }
            if distinct.len() == 1 {
                distinct.pop().expect("one part")
            } else {
                Event::Mixture(distinct)
            }
        }
        Event::PoissonSampled { rate, event } => Event::PoissonSampled {
            rate: *rate,
            event: Box::new(fold(event)?),
        },
        Event::SampledWithoutReplacement { rate, event } => Event::SampledWithoutReplacement {
            rate: *rate,
            event: Box::new(fold(event)?),
        },
        Event::SampledWithReplacement {
            population,
            draws,
            event,
        } => Event::SampledWithReplacement {
            population: *population,
            draws: *draws,
            event: Box::new(fold(event)?),
        },
        Event::RepeatAndSelect { event, selection } => Event::RepeatAndSelect {
            event: Box::new(fold(event)?),
            selection: *selection,
        },
        e => e.clone(),
    })
}

/// Refuses a (folded) declaration with more than [`MAX_DISTINCT_PARTS`] distinct parts over
/// its compositions, naming the count and the cap.
pub fn check_cost(event: &Event) -> Result<()> {
    let parts = distinct_parts(event);
    if parts > MAX_DISTINCT_PARTS {
        return Err(DpError::Invalid(format!(
            "event: {parts} distinct composed parts after folding equal ones, more than the \
             {MAX_DISTINCT_PARTS} a declaration may have (certifying each costs the accountants \
             time; docs/limits.md): declare repeated steps as a SelfComposed"
        )));
    }
    Ok(())
}

fn distinct_parts(event: &Event) -> usize {
    match event {
        Event::Composed(parts) => parts.len() + parts.iter().map(distinct_parts).sum::<usize>(),
        Event::Mixture(parts) => parts.iter().map(distinct_parts).sum(),
        Event::SelfComposed { event, .. }
        | Event::PoissonSampled { event, .. }
        | Event::SampledWithoutReplacement { event, .. }
        | Event::SampledWithReplacement { event, .. }
        | Event::RepeatAndSelect { event, .. } => distinct_parts(event),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::{Certifier, Selection};

    fn g(z: f64) -> Event {
        Event::gaussian(z).unwrap()
    }

    #[test]
    fn a_fit_that_costs_nothing_is_found_and_one_free_part_is_not() {
        for free in [
            Event::NoOp,
            Event::epsilon_delta(0.0, 0.0).unwrap(),
            Event::epsilon_delta(0.0, 1e-6).unwrap(),
            g(1.0).self_composed(0),
            Event::Composed(vec![]),
            Event::Composed(vec![Event::NoOp, Event::NoOp.self_composed(3)]),
            Event::NoOp.repeat_and_select(Selection::Poisson { mu: 3.0 }),
        ] {
            assert!(releases_nothing(&free), "{free:?}");
        }
        for costs in [
            g(1000.0),
            Event::Composed(vec![g(1.0), Event::NoOp]),
            Event::dpsgd(0.01, 1.0, 10).unwrap(),
            Event::epsilon_delta(1e-9, 0.0).unwrap(),
            Event::NonPrivate,
        ] {
            assert!(!releases_nothing(&costs), "{costs:?}");
        }
    }

    #[test]
    fn folding_keeps_the_certificate_and_makes_a_thousand_gaussians_one_part() {
        let thousand = Event::Composed(vec![g(30.0); 1000]);
        let folded = fold(&thousand).unwrap();
        assert_eq!(folded, g(30.0).self_composed(1000));
        // Nested counts multiply; distinct parts keep their order and counts.
        let nested =
            Event::Composed(vec![g(1.0), g(2.0).self_composed(3), g(1.0), g(2.0)]).self_composed(5);
        let want = Event::Composed(vec![g(1.0).self_composed(2), g(2.0).self_composed(4)])
            .self_composed(5);
        assert_eq!(fold(&nested).unwrap(), want);
        assert_eq!(
            fold(&g(1.0).self_composed(u64::MAX).self_composed(2)),
            None,
            "an overflowing count is refused, not wrapped"
        );
        let mix = Event::Mixture(vec![g(2.0), g(2.0)]);
        assert_eq!(fold(&mix).unwrap(), g(2.0));
        // The same ε from the certifier (RDP composes additively; PLD's power and its
        // convolutions agree to its discretisation).
        let c = Certifier::new();
        let small = Event::Composed(vec![g(3.0); 8]);
        let (a, b) = (
            c.epsilon(&small, 1e-6).unwrap(),
            c.epsilon(&fold(&small).unwrap(), 1e-6).unwrap(),
        );
        assert!((a - b).abs() <= 1e-3 * a, "{a} vs {b}");
    }

    #[test]
    fn distinct_parts_beyond_the_cap_are_refused_with_the_cap() {
        let many: Vec<Event> = (0..=MAX_DISTINCT_PARTS)
            .map(|i| g(1.0 + i as f64))
            .collect();
        let err = check_cost(&fold(&Event::Composed(many)).unwrap()).unwrap_err();
        assert!(err.to_string().contains("257 distinct"), "{err}");
        let ok: Vec<Event> = (0..MAX_DISTINCT_PARTS).map(|i| g(1.0 + i as f64)).collect();
        check_cost(&Event::Composed(ok)).unwrap();
        check_cost(&fold(&Event::Composed(vec![g(1.0); 9000])).unwrap()).unwrap();
    }
}
