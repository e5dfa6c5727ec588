//! `dp-bench report`: one static page with the papers' figures inlined, their tables, and
//! every run with its summary, config, provenance and CSV links (the page itself is opened in
//! headless Chromium by scripts/report-test.sh).

mod common;

use std::path::Path;
use std::process::Output;

use common::{FLOOR, assert_success, config_head, dp_bench, fake_grid_run, redberg_config, stderr};

fn config() -> String {
    config_head("own", 5, 2, "[1.0]") + "\n[methods.alg1]\nkind = \"alg1\"\n\n" + FLOOR
}

#[test]
fn the_page_holds_figures_tables_runs_and_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("own.toml");
    std::fs::write(&cfg, config()).unwrap();
    let results = dir.path().join("results");
    let run_dir = results.join("own");
    let out = dp_bench(&[
        cfg.as_os_str(),
        "--out".as_ref(),
        run_dir.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert_success(&out);
    let prov: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("provenance.json")).unwrap())
            .unwrap();
    assert_eq!(prov["how"], "run");
    assert_eq!(prov["dataset"]["name"], "synthetic-l");
    // The binary's own commit (main.rs passes its build script's stamp to the library).
    let stamp = prov["build_commit"].as_str().unwrap();
    let hex = stamp.trim_end_matches("+dirty");
    let in_git = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .is_ok_and(|o| o.status.success());
    if in_git {
        assert!(
            hex.len() == 40 && hex.chars().all(|c| c.is_ascii_hexdigit()),
            "{stamp}"
        );
    } else {
        assert_eq!(stamp, "unknown");
    }

    let report = dir.path().join("report");
    let out = dp_bench(&[
        "report".as_ref(),
        results.as_os_str(),
        "--out".as_ref(),
        report.as_os_str(),
    ]);
    assert_success(&out);
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Redberg et al.'s accountant figures need no runs: they are always there, inlined.
    assert!(html.matches("<svg").count() >= 4, "inlined figures");
    assert!(html.contains("id=\"paper-redberg2023\"") && html.contains("id=\"paper-neel2019\""));
    // A paper without runs says how to make them.
    assert!(html.contains("class=\"note\""));
    // The run: summary table, config, provenance, CSV links that resolve.
    assert!(html.contains("<h3>own</h3>"), "own run listed");
    assert!(
        html.contains("<th>floor</th>"),
        "the summary table's method column"
    );
    assert!(html.contains("<summary>config.toml</summary>"));
    assert!(html.contains(&format!("commit {}", prov["git_commit"].as_str().unwrap())));
    for link in ["runs/other/own/cells.csv", "runs/other/own/summary.csv"] {
        assert!(html.contains(&format!("href=\"{link}\"")), "{link}");
        assert!(Path::new(&report.join(link)).exists(), "{link} copied");
    }
    assert!(!html.contains("<script"), "no JavaScript");
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no network"
    );

    let out = dp_bench(&["report".as_ref(), dir.path().join("nope").as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does not exist"));
}

/// Redberg et al.'s Adult grid under `results/redberg2023/adult/`, written as a run writes it
/// (config copy, checksummed cells, summary) by [`fake_grid_run`].
fn adult_run(results: &Path, methods: &[&str]) {
    let dir = results.join("redberg2023").join("adult");
    fake_grid_run(
        &dir,
        &redberg_config(methods, "[0.1, 1.0]", 2),
        |m, eps, t| {
            80.0 + methods.iter().position(|x| *x == m).unwrap() as f64 + eps + 0.1 * f64::from(t)
        },
    );
}

fn report(results: &Path, out: &Path) -> Output {
    dp_bench(&[
        "report".as_ref(),
        results.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ])
}

#[test]
fn a_report_holds_only_this_runs_results_and_never_clobbers_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let (full, empty) = (dir.path().join("R"), dir.path().join("EMPTY"));
    adult_run(&full, &["alg1", "dpsgd_dishonest"]);
    std::fs::create_dir_all(&empty).unwrap();
    let rep = dir.path().join("rep");
    let fig2 = rep.join("figures/redberg2023/fig2.svg");

    let out = report(&full, &rep);
    assert_success(&out);
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    assert!(html.contains("id=\"figures-redberg2023-fig2\"") && fig2.exists());
    assert!(rep.join("runs/redberg2023/adult/summary.csv").exists());

    let out = report(&empty, &rep);
    assert_success(&out);
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    assert!(html.contains("Figure 2 skipped"), "the note");
    assert!(
        !html.contains("figures-redberg2023-fig2"),
        "no stale Figure 2 on the page"
    );
    assert!(!fig2.exists(), "no stale Figure 2 files");
    assert!(!rep.join("runs").exists(), "no stale run copies");

    // A file the report did not write: refused (exit 2), both folders left as they were.
    std::fs::write(rep.join("notes.txt"), "mine").unwrap();
    let out = report(&full, &rep);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("notes.txt"));
    assert!(rep.join("notes.txt").exists() && !fig2.exists());
    let mine = dir.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("thesis.tex"), "x").unwrap();
    let out = report(&full, &mine);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not written by `dp-bench report`"));
    assert!(mine.join("thesis.tex").exists() && !mine.join("index.html").exists());
    // No half-built or old copies are left beside the reports.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["EMPTY", "R", "mine", "rep"]);
}

/// A summary is a derived output: the page shows it as recomputed from the cells, so a
/// hand-edited summary.md never reaches it, and a summary.csv that differs from the cells (or
/// one without cells, whatever it holds) gets a note and is not copied.
#[test]
fn a_forged_summary_never_reaches_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    adult_run(&results, &["alg1", "dpsgd_dishonest"]);
    let run = results.join("redberg2023/adult");
    std::fs::write(
        run.join("summary.md"),
        "| ε | alg1 |\n|---|---|\n| 1 | 99.99 ± 0.01 |\n",
    )
    .unwrap();
    let rep = dir.path().join("rep");
    let out = report(&results, &rep);
    assert_success(&out);
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    assert!(!html.contains("99.99"), "summary.md is not read");
    // alg1 at ε = 1: trials 81.0 and 81.1.
    assert!(html.contains("81.05 ± 0.10"), "the summary from the cells");

    let csv = run.join("summary.csv");
    let honest = std::fs::read_to_string(&csv).unwrap();
    let forged = honest.replacen("alg1,1,81.0500", "alg1,1,99.9900", 1);
    assert_ne!(forged, honest, "{honest}");
    std::fs::write(&csv, &forged).unwrap();
    let out = report(&results, &rep);
    assert_success(&out);
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    assert!(
        html.contains("summary.csv does not match the cells"),
        "the note"
    );
    assert!(!html.contains("<td>99.99"), "no forged value in a table");
    assert!(!rep.join("runs/redberg2023/adult/summary.csv").exists());
    assert!(
        !html.contains("id=\"figures-redberg2023-fig2\""),
        "no Figure 2 from it"
    );

    // Another folder with a config and a summary but no cells.
    std::fs::write(&csv, &honest).unwrap();
    let bare = results.join("own");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(bare.join("config.toml"), config()).unwrap();
    std::fs::write(bare.join("summary.csv"), &honest).unwrap();
    std::fs::write(
        bare.join("summary.md"),
        "| ε | alg1 |\n|---|---|\n| 1 | 99.99 |\n",
    )
    .unwrap();
    let out = report(&results, &rep);
    assert_success(&out);
    let html = std::fs::read_to_string(rep.join("index.html")).unwrap();
    assert!(html.contains("no cells: not a result"), "{html}");
    assert!(!html.contains("99.99"));
}
