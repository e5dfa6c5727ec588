//! Tuning an outside learner's `prior`, under the protocol every built-in learner follows.
//!
//! Honest (Papernot & Steinke 2022): the base algorithm Q draws one point of the prior
//! uniformly and fits it at a per-run target (ε_run, δ); Q runs K ~ Poisson(μ) times and the
//! best run by test accuracy is released (as for Iyengar et al.'s grids and DP-SGD here).
//! Q's event is the mixture of the events the learner declares, without data, for every point
//! of its prior at ε_run (a `declare` request): a bound over every run Q could make, not only
//! over the runs drawn, which is what the theorem needs. ε_run is the largest (to dp-core's
//! bracket, on the safe side) whose tuned event our accountants certify at the cell's target,
//! and every fit must declare exactly the event declared for its point in advance, or the
//! cell fails: a learner cannot declare one thing to the calibration and do another.
//!
//! Dishonest: every point at the full budget in every trial, and the point with the best mean
//! over trials reported (the "tuning for free" reference, never ranked).

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use dp_core::accounting::{Event, HonestTuning, Target};
use dp_core::learn::{Candidates, draw_runs, select_best};
use dp_core::seed::run_seed;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::npy::DataFiles;
use super::{Clock, External, ExternalConfig, certify, outcome};
use crate::experiment::grid::Cell;
use crate::experiment::once_map::OnceMap;
use crate::methods::dpsgd::Tuning;
use crate::methods::{CellOutcome, Context, HonestDetails, check_grid_size};

/// Most points a prior may have: calibrating declares every point once per probe.
const MAX_POINTS: usize = 256;

/// Honest plans by (ε, δ, n, d), solved once and shared by the trials: keyed by everything a
/// declared event may depend on besides the point, so a plan is never reused for another
/// dataset or δ.
pub type Plans = OnceMap<(u64, u64, usize, usize), Plan>;

/// What every trial of one ε shares.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The per-run target.
    run_target: Target,
    /// Each point's event at `run_target`, as the learner declared it in advance.
    events: Vec<Event>,
    /// K ~ Poisson(μ).
    tuning: HonestTuning,
    /// The tuned procedure's event.
    tuned: Event,
}

/// The hyperparameters of every run the learner may make: the fixed `hyperparameters`
/// alone, or merged with each point of the prior's product. Checks that `tuning` and `prior`
/// come together and that a key is either fixed or drawn.
pub fn points(cfg: &ExternalConfig) -> Result<Vec<Value>, String> {
    let fixed = match serde_json::to_value(&cfg.hyperparameters) {
        Ok(Value::Object(m)) => m,
        Ok(_) => unreachable!("a TOML table is a JSON object"),
        Err(e) => return Err(format!("hyperparameters` cannot be written as JSON: {e}")),
    };
    match (cfg.tuning, cfg.prior.is_empty()) {
        (None, true) => {
            if cfg.grid_size.is_some() || cfg.tail_prob.is_some() {
                return Err("grid_size` and `tail_prob` only mean something with \
                            `tuning = \"honest\"` and a `prior`"
                    .into());
            }
            return Ok(vec![Value::Object(fixed)]);
        }
        (None, false) => {
            return Err("prior` needs `tuning = \"honest\"` (or \"dishonest\", the \
                        best-of-prior reference); without tuning, put fixed values in \
                        `hyperparameters`"
                .into());
        }
        (Some(t), true) => {
            return Err(format!(
                "tuning` = \"{}\" needs a `prior` table: each tuned hyperparameter's list of \
                 values, e.g. prior = {{ lr = [0.1, 0.5, 1.0] }}",
                t.name()
            ));
        }
        (Some(_), false) => {}
    }
    if cfg.tuning == Some(Tuning::Dishonest) && (cfg.grid_size.is_some() || cfg.tail_prob.is_some())
    {
        return Err(
            "grid_size` and `tail_prob` set honest tuning's K; dishonest tuning runs \
                    every point of the prior"
                .into(),
        );
    }
    if let Some(g) = cfg.grid_size {
        check_grid_size(u64::from(g))?;
    }
    if let Some(p) = cfg.tail_prob
        && !(p > 0.0 && p < 1.0)
    {
        return Err(format!(
            "tail_prob` = {} must be in (0, 1)",
            crate::quoting::number(p)
        ));
    }
    let mut points: Vec<Map<String, Value>> = vec![fixed];
    for (key, values) in &cfg.prior {
        if cfg.hyperparameters.contains_key(key) {
            return Err(format!(
                "prior.{key}` is also in `hyperparameters`: a value is either fixed or drawn"
            ));
        }
        let list = values
            .as_array()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| format!("prior.{key}` must be a non-empty list of values"))?;
        // Checked before the product is built: a long list must not allocate first.
        if points.len().saturating_mul(list.len()) > MAX_POINTS {
            return Err(format!(
                "prior` has more than {MAX_POINTS} points (the product of its lists): cut \
                 its lists"
            ));
        }
        let mut next = Vec::with_capacity(points.len() * list.len());
        for p in &points {
            for v in list {
                let mut q = p.clone();
                let v = serde_json::to_value(v)
                    .map_err(|e| format!("prior.{key}` cannot be written as JSON: {e}"))?;
                q.insert(key.clone(), v);
                next.push(q);
            }
        }
        points = next;
    }
    Ok(points.into_iter().map(Value::Object).collect())
}

