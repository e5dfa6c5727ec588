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

/// Writes a finished grid run into `dir` as a run writes it (config copy, checksummed cells,
/// summary), without running anything: `cell(method, ε, trial)` is each cell's accuracy, its
/// certified ε is its target, and a method named `*dishonest*` records two candidates' scores
/// (the second 3 points lower) as dishonest DP-SGD does.
pub fn fake_grid_run(dir: &Path, config: &str, cell: impl Fn(&str, f64, u32) -> f64) {
    use dp_bench::experiment::config::Config;
    use dp_bench::experiment::grid::expand;
    use dp_bench::experiment::store::{CellRecord, LOCK_FILE, Store};
    use dp_bench::experiment::summary;
    std::fs::create_dir_all(dir).unwrap();
    // A run's folder holds dp-bench's marker from its start.
    std::fs::write(dir.join(LOCK_FILE), "").unwrap();
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let cfg = Config::load(&dir.join("config.toml")).unwrap();
    let mut store = Store::open(dir).unwrap();
    for c in expand(&cfg) {
        let a = cell(&c.method, c.epsilon, c.trial);
        let details = if c.method.contains("dishonest") {
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
                epsilon_accounted: c.epsilon,
                wall_ms: 1.0,
                key: c.key(),
            })
            .unwrap();
    }
    store.compact().unwrap();
    summary::write(dir, &summary::summarize(&cfg, store.rows()).unwrap()).unwrap();
}

/// A Redberg et al. grid (`paper = "redberg2023"`) of `methods` (each `alg1`, or DP-SGD tuned
/// as its name says) at `epsilons`, a TOML array, on synthetic-l, with `trials` trials.
pub fn redberg_config(methods: &[&str], epsilons: &str, trials: u32) -> String {
    let mut s = format!(
        "paper = \"redberg2023\"\nseed = 1\ntrials = {trials}\nepsilons = {epsilons}\n\
         delta = 1e-5\n\n[dataset]\nname = \"synthetic-l\"\n"
    );
    for m in methods {
        let table = match *m {
            "alg1" => "kind = \"alg1\"\n".to_string(),
            m if m.contains("dishonest") => "kind = \"dpsgd\"\ntuning = \"dishonest\"\n\
                 learning_rates = [0.1, 0.01]\ncandidates = \"random\"\n"
                .to_string(),
            _ => "kind = \"dpsgd\"\ntuning = \"honest\"\n".to_string(),
        };
        s.push_str(&format!("\n[methods.{m}]\n{table}"));
    }
    s
}

/// The fields of one CSV line (RFC 4180 quoting: labels such as `"(ε, δ)"` hold commas).
pub fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A leaderboard drawn by `dp-bench figures benchmark`: its CSV as text, header and rows, and
/// what the command printed.
pub struct Board {
    /// `leaderboard.csv` as written.
    pub text: String,
    /// Its header's fields.
    pub header: Vec<String>,
    /// Its rows' fields.
    pub rows: Vec<Vec<String>>,
    /// The command's stdout.
    pub log: String,
}

impl Board {
    /// The index of column `name` (panics naming the columns there are).
    pub fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// The rows whose learner contains `who`.
    pub fn rows_of(&self, who: &str) -> Vec<&Vec<String>> {
        let c = self.col("learner");
        self.rows.iter().filter(|r| r[c].contains(who)).collect()
    }
}

/// Draws the leaderboard of the benchmark runs in `results` into `out` (from `cwd`) and reads
/// it back; panics if the command fails.
pub fn leaderboard(cwd: &Path, results: &Path, out: &Path) -> Board {
    let o = dp_bench_in(
        cwd,
        &[
            "figures",
            "benchmark",
            "--results",
            results.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_success(&o);
    let text = std::fs::read_to_string(out.join("leaderboard.csv")).unwrap();
    let header = fields(text.lines().next().unwrap());
    let rows = text.lines().skip(1).map(fields).collect();
    Board {
        text,
        header,
        rows,
        log: stdout(&o),
    }
}

/// Every audit of the config `text` (kinds from `registry`), run into a folder that is then
/// removed: the outcomes.
pub fn audit_with(
    text: &str,
    registry: &dp_bench::methods::Registry,
) -> Vec<dp_bench::audit::Outcome> {
    let cfg =
        dp_bench::experiment::config::Config::parse_with(text, Path::new("audit.toml"), registry)
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    dp_bench::audit::run(&cfg, dir.path(), false)
        .unwrap()
        .outcomes
}

/// [`audit_with`] the built-in kinds.
pub fn audit_builtin(text: &str) -> Vec<dp_bench::audit::Outcome> {
    audit_with(text, &dp_bench::methods::Registry::builtin())
}

/// Prints each audit's numbers, for a failing test's log.
pub fn show_audits(out: &[dp_bench::audit::Outcome]) {
    for o in out {
        eprintln!(
            "{} ε={} cert={} lb={} ceiling={:?} gdp={:?} fail={:?} t={:?} one={:?}",
            o.method,
            o.epsilon_target,
            o.epsilon_certified,
            o.epsilon_lower,
            o.epsilon_ceiling,
            o.epsilon_gdp,
            o.failures,
            o.test,
            o.one_run
        );
    }
}
