//! Which rows a cell's choices read, and what releasing a candidate's score costs.
//!
//! With validation rows (`dataset.validation_fraction` > 0), every choice made from data reads
//! validation scores only and the test rows are read once, for the released model. Under the
//! default `validation = "private"`, honest tuning releases each candidate's score by the
//! Laplace mechanism on its count of correct validation predictions: changing one validation
//! row changes that count by at most 1 (a random-tie half or a one-vs-all 1/m credit
//! included), so Lap(1/ε_s) makes the score ε_s-DP (pure), and the candidate's event is its
//! training event composed with that release. The tuned procedure's certificate thus covers
//! the selection too.
//!
//! The guarantee is for neighbours of the fixed split, as for the train/test split before it:
//! the rows are assigned to training, validation and test by seeded permutations of their
//! positions (a stratified draw for validation), and a neighbouring dataset differs in one
//! training or one validation row with the assignment of the others unchanged. Adding a row
//! before the split would reshuffle it; the certificate does not cover that. The two
//! releases are composed over both parts (no parallel composition is claimed).

use dp_core::accounting::event::Event;
use dp_core::learn::laplace::laplace;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

/// The score's share of a candidate's budget: ε_s = `SCORE_SHARE` · ε of the candidate's
/// training. One fixed, data-independent share for every learner (a tenth keeps the score's
/// noise near one accuracy point on a few thousand validation rows at per-run ε ≈ 0.3).
pub const SCORE_SHARE: f64 = 0.1;

/// How selection reads the validation rows (`dataset.validation`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ValidationMode {
    /// Each candidate's score released by the Laplace mechanism and paid for.
    #[default]
    Private,
    /// Exact scores: the validation rows are assumed public (say so beside the results).
    Public,
}

impl ValidationMode {
    /// Whether this is the default (not written back into configs).
    pub fn is_default(&self) -> bool {
        *self == ValidationMode::Private
    }
}

/// Where a cell's choices read their scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The test rows, exactly (the papers' protocol: no validation rows).
    Test,
    /// The validation rows, read as the mode says.
    Validation(ValidationMode),
}

impl Selection {
    /// Whether a candidate's score is released privately and paid for.
    pub fn pays_for_scores(self) -> bool {
        self == Selection::Validation(ValidationMode::Private)
    }

    /// The pure ε of one candidate's released score, for a candidate whose training certifies
    /// `train_epsilon`; `None` when the score is free (the papers' test protocol, public
    /// validation) or meaningless (training without a guarantee).
    pub fn score_epsilon(self, train_epsilon: f64) -> Option<f64> {
        match self {
            // A training ε that is not a number releases a constant score: nothing to pay.
            Selection::Validation(ValidationMode::Private) if train_epsilon.is_nan() => Some(0.0),
            Selection::Validation(ValidationMode::Private) if train_epsilon.is_finite() => {
                Some(SCORE_SHARE * train_epsilon.max(0.0))
            }
            _ => None,
        }
    }

    /// The event of releasing one candidate's score ([`Selection::score_epsilon`]; `None`
    /// when it is free or releases nothing).
    pub fn score_event(self, train_epsilon: f64) -> Option<Event> {
        self.score_epsilon(train_epsilon)
            .filter(|&e| e > 0.0)
            .map(|epsilon| Event::EpsilonDelta {
                epsilon,
                delta: 0.0,
            })
    }

    /// A candidate's event: its training event, composed with its score's release when that
    /// is paid for.
    pub fn candidate_event(self, train: Event, train_epsilon: f64) -> Event {
        match self.score_event(train_epsilon) {
            Some(score) => Event::Composed(vec![train, score]),
            None => train,
        }
    }

    /// The released score (percent) of a candidate whose exact accuracy on the `n` selection
    /// rows is `percent`: exact (the caller's own arithmetic, bit for bit what the papers'
    /// protocol scored), or its count of correct rows with Lap(1/ε_s) noise from `seed`'s own
    /// stream (ε_s = 0 releases a constant 0: no information, no cost).
    pub fn release(self, percent: f64, n: usize, train_epsilon: f64, seed: u64) -> f64 {
        match self.score_epsilon(train_epsilon) {
            None => percent,
            Some(e) if e <= 0.0 => 0.0,
            Some(e) => {
                let mut rng = StdRng::seed_from_u64(dp_core::seed::derive_seed(&[
                    b"validation score",
                    &seed.to_le_bytes(),
                ]));
                // Random ties credit halves: the count moves by at most 1 all the same.
                let correct = percent / 100.0 * n as f64;
                100.0 * (correct + laplace(&mut rng, 1.0 / e)) / n.max(1) as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIVATE: Selection = Selection::Validation(ValidationMode::Private);

    #[test]
    fn free_scores_are_exact_and_cost_nothing() {
        for s in [
            Selection::Test,
            Selection::Validation(ValidationMode::Public),
        ] {
            assert_eq!(s.release(75.0, 40, 1.0, 7), 75.0);
            assert_eq!(s.candidate_event(Event::NoOp, 1.0), Event::NoOp);
        }
        // Without a training guarantee the score's noise would buy nothing; a training ε that
        // is not a number releases a constant, never an exact, unpaid score.
        assert_eq!(PRIVATE.score_epsilon(f64::INFINITY), None);
        assert_eq!(PRIVATE.score_epsilon(f64::NAN), Some(0.0));
        assert_eq!(PRIVATE.release(80.0, 100, f64::NAN, 1), 0.0);
    }

    #[test]
    fn a_private_score_is_paid_for_and_noisy_at_the_laplace_scale() {
        let ev = PRIVATE.candidate_event(Event::NonPrivate, 2.0);
        assert_eq!(
            ev,
            Event::Composed(vec![
                Event::NonPrivate,
                Event::EpsilonDelta {
                    epsilon: 0.2,
                    delta: 0.0
                }
            ])
        );
        // Lap(b = 1/0.2 = 5) on the count: mean |noise| = b, so on n = 100 rows the released
        // percentages deviate from 50 by 5 on average (over 20,000 seeds, within 3 %).
        let n = 20_000;
        let dev: f64 = (0..n)
            .map(|s| (PRIVATE.release(50.0, 100, 2.0, s) - 50.0).abs())
            .sum::<f64>()
            / n as f64;
        assert!((dev - 5.0).abs() < 0.15, "{dev}");
        // Seeded: the same seed gives the same score; another seed another.
        assert_eq!(
            PRIVATE.release(50.0, 100, 2.0, 3),
            PRIVATE.release(50.0, 100, 2.0, 3)
        );
        assert_ne!(
            PRIVATE.release(50.0, 100, 2.0, 3),
            PRIVATE.release(50.0, 100, 2.0, 4)
        );
        // A zero budget releases a constant.
        assert_eq!(PRIVATE.release(99.0, 100, 0.0, 3), 0.0);
        assert_eq!(
            PRIVATE.candidate_event(Event::NoOp, 0.0),
            Event::NoOp,
            "nothing released, nothing paid"
        );
    }
}
