//! Hardening, second round: every size a user controls is bounded at validation, a target a
//! method cannot reach is refused before anything is written, a folder that is not a results
//! folder is never written into, and a closed pipe or a full disk ends a command in one line.

mod common;

use std::path::Path;
use std::process::Output;

use common::{FLOOR, assert_success, config_head, dp_bench_cmd_in, dp_bench_in, output, stderr};

fn head() -> String {
    config_head("limits", 3, 1, "[1.0]")
}

/// dp-bench on `args` in `cwd` exits 2 with one error line naming `what` (after at most a note
/// that a dataset was built).
#[track_caller]
fn refused(cwd: &Path, args: &[&str], what: &[&str]) {
    let o = dp_bench_in(cwd, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(last.starts_with("error: "), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "one error line: {err}");
    for w in what {
        assert!(last.contains(w), "{w:?} not in: {err}");
    }
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn sizes_a_user_controls_are_refused_at_validation_naming_key_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let head = head();
    for tuning in ["honest", "dishonest"] {
        let cfg = write(
            cwd,
            "g.toml",
            &format!(
                "{head}[methods.sgd]\nkind = \"dpsgd\"\ntuning = \"{tuning}\"\n\
                 grid_size = 4000000000\n"
            ),
        );
        refused(
            cwd,
            &["run", &cfg, "--out", "o"],
            &["grid_size", "4000000000", "10000"],
        );
    }
    let cfg = write(
        cwd,
        "p.toml",
        &format!("{head}[methods.amp]\nkind = \"amp\"\ntuning = \"honest\"\ngrid_size = 10001\n"),
    );
    refused(cwd, &["run", &cfg, "--out", "o"], &["grid_size", "10000"]);
    // P-SGD's other axes keep their defaults (108 points): 100 learning rates make 10,800.
    let lrs = vec!["0.1"; 100].join(", ");
    let cfg = write(
        cwd,
        "s.toml",
        &format!("{head}[methods.sgd]\nkind = \"psgd\"\nlr = [{lrs}]\n"),
    );
    refused(
        cwd,
        &["run", &cfg, "--out", "o"],
        &["10800 points", "10000"],
    );
    let long = "m".repeat(300);
    let cfg = write(
        cwd,
        "n.toml",
        &format!("{head}[methods.{long}]\nkind = \"constant\"\n"),
    );
    refused(cwd, &["run", &cfg, "--out", "o"], &["at most 64"]);
    let cfg = write(cwd, "c.toml", &format!("{head}{FLOOR}"));
    refused(
        cwd,
        &["slurm", &cfg, "--shards", "100000000"],
        &["--shards", "10000"],
    );
    refused(
        cwd,
        &["run", &cfg, "--shard", "0/4294967296"],
        &["4294967296", "10000"],
    );
    let study = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../configs/avent2020/adult-lr-adam-grid3.toml"),
    )
    .unwrap()
    .replace("size = 3", "size = 100");
    let cfg = write(cwd, "s.toml", &study);
    refused(cwd, &["run", &cfg, "--out", "o"], &["grid.size", "10"]);
    assert!(!cwd.join("o").exists(), "nothing written");
}

