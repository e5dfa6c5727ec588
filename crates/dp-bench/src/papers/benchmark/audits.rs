//! The audits the leaderboard shows beside its learners: every `dp-bench audit` folder
//! directly under the leaderboard's results folder (`<results>/<run>/audits/*.json`), matched
//! to entries by what the audit speaks for ([`crate::experiment::method::identity`]). A
//! learner whose audit measured more than its certificate allows is refuted: its declared
//! events are false, so no ε it reports is certified, and it is not ranked.

use std::collections::BTreeMap;
use std::path::Path;

use super::load::{Role, Run};
use crate::audit::Outcome;
use crate::audit::table::Verdict;

/// What a learner's audits found, in the form the tables show.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditSummary {
    /// Some audit measured a lower bound above the ε certified from what the learner
    /// declared (at that audit's confidence).
    pub refuted: bool,
    /// The audit shown: the refuting one, else the one with the largest measured bound
    /// relative to its certificate.
    pub shown: Outcome,
    /// Audits of this learner, over every folder and target ε.
    pub count: usize,
}

impl AuditSummary {
    /// One line: the verdict, the measured bound beside the certificate and target, the runs
    /// and the confidence, e.g. `consistent: ε ≥ 0.21 measured, certified 0.99 at target 1
    /// (500 runs per side, 97.5 % confidence; 2 audits)`.
    pub fn words(&self) -> String {
        let o = &self.shown;
        let verdict = if self.refuted {
            "REFUTED"
        } else {
            "consistent"
        };
        let runs = if o.one_run.is_some() {
            "one run".to_string()
        } else {
            format!("{} runs per side", o.runs_per_side)
        };
        format!(
            "{verdict}: ε ≥ {} measured, certified {} at target {} ({runs}, {} % confidence; \
             {} audit{})",
            super::table::num(o.epsilon_lower, 3),
            super::table::num(o.epsilon_certified, 3),
            crate::figures::csv::format_number(o.epsilon_target),
            crate::figures::csv::format_number(100.0 * o.confidence),
            self.count,
            if self.count == 1 { "" } else { "s" }
        )
    }
}

/// Every audit outcome stored under `results` (one level down), by the learner it speaks for;
/// outcomes that name no learner (stored before the field existed) are left out.
pub fn load(results: &Path) -> anyhow::Result<BTreeMap<String, AuditSummary>> {
    let mut by: BTreeMap<String, Vec<Outcome>> = BTreeMap::new();
    let Ok(list) = std::fs::read_dir(results) else {
        return Ok(BTreeMap::new());
    };
    let mut dirs: Vec<_> = list
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|d| d.join("audits").is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        for o in crate::papers::audit::load(&d)? {
            if !o.learner.is_empty() {
                by.entry(o.learner.clone()).or_default().push(o);
            }
        }
    }
    Ok(by
        .into_iter()
        .map(|(learner, outcomes)| (learner, summarise(outcomes)))
        .collect())
}

/// The summary of one learner's outcomes (at least one).
fn summarise(outcomes: Vec<Outcome>) -> AuditSummary {
    let refuting = |o: &Outcome| Verdict::of(o) == Verdict::Violation;
    let ratio = |o: &Outcome| {
        if o.epsilon_lower > 0.0 {
            o.epsilon_lower / o.epsilon_certified
        } else {
            0.0
        }
    };
    let refuted = outcomes.iter().any(refuting);
    let shown = outcomes
        .iter()
        .filter(|o| !refuted || refuting(o))
        .max_by(|a, b| ratio(a).total_cmp(&ratio(b)))
        .expect("a learner with audits has one")
        .clone();
    AuditSummary {
        refuted,
        shown,
        count: outcomes.len(),
    }
}

/// Puts each learner's audit beside its entries; a refuted learner's ranked (or off-axis)
/// entries become [`Role::Refuted`].
pub fn attach(runs: &mut [Run], audits: &BTreeMap<String, AuditSummary>) {
    for e in runs.iter_mut().flat_map(|r| r.entries.iter_mut()) {
        let Some(a) = audits.get(&e.identity) else {
            continue;
        };
        if a.refuted && matches!(e.role, Role::Ranked | Role::OffAxis) {
            e.role = Role::Refuted;
        }
        e.audit = Some(a.clone());
    }
}
