//! Fault injection: damaged journals, compacted tables and study checkpoints, configs edited
//! between runs, duplicate grid values, and kills at random points of a run, a merge and a
//! study. Each must end in the uninterrupted run's bytes or in a clear error naming the damage;
//! never in a silently different result.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::OnceLock;

use common::{config_head, dp_bench_cmd, output, stderr};
use dp_bench::experiment::journal::Journal;
use dp_bench::experiment::store::read_cells;
use proptest::prelude::*;

fn config() -> String {
    config_head("faults", 5, 3, "[0.5, 4.0]")
        + r#"
[methods.alg1]
kind = "alg1"

[methods.dpsgd]
kind = "dpsgd"
tuning = "dishonest"
epochs = 1
grid_size = 2
lr_min = 1e-2
"#
}

fn dp_bench(args: &[&dyn AsRef<OsStr>]) -> Output {
    output(dp_bench_cmd(args).env("RAYON_NUM_THREADS", "2"))
}

fn run(cfg: &Path, out: &Path) -> Output {
    dp_bench(&[&"run", &cfg, &"--out", &out, &"--quiet"])
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        stderr(out)
    );
}

/// The bytes that must not change: the cell table and the summary.
fn snapshot(dir: &Path) -> (String, String) {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    (read("cells.csv"), read("summary.csv"))
}

/// A folder kept for the whole test binary, with the config and its uninterrupted run.
struct Base {
    root: PathBuf,
    cfg: PathBuf,
    whole: PathBuf,
    snap: (String, String),
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        let root = tempfile::tempdir().unwrap().keep();
        let cfg = root.join("faults.toml");
        std::fs::write(&cfg, config()).unwrap();
        let whole = root.join("whole");
        ok(&run(&cfg, &whole));
        let snap = snapshot(&whole);
        assert_eq!(snap.0.lines().count(), 1 + 12, "2 methods × 2 ε × 3 trials");
        Base {
            root,
            cfg,
            whole,
            snap,
        }
    })
}

/// A fresh folder holding the base run's cells as a killed run's journal (nothing compacted).
fn journal_only(name: &str) -> PathBuf {
    let b = base();
    let dir = b.root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A killed run's folder: dp-bench made it, so it holds the marker (the lock file).
    std::fs::write(dir.join(dp_bench::files::LOCK_FILE), "").unwrap();
    let (mut j, _) = Journal::open(&dir).unwrap();
    for r in read_cells(&b.whole).unwrap() {
        j.append(&r).unwrap();
    }
    j.flush().unwrap();
    dir
}

/// A copy of the base run's compacted folder.
fn compacted_copy(name: &str) -> PathBuf {
    let b = base();
    let dir = b.root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in [
        "cells.parquet",
        "cells.csv",
        "timings.csv",
        "cells.log",
        dp_bench::files::LOCK_FILE,
    ] {
        std::fs::copy(b.whole.join(f), dir.join(f)).unwrap();
    }
    dir
}

/// How a file is damaged.
#[derive(Clone, Debug)]
enum Fault {
    Truncate(usize),
    FlipBit(usize, u8),
    Garbage(usize, Vec<u8>),
    DuplicateLine(usize),
    DeleteLine(usize),
    SwapLines(usize, usize),
    /// A valid-JSON edit of a number (accuracy 96.0 → 16.0).
    EditDigit(usize),
}

fn fault() -> impl Strategy<Value = Fault> {
    prop_oneof![
        any::<usize>().prop_map(Fault::Truncate),
        (any::<usize>(), 0u8..8).prop_map(|(o, b)| Fault::FlipBit(o, b)),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..40)
        )
            .prop_map(|(o, g)| Fault::Garbage(o, g)),
        any::<usize>().prop_map(Fault::DuplicateLine),
        any::<usize>().prop_map(Fault::DeleteLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Fault::SwapLines(a, b)),
        any::<usize>().prop_map(Fault::EditDigit),
    ]
}

