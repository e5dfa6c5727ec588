//! The leaderboard (`dp-bench figures benchmark`): every run folder under the results folder
//! whose config says `paper = "benchmark"` (one dataset each), read from its checksummed
//! cells, ranked per (dataset, ε) and over datasets with Demšar's (2006) tests
//! (`docs/benchmark.md`). Writes one accuracy-against-ε figure per dataset,
//! `leaderboard.md`/`.csv`, `learners.csv` and the CD diagrams `cd.png` (every dataset) and
//! `cd-binary.png` (the binary ones, when they are not all of them).

pub mod audits;
pub mod cd_diagram;
pub mod cell_stats;
pub mod distributions;
pub mod fig;
pub mod load;
pub mod overview;
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
    let mut runs = dirs
        .iter()
        .map(|d| load::load(d).with_context(|| format!("cannot read the run {}", d.display())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    load::place_on_axis(&mut runs)?;
    audits::attach(&mut runs, &audits::load(results)?);
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
    let binary_differs = overall.binary.runs != overall.all.runs;
    for (view, stem, what) in [
        (&overall.all, "cd", "datasets"),
        (&overall.binary, "cd-binary", "binary datasets"),
    ] {
        if stem == "cd-binary" && !binary_differs {
            continue;
        }
        match cd_figure(out, view, stem, what)? {
            Ok(files) => written.extend(files),
            Err(why) => outcomes.push(Outcome::Skipped(why)),
        }
    }
    outcomes.insert(0, Outcome::Written(written));
    Ok(outcomes)
}

/// The CD diagram of one view as `<stem>.png`/`.svg`/`.csv`, or why it cannot be drawn.
fn cd_figure(
    out: &Path,
    view: &rank::View,
    stem: &str,
    what: &str,
) -> anyhow::Result<Result<Vec<std::path::PathBuf>, String>> {
    let (Some(f), Some(cd)) = (view.friedman, view.cd) else {
        return Ok(Err(format!(
            "benchmark {stem}.png skipped: the CD diagram needs at least two {what} with a \
             common cell and two learners ranked on all of them (found {} dataset(s), {} such \
             learner(s))",
            view.runs.len(),
            view.learners.len()
        )));
    };
    let verdict = if f.p < stats::ALPHA {
        "rejected"
    } else {
        "not rejected: no learner shown to differ"
    };
    let diagram = CdDiagram {
        title: format!(
            "Average ranks over {} {what} (1 = best; Nemenyi CD at α = 0.05)",
            f.n
        ),
        subtitle: format!(
            "Iman–Davenport F = {}, p = {:.3} ({verdict}); a thick line joins learners not \
             significantly different",
            if f.f.is_finite() {
                format!("{:.2}", f.f)
            } else {
                "∞".into()
            },
            f.p
        ),
        learners: view.learners.clone(),
        cd,
    };
    let mut data = LongCsv::new(&["learner", "mean_rank", "cd"]);
    for (l, r) in &view.learners {
        data.push(vec![Field::Text(l.clone()), Field::Num(*r), Field::Num(cd)])?;
    }
    Ok(Ok(crate::figures::save(out, stem, &diagram, &data)?))
}

#[cfg(test)]
mod tests;
