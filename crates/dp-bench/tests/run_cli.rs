//! `dp-bench CONFIG.toml`: determinism across thread counts, resume, and all-or-nothing
//! validation of configs.

use std::path::Path;
use std::process::{Command, Output};

const CONFIG: &str = r#"
experiment = "test"
seed = 11
trials = 2
epsilons = [0.5, 4.0]
delta = 1e-5

[dataset]
name = "synthetic-l"

[methods.alg1]
kind = "alg1"

[methods.dpsgd_dishonest]
kind = "dpsgd"
tuning = "dishonest"
epochs = 2
grid_size = 2
lr_min = 1e-2

[methods.dpsgd_honest]
kind = "dpsgd"
tuning = "honest"
epochs = 2
grid_size = 2
lr_min = 1e-2
"#;

fn run(config: &Path, out: &Path, threads: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dp-bench"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("dp-bench runs")
}

/// cells.csv without the wall-time column, sorted by key.
fn cells_without_timing(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("cells.csv")).expect("cells.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let wall = header
        .iter()
        .position(|h| *h == "wall_ms")
        .expect("wall_ms column");
    let mut rows: Vec<String> = lines
        .map(|l| {
            // lr_accuracies is quoted JSON with commas: split on commas outside quotes.
            let mut fields = Vec::new();
            let (mut cur, mut quoted) = (String::new(), false);
            for ch in l.chars() {
                match ch {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(std::mem::take(&mut cur)),
                    c => cur.push(c),
                }
            }
            fields.push(cur);
            fields.remove(wall);
            fields.join(",")
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn same_cells_with_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("t.toml");
    std::fs::write(&cfg, CONFIG).unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let out = run(&cfg, &a, "1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&cfg, &b, "2");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (ra, rb) = (cells_without_timing(&a), cells_without_timing(&b));
    assert_eq!(ra.len(), 12);
    assert_eq!(ra, rb);
    for f in [
        "cells.parquet",
        "summary.csv",
        "summary.md",
        "accuracy.png",
        "accuracy.svg",
    ] {
        assert!(a.join(f).exists(), "{f} written");
    }
    let summary = std::fs::read_to_string(a.join("summary.csv")).unwrap();
    assert!(
        summary
            .starts_with("method,epsilon,mean_accuracy,ci95,trials,std,chosen,epsilon_certified\n"),
        "{summary}"
    );
    assert_eq!(summary.lines().count(), 1 + 3 * 2);
}

#[test]
fn rerun_skips_finished_cells() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("r");
    let small = dir.path().join("small.toml");
    std::fs::write(&small, CONFIG.replace("[0.5, 4.0]", "[0.5]")).unwrap();
    let out = run(&small, &out_dir, "2");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = std::fs::read_to_string(out_dir.join("cells.csv")).unwrap();

    // The grown grid keeps the finished cells' keys, so only the new ε runs.
    let full = dir.path().join("full.toml");
    std::fs::write(&full, CONFIG).unwrap();
    let out = run(&full, &out_dir, "2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("6 run now, 6 already done"), "{err}");
    let second = std::fs::read_to_string(out_dir.join("cells.csv")).unwrap();
    for line in first.lines().skip(1) {
        assert!(second.contains(line), "finished cell was redone: {line}");
    }
    // A third run has nothing left to do.
    let out = run(&full, &out_dir, "2");
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 run now, 12 already done"));
}

#[test]
fn malformed_config_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            CONFIG.replace("trials = 2", "trials = 2\ntrails = 3"),
            "trails",
        ),
        (CONFIG.replace("delta = 1e-5", "delta = 2.0"), "delta"),
        (
            CONFIG.replace(
                "tuning = \"honest\"",
                "tuning = \"honest\"\ntail_prob = 1.5",
            ),
            "tail_prob",
        ),
        (
            CONFIG.replace("synthetic-l", "no-such-data"),
            "dataset.name",
        ),
        (CONFIG.replace("seed = 11", "seed = \"x\""), "seed"),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let cfg = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&cfg, text).unwrap();
        let out_dir = dir.path().join(format!("out{i}"));
        let out = run(&cfg, &out_dir, "2");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{key}: {err}");
        assert!(
            err.contains(key) && err.contains(&format!("bad{i}.toml")),
            "{key}: {err}"
        );
        assert!(!out_dir.exists(), "{key}: nothing may be written");
    }
}
