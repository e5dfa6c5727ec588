//! Aggregation of finished cells into the paper's table: mean test accuracy and 95% CI.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::config::Config;
use super::grid::expand;
use super::record::CellRecord;
use super::store::write_text_atomic;
use anyhow::Context as _;

use crate::figures::csv::Table;
use crate::quoting::field as csv_field;
use crate::quoting::md_cell;

/// The summary table of a run folder.
pub const CSV_FILE: &str = "summary.csv";
/// The same as a Markdown table.
pub const MD_FILE: &str = "summary.md";

/// One row of `summary.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// Method name.
    pub method: String,
    /// Target ε.
    pub epsilon: f64,
    /// Mean test accuracy over trials (percent).
    pub mean_accuracy: f64,
    /// 1.96 × standard error of the mean.
    pub ci95: f64,
    /// Number of trials aggregated.
    pub trials: usize,
    /// Learning rate chosen by dishonest tuning (NaN otherwise).
    pub chosen_lr: f64,
    /// Population standard deviation (ddof 0, as Iyengar et al. report) over trials.
    pub std: f64,
    /// The configuration the summary reports, in words (`L=1;lr=0.1`), if the method has one.
    pub chosen: Option<String>,
    /// Largest ε the accountant certifies over the summarised trials (∞: no guarantee).
    pub epsilon_certified: f64,
}

/// Population standard deviation (ddof 0; NaN when empty).
pub fn std_ddof0(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// Mean and 1.96 × standard error (sample standard deviation; 0 for a single value).
pub fn mean_ci95(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 1.96 * (var / n).sqrt())
}

/// Aggregates cells per (method, ε), each method deciding how its trials combine
/// ([`crate::methods::Method::aggregate`]: dishonest tuning reports the single learning rate
/// with the best mean accuracy over trials; every other method averages what each trial
/// released). Only cells of the config's own cell set count (same key, so the same
/// parameters, dataset, δ, seed and trial range): cells of an earlier version of the config
/// are left out, and so a summary never reports more trials than the config has.
pub fn summarize(cfg: &Config, rows: &[CellRecord]) -> anyhow::Result<Vec<SummaryRow>> {
    let current: HashSet<String> = expand(cfg).iter().map(|c| c.key()).collect();
    let mut groups: BTreeMap<(String, u64), Vec<&CellRecord>> = BTreeMap::new();
    for r in rows {
        if current.contains(&r.key) {
            groups
                .entry((r.method.clone(), r.epsilon.to_bits()))
                .or_default()
                .push(r);
        }
    }
    let mut out = Vec::new();
    for ((method, eps_bits), cells) in groups {
        let agg = cfg.methods[&method].method.aggregate(&cells)?;
        let (mean, ci) = mean_ci95(&agg.accuracies);
        let certified = agg.epsilon_certified.unwrap_or_else(|| {
            cells
                .iter()
                .map(|c| c.epsilon_accounted)
                .fold(0.0, f64::max)
        });
        out.push(SummaryRow {
            method,
            epsilon: f64::from_bits(eps_bits),
            mean_accuracy: mean,
            ci95: ci,
            trials: agg.accuracies.len(),
            chosen_lr: agg.chosen.unwrap_or(f64::NAN),
            std: std_ddof0(&agg.accuracies),
            chosen: agg.label,
            epsilon_certified: certified,
        });
    }
    out.sort_by(|a, b| {
        a.method
            .cmp(&b.method)
            .then(a.epsilon.total_cmp(&b.epsilon))
    });
    Ok(out)
}

