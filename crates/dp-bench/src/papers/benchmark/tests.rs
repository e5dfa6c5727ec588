//! The leaderboard on fake results: run folders written through the store and summary APIs
//! from a config `Config::load` accepts, with a failed cell, an over-budget cell, a dishonest
//! reference and a non-private one.

use std::path::Path;

use super::figures;
use crate::experiment::test_runs::{FakeCell, fake_run as write_run};
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
    write_run(results, stem, config, |c| {
        let a = acc(&c.method, c.epsilon, c.trial);
        FakeCell {
            accuracy: a,
            epsilon_accounted: eps(&c.method, c.epsilon),
            // The dishonest method's two learning rates: 0.1 scores 3 points above 0.01.
            details: if c.method == "sgd_free" {
                serde_json::json!({"scores": [[0.1, a], [0.01, a - 3.0]]})
            } else {
                serde_json::json!({})
            },
        }
    });
}

/// alg1 beats honest DP-SGD by 5 points (noise ±0.5): rank 1 on every cell it has.
fn acc(m: &str, e: f64, t: u32) -> f64 {
    let wiggle = [0.3, -0.5, 0.5, -0.3][t as usize % 4];
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

/// The row of `t` for (dataset, ε, learner).
fn row(t: &Table, ds: &str, e: f64, learner: &str) -> usize {
    (0..t.rows.len())
        .find(|&i| {
            t.text(i, "dataset").unwrap() == ds
                && t.num(i, "epsilon").unwrap() == e
                && t.text(i, "learner").unwrap() == learner
        })
        .unwrap_or_else(|| panic!("no row {ds} {e} {learner}"))
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
    let row = |ds: &str, e: f64, learner: &str| row(&t, ds, e, learner);
    let (alg1, sgd) = ("alg1 (certified)", "dpsgd (certified), honest");
    let free = "dpsgd (certified), best of grid (tuning not paid)";
    let i = row("d3", 1.0, alg1);
    assert_eq!(t.num(i, "rank").unwrap(), 1.0);
    assert_eq!(t.text(i, "vs_best").unwrap(), "best");
    let s = row("d3", 1.0, sgd);
    assert_eq!(t.num(s, "rank").unwrap(), 2.0);
    // 5 points below with ±0.5 noise: worse, with one comparison Holm's p is Welch's.
    assert_eq!(t.text(s, "vs_best").unwrap(), "worse");
    assert!(t.num(s, "p_holm").unwrap() < 1e-4);
    // The interval is Student's t on 3 df: the trials are m + (0.3, −0.5, 0.5, −0.3), s² =
    // 0.68/3, half-width t_{0.975,3}·s/2 with t = 3.182446305284263 (scipy.stats.t.ppf).
    let half = 3.182_446_305_284_263 * (0.68f64 / 3.0).sqrt() / 2.0;
    assert!((t.num(i, "ci95_t").unwrap() - half).abs() < 1e-9);
    assert_eq!(t.text(i, "guarantee").unwrap(), "(ε, δ)");
    // Four trials: ranked and marked.
    assert_eq!(t.text(i, "few_trials").unwrap(), "yes");
    assert_eq!(t.num(i, "trials").unwrap(), 4.0);
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
    // The summary first, then how to read, then the cells.
    let (summary, how, cells) = (
        md.find("# Summary").unwrap(),
        md.find("# How to read").unwrap(),
        md.find("# Per (dataset, ε) cell").unwrap(),
    );
    assert!(summary < how && how < cells, "{md}");
    assert!(md.contains("Holm-corrected over the cell at α = 0.05"));
    assert!(md.contains("every choice reads validation scores only"));
    // 4 ranked results on d|1,x and d3 each, 2 on d2: all with 4 trials.
    assert!(
        md.contains("10 ranked entries have fewer than 10 trials: still ranked, marked †"),
        "{md}"
    );
    assert!(md.contains("| 4 † |"), "{md}");
    assert!(
        md.contains("\n† fewer than 10 trials\n"),
        "the footnote: {md}"
    );
    assert!(
        md.contains(
            "| d3 (synthetic-l) | 1 | alg1 (certified) 75.00 † | dpsgd (certified), honest \
             70.00 † | – | np (non-private) 90.00 |"
        ),
        "{md}"
    );
    // d2 has no ε-cell where both alg1 and DP-SGD are results: the blocks are the other two,
    // where alg1 ranks 1 and DP-SGD 2: χ²_F = 12·2/6·(1 + 4 − 4.5) = 2 on 1 df, F = ∞.
    assert!(
        md.contains(
            "on the 4 (dataset, ε) cell(s) where all of them have one: d3 (ε ∈ \
             {0.1, 1}); d\\|1,x (ε ∈ {0.1, 1})"
        ),
        "{md}"
    );
    assert!(md.contains("k = 2, N = 2: Friedman χ²_F = 2.000"), "{md}");
    assert!(md.contains("CD = 1.386"), "{md}"); // 1.960·√(2·3/12)
    assert!(md.contains("Every dataset here is binary"), "{md}");

    let l = Table::read(&out.join("learners.csv")).unwrap();
    let li = |name: &str| (0..l.rows.len()).find(|&i| l.text(i, "learner").unwrap() == name);
    let s = li(sgd).unwrap();
    // The dishonest mean is the best rate's (8 points above honest) over the 5 cells where
    // both are results (d2, ε = 0.1 is over budget).
    assert!((l.num(s, "tuning_gap_mean").unwrap() - 8.0).abs() < 1e-3);
    assert_eq!(l.num(s, "tuning_gap_cells").unwrap(), 5.0);
    assert_eq!(l.num(li(alg1).unwrap(), "average_rank").unwrap(), 1.0);
    assert_eq!(l.num(s, "average_rank_binary").unwrap(), 2.0);
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

/// Five learners of one kind (told apart by their method names) with 10 trials: `a` is the
/// best and tight, `b` half a point below and tight (worse), `c` far below but so noisy that
/// no test finds it worse, `d` exactly `b`'s trials (an exact tie).
const FIVE: &str = r#"paper = "benchmark"
seed = 3
trials = 10
epsilons = [0.1, 1.0]
delta = 1e-6

[dataset]
name = "synthetic-l"

[methods.a]
kind = "alg1"

[methods.b]
kind = "alg1"
tau = 0.011

[methods.c]
kind = "alg1"
tau = 0.012

[methods.d]
kind = "alg1"
tau = 0.013
"#;

fn five(results: &Path, stem: &str) {
    write_run(results, stem, FIVE, |c| {
        let sign = if c.trial % 2 == 0 { 1.0 } else { -1.0 };
        let accuracy = match c.method.as_str() {
            "a" => 90.0 + 0.1 * sign,
            "b" | "d" => 89.5 + 0.05 * sign,
            _ => 85.0 + 14.0 * sign,
        } + c.epsilon;
        FakeCell {
            accuracy,
            epsilon_accounted: 0.9 * c.epsilon,
            details: serde_json::json!({}),
        }
    });
}

/// The property the leaderboard promises: within a (dataset, ε), no ranked learner with a
/// lower mean sits at a better rank than one with a higher mean; the test against the best
/// annotates. (The old rule, "not significantly worse than the best shares place 1", put `c`
/// at 2 above `b` and `d`.)
#[test]
fn benchmark_leaderboard_ranks_never_put_a_lower_mean_above_a_higher_one() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    five(&results, "one");
    five(&results, "two");
    fake_run(&results, "three", CONFIG, acc, certified);
    let out = dir.path().join("out");
    figures(&out, &results).unwrap();
    let t = Table::read(&out.join("leaderboard.csv")).unwrap();
    let ranked: Vec<usize> = (0..t.rows.len())
        .filter(|&i| t.num(i, "rank").unwrap().is_finite())
        .collect();
    assert_eq!(ranked.len(), 2 * 2 * 4 + 2 * 2);
    for &i in &ranked {
        for &j in &ranked {
            let same = t.text(i, "dataset").unwrap() == t.text(j, "dataset").unwrap()
                && t.num(i, "epsilon").unwrap() == t.num(j, "epsilon").unwrap();
            let (mi, mj) = (
                t.num(i, "mean_accuracy").unwrap(),
                t.num(j, "mean_accuracy").unwrap(),
            );
            if same && mi < mj {
                assert!(
                    t.num(i, "rank").unwrap() > t.num(j, "rank").unwrap(),
                    "{:?} above {:?}",
                    t.rows[i],
                    t.rows[j]
                );
            }
        }
    }
    let label = |m: &str| format!("alg1 (certified) [{m}]");
    let at = |m: &str| row(&t, "one", 1.0, &label(m));
    assert_eq!(t.num(at("a"), "rank").unwrap(), 1.0);
    assert_eq!(t.num(at("b"), "rank").unwrap(), 2.5);
    assert_eq!(t.num(at("d"), "rank").unwrap(), 2.5);
    assert_eq!(t.num(at("c"), "rank").unwrap(), 4.0);
    assert_eq!(t.text(at("b"), "vs_best").unwrap(), "worse");
    assert_eq!(t.text(at("c"), "vs_best").unwrap(), "indistinguishable");
    assert_eq!(t.text(at("c"), "few_trials").unwrap(), "no");
    let md = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    // Only "three" has 4 trials: its 4 ranked results at ε ∈ {0.1, 1}.
    assert!(
        md.contains("4 ranked entries have fewer than 10 trials"),
        "{md}"
    );
}

/// An honest learner certified under replace-one is listed and drawn, never ranked.
#[test]
fn benchmark_replace_one_learners_are_drawn_and_listed_but_not_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let config = format!(
        "{CONFIG}\n[methods.ppsgd]\nkind = \"ppsgd\"\nloss = \"logistic\"\n\
         calibration = \"certified\"\ntuning = \"honest\"\n"
    );
    // ppsgd scores above everyone: ranked, it would be first.
    fake_run(
        &results,
        "d",
        &config,
        |m, e, t| {
            if m == "ppsgd" {
                99.0 + acc("alg1", e, t) / 100.0
            } else {
                acc(m, e, t)
            }
        },
        certified,
    );
    let out = dir.path().join("out");
    figures(&out, &results).unwrap();
    let t = Table::read(&out.join("leaderboard.csv")).unwrap();
    let p = row(&t, "d", 1.0, "ppsgd (certified), honest");
    assert_eq!(t.text(p, "relation").unwrap(), "replace-one");
    assert!(t.num(p, "rank").unwrap().is_nan());
    assert_eq!(
        t.text(p, "note").unwrap(),
        "replace-one ε: not on the add/remove ranking axis"
    );
    assert_eq!(
        t.num(row(&t, "d", 1.0, "alg1 (certified)"), "rank")
            .unwrap(),
        1.0
    );
    let fig = Table::read(&out.join("d.csv")).unwrap();
    let drawn = (0..fig.rows.len())
        .filter(|&i| {
            fig.text(i, "learner").unwrap() == "ppsgd (certified), honest"
                && fig.text(i, "drawn").unwrap() == "yes"
        })
        .count();
    assert_eq!(drawn, 2);
}

