//! docs/benchmark.md's "Put your learner on the leaderboard", end to end: the example worker
//! (examples/leaderboard/my_learner.py), its config, a run, and its row on the leaderboard.

mod common;

use common::{assert_success, dp_bench_cmd, dp_bench_in, fields, output, repo_root, stdout};

#[test]
fn the_walkthrough_puts_the_example_learner_on_the_leaderboard() {
    let root = repo_root();
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("benchmark");
    let run = results.join("my-learner");
    // The run as a user runs it: every core (the cells are seeded, so the result does not
    // depend on the thread count).
    let o = output(
        dp_bench_cmd(&[
            "examples/leaderboard/my-learner.toml",
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ])
        .current_dir(&root),
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
    let rows: Vec<Vec<String>> = board.lines().skip(1).map(fields).collect();
    // Its row at each ε, ranked (an add/remove learner certified under the leaderboard's
    // replace-one relation by group privacy, at its target), beside Algorithm 1.
    let mine: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r[col("learner")].contains("my_learner"))
        .collect();
    assert_eq!(mine.len(), 2, "{board}\n{}", stdout(&o));
    for r in mine {
        let rank: f64 = r[col("rank")].parse().unwrap_or_else(|_| panic!("{r:?}"));
        assert!((1.0..=2.0).contains(&rank), "{board}");
        let eps: f64 = r[col("epsilon_certified")].parse().unwrap();
        let target: f64 = r[col("epsilon")].parse().unwrap();
        assert!(eps <= target, "{board}");
        assert_eq!(r[col("relation")], "replace-one", "{board}");
        // Its own add/remove ε is shown beside it: about half the target.
        let own: f64 = r[col("epsilon_add_remove")].parse().unwrap();
        assert!(own <= target / 2.0 && own > 0.4 * target, "{board}");
    }
}
