//! docs/benchmark.md's "Put your learner on the leaderboard", end to end: the example worker
//! (examples/leaderboard/my_learner.py), its config, a run, and its row on the leaderboard.

mod common;

use common::{assert_success, dp_bench_in, repo_root, stdout};

#[test]
fn the_walkthrough_puts_the_example_learner_on_the_leaderboard() {
    let root = repo_root();
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("benchmark");
    let run = results.join("my-learner");
    let o = dp_bench_in(
        &root,
        &[
            "examples/leaderboard/my-learner.toml",
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ],
    );
    assert_success(&o);
    let figures = tmp.path().join("figures");
    let o = dp_bench_in(
        &root,
        &[
            "figures",
            "benchmark",
            "--results",
            results.to_str().unwrap(),
            "--out",
            figures.to_str().unwrap(),
        ],
    );
    assert_success(&o);
    let board = std::fs::read_to_string(figures.join("leaderboard.csv")).unwrap();
    let header: Vec<&str> = board.lines().next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let rows: Vec<Vec<&str>> = board
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // Its row at each ε, ranked (add/remove, certified at its target), beside Algorithm 1.
    let mine: Vec<&Vec<&str>> = rows
        .iter()
        .filter(|r| r.join(",").contains("mine"))
        .collect();
    assert_eq!(mine.len(), 2, "{board}\n{}", stdout(&o));
    for r in mine {
        let rank: f64 = r[col("rank")].parse().unwrap_or_else(|_| panic!("{r:?}"));
        assert!((1.0..=2.0).contains(&rank), "{r:?}");
    }
}