/// Under `relation = "replace_one"` every learner is on the one axis: the replace-one one is
/// ranked, an add/remove one shows its own ε beside; runs of different relations are refused.
#[test]
fn benchmark_one_relation_ranks_every_learner_and_refuses_mixed_runs() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let config = format!(
        "{CONFIG}\n[methods.ppsgd]\nkind = \"ppsgd\"\nloss = \"logistic\"\n\
         calibration = \"certified\"\ntuning = \"honest\"\n"
    )
    .replace(
        "delta = 1e-6\n",
        "delta = 1e-6\nrelation = \"replace_one\"\n",
    );
    write_run(&results, "d", &config, |c| {
        let a = if c.method == "ppsgd" {
            99.0
        } else {
            acc(&c.method, c.epsilon, c.trial)
        };
        let mut details = serde_json::json!({"pure_dp": c.method == "ppsgd"});
        if c.method == "sgd_free" {
            details["scores"] = serde_json::json!([[0.1, a], [0.01, a - 3.0]]);
        }
        if ["alg1", "sgd", "sgd_free"].contains(&c.method.as_str()) {
            details["epsilon_add_remove"] = (0.45 * c.epsilon).into();
        }
        FakeCell {
            accuracy: a,
            epsilon_accounted: certified(&c.method, c.epsilon),
            details,
        }
    });
    let out = dir.path().join("out");
    figures(&out, &results).unwrap();
    let t = Table::read(&out.join("leaderboard.csv")).unwrap();
    let p = row(&t, "d", 1.0, "ppsgd (certified), honest");
    assert_eq!(t.num(p, "rank").unwrap(), 1.0);
    assert_eq!(t.text(p, "guarantee").unwrap(), "pure ε");
    assert!(t.num(p, "epsilon_add_remove").unwrap().is_nan());
    let a = row(&t, "d", 1.0, "alg1 (certified)");
    assert_eq!(t.num(a, "rank").unwrap(), 2.0);
    assert_eq!(t.text(a, "relation").unwrap(), "replace-one");
    assert_eq!(t.text(a, "guarantee").unwrap(), "(ε, δ)");
    assert_eq!(t.num(a, "epsilon_add_remove").unwrap(), 0.45);
    // A run that leaves each method at its own relation cannot share the axis.
    fake_run(&results, "e", CONFIG, acc, certified);
    let err = format!("{:#}", figures(&out, &results).unwrap_err());
    assert!(err.contains("different neighbouring relations"), "{err}");
}

