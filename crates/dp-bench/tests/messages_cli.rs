//! What dp-bench prints is true and readable: the calculators never print NaN, numbers in
//! messages are short, the files it appends to are never followed through a symlink, and the
//! wording of warnings, summaries, reports and figure notes says what actually happened.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{FLOOR, config_head, data_mirror, dp_bench_cmd_in, output, stderr, text};

fn config() -> String {
    config_head("words", 3, 1, "[1.0]") + "subsample = 200\n\n" + FLOOR
}

fn dp_bench(cwd: &Path, args: &[&dyn AsRef<OsStr>]) -> Output {
    output(dp_bench_cmd_in(cwd, args).env("DPBENCH_DATA_MIRROR", data_mirror()))
}

/// The longest run of digits in `s`: a 300-digit number is one of 300.
fn longest_digits(s: &str) -> usize {
    s.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// Runs `config()` (edited by `edit`) into `dir/out`, which must succeed.
fn run_config(dir: &Path, edit: impl Fn(&str) -> String) -> (PathBuf, Output) {
    let cfg = dir.join("words.toml");
    std::fs::write(&cfg, edit(&config())).unwrap();
    let out_dir = dir.join("out");
    let out = dp_bench(dir, &[&cfg, &"--out", &out_dir]);
    assert!(out.status.success(), "{}", text(&out));
    (out_dir, out)
}

#[test]
fn calculators_never_print_nan_at_extreme_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let op = |sigma: &'static str, bound: &'static str, answer: [&'static str; 2]| {
        let mut v = vec!["privacy", "objpert", "--sigma", sigma, "--lambda", "20"];
        v.extend(["--beta", "1", "--lipschitz", "1", "--bound", bound]);
        v.extend(answer);
        v
    };
    let mut cases = Vec::new();
    for sigma in ["1e-300", "1e-160", "1e-10", "1e300"] {
        for bound in ["profile", "rdp", "kifer", "lower"] {
            for answer in [
                ["--epsilon", "1"],
                ["--delta", "1e-5"],
                ["--epsilon", "1e-300"],
            ] {
                cases.push(op(sigma, bound, answer));
            }
        }
    }
    let base = [
        "--sampling-rate",
        "0.01",
        "--steps",
        "10",
        "--delta",
        "1e-5",
    ];
    for z in ["1e-300", "1e300"] {
        let mut v = vec!["privacy", "dpsgd", "--noise-multiplier", z];
        v.extend(base);
        cases.push(v);
    }
    for sigma in ["1e-300", "1e300"] {
        cases.push(vec![
            "privacy", "gaussian", "--sigma", sigma, "--delta", "1e-5",
        ]);
        cases.push(vec![
            "privacy",
            "gaussian",
            "--sigma",
            sigma,
            "--epsilon",
            "1",
        ]);
    }
    let alg1 = [
        "--delta",
        "1e-5",
        "--sigma-out",
        "1",
        "--tau",
        "1e-4",
        "--beta",
        "0.25",
    ];
    for (s, l) in [("1e-300", "1"), ("1e300", "1e300"), ("1", "1e300")] {
        let mut v = vec![
            "privacy", "alg1", "--sigma", s, "--lambda", l, "--clip", "1",
        ];
        v.extend(alg1);
        cases.push(v);
    }
    for args in cases {
        for json in [false, true] {
            let mut a: Vec<&dyn AsRef<OsStr>> = args.iter().map(|s| s as _).collect();
            if json {
                a.push(&"--json");
            }
            let out = dp_bench(dir.path(), &a);
            let all = text(&out);
            assert!(matches!(out.status.code(), Some(0 | 2)), "{args:?}: {all}");
            assert!(!all.to_lowercase().contains("nan"), "{args:?}: {all}");
        }
    }
    // σ → 0 is no privacy: δ = 1, never less.
    let objpert = "privacy objpert --sigma 1e-300 --lambda 20 --beta 1 --lipschitz 1 \
                   --bound profile --epsilon 1";
    let args = |extra: &[&'static str]| -> Vec<&'static str> {
        objpert
            .split_whitespace()
            .chain(extra.iter().copied())
            .collect()
    };
    fn as_args<'a>(v: &'a [&'static str]) -> Vec<&'a dyn AsRef<OsStr>> {
        v.iter().map(|a| a as &dyn AsRef<OsStr>).collect()
    }
    let out = dp_bench(dir.path(), &as_args(&args(&[])));
    assert!(text(&out).contains("delta = 1.000000"), "{}", text(&out));
    // Composed on the PLD grid, that loss does not fit: a usage error naming the way out.
    let out = dp_bench(dir.path(), &as_args(&args(&["--compositions", "1000"])));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--bound rdp"), "{}", text(&out));
}

#[test]
fn numbers_in_messages_are_printed_short() {
    let dir = tempfile::tempdir().unwrap();
    let alg1 = dp_bench(
        dir.path(),
        &[
            &"privacy",
            &"alg1",
            &"--epsilon",
            &"1e-300",
            &"--delta",
            &"1e-5",
            &"--sigma-out",
            &"1",
            &"--tau",
            &"1e-4",
            &"--beta",
            &"0.25",
            &"--clip",
            &"1",
        ],
    );
    let cfg = dir.path().join("c.toml");
    let mut outs = vec![("alg1 --epsilon 1e-300", alg1)];
    for (what, edit) in [
        ("epsilons = [1e308]", config().replace("[1.0]", "[1e308]")),
        ("epsilons = [1e-300]", config().replace("[1.0]", "[1e-300]")),
        (
            "timeout_seconds = 1e300",
            config()
                + "\n[methods.ext]\nkind = \"external\"\ncommand = [\"python3\", \"x.py\"]\n\
                   relation = \"add_remove\"\ntimeout_seconds = 1e300\n",
        ),
    ] {
        std::fs::write(&cfg, edit).unwrap();
        outs.push((
            what,
            dp_bench(dir.path(), &[&cfg, &"--out", &dir.path().join("o")]),
        ));
    }
    for (what, out) in outs {
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {all}");
        assert!(longest_digits(&all) < 20, "{what}: {all}");
    }
}

#[test]
fn damaged_log_is_never_appended_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let (out_dir, _) = run_config(dir.path(), str::to_string);
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    std::os::unix::fs::symlink(&victim, out_dir.join("damaged.log")).unwrap();
    std::fs::write(out_dir.join("cells.log"), "garbage, not a record\n").unwrap();
    let cfg = dir.path().join("words.toml");
    let out = dp_bench(dir.path(), &[&cfg, &"--out", &out_dir]);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("damaged.log") && all.contains("symlink"),
        "{all}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
}

#[test]
fn a_single_trial_has_no_interval_and_its_summary_still_parses() {
    let dir = tempfile::tempdir().unwrap();
    let (out_dir, out) = run_config(dir.path(), str::to_string);
    let md = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    for shown in [text(&out), md] {
        assert!(!shown.contains("± 0.00"), "{shown}");
        assert!(shown.contains("1 trial"), "{shown}");
    }
    let rows = dp_bench::experiment::summary::read(&out_dir.join("summary.csv")).unwrap();
    assert_eq!(rows[0].trials, 1);
}

#[test]
fn the_report_tells_an_unfinished_run_from_an_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let run = results.join("words");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("config.toml"), config()).unwrap();
    // A run killed mid-way: its journal holds cells, and nothing of the finished run exists.
    std::fs::write(run.join("cells.log"), "{\"a\": 1}\n").unwrap();
    let report = dir.path().join("report");
    let out = dp_bench(dir.path(), &[&"report", &results, &"--out", &report]);
    assert!(out.status.success(), "{}", text(&out));
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        !page.contains("a run from before dpbench wrote one"),
        "{page}"
    );
    assert!(page.contains("not finished"), "{page}");
}

