//! `kind = "external"`: a learner in any language, run as a worker process that answers
//! newline-delimited JSON requests (`docs/external-learners.md`). The harness writes the
//! training arrays once, asks the worker to fit at the cell's (ε, δ, seed), scores what comes
//! back itself, and certifies the cell from the event the learner declares, with our
//! accountants: a declaration is a description, never a number taken on trust.
//!
//! With `tuning = "honest"` the harness tunes the learner's `prior` as it tunes every built-in
//! learner (`tuned.rs`): Papernot–Steinke selection, the per-run target calibrated on the
//! events the learner declares in advance for every point of its prior. `"dishonest"` runs
//! every point at the full budget, the "tuning for free" reference.
//!
//! A cell the learner fails (a crash, a hang past `timeout_seconds`, a malformed or refused
//! response, an event the accountants cannot bound) is recorded as failed: accuracy NaN,
//! `epsilon_accounted` ∞, `details.error` says why. It is not an `Err`, which would stop the
//! whole grid (the runner aborts on a cell's error); NaN poisons that (method, ε) mean
//! visibly and the figure drops the point. A cell whose certified ε exceeds its target is
//! recorded with its true certified ε, `details.over_budget = true`, its accuracy in
//! `details.accuracy` and accuracy NaN: it is never presented as an accuracy at the target.

mod audit;
mod budget;
mod npy;
mod protocol;
mod tuned;
mod worker;

pub use worker::end_workers_on_signals;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dp_core::accounting::event::Neighbours;
use dp_core::accounting::event_json;
use dp_core::accounting::{Event, Target};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Digest as _;

use super::{Aggregate, CellOutcome, Context, Method, MethodEntry, Protocol, parse_table};
use crate::experiment::audited::Audited;
use crate::experiment::grid::Cell;
use crate::experiment::record::CellRecord;
use crate::methods::dpsgd::Tuning;
use budget::{Clock, certify, outcome};
pub use npy::{DataFiles, write_f64};
pub use protocol::Output;
use protocol::{Broken, Expect, Request, Response};
use worker::Worker;

/// The table entry.
pub const ENTRY: MethodEntry = MethodEntry {
    kind: "external",
    summary: "an outside learner (any language) run as a JSON worker process, certified from \
              the event it declares",
    parse,
};

/// The neighbouring relation a learner's guarantee is for, as configs spell it.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Add or remove one record (dp_accounting's ADD_OR_REMOVE_ONE).
    AddRemove,
    /// Replace one record, n public (REPLACE_ONE).
    ReplaceOne,
}

impl Relation {
    fn neighbours(self) -> Neighbours {
        match self {
            Relation::AddRemove => Neighbours::AddRemove,
            Relation::ReplaceOne => Neighbours::ReplaceOne,
        }
    }
}

/// `[methods.NAME]` keys of an outside learner.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExternalConfig {
    /// The worker's argv (`["python3", "examples/python/numpy_dpsgd.py"]`), run without a
    /// shell from dp-bench's working directory.
    pub command: Vec<String>,
    /// The neighbouring relation of the learner's guarantee; every response must declare it.
    pub relation: Relation,
    /// Seconds a request may take before the worker is killed and the cell failed.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: f64,
    /// Fixed values passed to the worker as JSON (without `tuning`: one run at the full
    /// budget).
    #[serde(default)]
    pub hyperparameters: toml::Table,
    /// `"honest"` (Papernot–Steinke, cost accounted) or `"dishonest"` (best of the prior's
    /// points, cost ignored) tuning over `prior`; absent: the fixed `hyperparameters` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuning: Option<Tuning>,
    /// The learner's prior, fixed before it sees data: each key's list of values. A run draws
    /// one value per key, uniformly and independently; the points are the lists' product.
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub prior: toml::Table,
    /// Honest tuning's K ~ Poisson(μ) with P\[K > grid_size\] = tail_prob (default 10, as every
    /// built-in learner's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_size: Option<u32>,
    /// See `grid_size` (default 0.9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_prob: Option<f64>,
    /// What the learner returns.
    #[serde(default = "default_output")]
    pub output: Output,
    /// Worker restarts (after crashes, broken responses or timeouts) before the learner is
    /// marked unavailable and its remaining cells fail at once.
    #[serde(default = "default_max_restarts")]
    pub max_restarts: u32,
}

