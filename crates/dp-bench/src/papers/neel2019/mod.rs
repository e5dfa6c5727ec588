//! Neel, Roth, Vietri & Wu (2019), *Differentially Private Objective Perturbation: Beyond
//! Smoothness and Convexity*: Figure 1 (accuracy against ε and run-time histograms of OPDisc,
//! RSPM and private LR on balanced Adult) from the runs of `configs/neel2019/`.

pub mod fig1;
pub mod results;

use std::path::Path;

use super::PaperSpec;
use crate::figures::Outcome;

/// Figures drawn: (figure stem, candidate runs by config stem, the first that exists wins,
/// title).
pub const RUNS: &[(&str, &[&str], &str)] = &[
    (
        "fig1",
        &["adult-n1000"],
        "balanced Adult, n = 1,000 (ε scaled ×13.26 so σ/n matches n = 15,682), δ = 1/n²",
    ),
    (
        "fig1-full",
        // The whole paper-size grid, else its ε = 1 cut (same cells, fewer of them).
        &["adult-full", "adult-full-eps1"],
        "balanced Adult, n = 15,682, δ = 1/n²",
    ),
];

/// The paper's entry in [`super::PAPERS`].
pub const SPEC: PaperSpec = PaperSpec {
    id: "neel2019",
    title: "Neel et al. 2019: OPDisc and RSPM with an exact MIP oracle vs private LR",
    configs: &["adult-n1000"],
    figures,
};

/// Writes `fig1` (n = 1,000) and `fig1-full` (n = 15,682) where their runs exist.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let mut outcomes = Vec::new();
    'figures: for (fig, stems, title) in RUNS {
        for stem in *stems {
            if let Some(rows) = results::load(&results.join(stem))? {
                outcomes.push(fig1::write(out, fig, &rows, title)?);
                continue 'figures;
            }
        }
        outcomes.push(Outcome::Skipped(format!(
            "{fig} skipped: no {}/{}/summary.csv; run \
             `cargo run --release -p dp-bench --features mip -- configs/neel2019/{}.toml`",
            results.display(),
            stems[0],
            stems[0]
        )));
    }
    Ok(outcomes)
}