/// A summary is a derived output: a forged value stops the leaderboard with an error naming
/// the file, a forged summary.md is never read, and a folder without cells is not a result.
#[test]
fn benchmark_leaderboard_never_shows_a_forged_summary() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    fake_run(&results, "real", CONFIG, acc, certified);
    let out = dir.path().join("out");
    let md_file = results.join("real/summary.md");
    std::fs::write(&md_file, "| ε | alg1 |\n|---|---|\n| 1 | 99.99 ± 0.01 |\n").unwrap();
    figures(&out, &results).unwrap();
    let md = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    assert!(!md.contains("99.99"), "{md}");

    let csv_file = results.join("real/summary.csv");
    let honest = std::fs::read_to_string(&csv_file).unwrap();
    let forged = honest.replacen("alg1,1,75.0000", "alg1,1,99.9900", 1);
    assert_ne!(forged, honest, "{honest}");
    std::fs::write(&csv_file, &forged).unwrap();
    let e = format!("{:#}", figures(&out, &results).unwrap_err());
    assert!(
        e.contains("summary.csv does not match the cells") && e.contains("99.9900"),
        "{e}"
    );
    assert!(e.contains("--out"), "says how to rewrite it: {e}");

    // Only a config and a summary: no cells, not a result.
    std::fs::write(&csv_file, &honest).unwrap();
    let bare = results.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(bare.join("config.toml"), CONFIG).unwrap();
    std::fs::write(bare.join("summary.csv"), &forged).unwrap();
    let e = format!("{:#}", figures(&out, &results).unwrap_err());
    assert!(
        e.contains("no cells: not a result") && e.contains("bare"),
        "{e}"
    );
    std::fs::remove_dir_all(&bare).unwrap();
    figures(&out, &results).unwrap();
}