fn default_timeout() -> f64 {
    120.0
}
fn default_output() -> Output {
    Output::Theta
}
fn default_max_restarts() -> u32 {
    3
}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    let cfg: ExternalConfig = parse_table(table)?;
    if cfg.command.is_empty() || cfg.command[0].is_empty() {
        return Err(
            "command` must name a program: an argv array such as [\"python3\", \
                    \"examples/python/numpy_dpsgd.py\"] (it is never run through a shell)"
                .into(),
        );
    }
    if !(cfg.timeout_seconds > 0.0 && cfg.timeout_seconds <= 7.0 * 86400.0) {
        return Err(format!(
            "timeout_seconds` = {} must be in (0, 604800]",
            crate::quoting::number(cfg.timeout_seconds)
        ));
    }
    let points = tuned::points(&cfg)?;
    Ok(Box::new(External {
        points,
        cfg,
        state: Arc::default(),
    }))
}

/// The method: its config and the workers and files its cells share.
pub struct External {
    cfg: ExternalConfig,
    /// The hyperparameters of each run it may make: the fixed ones alone, or with one point
    /// of the prior each.
    points: Vec<Value>,
    state: Arc<State>,
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External").field("cfg", &self.cfg).finish()
    }
}

/// Idle workers (one per concurrently running cell at most, so one per rayon thread), the
/// arrays written so far, and the restart count.
#[derive(Default)]
struct State {
    idle: Mutex<Vec<Worker>>,
    files: Mutex<Option<(PathBuf, DataFiles)>>,
    restarts: AtomicU32,
    next_id: AtomicU64,
    last_failure: Mutex<String>,
    plans: tuned::Plans,
}

impl Method for External {
    fn kind(&self) -> &'static str {
        ENTRY.kind
    }

    fn params(&self) -> Value {
        serde_json::to_value(&self.cfg).expect("plain struct")
    }

    /// The learner certifies its own calibration; the harness checks it.
    fn commands(&self) -> Vec<Vec<String>> {
        vec![self.cfg.command.clone()]
    }

    /// Its fixed hyperparameters at the cell's target, run through ordinary fit requests on
    /// the audit's datasets (`audit::ExternalRelease`), certified from what it declares.
    fn mechanism<'c>(&'c self, ctx: &Context<'c>, epsilon: f64) -> anyhow::Result<Audited<'c>> {
        anyhow::ensure!(
            self.cfg.tuning.is_none(),
            "an audit runs one mechanism: an outside learner without `tuning` (one run with \
             its fixed `hyperparameters`)"
        );
        anyhow::ensure!(
            self.cfg.output == Output::Theta,
            "an audit scores θ: set `output = \"theta\"`"
        );
        let target = self.target(ctx, epsilon).map_err(anyhow::Error::msg)?;
        let event = self
            .declare(ctx, &self.points[0], target)
            .map_err(|e| anyhow::anyhow!("declaring its event: {e}"))?;
        let root = self.data_root(ctx);
        let relation = self.cfg.relation.neighbours();
        Ok(Audited {
            release: Box::new(audit::ExternalRelease {
                learner: self,
                target,
                root,
                files: std::sync::Mutex::default(),
            }),
            event,
            clip: None,
            neighbours: relation,
            certificate: relation,
            label: tuned::label(&self.cfg.hyperparameters, &self.points[0]),
            white_box: None,
        })
    }

    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some("declared"),
            tuning: Some(self.cfg.tuning.map_or("fixed", Tuning::name)),
            relation: Some(self.cfg.relation.neighbours()),
        }
    }

    /// Outside learners share a kind: their program tells them apart.
    fn display_name(&self) -> String {
        match self.cfg.command.last() {
            Some(prog) => {
                let stem = std::path::Path::new(prog)
                    .file_stem()
                    .and_then(|s| s.to_str());
                format!("{} {}", ENTRY.kind, stem.unwrap_or(prog))
            }
            None => ENTRY.kind.to_string(),
        }
    }

    /// Unknown; a learner is typically a few passes over the data plus process overhead.
    fn cost(&self) -> f64 {
        20.0
    }

    /// Predictions are made on the test rows only, and handing the worker the validation
    /// rows' features would give it private rows its declared event does not cover: with
    /// validation rows an outside learner releases θ, which the harness scores.
    fn check_target(&self, ctx: &Context<'_>, _epsilon: f64) -> anyhow::Result<()> {
        if ctx.valid.is_some() && self.cfg.output == Output::Predictions {
            anyhow::bail!(
                "`output = \"predictions\"` with `dataset.validation_fraction` > 0: choices \
                 read validation scores, and predicting on the validation rows would hand the \
                 worker private rows its declared event does not cover; set `output = \"theta\"`"
            );
        }
        Ok(())
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let files = self.files(ctx)?;
        let outcome = match self.cfg.tuning {
            None => self.fixed(ctx, cell, &files),
            Some(Tuning::Honest) => tuned::honest(self, ctx, cell, &files),
            Some(Tuning::Dishonest) => tuned::dishonest(self, ctx, cell, &files),
        };
        Ok(outcome.unwrap_or_else(failed))
    }

    fn aggregate(&self, cells: &[&CellRecord]) -> anyhow::Result<Aggregate> {
        Ok(match self.cfg.tuning {
            Some(Tuning::Dishonest) => {
                let mut agg = Aggregate::best_mean_over_candidates(cells);
                agg.label = agg
                    .chosen
                    .and_then(|i| self.points.get(i as usize))
                    .map(|p| tuned::label(&self.cfg.prior, p));
                agg
            }
            _ => Aggregate::per_trial(cells),
        })
    }
}

