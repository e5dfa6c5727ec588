//! Figure 2 (Section 5): test accuracy against ε of Algorithm 1 and dishonestly / honestly
//! tuned DP-SGD, one panel per dataset whose results exist under
//! `results/redberg2023/<config stem>/`.

use std::path::{Path, PathBuf};

use crate::experiment::report::accuracy_panel;
use crate::experiment::summary::SummaryRow;
use crate::figures::csv::LongCsv;
use crate::figures::{Outcome, save};
use crate::plot::{Figure, Series};

/// Config stems (= results folders) of the paper's datasets, with display names, in the
/// paper's order.
pub const DATASETS: [(&str, &str); 4] = [
    ("adult", "Adult"),
    ("synthetic-l", "Synthetic-L"),
    ("synthetic-h", "Synthetic-H"),
    ("gisette", "Gisette"),
];

/// Method names in `summary.csv` and their display names (the paper's table columns order,
/// then the sound honest variant this project adds: each run draws its learning rate i.i.d.,
/// which is what Papernot–Steinke's theorem covers; the paper's honest baseline spaces K
/// learning rates over a grid that depends on K).
pub const METHODS: [(&str, &str); 4] = [
    ("dpsgd_dishonest", "DP-SGD (dishonest)"),
    ("alg1", "Algorithm 1"),
    (
        "dpsgd_honest",
        "DP-SGD (honest, paper grid):\nK-dependent grid, not\ncovered by P–S Thm 6",
    ),
    (
        "dpsgd_honest_random",
        "DP-SGD (honest, i.i.d. lr):\ncertified by P–S Thm 6",
    ),
];

/// One dataset's summary.
#[derive(Clone, Debug)]
pub struct DatasetResults {
    /// Config stem, e.g. `synthetic-l`.
    pub stem: &'static str,
    /// Display name, e.g. `Synthetic-L`.
    pub name: &'static str,
    /// Rows of `summary.csv` (method names as in the file).
    pub rows: Vec<SummaryRow>,
    /// δ of the run, from the config copy beside the results, if present.
    pub delta: Option<f64>,
}

fn read_delta(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("config.toml")).ok()?;
    text.parse::<toml::Table>().ok()?.get("delta")?.as_float()
}

/// Every dataset of [`DATASETS`] with a `summary.csv` under `results`.
pub fn load(results: &Path) -> anyhow::Result<Vec<DatasetResults>> {
    let mut found = Vec::new();
    for (stem, name) in DATASETS {
        found.extend(load_one(results, stem, name)?);
    }
    Ok(found)
}

/// The results of one config stem, if its `summary.csv` exists and has rows: the summary
/// recomputed from the folder's cells ([`crate::experiment::verified::load`]; a summary that
/// differs from them, or one without cells, is an error naming it).
pub fn load_one(
    results: &Path,
    stem: &'static str,
    name: &'static str,
) -> anyhow::Result<Option<DatasetResults>> {
    let dir = results.join(stem);
    let path = dir.join("summary.csv");
    if !path.is_file() {
        return Ok(None);
    }
    let rows = crate::experiment::verified::summary_rows(&dir)?;
    Ok((!rows.is_empty()).then(|| DatasetResults {
        stem,
        name,
        rows,
        delta: read_delta(&dir),
    }))
}

/// The command that produces the results of one dataset.
pub fn run_command(stem: &str) -> String {
    format!("cargo run --release -p dp-bench -- configs/redberg2023/{stem}.toml")
}

/// Why nothing could be plotted, naming the commands that produce the inputs.
pub fn missing_message(what: &str, results: &Path) -> String {
    format!(
        "{what} skipped: no {} for any of {}; run \
         scripts/reproduce-redberg2023.sh (or e.g. `{} --out {}`) first",
        results.join("<dataset>/summary.csv").display(),
        DATASETS.map(|d| d.0).join(", "),
        run_command("adult"),
        results.join("adult").display()
    )
}

/// Display name of a summary method.
pub fn method_name(method: &str) -> &str {
    METHODS
        .iter()
        .find(|m| m.0 == method)
        .map_or(method, |m| m.1)
}

fn display_rows(rows: &[SummaryRow]) -> Vec<SummaryRow> {
    rows.iter()
        .map(|r| SummaryRow {
            method: method_name(&r.method).to_string(),
            ..r.clone()
        })
        .collect()
}

/// Orders a panel's series as [`METHODS`], with an empty series for each method the panel
/// lacks (Synthetic-H runs no certified honest line), so every method has one colour across
/// the panels; unknown series follow.
fn in_method_order(series: &mut Vec<Series>) {
    let mut rest = std::mem::take(series);
    for (_, name) in METHODS {
        match rest.iter().position(|s| s.name == name) {
            Some(i) => series.push(rest.remove(i)),
            None => series.push(Series {
                name: name.to_string(),
                points: Vec::new(),
                err: None,
                dashed: false,
                dots: false,
                steps: false,
            }),
        }
    }
    series.append(&mut rest);
}

