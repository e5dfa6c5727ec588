//! Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards Practical Differentially
//! Private Convex Optimization*: Fig. 1 and Fig. 3 (accuracy tables at one ε) and Fig. 2 and
//! Fig. 4 (accuracy against ε), for the paper's calibration and the certified one, dishonest
//! and honest tuning (configs in `configs/iyengar2019/`).

pub mod curves;
pub mod paper_values;
pub mod results;
pub mod tables;

use std::path::Path;

use super::PaperSpec;
use crate::figures::Outcome;

/// Datasets in the paper's row order (config stems are `<dataset>-<loss>`).
pub const DATASETS: &[&str] = &[
    "synthetic-l",
    "adult",
    "kddcup99",
    "covertype",
    "mnist",
    "synthetic-h",
    "gisette",
    "real-sim",
    "rcv1",
];

/// The paper's entry in [`super::PAPERS`].
pub const SPEC: PaperSpec = PaperSpec {
    id: "iyengar2019",
    title: "Iyengar et al. 2019: AMP, H-F AMP, P-SGD, P-PSGD, P-SCPSGD, P-FW (paper vs certified noise)",
    configs: &[
        "adult-logistic",
        "adult-huber",
        "kddcup99-logistic",
        "kddcup99-huber",
        "synthetic-l-logistic",
        "synthetic-l-huber",
        "synthetic-h-logistic",
        "synthetic-h-huber",
    ],
    figures,
};

/// Every run found under `results` for one loss, in the paper's dataset order.
pub fn load_all(results: &Path, loss: &str) -> anyhow::Result<Vec<results::Row>> {
    let mut rows = Vec::new();
    for d in DATASETS {
        if let Some(r) = results::load(&results.join(format!("{d}-{loss}")), d, loss)? {
            rows.extend(r);
        }
    }
    Ok(rows)
}

/// The command that produces a missing run.
pub fn missing_message(what: &str, results: &Path, loss: &str) -> String {
    format!(
        "{what} skipped: no {}; run e.g. \
         `cargo run --release -p dp-bench -- configs/iyengar2019/adult-{loss}.toml --out {}`",
        results
            .join(format!("<dataset>-{loss}/summary.csv"))
            .display(),
        results.join(format!("adult-{loss}")).display()
    )
}

/// Writes the tables and figures into `out`, reading `<results>/<dataset>-<loss>/`.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let logistic = load_all(results, "logistic")?;
    let huber = load_all(results, "huber")?;
    Ok(vec![
        tables::write_fig_table(out, "fig1", &logistic, results, "logistic")?,
        tables::write_fig_table(out, "fig3", &huber, results, "huber")?,
        curves::write(out, "fig2", &logistic, results, "logistic")?,
        curves::write(out, "fig4", &huber, results, "huber")?,
        tables::write_markdown(out, &logistic, &huber)?,
    ])
}