/// One fit: what the learner released (θ, or its predictions on the evaluation rows), its
/// declared event and its own details.
struct Fit {
    values: Vec<f64>,
    event: Event,
    details: Value,
    /// From the request sent to its answer read.
    seconds: Duration,
}

impl Fit {
    /// Accuracy in percent of the released θ on `rows`, or of the released predictions (made
    /// on the test rows) against `rows`' labels; the arithmetic the cells always used.
    fn percent_on(&self, output: Output, rows: &dp_data::Dataset) -> f64 {
        match output {
            Output::Theta => 100.0 * dp_core::learn::accuracy(&rows.x, &rows.y, &self.values),
            Output::Predictions => {
                let right = self
                    .values
                    .iter()
                    .zip(&rows.y)
                    .filter(|&(&p, &y)| (p == 1.0) == (y > 0.0))
                    .count();
                100.0 * right as f64 / self.values.len().max(1) as f64
            }
        }
    }

    /// Test accuracy in percent: read once per released model.
    fn test_accuracy(&self, ctx: &Context<'_>, output: Output) -> f64 {
        self.percent_on(output, ctx.test)
    }

    /// The accuracy in percent on the rows choices read (predictions exist only for the test
    /// rows, so a config with validation rows refuses them: [`External::check_target`]).
    fn selection_accuracy(&self, ctx: &Context<'_>, output: Output) -> f64 {
        self.percent_on(output, ctx.selection_rows())
    }
}

/// What a failed cell records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FailedDetails {
    /// Why it failed.
    pub error: String,
}

/// What a cell of a learner with fixed hyperparameters records (beside its budget).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FixedDetails {
    /// The neighbouring relation its guarantee is for.
    pub relation: String,
    /// The declared event in the worker protocol's vocabulary.
    pub event: Value,
    /// The learner's own details, if it gave any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner: Option<Value>,
}

/// A failed cell: nothing released, nothing certified (its ε is ∞: whether it failed may
/// depend on the data).
fn failed(reason: String) -> CellOutcome {
    CellOutcome::new(
        f64::NAN,
        Event::NonPrivate,
        &FailedDetails { error: reason },
    )
}

