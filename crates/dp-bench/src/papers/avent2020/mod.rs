//! Avent, González, Diethe, Paleyes & Balle (2020), *Automatic Discovery of Privacy–Utility
//! Pareto Fronts* (DPareto): Figures 5–8 and Table 2 on Adult (a1a) from the studies in
//! `configs/avent2020/` (each `dp-bench run` writes `points.jsonl` under
//! `results/avent2020/<config stem>/`).

pub mod fronts;
pub mod illustrative;
pub mod runs;
pub mod table2;
pub mod toy;

use std::path::Path;

use super::PaperSpec;
use crate::figures::Outcome;

/// The three Adult settings: (config prefix, label).
pub const SETTINGS: &[(&str, &str)] = &[
    ("adult-lr-sgd", "LR + SGD"),
    ("adult-lr-adam", "LR + Adam"),
    ("adult-svm-sgd", "SVM + SGD"),
];

/// The two MNIST settings (scaled-down epochs): (config prefix, label).
pub const MNIST_SETTINGS: &[(&str, &str)] = &[("mnist-mlp1", "MLP1"), ("mnist-mlp2", "MLP2")];

/// The paper's entry in [`super::PAPERS`].
pub const SPEC: PaperSpec = PaperSpec {
    id: "avent2020",
    title: "Avent et al. 2020: DPareto privacy-utility Pareto fronts (BO vs random sampling vs grid)",
    configs: &[
        "adult-lr-sgd-dpareto-fast",
        "adult-lr-sgd-random-fast",
        "adult-lr-adam-dpareto-fast",
        "adult-lr-adam-random-fast",
        "adult-svm-sgd-dpareto-fast",
        "adult-svm-sgd-random-fast",
    ],
    figures,
};

/// Writes the figures and tables into `out`, reading `<results>/<config stem>/points.jsonl`.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let runs = runs::Runs::load(results)?;
    let mut outcomes = illustrative::figures(out, results)?;
    outcomes.extend([
        fronts::fig5(out, &runs)?,
        fronts::fig6(out, &runs)?,
        fronts::fig7(out, &runs)?,
        fronts::fig8(out, &runs)?,
        table2::write(out, &runs, results)?,
    ]);
    Ok(outcomes)
}