#[test]
fn figures_name_the_results_folder_they_were_given() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("my-results");
    std::fs::create_dir_all(&mine).unwrap();
    for paper in ["avent2020", "iyengar2019", "redberg2023"] {
        let out = dp_bench(
            dir.path(),
            &[
                &"figures",
                &paper,
                &"--results",
                &mine,
                &"--out",
                &dir.path().join("figs"),
            ],
        );
        let all = text(&out);
        assert!(out.status.success(), "{paper}: {all}");
        assert!(all.contains("skipped"), "{paper}: {all}");
        for line in all.lines().filter(|l| l.contains("skipped")) {
            assert!(line.contains(mine.to_str().unwrap()), "{paper}: {line}");
            assert!(!line.contains("no results/"), "{paper}: {line}");
        }
    }
}

#[test]
fn the_checkpoint_warning_says_the_later_points_are_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    let study = r#"
paper = "avent2020"
study = "random"
seed = 5
replications = 1
dataset = "a1a"

[model]
kind = "logistic"
optimizer = "sgd"

[privacy]
delta = 1e-5

[random]
points = 4
distribution = "adult"

[random.ranges]
epochs = [1, 2]
lot = [256, 512]
lr = [1e-3, 0.1]
clip = [0.1, 4]
noise_multiplier = [1, 16]
"#;
    let cfg = dir.path().join("study.toml");
    std::fs::write(&cfg, study).unwrap();
    let out_dir = dir.path().join("out");
    let out = dp_bench(dir.path(), &[&cfg, &"--out", &out_dir, &"--quiet"]);
    assert!(out.status.success(), "{}", text(&out));
    let path = out_dir.join("points.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| l.replacen("\"index\":1", "\"index\":7", 1))
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = dp_bench(dir.path(), &[&cfg, &"--out", &out_dir, &"--quiet"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("the others are kept"), "{err}");
    assert!(
        err.contains("line 2 is damaged") && err.contains("1 point before it"),
        "{err}"
    );
    // One warning for the checkpoint, not one per line set aside.
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
}
