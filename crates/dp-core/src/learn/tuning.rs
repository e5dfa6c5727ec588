//! Hyperparameter tuning around any [`Mechanism`]: run candidates, score them, release the best.
//!
//! [`RepeatAndSelect`] is honest tuning (Papernot & Steinke 2022): the number of runs K is
//! random ([`Selection`], drawn with the candidates by [`draw_runs`]) and its event, from
//! [`HonestTuning`] (which also calibrates the run), charges for it. Their theorems cover K independent runs of *one* randomised base algorithm: each run
//! must draw its hyperparameter from a fixed distribution ([`Candidates::LogUniform`],
//! [`Candidates::List`]). [`Candidates::PaperGrid`] (K log-spaced values, as Redberg et al.
//! describe their honest baseline) makes the set depend on K, so the runs are not such draws
//! and the theorem does not strictly apply; it is kept to reproduce that paper.
//!
//! [`best_of`] is the shared inner loop (also used for dishonest tuning, which runs a fixed
//! grid and ignores the selection's privacy cost).

use std::marker::PhantomData;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Poisson};
use serde::Serialize;

use super::data::GlmData;
use super::mechanism::Mechanism;
use crate::accounting::event::Event;
use crate::accounting::honest_tuning::HonestTuning;
use crate::accounting::private_selection::Selection;
use crate::error::{DpError, Result, check_positive, ensure};
use crate::seed::derive_seed;

/// How the runs of a tuned mechanism get their hyperparameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Candidates {
    /// K values log-spaced over [lo, hi] (one run: lo). Depends on K: not i.i.d. draws.
    PaperGrid {
        /// Smallest value.
        lo: f64,
        /// Largest value.
        hi: f64,
    },
    /// Each run draws log-uniformly from [lo, hi], independently.
    LogUniform {
        /// Smallest value.
        lo: f64,
        /// Largest value.
        hi: f64,
    },
    /// Each run draws uniformly from this list, independently.
    List(Vec<f64>),
}

impl Candidates {
    /// Checks 0 < lo ≤ hi (finite), or a non-empty list of finite values.
    pub fn check(&self) -> Result<()> {
        match self {
            Candidates::PaperGrid { lo, hi } | Candidates::LogUniform { lo, hi } => {
                check_positive("lr-min", *lo)?;
                check_positive("lr-max", *hi)?;
                ensure(lo <= hi, "lr-min", *lo, "must be <= lr-max")
            }
            Candidates::List(v) => {
                ensure(
                    !v.is_empty(),
                    "candidates",
                    0.0,
                    "must list at least one value",
                )?;
                v.iter()
                    .try_for_each(|&x| ensure(x.is_finite(), "candidates", x, "must be finite"))
            }
        }
    }

    /// The hyperparameters of `k` runs, drawn from `rng` where the rule is random.
    pub fn draw(&self, k: usize, rng: &mut StdRng) -> Vec<f64> {
        match self {
            Candidates::PaperGrid { lo, hi } => log_grid(*lo, *hi, k),
            Candidates::LogUniform { lo, hi } => (0..k)
                .map(|_| (lo.ln() + rng.random::<f64>() * (hi.ln() - lo.ln())).exp())
                .collect(),
            Candidates::List(v) => (0..k).map(|_| v[rng.random_range(0..v.len())]).collect(),
        }
    }

    /// Values whose events must agree (the ends and a middle point, or the whole list).
    fn probes(&self) -> Vec<f64> {
        match self {
            Candidates::PaperGrid { lo, hi } | Candidates::LogUniform { lo, hi } => {
                vec![*lo, (lo * hi).sqrt(), *hi]
            }
            Candidates::List(v) => v.clone(),
        }
    }
}

/// `count` values log-spaced over [lo, hi] (one point: lo).
pub fn log_grid(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    match count {
        0 => Vec::new(),
        1 => vec![lo],
        _ => (0..count)
            .map(|i| {
                let t = i as f64 / (count - 1) as f64;
                (lo.ln() + t * (hi.ln() - lo.ln())).exp()
            })
            .collect(),
    }
}

