//! `dp-bench CONFIG.toml`: determinism across thread counts, resume, and all-or-nothing
//! validation of configs.

mod common;

use std::path::Path;
use std::process::{Output, Stdio};

use common::{assert_success, config_head, dp_bench_cmd, output, stderr};

fn config() -> String {
    config_head("test", 11, 2, "[0.5, 4.0]")
        + r#"
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
"#
}

fn run(config: &Path, out: &Path, threads: &str) -> Output {
    output(dp_bench_cmd(&[config, Path::new("--out"), out]).env("RAYON_NUM_THREADS", threads))
}

/// The compacted cell table (sorted by key, no wall times).
fn cells(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("cells.csv")).expect("cells.csv")
}

#[test]
fn same_cells_with_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("t.toml");
    std::fs::write(&cfg, config()).unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let out = run(&cfg, &a, "1");
    assert_success(&out);
    let out = run(&cfg, &b, "2");
    assert_success(&out);
    let (ra, rb) = (cells(&a), cells(&b));
    assert_eq!(ra.lines().count(), 1 + 12);
    assert_eq!(ra, rb, "byte-identical cell tables");
    assert_eq!(
        std::fs::read(a.join("summary.csv")).unwrap(),
        std::fs::read(b.join("summary.csv")).unwrap()
    );
    for f in [
        "cells.parquet",
        "timings.csv",
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
    std::fs::write(&small, config().replace("[0.5, 4.0]", "[0.5]")).unwrap();
    let out = run(&small, &out_dir, "2");
    assert_success(&out);
    let first = std::fs::read_to_string(out_dir.join("cells.csv")).unwrap();

    // The grown grid keeps the finished cells' keys, so only the new ε runs.
    let full = dir.path().join("full.toml");
    std::fs::write(&full, config()).unwrap();
    let out = run(&full, &out_dir, "2");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("6 run now, 6 already done"), "{err}");
    let second = std::fs::read_to_string(out_dir.join("cells.csv")).unwrap();
    for line in first.lines().skip(1) {
        assert!(second.contains(line), "finished cell was redone: {line}");
    }
    // A third run has nothing left to do.
    let out = run(&full, &out_dir, "2");
    assert!(stderr(&out).contains("0 run now, 12 already done"));
}

#[test]
fn malformed_config_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            config().replace("trials = 2", "trials = 2\ntrails = 3"),
            "trails",
        ),
        (config().replace("delta = 1e-5", "delta = 2.0"), "delta"),
        (
            config().replace(
                "tuning = \"honest\"",
                "tuning = \"honest\"\ntail_prob = 1.5",
            ),
            "tail_prob",
        ),
        (
            config().replace("synthetic-l", "no-such-data"),
            "dataset.name",
        ),
        (config().replace("seed = 11", "seed = \"x\""), "seed"),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let cfg = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&cfg, text).unwrap();
        let out_dir = dir.path().join(format!("out{i}"));
        let out = run(&cfg, &out_dir, "2");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{key}: {err}");
        assert!(
            err.contains(key) && err.contains(&format!("bad{i}.toml")),
            "{key}: {err}"
        );
        assert!(!out_dir.exists(), "{key}: nothing may be written");
    }
}

/// A run killed with SIGKILL after some cells finished resumes from its journal to exactly the
/// cells and summary of an uninterrupted run.
#[test]
fn a_run_killed_mid_way_resumes_to_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("t.toml");
    std::fs::write(&cfg, config().replace("trials = 2", "trials = 4")).unwrap();
    let (whole, killed) = (dir.path().join("whole"), dir.path().join("killed"));
    let out = run(&cfg, &whole, "2");
    assert!(out.status.success());

    let mut child = dp_bench_cmd(&[
        cfg.as_path(),
        Path::new("--out"),
        &killed,
        Path::new("--quiet"),
    ])
    .env("RAYON_NUM_THREADS", "2")
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let journal = killed.join("cells.log");
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < 120 {
        let lines = std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count());
        if lines >= 3 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().ok(); // SIGKILL
    child.wait().unwrap();

    let out = run(&cfg, &killed, "1");
    assert!(out.status.success());
    assert_eq!(cells(&killed), cells(&whole));
    assert_eq!(
        std::fs::read(killed.join("summary.csv")).unwrap(),
        std::fs::read(whole.join("summary.csv")).unwrap()
    );
}
