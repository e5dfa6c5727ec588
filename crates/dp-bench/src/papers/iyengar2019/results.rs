//! Reads a run's summary (recomputed from its cells) and config copy into rows labelled by
//! algorithm, calibration and tuning (from each method's table in `config.toml`, not from its
//! name).

use std::path::Path;

use anyhow::Context as _;

use crate::experiment::verified;

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
/// The summary is recomputed from the folder's checksummed cells with its config copy
/// ([`verified::load`]: a `summary.csv` that differs, or one without cells, is an error
/// naming it); each row's algorithm, calibration and tuning come from its method
/// ([`crate::methods::Method::protocol`]), not from its name.
pub fn load(dir: &Path, dataset: &str, loss: &str) -> anyhow::Result<Option<Vec<Row>>> {
    let path = dir.join("summary.csv");
    if !path.exists() {
        return Ok(None);
    }
    let verified::VerifiedRun {
        config: cfg,
        rows: summary,
        ..
    } = verified::load(dir)?;
    let mut rows = Vec::new();
    for r in summary {
        let spec = cfg.methods.get(&r.method).with_context(|| {
            format!(
                "{}: method {:?} is not in the config beside it; re-run the config",
                path.display(),
                r.method
            )
        })?;
        let protocol = spec.method.protocol();
        rows.push(Row {
            dataset: dataset.to_string(),
            loss: loss.to_string(),
            algorithm: spec.kind.to_string(),
            calibration: protocol.calibration.unwrap_or("-").to_string(),
            tuning: protocol.tuning.unwrap_or("-").to_string(),
            epsilon: r.epsilon,
            mean_accuracy: r.mean_accuracy,
            std: r.std,
            trials: r.trials,
            best_config: r.chosen.unwrap_or_default(),
            epsilon_certified: r.epsilon_certified,
        });
    }
    Ok(Some(rows))
}