/// What a tuned run did: every (hyperparameter, score), and the released one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Selected<R> {
    /// Number of runs K.
    pub runs: usize,
    /// `[hyperparameter, score]` of every run, in run order.
    pub scores: Vec<(f64, f64)>,
    /// Hyperparameter of the released run (`None` when K = 0).
    pub chosen: Option<f64>,
    /// Report of the released run.
    pub report: Option<R>,
}

/// What [`select_best`] keeps: every run's (draw, score) in run order, and the best run.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned<V, T> {
    /// `(draw, score)` of every run, in run order.
    pub scores: Vec<(V, f64)>,
    /// The released run: its index, draw, score and output (`None` when nothing ran).
    pub best: Option<(usize, V, f64, T)>,
}

/// The one selection loop of every tuned learner (DP-SGD, Iyengar et al.'s kinds, outside
/// learners; honest or dishonest): run j on `draws[j]`, score it, keep the best, the **last
/// of equal scores** in the total order of `f64` (so the rule is the same everywhere and a
/// NaN score never hides a later run). What a draw means (a learning rate, a grid index) and
/// how run j is seeded are the caller's.
pub fn select_best<V: Copy, T, E>(
    draws: &[V],
    mut run: impl FnMut(usize, V) -> std::result::Result<(f64, T), E>,
) -> std::result::Result<Tuned<V, T>, E> {
    let mut scores = Vec::with_capacity(draws.len());
    let mut best: Option<(usize, V, f64, T)> = None;
    for (j, &v) in draws.iter().enumerate() {
        let (s, out) = run(j, v)?;
        scores.push((v, s));
        if best.as_ref().is_none_or(|b| s.total_cmp(&b.2).is_ge()) {
            best = Some((j, v, s, out));
        }
    }
    Ok(Tuned { scores, best })
}

/// Runs `build(v)` for each value (run i seeded with `derive_seed(seed, i, v)`), scores each
/// output (`score(θ, run seed)`: a private score draws its noise from the run's seed) and
/// returns the best θ ([`select_best`]: the last of equal scores) with every score; θ₀ = 0 of
/// dimension d when `values` is empty.
pub fn best_of<M: Mechanism>(
    build: impl Fn(f64) -> Result<M>,
    values: &[f64],
    data: &GlmData<'_>,
    seed: u64,
    score: impl Fn(&[f64], u64) -> f64,
) -> Result<(Vec<f64>, Selected<M::Report>)> {
    let tuned = select_best(values, |i, v| {
        // Each run gets its own stream, so a run does not depend on how many ran before.
        let run_seed = derive_seed(&[
            &seed.to_le_bytes(),
            &(i as u64).to_le_bytes(),
            &v.to_bits().to_le_bytes(),
        ]);
        let (theta, report) = build(v)?.fit(data, run_seed)?;
        Ok((score(&theta, run_seed), (theta, report)))
    })?;
    let scores = tuned.scores;
    Ok(match tuned.best {
        Some((_, v, _, (theta, report))) => (
            theta,
            Selected {
                runs: values.len(),
                scores,
                chosen: Some(v),
                report: Some(report),
            },
        ),
        None => (
            vec![0.0; data.d()],
            Selected {
                runs: 0,
                scores,
                chosen: None,
                report: None,
            },
        ),
    })
}

