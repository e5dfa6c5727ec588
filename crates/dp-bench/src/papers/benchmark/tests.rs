//! The leaderboard on fake results: run folders written through the store and summary APIs
//! from a config `Config::load` accepts, with a failed cell, an over-budget cell, a dishonest
//! reference and a non-private one.

use std::path::Path;

use super::figures;
use crate::experiment::config::Config;
use crate::experiment::grid::expand;
use crate::experiment::store::{CellRecord, Store};
use crate::experiment::summary;
use crate::figures::Outcome;
use crate::figures::csv::Table;

const CONFIG: &str = r#"paper = "benchmark"
seed = 1
trials = 4
epsilons = [0.1, 1.0]
delta = 1e-6

[dataset]
name = "synthetic-l"

[methods.alg1]
kind = "alg1"

[methods.sgd]
kind = "dpsgd"
tuning = "honest"

[methods.sgd_free]
kind = "dpsgd"
tuning = "dishonest"
learning_rates = [0.1, 0.01]
candidates = "random"

[methods.np]
kind = "np"

# A private learner that nothing certifies (as RSPM's stated epsilon): refused, still drawn.
[methods.unsure]
kind = "alg1"
tau = 0.02
"#;

/// Writes `results/<stem>/` with the config, cells and summary; `acc(method, ε, trial)` is a
/// cell's accuracy and `eps(method, ε)` its certified ε.
fn fake_run(
    results: &Path,
    stem: &str,
    config: &str,
    acc: impl Fn(&str, f64, u32) -> f64,
    eps: impl Fn(&str, f64) -> f64,
) {
    let dir = results.join(stem);
    std::fs::create_dir_all(&dir).unwrap();
    // A run's folder holds dp-bench's marker from its start.
    std::fs::write(dir.join(crate::files::LOCK_FILE), "").unwrap();
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let cfg = Config::load(&dir.join("config.toml")).unwrap();
    let mut store = Store::open(&dir).unwrap();
    for c in expand(&cfg) {
        let a = acc(&c.method, c.epsilon, c.trial);
        // The dishonest method's two learning rates: 0.1 scores 3 points above 0.01.
        let details = if c.method == "sgd_free" {
            serde_json::json!({"scores": [[0.1, a], [0.01, a - 3.0]]})
        } else {
            serde_json::json!({})
        };
        store
            .append(CellRecord {
                method: c.method.clone(),
                kind: cfg.methods[&c.method].kind.into(),
                epsilon: c.epsilon,
                delta: cfg.delta,
                trial: c.trial,
                seed: c.seed,
                accuracy: a,
                details,
                epsilon_accounted: eps(&c.method, c.epsilon),
                wall_ms: 10.0 + f64::from(c.trial),
                key: c.key(),
            })
            .unwrap();
    }
    store.compact().unwrap();
    let rows = summary::summarize(&cfg, store.rows()).unwrap();
    summary::write(&dir, &rows).unwrap();
}

/// alg1 beats honest DP-SGD by 5 points (noise ±0.5): rank 1 on every cell it has.
fn acc(m: &str, e: f64, t: u32) -> f64 {
    let wiggle = [0.3, -0.5, 0.5, -0.3][t as usize];
    let base = 70.0 + 5.0 * e.log10();
    match m {
        "alg1" => base + 5.0 + wiggle,
        "sgd" => base + wiggle,
        "sgd_free" => base + 8.0 + wiggle,
        _ => 90.0,
    }
}

fn certified(m: &str, e: f64) -> f64 {
    if m == "np" || m == "unsure" {
        f64::INFINITY
    } else {
        0.9 * e
    }
}