/// One-vs-all datasets are left out of the binary view, which then compares every learner
/// ranked on all binary datasets.
#[test]
fn benchmark_binary_view_leaves_out_one_vs_all_datasets() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let ova = r#"paper = "benchmark"
seed = 1
trials = 4
epsilons = [0.1, 1.0]
delta = 1e-6

[dataset]
name = "mnist"
one_vs_all = true

[methods.np]
kind = "np"
loss = "logistic"

[methods.hf]
kind = "amp_hf"
loss = "logistic"
calibration = "certified"
tuning = "honest"

[methods.sgd]
kind = "psgd"
loss = "logistic"
calibration = "certified"
tuning = "honest"
"#;
    let binary = format!(
        "{}\n[methods.hf]\nkind = \"amp_hf\"\nloss = \"logistic\"\ncalibration = \
         \"certified\"\ntuning = \"honest\"\n\n[methods.psgd]\nkind = \"psgd\"\nloss = \
         \"logistic\"\ncalibration = \"certified\"\ntuning = \"honest\"\n",
        CONFIG
    );
    let a = |m: &str, e: f64, t: u32| match m {
        "hf" => acc("alg1", e, t) - 1.0,
        "psgd" => acc("sgd", e, t) + 1.0,
        _ => acc(m, e, t),
    };
    fake_run(&results, "b1", &binary, a, certified);
    fake_run(&results, "b2", &binary, a, certified);
    fake_run(&results, "m", ova, a, certified);
    let out = dir.path().join("out");
    let o = figures(&out, &results).unwrap();
    let Outcome::Written(files) = &o[0] else {
        panic!("{o:?}")
    };
    assert!(files.contains(&out.join("cd-binary.png")), "{files:?}");
    let l = Table::read(&out.join("learners.csv")).unwrap();
    let li = |name: &str| {
        (0..l.rows.len())
            .find(|&i| l.text(i, "learner").unwrap() == name)
            .unwrap()
    };
    let alg1 = li("alg1 (certified)");
    assert!(
        l.num(alg1, "average_rank").unwrap().is_nan(),
        "not on mnist"
    );
    assert_eq!(l.num(alg1, "average_rank_binary").unwrap(), 1.0);
    let md = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    assert!(md.contains("## Over datasets: binary datasets"), "{md}");
    assert!(
        md.contains("The 4 learner(s) with a ranked result on every one of the 2 dataset(s)"),
        "{md}"
    );
}
