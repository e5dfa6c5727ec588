//! Every PLD an audit ceiling reads keeps Q's mass whole (to its truncation budget). The
//! ceiling reads each curve in both directions, and Q-mass a discretisation drops reads,
//! swapped, as an event only one dataset shows: a ceiling far too high. Rounding randomised
//! response's atoms up once dropped 0.25 % of it over 50 steps.

use dp_core::accounting::PldAccountant;
use dp_core::accounting::event::Event;
use dp_core::accounting::pld::Pmf;

/// Q's total mass on the grid: Σ pᵢ e^{−ωᵢ}.
fn q_mass(pmf: &Pmf) -> f64 {
    (0..pmf.probs().len())
        .map(|i| pmf.probs()[i] * (-pmf.loss(i)).exp())
        .sum()
}

#[test]
fn every_ceiling_curve_keeps_q_whole() {
    let pure = |epsilon: f64| Event::EpsilonDelta {
        epsilon,
        delta: 0.0,
    };
    let events = [
        (
            "gaussian",
            Event::Gaussian {
                noise_multiplier: 1.1,
            },
        ),
        (
            "dp-sgd",
            Event::PoissonSampled {
                rate: 0.1,
                event: Box::new(Event::Gaussian {
                    noise_multiplier: 1.0,
                }),
            }
            .self_composed(50),
        ),
        ("pure steps", pure(0.0312).self_composed(50)),
        (
            "pure steps, off the grid",
            pure(0.123_456_7).self_composed(20),
        ),
        ("one pure release", pure(3.0)),
    ];
    // Not objective perturbation: its dominating pair (Redberg et al., Thm 3.1) has loss at
    // least c + s²/2 > 0 under P, so Q's mass on P's support is below 1 by construction (0.46
    // at σ = 2, λ = 1, β = 0.25, L = 1), and its curve read as two laws is loose. Ceilings
    // join every such curve with the PLD's privacy profile (`audit::ceiling::profile_curve`),
    // which does not need Q whole; `audit::ceiling`'s tests check what that changes.
    let accountant = PldAccountant::new().with_pure_dp();
    for (name, event) in events {
        let pld = accountant.pld(&event).unwrap().unwrap();
        for pmf in [pld.remove(), pld.add()] {
            let q = q_mass(pmf);
            assert!((q - 1.0).abs() < 1e-9, "{name}: Q's mass {q}");
        }
    }
}
