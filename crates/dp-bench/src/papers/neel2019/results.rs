//! One run's cells grouped per (method, ε) with what Figure 1 and its table need: mean and
//! std of the released accuracy, the certified fraction with the ε of the certified runs,
//! solver work and solve times. Methods are labelled from their tables in the run's
//! `config.toml` copy (kind and calibration), not their names.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;

use crate::experiment::record::CellRecord;
use crate::experiment::store::read_cells;
use crate::figures::csv::Table;

/// One (method, ε) of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Display name (kind and calibration in words).
    pub method: String,
    /// Method kind.
    pub kind: String,
    /// `paper`, `chi`, `authors-code`, or `-`.
    pub calibration: String,
    /// ε of the cells.
    pub epsilon: f64,
    /// Training rows.
    pub n: usize,
    /// Mean accuracy (percent) of what was released (the summary's: dishonest DP-SGD reports
    /// its best grid point).
    pub mean_accuracy: f64,
    /// Std over runs (ddof 0).
    pub std: f64,
    /// Runs.
    pub runs: usize,
    /// Fraction of runs whose oracle certified the exact argmin (1 for methods without one).
    pub certified: f64,
    /// Runs whose oracle certified (all runs for methods without one).
    pub certified_runs: usize,
    /// Median branch-and-bound nodes of the oracle's solves (NaN without an oracle).
    pub median_nodes: f64,
    /// Median seconds of a run (the MIP solve for oracle methods, the cell's wall time else).
    pub median_seconds: f64,
    /// Every run's seconds (the run-time histogram).
    pub seconds: Vec<f64>,
    /// Mean accuracy the oracle's answers would have had had every one been released,
    /// timeouts' incumbents included (no guarantee; NaN for methods without an oracle).
    pub incumbent_accuracy: f64,
    /// Largest ε the project certifies over all runs (∞ as soon as one run has no guarantee:
    /// the summary's column).
    pub epsilon_certified: f64,
    /// Largest ε over the runs that carry a guarantee (∞ when none does): read with
    /// `certified`, what a reader of one certified release may rely on.
    pub epsilon_of_certified: f64,
    /// A deterministic non-private reference line (one run, ε-free).
    pub reference: bool,
}

/// Display name of a method kind and calibration.
pub fn display(kind: &str, calibration: &str) -> String {
    match (kind, calibration) {
        ("opdisc", "chi") => "OPDisc (χ-certified σ)".into(),
        ("opdisc", "authors-code") => "OPDisc (authors' code σ/2: not private)".into(),
        ("opdisc", _) => "OPDisc (paper σ)".into(),
        ("rspm", _) => "RSPM".into(),
        ("opsamp", _) => "OPSamp (theory only)".into(),
        ("dpsgd", _) => "private LR (DP-SGD; best of grid)".into(),
        ("logreg_erm", _) => "non-private LR".into(),
        ("zero_one_erm", _) => "non-private 0/1 optimum".into(),
        (k, _) => k.into(),
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Seconds of one run: the cell's wall time (from `timings.csv`), or the oracle's solve time
/// in runs made before solve times moved out of the cell table.
fn seconds(c: &CellRecord) -> f64 {
    let s = c.detail("solve_seconds");
    if s.is_finite() { s } else { c.wall_ms / 1e3 }
}

/// The rows of the run in `dir`; `None` when it has no summary yet.
pub fn load(dir: &Path) -> anyhow::Result<Option<Vec<Row>>> {
    let summary = dir.join("summary.csv");
    if !summary.exists() {
        return Ok(None);
    }
    let cfg_path = dir.join("config.toml");
    let cfg: toml::Table = std::fs::read_to_string(&cfg_path)
        .with_context(|| format!("cannot read {}", cfg_path.display()))?
        .parse()
        .with_context(|| format!("cannot parse {}", cfg_path.display()))?;
    let field = |method: &str, key: &str| -> String {
        cfg.get("methods")
            .and_then(|m| m.get(method))
            .and_then(|m| m.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or("-")
            .to_string()
    };
    let n = cfg
        .get("dataset")
        .and_then(|d| d.get("subsample"))
        .and_then(|v| v.as_integer())
        .map_or(15_682, |v| v as usize);
    let mut cells: BTreeMap<(String, u64), Vec<CellRecord>> = BTreeMap::new();
    for c in read_cells(dir)? {
        cells
            .entry((c.method.clone(), c.epsilon.to_bits()))
            .or_default()
            .push(c);
    }
    let t = Table::read(&summary)?;
    let mut rows = Vec::new();
    for i in 0..t.rows.len() {
        let method = t.text(i, "method")?.to_string();
        let epsilon = t.num(i, "epsilon")?;
        let kind = field(&method, "kind");
        let calibration = match kind.as_str() {
            "opdisc" => match field(&method, "calibration").as_str() {
                "-" => "paper".to_string(),
                c => c.to_string(),
            },
            "rspm" => "paper".into(),
            _ => "-".into(),
        };
        let group = cells
            .get(&(method.clone(), epsilon.to_bits()))
            .map_or(&[][..], Vec::as_slice);
        let secs: Vec<f64> = group.iter().map(seconds).collect();
        let certified_cells: Vec<&CellRecord> = group
            .iter()
            .filter(|c| c.details.get("certified").and_then(|v| v.as_bool()) != Some(false))
            .collect();
        let certified = if group.is_empty() {
            f64::NAN
        } else {
            certified_cells.len() as f64 / group.len() as f64
        };
        let epsilon_of_certified = certified_cells
            .iter()
            .map(|c| c.epsilon_accounted)
            .fold(f64::NEG_INFINITY, f64::max);
        let nodes: Vec<f64> = group.iter().map(|c| c.detail("nodes")).collect();
        let incumbents: Vec<f64> = group
            .iter()
            .map(|c| c.detail("incumbent_accuracy"))
            .filter(|a| a.is_finite())
            .collect();
        let incumbent_accuracy = if incumbents.is_empty() {
            f64::NAN
        } else {
            incumbents.iter().sum::<f64>() / incumbents.len() as f64
        };
        rows.push(Row {
            incumbent_accuracy,
            method: display(&kind, &calibration),
            reference: matches!(kind.as_str(), "logreg_erm" | "zero_one_erm"),
            kind,
            calibration,
            epsilon,
            n,
            mean_accuracy: t.num(i, "mean_accuracy")?,
            std: t.num(i, "std")?,
            runs: t.num(i, "trials")? as usize,
            certified,
            certified_runs: certified_cells.len(),
            median_nodes: median(&nodes),
            median_seconds: median(&secs),
            seconds: secs,
            epsilon_certified: t.num(i, "epsilon_certified")?,
            epsilon_of_certified: if epsilon_of_certified.is_finite() {
                epsilon_of_certified
            } else {
                f64::INFINITY
            },
        });
    }
    Ok(Some(rows))
}
