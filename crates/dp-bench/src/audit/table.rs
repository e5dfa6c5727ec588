//! The audit table: `audit.csv` (one row per method and target ε) and `audit.md`.

use std::path::Path;

use super::Outcome;
use crate::figures::csv::{Field, LongCsv};
use crate::files::write_text_atomic;
use crate::quoting::md_cell;

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
            Verdict::Consistent => "no violation at this power",
            Verdict::ClaimRefuted => "claim refuted",
            Verdict::Violation => "VIOLATION (measured above certified)",
        }
    }
}

/// The columns of [`fields`]: what an audit measured, without its wall time (so that a
/// table drawn from re-runs is byte-identical to the snapshot).
pub const COLUMNS: &[&str] = &[
    "method",
    "kind",
    "calibration",
    "neighbours",
    "certificate",
    "threat_model",
    "statistic",
    "epsilon_target",
    "epsilon_certified",
    "epsilon_lower",
    "epsilon_gdp_estimate",
    "epsilon_ceiling",
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
];

/// One outcome as CSV fields ([`COLUMNS`]); what does not apply to its test is NaN.
pub fn fields(o: &Outcome) -> Vec<Field> {
    let count = |f: fn(&super::one::Test) -> u64| o.test.as_ref().map_or(f64::NAN, |t| f(t) as f64);
    let one =
        |f: fn(&super::one::OneRun) -> u64| o.one_run.as_ref().map_or(f64::NAN, |r| f(r) as f64);
    vec![
        Field::Text(o.method.clone()),
        Field::Text(o.kind.clone()),
        Field::Text(o.calibration.clone()),
        Field::Text(o.neighbours.clone()),
        Field::Text(o.certificate.clone()),
        Field::Text(o.threat_model.clone()),
        Field::Text(o.statistic.clone()),
        Field::Num(o.epsilon_target),
        Field::Num(o.epsilon_certified),
        Field::Num(o.epsilon_lower),
        Field::Num(o.epsilon_gdp.unwrap_or(f64::NAN)),
        Field::Num(o.epsilon_ceiling.unwrap_or(f64::NAN)),
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
        Field::Text(Verdict::of(o).words().into()),
        Field::Text(o.label.clone()),
    ]
}

/// The header of [`md_row`]'s table, with a first column `first` when given.
pub fn md_header(first: Option<&str>) -> String {
    let (head, rule) = first.map_or((String::new(), ""), |f| (format!("| {f} "), "|---"));
    format!(
        "{head}| method | calibration | pair | audit | target ε | certified ε | measured ε ≥ | ceiling | GDP estimate | runs/side | verdict |\n\
         {rule}|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n"
    )
}

/// One outcome as a Markdown row, after a first cell `first` when given.
pub fn md_row(o: &Outcome, first: Option<&str>) -> String {
    let head = first.map_or(String::new(), |f| format!("| {} ", md_cell(f)));
    format!(
        "{head}| {} | {} | {} | {}, {} | {:.2} | {} | {:.2} | {} | {} | {} | {} |\n",
        md_cell(&o.method),
        o.calibration,
        o.neighbours.replace('_', "-"),
        o.threat_model,
        o.statistic.replace('_', "-"),
        o.epsilon_target,
        fmt_eps(o.epsilon_certified),
        o.epsilon_lower,
        o.epsilon_ceiling.map_or("–".into(), |c| format!("{c:.2}")),
        o.epsilon_gdp.map_or("–".into(), |g| format!("{g:.2}")),
        o.runs_per_side,
        Verdict::of(o).words()
    )
}

/// How the bounds were made, under a table.
pub const MD_NOTE: &str = "\nAudit: the threat model (black-box: the final model, a data \
    canary; white-box: every step's noisy sum, the minimiser before its output noise, every \
    vertex chosen or the last iterate plus its output noise, with a gradient canary) and the \
    statistic. Measured ε: a lower bound holding with the config's `audit.confidence` for all \
    rows of a config together: the threshold test with Clopper–Pearson bounds (threshold chosen \
    on the first half of each side's runs, bound computed on the second; `planned-threshold`: \
    where the view's law is known, white-box P-FW, P-PSGD and paper P-SGD, fixed in advance \
    from it, on all runs; `fdp`: \
    those counts \
    tested against the subsampled Gaussian's curves, the view's own family with Poisson batches, \
    its ε read from a lower bound on that member's), the GDP estimate at the central threshold \
    on all runs where the auditor's view is exactly Gaussian (white-box full-batch DP-SGD and \
    P-SGD, Algorithm 1, AMP), or the one-run audit (runs/side 1: Steinke et al.'s bound, or, \
    where every canary's white-box view is exactly Gaussian, `one-run-fdp`, Mahloujifar et al.'s \
    f-DP test against the Gaussian curve, and with Poisson batches against the subsampled \
    Gaussian's curves, the view's own family, its ε read from a lower bound on that member's). \
    Ceiling: the most that statistic could measure on the same runs at the same confidence from \
    the certificate's own trade-off curve (the event's privacy-loss distribution joined with its \
    privacy profile and the certified (ε, δ); for a white-box view whose curve is known, its \
    own: μ-GDP for a Gaussian view, randomised response at the step's ε composed for P-FW's, the \
    Gaussian at the largest shift for P-SCPSGD's, the mixture over the canary's batch of Gaussian \
    pairs for P-PSGD's, the mixture over the canary's hidden copies composed over the steps for \
    paper P-SGD's) with expected error counts; for a one-run row, \
    its own test at the expected number of right guesses from the same curves, which a run may \
    exceed by chance. Measured far below the ceiling means a weak statistic; a ceiling far below \
    the certificate, too few runs to see the tail events that set ε at this δ. GDP estimate: \
    Nasr et al. 2023 on threshold rows, the Gaussian f-DP test on the same guesses on one-run \
    rows; a bound only where the view's trade-off is Gaussian, and never used elsewhere for a \
    verdict. Certified ε: this project's accountants, for the pair's relation (group of two \
    where a replace-one pair meets an add/remove certificate).\n";

/// Writes `dir/audit.csv` (with each audit's wall time) and `dir/audit.md` atomically.
pub fn write(dir: &Path, outcomes: &[Outcome]) -> anyhow::Result<()> {
    let mut columns = COLUMNS.to_vec();
    columns.push("seconds");
    let mut csv = LongCsv::new(&columns);
    let mut md = md_header(None);
    for o in outcomes {
        let mut row = fields(o);
        row.push(Field::Num((o.seconds * 10.0).round() / 10.0));
        csv.push(row)?;
        md.push_str(&md_row(o, None));
    }
    md.push_str(MD_NOTE);
    csv.write(&dir.join("audit.csv"))?;
    write_text_atomic(&dir.join("audit.md"), &md)
}

/// A certified ε for a table: ∞ spelled out, large values without noise digits.
pub fn fmt_eps(e: f64) -> String {
    if e.is_infinite() {
        "∞".into()
    } else if e >= 100.0 {
        format!("{e:.0}")
    } else {
        format!("{e:.2}")
    }
}