fn apply(bytes: &[u8], f: &Fault) -> Vec<u8> {
    let n = bytes.len().max(1);
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let l = lines.len().max(1);
    match f {
        Fault::Truncate(o) => bytes[..o % n].to_vec(),
        Fault::FlipBit(o, b) => {
            let mut v = bytes.to_vec();
            v[o % n] ^= 1 << b;
            v
        }
        Fault::Garbage(o, g) => {
            let mut v = bytes.to_vec();
            for (i, x) in g.iter().enumerate() {
                if let Some(slot) = v.get_mut(o % n + i) {
                    *slot = *x;
                }
            }
            v
        }
        Fault::DuplicateLine(i) => {
            let line = lines[i % l].clone();
            lines.insert(i % l, line);
            lines.concat()
        }
        Fault::DeleteLine(i) => {
            lines.remove(i % l);
            lines.concat()
        }
        Fault::SwapLines(a, b) => {
            lines.swap(a % l, b % l);
            lines.concat()
        }
        Fault::EditDigit(o) => {
            let mut v = bytes.to_vec();
            let digits: Vec<usize> = (0..v.len()).filter(|&i| v[i].is_ascii_digit()).collect();
            let i = digits[o % digits.len()];
            v[i] = if v[i] == b'9' { b'1' } else { v[i] + 1 };
            v
        }
    }
}

/// Damages `file` in `dir` by `f`, then runs the base config into `dir` again.
fn damage_and_run(dir: &Path, file: &str, f: &Fault) -> Output {
    let path = dir.join(file);
    std::fs::write(&path, apply(&std::fs::read(&path).unwrap(), f)).unwrap();
    run(&base().cfg, dir)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any damage to a killed run's journal: the resumed run re-runs exactly the damaged cells
    /// and ends in the uninterrupted run's bytes.
    #[test]
    fn a_damaged_journal_resumes_to_the_uninterrupted_result(f in fault()) {
        let dir = journal_only("journal");
        ok(&damage_and_run(&dir, "cells.log", &f));
        prop_assert_eq!(snapshot(&dir), base().snap.clone(), "{:?}", f);
    }

    /// Any damage to the compacted Parquet table: the damaged rows are re-run, or the file is
    /// unreadable and the error names it; never a different result.
    #[test]
    fn a_damaged_cell_table_is_rerun_or_named(f in fault()) {
        let dir = compacted_copy("parquet");
        let out = damage_and_run(&dir, "cells.parquet", &f);
        if out.status.success() {
            prop_assert_eq!(snapshot(&dir), base().snap.clone(), "{:?}", f);
        } else {
            let err = stderr(&out);
            prop_assert!(err.contains("cells.parquet") && err.contains("delete it"), "{:?}: {}", f, err);
        }
    }
}

/// An accuracy edited in a journal line (still valid JSON) is caught by its checksum, named,
/// and only that cell is re-run; readers (figures) get an error naming the line.
#[test]
fn a_valid_json_edit_is_named_and_only_its_cell_rerun() {
    let b = base();
    let dir = journal_only("edit");
    let path = dir.join("cells.log");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen("\"accuracy\":", "\"accuracy\":1", 1);
    assert_ne!(edited, text);
    std::fs::write(&path, edited).unwrap();
    let err = format!("{:#}", read_cells(&dir).unwrap_err());
    assert!(err.contains("cells.log line 1"), "{err}");
    let out = run(&b.cfg, &dir);
    ok(&out);
    let msg = stderr(&out);
    assert!(
        msg.contains("cells.log line 1 is damaged") && msg.contains("resuming: 11 of 12"),
        "{msg}"
    );
    assert_eq!(snapshot(&dir), b.snap);
    assert!(dir.join("damaged.log").exists());
}

/// Editing the config and re-running it into the same folder: the summary holds only the new
/// config's cells (the old ones are moved to stale/ and the run says so), equal to a fresh run.
#[test]
fn an_edited_config_never_mixes_old_cells_into_the_summary() {
    let b = base();
    let dir = compacted_copy("edited");
    let cfg = b.root.join("edited.toml");
    std::fs::write(
        &cfg,
        config()
            .replace("trials = 3", "trials = 2")
            .replace("epochs = 1", "epochs = 2"),
    )
    .unwrap();
    let out = run(&cfg, &dir);
    ok(&out);
    let msg = stderr(&out);
    assert!(
        msg.contains("8 stored cell(s)") && msg.contains("stale"),
        "{msg}"
    );
    let fresh = b.root.join("edited-fresh");
    ok(&run(&cfg, &fresh));
    assert_eq!(snapshot(&dir), snapshot(&fresh));
    assert!(snapshot(&dir).1.lines().skip(1).all(|l| l.contains(",2,")));
    // Going back to the first config re-runs nothing it had (the stale cells are kept, not
    // reused: keys decide) but gives the first result again.
    ok(&run(&b.cfg, &dir));
    assert_eq!(snapshot(&dir), b.snap);
}

