//! docs/benchmark.md's "Put your learner on the leaderboard", end to end: the example worker
//! (examples/leaderboard/my_learner.py), its config, a run, and its row on the leaderboard.

mod common;

use common::{assert_success, dp_bench_cmd, leaderboard, output, repo_root};

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
    let b = leaderboard(&root, &results, &figures);
    let (board, col) = (&b.text, |name: &str| b.col(name));
    // Its row at each ε, ranked (an add/remove learner certified under the leaderboard's
    // replace-one relation by group privacy, at its target), beside Algorithm 1.
    let mine = b.rows_of("my_learner");
    assert_eq!(mine.len(), 2, "{board}\n{}", b.log);
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