#[test]
fn unreachable_targets_and_deltas_are_refused_before_anything_is_moved() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let head = head();
    // A finished run, whose cells must not go to stale/ when an edited config is refused.
    let good = write(cwd, "a.toml", &format!("{head}{FLOOR}"));
    let out = dp_bench_in(cwd, &["run", &good, "--out", "r", "--quiet"]);
    assert_success(&out);
    let cells = std::fs::read(cwd.join("r/cells.csv")).unwrap();

    let alg1 = format!(
        "{}{FLOOR}[methods.alg1]\nkind = \"alg1\"\n",
        head.replace("epsilons = [1.0]", "epsilons = [1.0, 1e-5]")
    );
    let cfg = write(cwd, "a.toml", &alg1);
    refused(
        cwd,
        &["run", &cfg, "--out", "r"],
        &["methods.alg1 at ε = 1e-5", "smallest ε it reaches"],
    );
    let unnormalised = alg1.replace(
        "name = \"synthetic-l\"",
        "name = \"synthetic-l\"\nnormalize_rows = false",
    );
    let cfg = write(cwd, "a.toml", &unnormalised);
    refused(cwd, &["run", &cfg, "--out", "r"], &["methods.alg1"]);
    for delta in ["5e-324", "0.9999999"] {
        let cfg = write(
            cwd,
            "a.toml",
            &format!("{head}{FLOOR}").replace("delta = 1e-5", &format!("delta = {delta}")),
        );
        refused(cwd, &["run", &cfg, "--out", "r"], &["key `delta`"]);
    }
    assert_eq!(std::fs::read(cwd.join("r/cells.csv")).unwrap(), cells);
    assert!(!cwd.join("r/stale").exists(), "nothing moved to stale/");
}

#[test]
fn only_empty_or_dp_bench_folders_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let head = head();
    let cfg = write(cwd, "c.toml", &format!("{head}{FLOOR}"));
    let mine = cwd.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("summary.md"), "my notes\n").unwrap();
    refused(
        cwd,
        &["run", &cfg, "--out", "mine"],
        &["not a dp-bench results folder", "mine"],
    );
    assert_eq!(
        std::fs::read_to_string(mine.join("summary.md")).unwrap(),
        "my notes\n"
    );
    assert_eq!(
        std::fs::read_dir(&mine).unwrap().count(),
        1,
        "nothing written"
    );
    for dot in ["", ".", "./.."] {
        let cfg = write(
            cwd,
            "d.toml",
            &format!("output_dir = {dot:?}\n{head}{FLOOR}"),
        );
        refused(cwd, &["run", &cfg], &["output_dir", "working folder"]);
    }
    let dots = write(cwd, "..toml", &format!("{head}{FLOOR}"));
    refused(cwd, &["run", &dots], &["working folder"]);
    // A new folder, then the same one again (a results folder now) are fine.
    for _ in 0..2 {
        let out = dp_bench_in(cwd, &["run", &cfg, "--out", "fresh", "--quiet"]);
        assert_success(&out);
    }
}

/// Runs `args` with stdout on a pipe whose reader is gone, or on /dev/full.
fn closed_stdout(cwd: &Path, args: &[&str], full: bool) -> Output {
    let mut cmd = dp_bench_cmd_in(cwd, args);
    if full {
        let dev_full = std::fs::OpenOptions::new().write(true).open("/dev/full");
        cmd.stdout(dev_full.unwrap());
    } else {
        // The reader is gone before the child starts: every write meets a closed pipe.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        cmd.stdout(writer);
    }
    output(&mut cmd)
}

#[test]
fn a_closed_pipe_or_a_full_disk_ends_in_one_line_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let head = head();
    let cfg = write(cwd, "c.toml", &format!("{head}{FLOOR}"));
    let commands: [&[&str]; 5] = [
        &["privacy", "gaussian", "--sigma", "1", "--delta", "1e-5"],
        &[
            "privacy", "gaussian", "--sigma", "1", "--delta", "1e-5", "--json",
        ],
        &["list"],
        &["run", &cfg, "--out", "r", "--quiet"],
        &["slurm", &cfg, "--shards", "2"],
    ];
    for args in commands {
        for full in [false, true] {
            let o = closed_stdout(cwd, args, full);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?} full={full}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            // Progress notes may come first; the error is one line, the last.
            let last = err.trim_end().lines().last().unwrap_or("");
            assert!(
                last.starts_with("error: writing to standard output"),
                "{args:?}: {err}"
            );
            assert_eq!(err.matches("error:").count(), 1, "{args:?}: {err}");
        }
    }
    // The run wrote its results before it printed: they are whole.
    assert!(cwd.join("r/summary.csv").exists());
}
