//! The audit table: `audit.csv` (one row per method and target ε) and `audit.md`.

use std::path::Path;

use super::Outcome;
use crate::experiment::store::write_text_atomic;
use crate::figures::csv::{Field, LongCsv};

/// How a measured lower bound compares with the claim and the certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// At most the claimed ε and the certified ε.
    Consistent,
    /// Above the claimed (target) ε, at most the certified ε: the claim is refuted by
    /// experiment, the certificate stands.
    ClaimRefuted,
    /// Above the certified ε: a learner releases more than its event says, or an accountant
    /// under-reports. Always a bug.
    Violation,
}

impl Verdict {
    /// The verdict of one outcome.
    pub fn of(o: &Outcome) -> Verdict {
        if o.epsilon_lower > o.epsilon_certified {
            Verdict::Violation
        } else if o.epsilon_lower > o.epsilon_target {
            Verdict::ClaimRefuted
        } else {
            Verdict::Consistent
        }
    }

    /// In words, for the tables.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Consistent => "consistent",
            Verdict::ClaimRefuted => "claim refuted",
            Verdict::Violation => "VIOLATION (measured above certified)",
        }
    }
}

const COLUMNS: &[&str] = &[
    "method",
    "kind",
    "calibration",
    "neighbours",
    "certificate",
    "epsilon_target",
    "epsilon_certified",
    "epsilon_lower",
    "epsilon_gdp_estimate",
    "delta",
    "confidence",
    "runs_per_side",
    "threshold",
    "false_positives",
    "false_negatives",
    "evaluated_per_side",
    "canaries",
    "guesses",
    "correct_guesses",
    "failures",
    "verdict",
    "hyperparameters",
    "seconds",
];

/// Writes `dir/audit.csv` and `dir/audit.md` atomically.
pub fn write(dir: &Path, outcomes: &[Outcome]) -> anyhow::Result<()> {
    let mut csv = LongCsv::new(COLUMNS);
    let mut md = String::from(
        "| method | calibration | relation | target ε | certified ε | measured ε ≥ | runs/side | verdict |\n\
         |---|---|---|---:|---:|---:|---:|---|\n",
    );
    for o in outcomes {
        let v = Verdict::of(o);
        let count =
            |f: fn(&super::one::Test) -> u64| o.test.as_ref().map_or(f64::NAN, |t| f(t) as f64);
        let one = |f: fn(&super::one::OneRun) -> u64| {
            o.one_run.as_ref().map_or(f64::NAN, |r| f(r) as f64)
        };
        csv.push(vec![
            Field::Text(o.method.clone()),
            Field::Text(o.kind.clone()),
            Field::Text(o.calibration.clone()),
            Field::Text(o.neighbours.clone()),
            Field::Text(o.certificate.clone()),
            Field::Num(o.epsilon_target),
            Field::Num(o.epsilon_certified),
            Field::Num(o.epsilon_lower),
            Field::Num(o.epsilon_gdp.unwrap_or(f64::NAN)),
            Field::Num(o.delta),
            Field::Num(o.confidence),
            Field::Num(o.runs_per_side as f64),
            Field::Num(o.test.as_ref().map_or(f64::NAN, |t| t.threshold)),
            Field::Num(count(|t| t.false_positives)),
            Field::Num(count(|t| t.false_negatives)),
            Field::Num(count(|t| t.negatives)),
            Field::Num(one(|r| r.canaries)),
            Field::Num(one(|r| r.guesses)),
            Field::Num(one(|r| r.correct)),
            Field::Num((o.failures[0] + o.failures[1]) as f64),
            Field::Text(v.words().into()),
            Field::Text(o.label.clone()),
            Field::Num((o.seconds * 10.0).round() / 10.0),
        ])?;
        md.push_str(&format!(
            "| {} | {} | {} | {:.2} | {} | {:.3} | {} | {} |\n",
            crate::report::html::md_cell(&o.method),
            o.calibration,
            o.neighbours.replace('_', "-"),
            o.epsilon_target,
            fmt_eps(o.epsilon_certified),
            o.epsilon_lower,
            o.runs_per_side,
            v.words()
        ));
    }
    md.push_str(&format!(
        "\nMeasured ε: threshold test with Clopper–Pearson bounds, threshold chosen on the first \
         half of the runs and the bound computed on the second; each bound at confidence {} \
         (all of them together at the config's `audit.confidence`).\n",
        outcomes.first().map_or(0.0, |o| o.confidence)
    ));
    csv.write(&dir.join("audit.csv"))?;
    write_text_atomic(&dir.join("audit.md"), &md)
}

/// A certified ε for a table: ∞ spelled out, large values without noise digits.
fn fmt_eps(e: f64) -> String {
    if e.is_infinite() {
        "∞".into()
    } else if e >= 100.0 {
        format!("{e:.0}")
    } else {
        format!("{e:.3}")
    }
}