/// A point's drawn values in words for tables (`C=1.0;lr=0.5`), with no comma or line break.
pub fn label(prior: &toml::Table, point: &Value) -> String {
    let parts: Vec<String> = prior
        .keys()
        .filter_map(|k| point.get(k).map(|v| format!("{k}={v}")))
        .collect();
    parts.join(";").replace([',', '\n', '\r'], " ")
}

fn plan(m: &External, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<Plan> {
    let target = m.target(ctx, epsilon).map_err(anyhow::Error::msg)?;
    let tuning = HonestTuning::poisson_tail(
        u64::from(m.cfg.grid_size.unwrap_or(10)),
        m.cfg.tail_prob.unwrap_or(0.9),
    )?;
    // Each probe's declarations, kept: the plan enforces exactly what was calibrated on.
    let probed: RefCell<HashMap<u64, Vec<Event>>> = RefCell::default();
    let declare_all = |run: Target| -> anyhow::Result<Vec<Event>> {
        let eps_run = run.epsilon();
        if let Some(events) = probed.borrow().get(&eps_run.to_bits()) {
            return Ok(events.clone());
        }
        let events = m
            .points
            .iter()
            .map(|p| {
                m.declare(ctx, p, run).map_err(|e| {
                    anyhow::anyhow!(
                        "declaring point {} at per-run ε = {eps_run}: {e}",
                        label(&m.cfg.prior, p)
                    )
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        probed
            .borrow_mut()
            .insert(eps_run.to_bits(), events.clone());
        Ok(events)
    };
    let run = tuning
        .calibrate_run_target(
            |e: &Event| ctx.certify_at(e, target.delta()),
            |t: Target| {
                let runs = Event::Mixture(declare_all(t)?);
                Ok(ctx.selection.candidate_event(runs, t.epsilon()))
            },
            target,
        )
        .map_err(|e| {
            e.context(format!(
                "cannot plan honest tuning at ({epsilon}, {}): every trial at this ε fails",
                target.delta()
            ))
        })?;
    let events = declare_all(run)?;
    let base = ctx
        .selection
        .candidate_event(Event::Mixture(events.clone()), run.epsilon());
    Ok(Plan {
        run_target: run,
        tuned: tuning.event(base),
        events,
        tuning,
    })
}

fn cached_plan(m: &External, ctx: &Context<'_>, epsilon: f64) -> Result<Plan, String> {
    let key = (
        epsilon.to_bits(),
        ctx.cfg.delta.to_bits(),
        ctx.train.n(),
        ctx.train.d(),
    );
    m.state.plans.get_or_init(key, || plan(m, ctx, epsilon))
}

/// One trial of honest tuning; `Err` is why the cell failed.
pub fn honest(
    m: &External,
    ctx: &Context<'_>,
    cell: &Cell,
    files: &DataFiles,
) -> Result<CellOutcome, String> {
    let plan = cached_plan(m, ctx, cell.epsilon)?;
    let slots = Candidates::List((0..m.points.len()).map(|i| i as f64).collect());
    let draws =
        draw_runs(&plan.tuning.selection, &slots, cell.seed).map_err(|e| format!("{e:#}"))?;
    let tuned = select_best(&draws, |j, slot| {
        let i = slot as usize;
        let seed = run_seed(cell.seed, j);
        let fit = m.fit(ctx, files, &m.points[i], plan.run_target, seed)?;
        if fit.event != plan.events[i] {
            return Err(format!(
                "run {j} ({}) declared the event {} but the learner declared {} for the same \
                 point and target in advance; a learner must declare what it does",
                label(&m.cfg.prior, &m.points[i]),
                json_of(&fit.event),
                json_of(&plan.events[i])
            ));
        }
        let rows = ctx.selection_rows().len();
        let percent = fit.selection_accuracy(ctx, m.cfg.output);
        let score = ctx
            .selection
            .release(percent, rows, plan.run_target.epsilon(), seed);
        Ok((score, fit))
    })?;
    // The test rows are read once, for the released run. K = 0 (probability e^-μ, about 1e-6
    // here) releases nothing: θ = 0, which scores 50% under random tie-breaking, as Iyengar
    // et al.'s honest grids score it.
    let accuracy = tuned
        .best
        .as_ref()
        .map_or(50.0, |b| b.3.test_accuracy(ctx, m.cfg.output));
    let details = HonestDetails {
        runs: draws.len(),
        chosen: tuned
            .best
            .map(|b| label(&m.cfg.prior, &m.points[b.1 as usize])),
        scores: tuned.scores.iter().map(|&(v, s)| (v as usize, s)).collect(),
        run_epsilon: plan.run_target.epsilon(),
        tuned_epsilon: None,
    };
    let relation = m.cfg.relation.neighbours();
    outcome(
        ctx,
        relation,
        accuracy,
        plan.tuned.clone(),
        cell.epsilon,
        &details,
        Clock::after(Duration::ZERO, m.cfg.timeout_seconds),
    )
}

/// One trial of dishonest tuning: every point at the cell's full budget. A point whose
/// certified ε exceeds the target is left out of the scores (never reported as the best).
pub fn dishonest(
    m: &External,
    ctx: &Context<'_>,
    cell: &Cell,
    files: &DataFiles,
) -> Result<CellOutcome, String> {
    let mut scores = Vec::with_capacity(m.points.len());
    let mut tests = Vec::with_capacity(m.points.len());
    let mut over = Vec::new();
    // The cell's event: the in-budget point whose event certifies the largest ε (what the
    // reported maximum over runs at most spends), NonPrivate when none is in budget.
    let mut worst: Option<(f64, Event)> = None;
    let target = m.target(ctx, cell.epsilon)?;
    let relation = m.cfg.relation.neighbours();
    for (i, point) in m.points.iter().enumerate() {
        let fit = m.fit(ctx, files, point, target, run_seed(cell.seed, i))?;
        let eps = certify(
            ctx,
            relation,
            &fit.event,
            Clock::after(fit.seconds, m.cfg.timeout_seconds),
        )?;
        if eps > cell.epsilon {
            over.push(label(&m.cfg.prior, point));
        } else {
            // The choice reads the selection rows' exact scores (dishonest: not paid for).
            let score = fit.selection_accuracy(ctx, m.cfg.output);
            scores.push((i as f64, score));
            tests.push((i as f64, fit.test_accuracy(ctx, m.cfg.output)));
            if worst.as_ref().is_none_or(|(w, _)| eps > *w) {
                worst = Some((eps, fit.event));
            }
        }
    }
    // The cell's own number: its best point by the scores the choice reads (a NaN score
    // never wins).
    let key = |i: usize| {
        let s = scores[i].1;
        if s.is_nan() { f64::NEG_INFINITY } else { s }
    };
    let best = (0..scores.len())
        .max_by(|&a, &b| key(a).total_cmp(&key(b)))
        .map_or(f64::NAN, |i| tests[i].1);
    let details = DishonestDetails {
        scores,
        test_scores: ctx.valid.map(|_| tests),
        over_budget_points: over,
    };
    let event = worst.map_or(Event::NonPrivate, |w| w.1);
    Ok(CellOutcome::new(best, event, &details))
}

/// What a cell of dishonest tuning records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DishonestDetails {
    /// `[point index, score]` of every point within budget: what the choice reads (test
    /// accuracy under the papers' protocol, validation accuracy with validation rows).
    pub scores: Vec<(f64, f64)>,
    /// With validation rows: `[point index, test accuracy]` of the same points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_scores: Option<Vec<(f64, f64)>>,
    /// The points whose certified ε exceeded the target, in words.
    pub over_budget_points: Vec<String>,
}

fn json_of(e: &Event) -> String {
    dp_core::accounting::event_json::to_json(e, None)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| format!("{e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(extra: &str) -> Result<Vec<Value>, String> {
        let text = format!("command = [\"w\"]\nrelation = \"add_remove\"\n{extra}");
        let c: ExternalConfig = toml::from_str(&text).map_err(|e| e.to_string())?;
        points(&c)
    }

    #[test]
    fn a_prior_is_the_product_of_its_lists_merged_with_the_fixed_values() {
        let p = cfg("tuning = \"honest\"\nhyperparameters = { epochs = 5 }\n\
                     prior = { lr = [0.1, 1.0], C = [1, 2, 3] }")
        .unwrap();
        assert_eq!(p.len(), 6);
        assert!(p.iter().all(|q| q["epochs"] == 5));
        let prior: toml::Table = toml::from_str("lr = [0.1]\nC = [1]").unwrap();
        assert_eq!(label(&prior, &p[0]), "C=1;lr=0.1");
        assert_eq!(cfg("hyperparameters = { C = 1 }").unwrap().len(), 1);
    }

    #[test]
    fn tuning_and_prior_come_together_and_a_key_is_fixed_or_drawn() {
        for (extra, needle) in [
            (
                "prior = { lr = [0.1] }",
                "prior` needs `tuning = \"honest\"",
            ),
            ("tuning = \"honest\"", "needs a `prior` table"),
            ("grid_size = 5", "only mean something with"),
            (
                "tuning = \"honest\"\nhyperparameters = { lr = 1 }\nprior = { lr = [0.1] }",
                "prior.lr` is also in `hyperparameters`",
            ),
            ("tuning = \"honest\"\nprior = { lr = [] }", "non-empty list"),
            (
                "tuning = \"honest\"\nprior = { lr = 0.1 }",
                "non-empty list",
            ),
            (
                "tuning = \"honest\"\nprior = { a = [1,2,3,4,5,6,7,8,9], b = [1,2,3,4,5,6,7,8,9], \
                 c = [1,2,3,4] }",
                "more than 256 points",
            ),
            (
                "tuning = \"honest\"\nprior = { lr = [1] }\ntail_prob = 1.0",
                "tail_prob` = 1",
            ),
            (
                "tuning = \"honest\"\nprior = { lr = [1] }\ngrid_size = 0",
                "grid_size` = 0",
            ),
            (
                "tuning = \"dishonest\"\nprior = { lr = [1] }\ngrid_size = 5",
                "dishonest tuning runs every point",
            ),
        ] {
            let e = cfg(extra).unwrap_err();
            assert!(e.contains(needle), "{extra}: {e:?} lacks {needle:?}");
        }
    }
}