/// Reads a `summary.csv` as [`write()`] writes it, every column typed; a file from before the
/// `std`, `chosen` and `epsilon_certified` columns reads them as NaN, none and NaN. The
/// learning-rate column was never written: `chosen_lr` is NaN. Figures, the leaderboard and
/// the report do not read it: they recompute it from the cells
/// ([`super::verified::summary_rows`]).
pub fn read(path: &Path) -> anyhow::Result<Vec<SummaryRow>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// Parses the text of a `summary.csv` ([`read`]); `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> anyhow::Result<Vec<SummaryRow>> {
    let t = Table::parse(text, origin)?;
    (0..t.rows.len())
        .map(|i| {
            let chosen = t.text(i, "chosen").unwrap_or("");
            Ok(SummaryRow {
                method: t.text(i, "method")?.to_string(),
                epsilon: t.num(i, "epsilon")?,
                mean_accuracy: t.num(i, "mean_accuracy")?,
                ci95: t.num(i, "ci95")?,
                trials: t.num(i, "trials")? as usize,
                chosen_lr: f64::NAN,
                std: t.num(i, "std").unwrap_or(f64::NAN),
                chosen: (!chosen.is_empty()).then(|| chosen.to_string()),
                epsilon_certified: t.num(i, "epsilon_certified").unwrap_or(f64::NAN),
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()
        .with_context(|| format!("cannot parse {origin}"))
}

/// Writes `summary.csv` and `summary.md` atomically.
pub fn write(dir: &Path, rows: &[SummaryRow]) -> anyhow::Result<()> {
    write_text_atomic(&dir.join(CSV_FILE), &csv_text(rows))?;
    let md = markdown_table(rows);
    write_text_atomic(&dir.join(MD_FILE), &md)
}

/// The text of `summary.csv` for `rows`, exactly as [`write()`] writes it (its rounding is
/// what every reader sees, so a recomputed summary is compared and read through it).
pub fn csv_text(rows: &[SummaryRow]) -> String {
    let mut csv =
        String::from("method,epsilon,mean_accuracy,ci95,trials,std,chosen,epsilon_certified\n");
    for r in rows {
        csv.push_str(&format!(
            "{},{},{:.4},{:.4},{},{:.4},{},{}\n",
            csv_field(&r.method),
            r.epsilon,
            r.mean_accuracy,
            r.ci95,
            r.trials,
            r.std,
            csv_field(r.chosen.as_deref().unwrap_or("")),
            r.epsilon_certified
        ));
    }
    csv
}

/// The summary as a Markdown table: one row per ε, one column per method, "mean ± ci95"
/// ("mean (1 trial)" when there is no interval).
pub fn markdown_table(rows: &[SummaryRow]) -> String {
    let methods: Vec<String> = {
        let mut m: Vec<String> = rows.iter().map(|r| r.method.clone()).collect();
        m.dedup();
        m.sort();
        m.dedup();
        m
    };
    let mut eps: Vec<f64> = rows.iter().map(|r| r.epsilon).collect();
    eps.sort_by(f64::total_cmp);
    eps.dedup();
    let mut s = format!(
        "| ε | {} |\n|---|{}\n",
        methods
            .iter()
            .map(|m| md_cell(m))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(methods.len())
    );
    for e in eps {
        s.push_str(&format!("| {e} |"));
        for m in &methods {
            match rows.iter().find(|r| &r.method == m && r.epsilon == e) {
                // One trial has no spread to measure: "± 0.00" would claim a certain mean.
                Some(r) if r.trials == 1 => {
                    s.push_str(&format!(" {:.2} (1 trial) |", r.mean_accuracy))
                }
                Some(r) => s.push_str(&format!(" {:.2} ± {:.2} |", r.mean_accuracy, r.ci95)),
                None => s.push_str(" – |"),
            }
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Odd method names stay one field: quoted as RFC 4180 says, read back whole.
    #[test]
    fn summary_csv_text_quotes_odd_names_and_parses_back() {
        let row = |method: &str| SummaryRow {
            method: method.into(),
            epsilon: 0.1,
            mean_accuracy: 80.0,
            ci95: 0.5,
            trials: 2,
            chosen_lr: f64::NAN,
            std: 0.4,
            chosen: Some("lr=0.1, clip=1".into()),
            epsilon_certified: 0.1,
        };
        let odd = "x,<script>|y\"z";
        let text = csv_text(&[row("alg1"), row(odd)]);
        assert!(
            text.contains("\nalg1,0.1,"),
            "plain names stay bare: {text}"
        );
        assert!(text.contains("\n\"x,<script>|y\"\"z\",0.1,"), "{text}");
        let back = parse(&text, "test").unwrap();
        assert_eq!(back[1].method, odd);
        assert_eq!(back[1].chosen.as_deref(), Some("lr=0.1, clip=1"));
        assert_eq!(csv_text(&back), text, "text → rows → text is the identity");
    }

    #[test]
    fn ci_matches_hand_computation() {
        let (m, ci) = mean_ci95(&[1.0, 2.0, 3.0, 4.0]);
        assert!((m - 2.5).abs() < 1e-12);
        // sd = sqrt(5/3), se = sd/2
        assert!((ci - 1.96 * (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(mean_ci95(&[7.0]), (7.0, 0.0));
        // ddof 0: the population standard deviation, as numpy's np.std.
        assert!((std_ddof0(&[1.0, 2.0, 3.0, 4.0]) - 1.25f64.sqrt()).abs() < 1e-15);
    }
}