#[test]
fn benchmark_figures_rank_learners_and_flag_failed_and_over_budget_cells() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // d|1,x: a folder name that needs quoting in both the CSV and the Markdown.
    fake_run(&results, "d|1,x", CONFIG, acc, certified);
    // On d2, alg1 fails one trial at ε = 1 (NaN) and DP-SGD goes over budget at ε = 0.1.
    fake_run(
        &results,
        "d2",
        CONFIG,
        |m, e, t| {
            if m == "alg1" && e == 1.0 && t == 2 {
                f64::NAN
            } else {
                acc(m, e, t)
            }
        },
        |m, e| {
            if m == "sgd" && e == 0.1 {
                0.2
            } else {
                certified(m, e)
            }
        },
    );
    fake_run(&results, "d3", CONFIG, acc, certified);
    // Another paper's run beside them is not the benchmark's.
    fake_run(
        &results,
        "other",
        &CONFIG.replace("\"benchmark\"", "\"redberg2023\""),
        acc,
        certified,
    );
    let out = dir.path().join("out");
    let outcomes = figures(&out, &results).unwrap();
    let Outcome::Written(files) = &outcomes[0] else {
        panic!("{outcomes:?}")
    };
    for f in [
        "d2.png",
        "d|1,x.png",
        "leaderboard.md",
        "cd.png",
        "learners.csv",
    ] {
        assert!(files.contains(&out.join(f)), "{f} not in {files:?}");
    }
    assert!(!out.join("other.png").exists());

    let t = Table::read(&out.join("leaderboard.csv")).unwrap();
    let row = |ds: &str, e: f64, learner: &str| {
        (0..t.rows.len())
            .find(|&i| {
                t.text(i, "dataset").unwrap() == ds
                    && t.num(i, "epsilon").unwrap() == e
                    && t.text(i, "learner").unwrap() == learner
            })
            .unwrap_or_else(|| panic!("no row {ds} {e} {learner}"))
    };
    let (alg1, sgd) = ("alg1 (certified)", "dpsgd (certified), honest");
    let free = "dpsgd (certified), best of grid (tuning not paid)";
    let i = row("d3", 1.0, alg1);
    assert_eq!(t.num(i, "place").unwrap(), 1.0);
    assert_eq!(t.num(i, "rank").unwrap(), 1.0);
    assert_eq!(t.num(row("d3", 1.0, sgd), "rank").unwrap(), 2.0);
    // References carry no rank.
    assert!(t.num(row("d3", 1.0, free), "rank").unwrap().is_nan());
    let np = row("d3", 0.1, "np (non-private)");
    assert_eq!(t.text(np, "role").unwrap(), "non-private (reference)");
    // Every private learner says which neighbours its certified ε is for.
    assert_eq!(
        t.text(row("d3", 1.0, sgd), "relation").unwrap(),
        "add/remove"
    );
    assert_eq!(t.text(np, "relation").unwrap(), "");
    // A private learner certified nowhere is a refused reference, drawn at every ε.
    let unsure = "alg1 (certified) (ε not certified)";
    let r = row("d3", 0.1, unsure);
    assert_eq!(
        t.text(r, "role").unwrap(),
        "refused: ε not certified (reference)"
    );
    assert!(t.num(r, "rank").unwrap().is_nan());
    let d3 = Table::read(&out.join("d3.csv")).unwrap();
    let drawn_refused = (0..d3.rows.len())
        .filter(|&i| {
            d3.text(i, "role").unwrap() == "refused" && d3.text(i, "drawn").unwrap() == "yes"
        })
        .count();
    assert_eq!(drawn_refused, 2);
    // The failed and the over-budget cells are shown, not ranked, and say why.
    let failed = row("d2", 1.0, alg1);
    assert!(t.num(failed, "rank").unwrap().is_nan());
    assert!(t.text(failed, "note").unwrap().contains("no accuracy"));
    let over = row("d2", 0.1, sgd);
    assert!(t.text(over, "note").unwrap().contains("exceeds the target"));
    // With DP-SGD out, alg1 is alone at d2, ε = 0.1.
    assert_eq!(t.num(row("d2", 0.1, alg1), "rank").unwrap(), 1.0);

    let md = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    assert!(md.contains("## d\\|1,x (synthetic-l), ε = 0.1"), "{md}");
    assert!(md.contains("one-sided Welch t-test at α = 0.05"));
    assert!(md.contains("mean rank over that dataset's ε-cells"));
    // d2 has no ε-cell where both alg1 and DP-SGD are results: the blocks are the other two,
    // where alg1 ranks 1 and DP-SGD 2: χ²_F = 12·2/6·(1 + 4 − 4.5) = 2 on 1 df, F = ∞.
    assert!(md.contains("(2 of 3)"), "{md}");
    assert!(md.contains("k = 2, N = 2: Friedman χ²_F = 2.000"), "{md}");
    assert!(md.contains("CD = 1.386"), "{md}"); // 1.960·√(2·3/12)

    let l = Table::read(&out.join("learners.csv")).unwrap();
    let li = |name: &str| (0..l.rows.len()).find(|&i| l.text(i, "learner").unwrap() == name);
    let s = li(sgd).unwrap();
    // The dishonest mean is the best rate's (8 points above honest) over the 5 cells where
    // both are results (d2, ε = 0.1 is over budget).
    assert!((l.num(s, "tuning_gap_mean").unwrap() - 8.0).abs() < 1e-3);
    assert_eq!(l.num(s, "tuning_gap_cells").unwrap(), 5.0);
    assert_eq!(l.num(li(alg1).unwrap(), "average_rank").unwrap(), 1.0);
    // Trials 0..3 take 10..13 ms: the median is 11.5.
    assert_eq!(l.num(li(alg1).unwrap(), "median_wall_ms").unwrap(), 11.5);
    let data = Table::read(&out.join("d2.csv")).unwrap();
    let dropped = (0..data.rows.len())
        .filter(|&i| data.text(i, "drawn").unwrap() == "no")
        .count();
    assert_eq!(
        dropped, 2,
        "the failed and the over-budget points are not drawn"
    );
    if let Ok(keep) = std::env::var("DPBENCH_KEEP_BENCHMARK") {
        for f in ["d2.png", "cd.png"] {
            std::fs::copy(out.join(f), Path::new(&keep).join(f)).unwrap();
        }
    }
}

#[test]
fn benchmark_figures_skip_without_runs_and_say_how_to_make_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = figures(&out, &dir.path().join("none")).unwrap();
    let Outcome::Skipped(msg) = &o[0] else {
        panic!("{o:?}")
    };
    assert!(
        msg.contains("configs/benchmark/adult-external.toml"),
        "{msg}"
    );
    assert!(!out.exists());
}