impl External {
    /// This learner's own folder of arrays, written on its first cell:
    /// `<results>/external/learner-<digest of its parameters>` (else under the system's
    /// temporary folder).
    /// A worker that writes to the files it is sent changes only its own learner's copy
    /// (which the next fit writes again): a learner reading another's file while that one is
    /// changed in place would race, whatever is checked before the fit.
    fn data_root(&self, ctx: &Context<'_>) -> PathBuf {
        let base = match &ctx.scratch {
            Some(dir) => dir.join("external"),
            None => std::env::temp_dir().join("dpbench-external"),
        };
        let params = self.params().to_string();
        let digest = sha2::Sha256::digest(params.as_bytes());
        base.join(format!("learner-{}", hex::encode(&digest[..6])))
    }

    fn files(&self, ctx: &Context<'_>) -> anyhow::Result<DataFiles> {
        let root = self.data_root(ctx);
        let mut slot = self.state.files.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((r, f)) = slot.as_ref().filter(|(r, _)| *r == root) {
            debug_assert_eq!(*r, root);
            return Ok(f.clone());
        }
        let test = (self.cfg.output == Output::Predictions).then_some(&ctx.test.x);
        let f = npy::write_once(&root, ctx.train.x(), ctx.train.y(), test)?;
        *slot = Some((root, f.clone()));
        Ok(f)
    }

