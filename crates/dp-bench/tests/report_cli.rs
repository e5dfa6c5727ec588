//! `dp-bench report`: one static page with the papers' figures inlined, their tables, and
//! every run with its summary, config, provenance and CSV links (the page itself is opened in
//! headless Chromium by scripts/report-test.sh).

use std::path::Path;
use std::process::Command;

const CONFIG: &str = r#"
experiment = "own"
seed = 5
trials = 2
epsilons = [1.0]
delta = 1e-5

[dataset]
name = "synthetic-l"

[methods.alg1]
kind = "alg1"

[methods.floor]
kind = "constant"
"#;

fn dp_bench(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dp-bench"))
        .args(args)
        .output()
        .expect("dp-bench runs")
}

#[test]
fn the_page_holds_figures_tables_runs_and_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("own.toml");
    std::fs::write(&cfg, CONFIG).unwrap();
    let results = dir.path().join("results");
    let run_dir = results.join("own");
    let out = dp_bench(&[
        cfg.as_os_str(),
        "--out".as_ref(),
        run_dir.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let prov: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("provenance.json")).unwrap())
            .unwrap();
    assert_eq!(prov["how"], "run");
    assert_eq!(prov["dataset"]["name"], "synthetic-l");

    let report = dir.path().join("report");
    let out = dp_bench(&[
        "report".as_ref(),
        results.as_os_str(),
        "--out".as_ref(),
        report.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
}
