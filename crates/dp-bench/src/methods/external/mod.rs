//! `kind = "external"`: a learner in any language, run as a worker process that answers
//! newline-delimited JSON requests (`docs/external-learners.md`). The harness writes the
//! training arrays once, asks the worker to fit at the cell's (ε, δ, seed), scores what comes
//! back itself, and certifies the cell from the event the learner declares, with our
//! accountants: a declaration is a description, never a number taken on trust.
//!
//! A cell the learner fails (a crash, a hang past `timeout_seconds`, a malformed or refused
//! response, an event the accountants cannot bound) is recorded as failed: accuracy NaN,
//! `epsilon_accounted` ∞, `details.error` says why. It is not an `Err`, which would stop the
//! whole grid (the runner aborts on a cell's error); NaN poisons that (method, ε) mean
//! visibly and the figure drops the point. A cell whose certified ε exceeds its target is
//! recorded with its true certified ε, `details.over_budget = true`, its accuracy in
//! `details.accuracy` and accuracy NaN: it is never presented as an accuracy at the target.

mod npy;
mod protocol;
mod worker;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dp_core::accounting::event::Neighbours;
use dp_core::accounting::event_json;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{CellOutcome, Context, Method, MethodEntry, Protocol, parse_table, test_accuracy};
use crate::experiment::grid::Cell;
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
    /// Fixed values passed to the worker as JSON (no tuning: one run at the full budget).
    #[serde(default)]
    pub hyperparameters: toml::Table,
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
            cfg.timeout_seconds
        ));
    }
    Ok(Box::new(External {
        hyperparameters: serde_json::to_value(&cfg.hyperparameters)
            .map_err(|e| format!("hyperparameters` cannot be written as JSON: {e}"))?,
        cfg,
        state: Arc::default(),
    }))
}

/// The method: its config and the workers and files its cells share.
pub struct External {
    cfg: ExternalConfig,
    hyperparameters: Value,
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
}

impl Method for External {
    fn kind(&self) -> &'static str {
        ENTRY.kind
    }

    fn params(&self) -> Value {
        serde_json::to_value(&self.cfg).expect("plain struct")
    }

    /// The learner certifies its own calibration; the harness checks it.
    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some("declared"),
            tuning: None,
        }
    }

    /// Unknown; a learner is typically a few passes over the data plus process overhead.
    fn cost(&self) -> f64 {
        20.0
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let files = self.files(ctx)?;
        Ok(match self.fit(ctx, cell, &files) {
            Ok(out) => out,
            Err(reason) => failed(reason),
        })
    }
}

/// A failed cell: nothing released, nothing certified.
fn failed(reason: String) -> CellOutcome {
    CellOutcome {
        accuracy: f64::NAN,
        epsilon_accounted: f64::INFINITY,
        details: json!({ "error": reason }),
    }
}

impl External {
    /// The arrays, written on the first cell (under the results folder, else the system's
    /// temporary folder).
    fn files(&self, ctx: &Context<'_>) -> anyhow::Result<DataFiles> {
        let root = match &ctx.scratch {
            Some(dir) => dir.join("external"),
            None => std::env::temp_dir().join("dpbench-external"),
        };
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

    /// One request to a pooled worker and everything checked about its answer; `Err` is the
    /// reason the cell failed.
    fn fit(
        &self,
        ctx: &Context<'_>,
        cell: &Cell,
        files: &DataFiles,
    ) -> Result<CellOutcome, String> {
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
        let id = st.next_id.fetch_add(1, Ordering::SeqCst);
        let (n, d) = (ctx.train.n(), ctx.train.d());
        let request = Request {
            id,
            files,
            n,
            d,
            epsilon: cell.epsilon,
            delta: ctx.cfg.delta,
            seed: cell.seed,
            hyperparameters: &self.hyperparameters,
        };
        let timeout = Duration::from_secs_f64(self.cfg.timeout_seconds);
        let line = w.call(&request.line(), timeout).map_err(|e| {
            self.restart(format!(
                "{e}; worker stderr (last lines):\n{}",
                w.stderr_tail()
            ))
        })?;
        let expect = Expect {
            id,
            output: self.cfg.output,
            len: match self.cfg.output {
                Output::Theta => d,
                Output::Predictions => ctx.test.len(),
            },
            relation: self.cfg.relation.neighbours(),
            n: n as u64,
        };
        let response = match protocol::read(&line, &expect) {
            Err(Broken(why)) => {
                drop(w); // stops the worker: its stream can no longer be trusted
                return Err(self.restart(why));
            }
            Ok(r) => {
                st.idle.lock().unwrap_or_else(|p| p.into_inner()).push(w);
                r?
            }
        };
        let (values, event, learner) = match response {
            Response::Declined(why) => return Err(format!("the learner declined: {why}")),
            Response::Fitted {
                values,
                event,
                details,
            } => (values, event, details),
        };
        let eps = ctx
            .certify_declared(&event)
            .map_err(|e| format!("the accountants cannot bound the declared event: {e:#}"))?;
        let accuracy = match self.cfg.output {
            Output::Theta => test_accuracy(ctx, &values),
            Output::Predictions => {
                let right = values
                    .iter()
                    .zip(&ctx.test.y)
                    .filter(|&(&p, &y)| (p == 1.0) == (y > 0.0))
                    .count();
                100.0 * right as f64 / values.len().max(1) as f64
            }
        };
        let over_budget = eps > cell.epsilon;
        let mut details = json!({
            "relation": event_json::relation_name(self.cfg.relation.neighbours()),
            "event": event_json::to_json(&event, Some(n as u64)).unwrap_or(Value::Null),
            "over_budget": over_budget,
        });
        if !learner.is_null() {
            details["learner"] = learner;
        }
        if over_budget {
            details["accuracy"] = json!(accuracy);
        }
        Ok(CellOutcome {
            accuracy: if over_budget { f64::NAN } else { accuracy },
            epsilon_accounted: eps,
            details,
        })
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
