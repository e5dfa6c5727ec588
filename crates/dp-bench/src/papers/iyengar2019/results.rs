//! Reads a run's `summary.csv` and its config copy into rows labelled by algorithm,
//! calibration and tuning (from each method's table in `config.toml`, not from its name).

use std::path::Path;

use anyhow::Context as _;

use crate::figures::csv::Table;

/// One summary row of an Iyengar et al. run.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Dataset stem, e.g. `adult`.
    pub dataset: String,
    /// `logistic` or `huber`.
    pub loss: String,
    /// Algorithm (the method kind): `np`, `amp`, …
    pub algorithm: String,
    /// `paper` or `certified` (`-` for NP).
    pub calibration: String,
    /// `dishonest` or `honest` (`-` for NP).
    pub tuning: String,
    /// Target ε.
    pub epsilon: f64,
    /// Mean test accuracy (percent).
    pub mean_accuracy: f64,
    /// Standard deviation over trials (ddof 0).
    pub std: f64,
    /// Trials.
    pub trials: usize,
    /// The reported configuration.
    pub best_config: String,
    /// ε the accountant certifies for it (∞: no guarantee).
    pub epsilon_certified: f64,
}

/// Rows of `<dir>/summary.csv` for `dataset` and `loss`; `None` when the run has no summary.
pub fn load(dir: &Path, dataset: &str, loss: &str) -> anyhow::Result<Option<Vec<Row>>> {
    let summary = dir.join("summary.csv");
    if !summary.exists() {
        return Ok(None);
    }
    let cfg_path = dir.join("config.toml");
    let cfg: toml::Table = std::fs::read_to_string(&cfg_path)
        .with_context(|| format!("cannot read {}", cfg_path.display()))?
        .parse()
        .with_context(|| format!("cannot parse {}", cfg_path.display()))?;
    let methods = cfg.get("methods").and_then(|m| m.as_table());
    let field = |method: &str, key: &str| -> String {
        methods
            .and_then(|m| m.get(method))
            .and_then(|m| m.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or("-")
            .to_string()
    };
    let t = Table::read(&summary)?;
    let mut rows = Vec::new();
    for i in 0..t.rows.len() {
        let method = t.text(i, "method")?;
        rows.push(Row {
            dataset: dataset.to_string(),
            loss: loss.to_string(),
            algorithm: field(method, "kind"),
            calibration: field(method, "calibration"),
            tuning: field(method, "tuning"),
            epsilon: t.num(i, "epsilon")?,
            mean_accuracy: t.num(i, "mean_accuracy")?,
            std: t.num(i, "std")?,
            trials: t.num(i, "trials")? as usize,
            best_config: t.text(i, "chosen").unwrap_or("").to_string(),
            epsilon_certified: t.num(i, "epsilon_certified").unwrap_or(f64::NAN),
        });
    }
    Ok(Some(rows))
}