    /// Checks the arrays a fit reads against what was written and writes any that changed
    /// again (a worker may have written to them): every fit trains on the data.
    fn restore(&self, ctx: &Context<'_>, files: &DataFiles) -> Result<(), String> {
        let changed = files.changed();
        if changed.is_empty() {
            return Ok(());
        }
        errln!(
            "warning: {} changed since it was written (by a worker?); writing it again",
            changed
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        *self.state.files.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let again = self.files(ctx).map_err(|e| format!("{e:#}"))?;
        match again.changed().as_slice() {
            [] => Ok(()),
            still => Err(format!(
                "the learner's arrays cannot be restored: {} still differ",
                still[0].display()
            )),
        }
    }

    /// One request to a pooled worker and everything checked about its answer; `Err` is the
    /// reason the cell failed.
    fn exchange(&self, request: &Request<'_>, expect: &Expect) -> Result<Response, String> {
        let st = &self.state;
        let restarts = st.restarts.load(Ordering::SeqCst);
        if restarts > self.cfg.max_restarts {
            return Err(format!(
                "learner unavailable: its worker was restarted {restarts} times (max_restarts \
                 = {}); last failure: {}",
                self.cfg.max_restarts,
                st.last_failure.lock().unwrap_or_else(|p| p.into_inner())
            ));
        }
        let idle = st.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut w = match idle {
            Some(w) => w,
            None => Worker::start(&self.cfg.command).map_err(|e| self.restart(e.to_string()))?,
        };
        let timeout = Duration::from_secs_f64(self.cfg.timeout_seconds);
        let line = w.call(&request.line(), timeout).map_err(|e| {
            self.restart(format!(
                "{e}; worker stderr (last lines):\n{}",
                w.stderr_tail()
            ))
        })?;
        match protocol::read(&line, expect) {
            Err(Broken(why)) => {
                drop(w); // stops the worker: its stream can no longer be trusted
                Err(self.restart(why))
            }
            Ok(r) => {
                st.idle.lock().unwrap_or_else(|p| p.into_inner()).push(w);
                match r? {
                    Response::Declined(why) => Err(format!("the learner declined: {why}")),
                    r => Ok(r),
                }
            }
        }
    }

    /// What answer `id` must be: `output` (none for a declaration) of `len` values, for a
    /// dataset of `n` rows.
    fn expect(&self, id: u64, output: Option<Output>, n: usize, len: usize) -> Expect {
        Expect {
            id,
            output,
            len,
            relation: self.cfg.relation.neighbours(),
            n: n as u64,
        }
    }

    /// The target a run of this learner is asked for at ε: (ε, the config's δ), or its
    /// add/remove equivalent when the config ranks at replace-one ([`Context::target`]).
    fn target(&self, ctx: &Context<'_>, epsilon: f64) -> Result<Target, String> {
        ctx.target(epsilon, Some(self.cfg.relation.neighbours()))
            .map_err(|e| format!("{e:#}"))
    }

    /// The event the learner declares, without data, for a run at `target` with `point`.
    fn declare(&self, ctx: &Context<'_>, point: &Value, target: Target) -> Result<Event, String> {
        let id = self.state.next_id.fetch_add(1, Ordering::SeqCst);
        let request = Request {
            id,
            files: None,
            n: ctx.train.n(),
            d: ctx.train.d(),
            epsilon: target.epsilon(),
            delta: target.delta(),
            seed: 0,
            hyperparameters: point,
        };
        let expect = self.expect(id, None, ctx.train.n(), ctx.train.d());
        match self.exchange(&request, &expect)? {
            Response::Declared(event) => Ok(event),
            other => Err(format!("expected a declaration, got {other:?}")),
        }
    }

    /// One fit at `target` with `point`: what it released, the declared event and the
    /// learner's own details.
    fn fit(
        &self,
        ctx: &Context<'_>,
        files: &DataFiles,
        point: &Value,
        target: Target,
        seed: u64,
    ) -> Result<Fit, String> {
        self.restore(ctx, files)?;
        let len = match self.cfg.output {
            Output::Predictions => ctx.test.len(),
            Output::Theta => ctx.train.d(),
        };
        let shape = (ctx.train.n(), ctx.train.d());
        self.fit_on(files, shape, len, point, target, seed)
    }

    /// One fit request on `files` (`shape` = rows, features) whose answer holds `len` values
    /// of the learner's output: a cell's fit, or an audit's run on one of its datasets.
    fn fit_on(
        &self,
        files: &DataFiles,
        (n, d): (usize, usize),
        len: usize,
        point: &Value,
        target: Target,
        seed: u64,
    ) -> Result<Fit, String> {
        let id = self.state.next_id.fetch_add(1, Ordering::SeqCst);
        let request = Request {
            id,
            files: Some(files),
            n,
            d,
            epsilon: target.epsilon(),
            delta: target.delta(),
            seed,
            hyperparameters: point,
        };
        let expect = self.expect(id, Some(self.cfg.output), n, len);
        let start = std::time::Instant::now();
        let Response::Fitted {
            values,
            event,
            details,
        } = self.exchange(&request, &expect)?
        else {
            return Err("expected a fit, got a declaration".into());
        };
        Ok(Fit {
            values,
            event,
            details,
            seconds: start.elapsed(),
        })
    }

    /// The fixed hyperparameters, one run at the cell's full budget.
    fn fixed(
        &self,
        ctx: &Context<'_>,
        cell: &Cell,
        files: &DataFiles,
    ) -> Result<CellOutcome, String> {
        let target = self.target(ctx, cell.epsilon)?;
        let fit = self.fit(ctx, files, &self.points[0], target, cell.seed)?;
        let accuracy = fit.test_accuracy(ctx, self.cfg.output);
        let details = FixedDetails {
            relation: event_json::relation_name(self.cfg.relation.neighbours()).to_string(),
            event: event_json::to_json(&fit.event, Some(ctx.train.n() as u64))
                .unwrap_or(Value::Null),
            learner: (!fit.details.is_null()).then_some(fit.details),
        };
        let relation = self.cfg.relation.neighbours();
        let clock = Clock::after(fit.seconds, self.cfg.timeout_seconds);
        outcome(
            ctx,
            relation,
            accuracy,
            fit.event,
            cell.epsilon,
            &details,
            clock,
        )
    }

    /// Counts a restart (the next cell starts a new worker) and returns the reason.
    fn restart(&self, why: String) -> String {
        self.state.restarts.fetch_add(1, Ordering::SeqCst);
        *self
            .state
            .last_failure
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = why.clone();
        why
    }
}