/// Draws K from the selection distribution.
pub fn sample_runs(selection: &Selection, rng: &mut StdRng) -> Result<usize> {
    match *selection {
        Selection::Poisson { mu } => Ok(Poisson::new(mu)
            .map_err(|e| DpError::Invalid(format!("Poisson({mu}): {e}")))?
            .sample(rng) as usize),
        Selection::TruncatedNegativeBinomial { eta, gamma } => {
            // Inverse CDF of P[K = k] ∝ (1 − γ)^k Π_{l<k} (l + η)/(l + 1), k ≥ 1, whose
            // normaliser is γ^{−η} − 1 (η > 0) or −ln γ (η = 0) by the binomial series.
            let z = if eta > 0.0 {
                gamma.powf(-eta) - 1.0
            } else {
                -gamma.ln()
            };
            let u: f64 = rng.random::<f64>() * z;
            // w₁ = (1 − γ)·η, or (1 − γ) for the logarithmic limit (both over z).
            let mut w = (1.0 - gamma) * if eta > 0.0 { eta } else { 1.0 };
            let (mut k, mut cum) = (1usize, 0.0);
            loop {
                cum += w;
                if cum >= u || w < 1e-300 {
                    return Ok(k);
                }
                // w_{k+1} = w_k (1 − γ)(k + η)/(k + 1)
                w *= (1.0 - gamma) * (k as f64 + eta) / (k as f64 + 1.0);
                k += 1;
            }
        }
    }
}

/// The draws of honest tuning: K ~ `selection` first, then the K runs' hyperparameters, all
/// from the stream seeded by `seed` (every honest learner draws this way).
pub fn draw_runs(selection: &Selection, candidates: &Candidates, seed: u64) -> Result<Vec<f64>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let k = sample_runs(selection, &mut rng)?;
    Ok(candidates.draw(k, &mut rng))
}

/// Honest tuning of any mechanism: K ~ `selection` runs, each with a hyperparameter from
/// `candidates`, the best by `score` released (Papernot & Steinke 2022).
pub struct RepeatAndSelect<M, B, S> {
    tuning: HonestTuning,
    candidates: Candidates,
    build: B,
    score: S,
    base: Event,
    _m: PhantomData<fn() -> M>,
}

impl<M, B, S> RepeatAndSelect<M, B, S>
where
    M: Mechanism,
    B: Fn(f64) -> Result<M> + Send + Sync,
    S: Fn(&[f64], u64) -> f64 + Send + Sync,
{
    /// Checks the candidates and that every candidate has the same privacy event (the base
    /// mechanism's privacy must not depend on the tuned hyperparameter).
    pub fn new(selection: Selection, candidates: Candidates, build: B, score: S) -> Result<Self> {
        candidates.check()?;
        let probes = candidates.probes();
        let base = build(probes[0])?.event();
        for &v in &probes[1..] {
            if build(v)?.event() != base {
                return Err(DpError::Invalid(format!(
                    "the candidates' privacy events differ (at {v} vs {}): private selection \
                     needs one base mechanism whose privacy does not depend on the candidate",
                    probes[0]
                )));
            }
        }
        Ok(Self {
            tuning: HonestTuning::new(selection),
            candidates,
            build,
            score,
            base,
            _m: PhantomData,
        })
    }

    /// Event of one run, whatever its candidate (what [`HonestTuning`] calibrates).
    pub fn base_event(&self) -> &Event {
        &self.base
    }

    /// The same procedure whose runs also release their scores by a mechanism with event
    /// `score` (a private score on validation rows): each run's event becomes the run's
    /// composed with it. `None` leaves a free score (public or test rows) out of the event.
    pub fn paying_for_scores(mut self, score: Option<Event>) -> Self {
        if let Some(e) = score {
            self.base = Event::Composed(vec![self.base, e]);
        }
        self
    }
}

impl<M, B, S> Mechanism for RepeatAndSelect<M, B, S>
where
    M: Mechanism,
    B: Fn(f64) -> Result<M> + Send + Sync,
    S: Fn(&[f64], u64) -> f64 + Send + Sync,
{
    type Report = Selected<M::Report>;

    fn name(&self) -> &'static str {
        "repeat_and_select"
    }

    fn event(&self) -> Event {
        self.tuning.event(self.base.clone())
    }

    /// K is drawn first from the stream seeded by `seed`, then the K candidates; run i is
    /// seeded by `derive_seed(seed, i, candidate)`.
    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, Self::Report)> {
        let values = draw_runs(&self.tuning.selection, &self.candidates, seed)?;
        best_of(&self.build, &values, data, seed, &self.score)
    }
}

#[cfg(test)]
#[path = "tuning_tests.rs"]
mod tests;
