//! The leaderboard (`dp-bench figures benchmark`): every run folder under the results folder
//! whose config says `paper = "benchmark"` (one dataset each), ranked per (dataset, ε) and
//! over datasets with Demšar's (2006) tests (`docs/benchmark.md`). Writes one accuracy-against-ε
//! figure per dataset, `leaderboard.md`/`.csv`, `learners.csv` and the CD diagram `cd.png`.

pub mod cd_diagram;
pub mod distributions;
pub mod fig;
pub mod load;
pub mod rank;
pub mod stats;
pub mod table;

use std::path::Path;

use anyhow::Context as _;

use super::PaperSpec;
use crate::figures::Outcome;
use crate::figures::csv::{Field, LongCsv};
use cd_diagram::CdDiagram;
use load::Role;

/// The entry in [`super::PAPERS`].
pub const SPEC: PaperSpec = PaperSpec {
    id: "benchmark",
    title: "Benchmark: every learner under one honest protocol",
    configs: &["adult", "kddcup99", "synthetic-l", "a1a", "adult-external"],
    figures,
};

/// Writes the leaderboard into `out` from every benchmark run found under `results`.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    let dirs = load::discover(results)?;
    if dirs.is_empty() {
        return Ok(vec![Outcome::Skipped(format!(
            "benchmark skipped: no run folder with a summary.csv and a config.toml saying \
             paper = \"benchmark\" under {}; run e.g. `cargo run --release -p dp-bench -- \
             configs/benchmark/adult-external.toml`",
            results.display()
        ))]);
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let runs = dirs
        .iter()
        .map(|d| load::load(d).with_context(|| format!("cannot read the run {}", d.display())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // One colour per learner across every figure: ranked learners first, then references.
    let mut order: Vec<(Role, String)> = runs
        .iter()
        .flat_map(|r| &r.entries)
        .map(|e| (e.role, e.learner.clone()))
        .collect();
    order.sort();
    order.dedup();
    let order: Vec<String> = order.into_iter().map(|(_, l)| l).collect();
    let mut written = Vec::new();
    for run in &runs {
        written.extend(fig::write(out, run, &order)?);
    }
    let overall = rank::overall(&runs);
    written.extend(table::write(out, &runs, &overall)?);
    let mut outcomes = Vec::new();
    match (overall.friedman, overall.cd) {
        (Some(f), Some(cd)) => {
            let verdict = if f.p < stats::ALPHA {
                "rejected"
            } else {
                "not rejected: no learner shown to differ"
            };
            let diagram = CdDiagram {
                title: format!(
                    "Mean ranks over {} datasets (1 = best; Nemenyi CD at α = 0.05)",
                    f.n
                ),
                subtitle: format!(
                    "Iman–Davenport F = {}, p = {:.3} ({verdict}); a thick line joins \
                     learners not significantly different",
                    if f.f.is_finite() {
                        format!("{:.2}", f.f)
                    } else {
                        "∞".into()
                    },
                    f.p
                ),
                learners: overall.complete.clone(),
                cd,
            };
            let mut data = LongCsv::new(&["learner", "mean_rank", "cd"]);
            for (l, r) in &overall.complete {
                data.push(vec![Field::Text(l.clone()), Field::Num(*r), Field::Num(cd)])?;
            }
            written.extend(crate::figures::save(out, "cd", &diagram, &data)?);
        }
        _ => outcomes.push(Outcome::Skipped(format!(
            "benchmark cd.png skipped: the CD diagram needs at least two datasets and two \
             learners ranked on all of them (found {} dataset(s), {} such learner(s))",
            runs.len(),
            overall.complete.len()
        ))),
    }
    outcomes.insert(0, Outcome::Written(written));
    Ok(outcomes)
}

#[cfg(test)]
mod tests;
