//! An outside learner that declares Gaussian noise of multiplier 1000 and releases its exact
//! least-squares θ (tests/workers/misbehave.py, mode `liar`): `dp-bench audit` refutes it
//! (exit 1), since its fits are ordinary requests on the audit's two datasets and it cannot
//! tell them from a benchmark run; and a leaderboard built from a run that includes it shows
//! it refuted and does not rank it, while the learner beside it is ranked.

mod common;

use common::{assert_success, dp_bench, leaderboard, repo_root, stderr};

#[test]
fn a_learner_that_lies_about_its_noise_is_refuted_and_not_ranked() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let worker = repo_root().join("crates/dp-bench/tests/workers/misbehave.py");
    let liar = format!(
        "[methods.liar]\nkind = \"external\"\ncommand = [\"python3\", \"{}\"]\n\
         relation = \"add_remove\"\nhyperparameters = {{ mode = \"liar\" }}\n",
        worker.display()
    );
    let audit = tmp.path().join("audit.toml");
    std::fs::write(
        &audit,
        format!(
            "seed = 7\ntrials = 200\nepsilons = [1.0]\ndelta = 1e-5\n\
             [audit]\nconfidence = 0.95\nbase = \"zeros\"\n\
             [dataset]\nname = \"synthetic-l\"\nsubsample = 200\n{liar}"
        ),
    )
    .unwrap();
    let out = results.join("liar-audit");
    let o = audit_cli(&audit, &out);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("measured ε above the certified ε for liar at ε = 1"),
        "{err}"
    );

    let bench = tmp.path().join("bench.toml");
    std::fs::write(
        &bench,
        format!(
            "paper = \"benchmark\"\nseed = 7\ntrials = 2\nepsilons = [1.0]\ndelta = 1e-5\n\
             relation = \"replace_one\"\n\
             [dataset]\nname = \"synthetic-l\"\nsubsample = 400\nvalidation_fraction = 0.2\n\
             [methods.alg1]\nkind = \"alg1\"\nloss = \"logistic\"\n{liar}"
        ),
    )
    .unwrap();
    let run = results.join("bench");
    let o = dp_bench(&[
        bench.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--quiet",
    ]);
    assert_success(&o);
    let figures = tmp.path().join("figures");
    let b = leaderboard(&repo_root(), &results, &figures);
    let (board, col) = (&b.text, |name: &str| b.col(name));
    let row = |who: &str| {
        *b.rows_of(who)
            .first()
            .unwrap_or_else(|| panic!("no {who} in {board}\n{}", b.log))
    };
    let liar = row("misbehave");
    assert_eq!(
        liar[col("role")],
        "refuted by audit (not ranked)",
        "{board}"
    );
    assert!(liar[col("audit")].starts_with("REFUTED: ε ≥ "), "{board}");
    assert!(
        liar[col("rank")].parse::<f64>().is_ok_and(f64::is_nan),
        "{board}"
    );
    // What it certifies from its declaration is below the target: only the audit stops it.
    let certified: f64 = liar[col("epsilon_certified")].parse().unwrap();
    assert!(certified < 0.01, "{board}");
    let alg1 = row("alg1");
    assert_eq!(alg1[col("rank")], "1", "{board}");
    assert_eq!(alg1[col("audit")], "not audited", "{board}");
    let md = std::fs::read_to_string(figures.join("leaderboard.md")).unwrap();
    assert!(md.contains("# Audits") && md.contains("REFUTED"), "{md}");
}

/// Whether a run times out is the machine's, not the learner's answer: an audit whose worker
/// times out stops with an error and writes no table, instead of scoring the run as an empty
/// release.
#[test]
fn a_worker_timeout_stops_the_audit() {
    let tmp = tempfile::tempdir().unwrap();
    let worker = repo_root().join("crates/dp-bench/tests/workers/misbehave.py");
    let audit = tmp.path().join("audit.toml");
    std::fs::write(
        &audit,
        format!(
            "seed = 7\ntrials = 2\nepsilons = [1.0]\ndelta = 1e-5\n\
             [audit]\nbase = \"zeros\"\n\
             [dataset]\nname = \"synthetic-l\"\nsubsample = 200\n\
             [methods.hang]\nkind = \"external\"\ncommand = [\"python3\", \"{}\"]\n\
             relation = \"add_remove\"\ntimeout_seconds = 1\nmax_restarts = 0\n\
             hyperparameters = {{ mode = \"hang\" }}\n",
            worker.display()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = audit_cli(&audit, &out);
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("not reproducible") && err.contains("timeout_seconds"),
        "{err}"
    );
    assert!(!out.join("audit.csv").exists());
}

/// `dp-bench audit CONFIG --out OUT --quiet`.
fn audit_cli(config: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    dp_bench(&[
        "audit",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ])
}
