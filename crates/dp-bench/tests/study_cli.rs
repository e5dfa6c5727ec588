//! `dp-bench run` on a privacy–utility study (Avent et al. 2020): a study killed mid-way
//! resumes to exactly the points of an uninterrupted run, on any thread count, and bad study
//! configs are refused before any work.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{assert_success, data_mirror, dp_bench_cmd, output, repo_root, stderr};
use dp_bench::pareto::points::{Point, read_points};

fn smoke() -> PathBuf {
    repo_root().join("configs/avent2020/smoke.toml")
}

fn run(config: &Path, out: &Path, threads: &str) -> Output {
    output(
        dp_bench_cmd(&[config, Path::new("--out"), out, Path::new("--quiet")])
            .env("RAYON_NUM_THREADS", threads)
            .env("DPBENCH_DATA_MIRROR", data_mirror()),
    )
}

/// A point without its timings (the only fields that may differ between runs).
fn untimed(mut p: Point) -> Point {
    p.wall_ms = 0.0;
    if let Some(t) = p.bo.as_mut() {
        t.seconds = 0.0;
    }
    p
}

fn points(dir: &Path) -> Vec<Point> {
    read_points(&dir.join("points.jsonl"))
        .unwrap()
        .into_iter()
        .map(untimed)
        .collect()
}

#[test]
fn a_killed_study_resumes_to_the_uninterrupted_points() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let out = run(&smoke(), &a, "2");
    assert_success(&out);
    let full = points(&a);
    assert_eq!(full.len(), 10);
    assert!(full[6..].iter().all(|p| p.bo.is_some()));
    for name in ["points.csv", "front.csv", "hv.csv"] {
        assert!(a.join(name).is_file(), "{name}");
    }

    // A kill leaves a prefix of the log, possibly with a torn last line: keep 2 BO points
    // and half of the third.
    std::fs::create_dir_all(&b).unwrap();
    let text = std::fs::read_to_string(a.join("points.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut cut = lines[..8].join("\n") + "\n";
    cut.push_str(&lines[8][..lines[8].len() / 2]);
    std::fs::write(b.join("points.jsonl"), cut).unwrap();
    std::fs::copy(a.join("study.json"), b.join("study.json")).unwrap();
    let marker = dp_bench::files::LOCK_FILE;
    std::fs::copy(a.join(marker), b.join(marker)).unwrap();
    let out = run(&smoke(), &b, "1");
    assert_success(&out);
    assert!(stderr(&out).contains("resuming: 8 of 10"));
    assert_eq!(points(&b), full);
}

#[test]
fn a_bad_study_config_names_the_key_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(smoke())
        .unwrap()
        .replace("lr = [5e-4, 5e-2]", "lr = [5e-2, 5e-4]");
    let cfg = tmp.path().join("bad.toml");
    std::fs::write(&cfg, text).unwrap();
    let out = run(&cfg, &tmp.path().join("out"), "1");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("dpareto.space.lr"), "{err}");
    assert!(!tmp.path().join("out").exists());
}