/// Merging shards into a folder that holds a run of an older config version: the merged
/// summary counts this config's cells only.
#[test]
fn a_merge_into_an_older_run_counts_only_this_config() {
    let b = base();
    let dir = b.root.join("merge-old");
    let _ = std::fs::remove_dir_all(&dir);
    let old = b.root.join("merge-old.toml");
    std::fs::write(&old, config().replace("seed = 5", "seed = 6")).unwrap();
    ok(&run(&old, &dir));
    for i in 0..2 {
        let shard = format!("{i}/2");
        ok(&dp_bench(&[
            &"run", &b.cfg, &"--out", &dir, &"--shard", &shard, &"--quiet",
        ]));
    }
    ok(&dp_bench(&[&"merge", &dir]));
    assert_eq!(snapshot(&dir), b.snap);
}

/// Duplicate ε values (also written differently) are refused before anything is written.
#[test]
fn duplicate_epsilons_are_refused_and_nothing_is_written() {
    let b = base();
    for eps in ["[0.5, 0.5]", "[0.5, 5e-1]"] {
        let cfg = b.root.join("dup.toml");
        std::fs::write(
            &cfg,
            config().replace("epsilons = [0.5, 4.0]", &format!("epsilons = {eps}")),
        )
        .unwrap();
        let out_dir = b.root.join("dup-out");
        let out = run(&cfg, &out_dir);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("lists 0.5 twice"), "{}", stderr(&out));
        assert!(!out_dir.exists());
    }
}

/// Grids too large to hold and ε outside the tested range are refused at validation.
#[test]
fn oversized_grids_and_degenerate_epsilons_are_refused() {
    let b = base();
    for (from, to, says) in [
        ("trials = 3", "trials = 4000000000", "cells"),
        ("[0.5, 4.0]", "[1e-320]", "epsilons[0]"),
        ("[0.5, 4.0]", "[1e300]", "epsilons[0]"),
    ] {
        let cfg = b.root.join("big.toml");
        std::fs::write(&cfg, config().replace(from, to)).unwrap();
        let out_dir = b.root.join("big-out");
        let out = run(&cfg, &out_dir);
        assert_eq!(out.status.code(), Some(2), "{to}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{to}: {}", stderr(&out));
        assert!(!out_dir.exists(), "{to}");
    }
}

/// Starts dp-bench on `args` (stderr dropped) and kills it (SIGKILL) after `delay_ms`.
fn kill_after(args: &[&str], delay_ms: u64) {
    let mut child = dp_bench_cmd(args).stderr(Stdio::null()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(delay_ms));
    child.kill().ok();
    child.wait().unwrap();
}

/// Kills (SIGKILL) at several points of a run, then a resume: the uninterrupted bytes.
#[test]
fn kills_at_random_points_resume_to_the_same_result() {
    let b = base();
    for (k, delay_ms) in [5u64, 60, 250, 700].into_iter().enumerate() {
        let dir = b.root.join(format!("killed-{k}"));
        let _ = std::fs::remove_dir_all(&dir);
        let (cfg, out) = (b.cfg.to_str().unwrap(), dir.to_str().unwrap());
        kill_after(&["run", cfg, "--out", out, "--quiet"], delay_ms);
        ok(&run(&b.cfg, &dir));
        assert_eq!(snapshot(&dir), b.snap, "killed after {delay_ms} ms");
    }
}

/// A merge killed part-way leaves either nothing merged or whole files; merging again gives
/// the one-process bytes.
#[test]
fn a_killed_merge_merges_again_to_the_same_result() {
    let b = base();
    let dir = b.root.join("merge-kill");
    let _ = std::fs::remove_dir_all(&dir);
    for i in 0..3 {
        let shard = format!("{i}/3");
        ok(&dp_bench(&[
            &"run", &b.cfg, &"--out", &dir, &"--shard", &shard, &"--quiet",
        ]));
    }
    for delay_ms in [1u64, 20, 80] {
        kill_after(&["merge", dir.to_str().unwrap()], delay_ms);
    }
    ok(&dp_bench(&[&"merge", &dir]));
    assert_eq!(snapshot(&dir), b.snap);
}