/// Writes fig2.{png,svg,csv}, or reports why it cannot.
pub fn write(out: &Path, results: &Path) -> anyhow::Result<Outcome> {
    let found = load(results)?;
    if found.is_empty() {
        return Ok(Outcome::Skipped(missing_message("Figure 2", results)));
    }
    let mut csv = LongCsv::new(&[
        "dataset",
        "method",
        "epsilon",
        "mean_accuracy",
        "ci95",
        "trials",
    ]);
    for d in &found {
        for r in &d.rows {
            csv.push(vec![
                d.stem.into(),
                r.method.clone().into(),
                r.epsilon.into(),
                r.mean_accuracy.into(),
                r.ci95.into(),
                (r.trials as u64).into(),
            ])?;
        }
    }
    let panels = found
        .iter()
        .map(|d| {
            let trials = d.rows.iter().map(|r| r.trials).max().unwrap_or(0);
            let delta = d.delta.map_or(String::new(), |x| format!("δ = {x:e}, "));
            let mut panel = accuracy_panel(
                &format!("{} ({delta}{trials} trials, ±1.96·SE)", d.name),
                &display_rows(&d.rows),
            );
            in_method_order(&mut panel.series);
            panel
        })
        .collect::<Vec<_>>();
    let columns = if panels.len() == 1 { 1 } else { 2 };
    let figure = Figure {
        title: "Figure 2: Algorithm 1 vs honest and dishonest DP-SGD (Redberg et al. 2023, §5)"
            .into(),
        panels,
        columns,
    };
    let files: Vec<PathBuf> = save(out, "fig2", &figure, &csv)?;
    Ok(Outcome::Written(files))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::figures::csv::Table;

    /// Writes a fake run `results/<stem>/` (config, checksummed cells and the summary a run
    /// writes) with the four methods at the given ε: 10 trials at `acc(method, ε)` ± 0.6122449,
    /// five each way, so that the summary's 1.96 · SE is 1.96 · 0.6122449/3 = 0.4000.
    pub(crate) fn fake_summary(
        results: &Path,
        stem: &str,
        eps: &[f64],
        acc: impl Fn(&str, f64) -> f64,
    ) {
        let list: Vec<String> = eps.iter().map(|e| format!("{e:?}")).collect();
        let config = format!(
            "paper = \"redberg2023\"\nseed = 1\ntrials = 10\nepsilons = [{}]\ndelta = 1e-5\n\n\
             [dataset]\nname = \"synthetic-l\"\n\n[methods.alg1]\nkind = \"alg1\"\n\n\
             [methods.dpsgd_dishonest]\nkind = \"dpsgd\"\ntuning = \"dishonest\"\n\
             learning_rates = [0.1, 0.01]\ncandidates = \"random\"\n\n\
             [methods.dpsgd_honest]\nkind = \"dpsgd\"\ntuning = \"honest\"\n\n\
             [methods.dpsgd_honest_random]\nkind = \"dpsgd\"\ntuning = \"honest\"\n\
             candidates = \"random\"\n",
            list.join(", ")
        );
        crate::experiment::test_runs::fake_run(results, stem, &config, |c| {
            let sign = if c.trial % 2 == 0 { 1.0 } else { -1.0 };
            let a = acc(&c.method, c.epsilon) + sign * 0.612_244_9;
            crate::experiment::test_runs::FakeCell {
                accuracy: a,
                epsilon_accounted: c.epsilon,
                details: if c.method == "dpsgd_dishonest" {
                    serde_json::json!({"scores": [[0.1, a], [0.01, a - 3.0]]})
                } else {
                    serde_json::json!({})
                },
            }
        });
    }

    /// A hand-edited summary never reaches the figure: the reader stops, naming the file.
    #[test]
    fn figures_fig2_refuses_a_summary_that_differs_from_the_cells() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        fake_summary(&results, "adult", &[1.0], |_, _| 80.0);
        let path = results.join("adult/summary.csv");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("alg1,1,80.0000", "alg1,1,95.0000")).unwrap();
        let e = format!(
            "{:#}",
            write(&dir.path().join("out"), &results).unwrap_err()
        );
        assert!(
            e.contains("adult/summary.csv does not match the cells"),
            "{e}"
        );
        // A summary without cells is not a result either.
        for f in ["cells.parquet", "cells.csv", "timings.csv"] {
            std::fs::remove_file(results.join("adult").join(f)).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        let e = format!(
            "{:#}",
            write(&dir.path().join("out"), &results).unwrap_err()
        );
        assert!(e.contains("no cells: not a result"), "{e}");
    }

    #[test]
    fn figures_fig2_is_skipped_with_the_command_when_no_results_exist() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        match write(&out, &dir.path().join("results")).unwrap() {
            Outcome::Skipped(msg) => {
                assert!(
                    msg.contains(
                        "cargo run --release -p dp-bench -- configs/redberg2023/adult.toml"
                    ),
                    "{msg}"
                );
                assert!(msg.contains("reproduce-redberg2023.sh"), "{msg}");
            }
            other => panic!("expected a skip, got {other:?}"),
        }
        assert!(!out.join("fig2.png").exists());
    }

    #[test]
    fn figures_fig2_plots_every_dataset_found() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        let eps = [0.1, 1.0, 8.0];
        fake_summary(&results, "adult", &eps, |m, e| {
            80.0 + e.ln() + if m == "alg1" { 1.0 } else { 0.0 }
        });
        fake_summary(&results, "gisette", &eps, |_, e| 90.0 + e.ln());
        let out = dir.path().join("out");
        let Outcome::Written(files) = write(&out, &results).unwrap() else {
            panic!("skipped")
        };
        assert_eq!(files.len(), 3);
        let t = Table::read(&out.join("fig2.csv")).unwrap();
        assert_eq!(t.rows.len(), 2 * METHODS.len() * eps.len());
        let datasets: std::collections::BTreeSet<&str> = (0..t.rows.len())
            .map(|i| t.text(i, "dataset").unwrap())
            .collect();
        assert_eq!(
            datasets.into_iter().collect::<Vec<_>>(),
            ["adult", "gisette"]
        );
        assert_eq!(t.num(0, "ci95").unwrap(), 0.4);
        if let Ok(keep) = std::env::var("DPBENCH_KEEP_TEST_PLOT") {
            std::fs::copy(out.join("fig2.png"), keep).unwrap();
        }
    }
}
