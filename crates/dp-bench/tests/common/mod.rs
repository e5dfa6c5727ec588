//! What the integration tests share: running the binary, reading what it printed, and the
//! head most of their configs start with. Each test binary uses only part of it.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The dp-bench binary with `args`, inheriting this process's environment and folder.
pub fn dp_bench_cmd<S: AsRef<OsStr>>(args: &[S]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dp-bench"));
    c.args(args);
    c
}

/// [`dp_bench_cmd`] in `cwd`, on one rayon thread.
pub fn dp_bench_cmd_in<S: AsRef<OsStr>>(cwd: &Path, args: &[S]) -> Command {
    let mut c = dp_bench_cmd(args);
    c.current_dir(cwd).env("RAYON_NUM_THREADS", "1");
    c
}

/// Runs `cmd` to its end.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("dp-bench runs")
}

/// Runs dp-bench with `args` and nothing else set.
pub fn dp_bench<S: AsRef<OsStr>>(args: &[S]) -> Output {
    output(&mut dp_bench_cmd(args))
}

/// Runs dp-bench with `args` in `cwd`, on one rayon thread.
pub fn dp_bench_in<S: AsRef<OsStr>>(cwd: &Path, args: &[S]) -> Output {
    output(&mut dp_bench_cmd_in(cwd, args))
}

/// What the command printed on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What the command printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Everything printed: stdout, then stderr.
pub fn text(o: &Output) -> String {
    stdout(o) + &stderr(o)
}

/// Exit code (-1 if killed by a signal), stdout and stderr.
pub fn code_out_err(o: &Output) -> (i32, String, String) {
    (o.status.code().unwrap_or(-1), stdout(o), stderr(o))
}

/// Fails the test with the command's stderr unless it exited 0.
#[track_caller]
pub fn assert_success(o: &Output) {
    assert!(o.status.success(), "{}", stderr(o));
}

/// The workspace root, where the committed configs are.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// shared/datasets/raw beside the repository.
pub fn shared_raw() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/raw")
}

/// The raw-file mirror a child should use: `DPBENCH_DATA_MIRROR` if set, else [`shared_raw`].
pub fn data_mirror() -> OsString {
    std::env::var_os("DPBENCH_DATA_MIRROR").unwrap_or(shared_raw().into_os_string())
}

/// A grid config's keys before its methods, on synthetic-l with δ = 1e-5; `epsilons` is a
/// TOML array. Ends inside `[dataset]`, so dataset keys may follow.
pub fn config_head(experiment: &str, seed: u64, trials: u32, epsilons: &str) -> String {
    format!(
        "experiment = \"{experiment}\"\nseed = {seed}\ntrials = {trials}\n\
         epsilons = {epsilons}\ndelta = 1e-5\n\n[dataset]\nname = \"synthetic-l\"\n"
    )
}

/// The cheapest method: a constant predictor.
pub const FLOOR: &str = "[methods.floor]\nkind = \"constant\"\n";
