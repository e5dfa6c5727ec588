//! `kind = "external"` end to end through `dp-bench run`: outside learners that overclaim,
//! crash, hang or break the protocol fail (or are flagged in) their own cells only while the
//! rest of the grid completes; the two example learners in examples/python run, are
//! certified by our accountants, are deterministic and resume.

mod common;

use std::path::Path;
use std::process::Command;

use common::{assert_success, data_mirror, dp_bench_cmd, output, repo_root, stderr, stdout};
use serde_json::Value;

/// Runs `dp-bench` on `config` (text) into `out`, from the workspace root (where the
/// configs' relative commands resolve); returns its stdout and stderr.
fn run(config: &str, out: &Path) -> String {
    let path = out.with_extension("toml");
    std::fs::write(&path, config).unwrap();
    let o = output(
        dp_bench_cmd(&[
            path.as_path(),
            Path::new("--out"),
            out,
            Path::new("--quiet"),
        ])
        .current_dir(repo_root())
        .env("DPBENCH_DATA_MIRROR", data_mirror()),
    );
    let err = stderr(&o);
    assert!(o.status.success(), "dp-bench failed: {err}");
    stdout(&o) + &err
}

/// The cells of a finished run by method name: (accuracy, epsilon_accounted, details).
fn cells(out: &Path) -> Vec<(String, f64, f64, Value)> {
    let text = std::fs::read_to_string(out.join("cells.csv")).unwrap();
    let mut rdr = text.lines();
    let header: Vec<&str> = rdr.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (m, a, e) = (col("method"), col("accuracy"), col("epsilon_accounted"));
    assert_eq!(
        header.last(),
        Some(&"details"),
        "details is the last column"
    );
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.splitn(header.len(), ',').collect();
            let details = f[header.len() - 1];
            let details = details
                .strip_prefix('"')
                .and_then(|d| d.strip_suffix('"'))
                .map_or(details.to_string(), |d| d.replace("\"\"", "\""));
            let num = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
            (
                f[m].to_string(),
                num(f[a]),
                num(f[e]),
                serde_json::from_str(&details).unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn one<'a>(cells: &'a [(String, f64, f64, Value)], method: &str) -> &'a (String, f64, f64, Value) {
    cells
        .iter()
        .find(|c| c.0 == method)
        .unwrap_or_else(|| panic!("no cell of {method}"))
}

const HEAD: &str = "seed = 3\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-5\n\n[dataset]\n\
                    name = \"synthetic-l\"\nnormalize_rows = true\nbias = 1.0\nsubsample = 200\n\n\
                    [methods.alg1]\nkind = \"alg1\"\n";

fn misbehaving(name: &str, mode: &str, extra: &str) -> String {
    format!(
        "\n[methods.{name}]\nkind = \"external\"\n\
         command = [\"python3\", \"crates/dp-bench/tests/workers/misbehave.py\"]\n\
         relation = \"add_remove\"\nhyperparameters = {{ mode = \"{mode}\" }}\n{extra}"
    )
}

/// Whether `pid` is a live process (a zombie awaiting its reaper counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().to_string()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

#[test]
fn a_timed_out_worker_takes_what_it_started_with_it() {
    // The worker starts `sleep 600` in a session of its own (out of its process group), then
    // hangs: the timeout must end both.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let pid_file = dir.path().join("child.pid");
    let config = format!(
        "{HEAD}\n[methods.spawner]\nkind = \"external\"\n\
         command = [\"python3\", \"crates/dp-bench/tests/workers/misbehave.py\"]\n\
         relation = \"add_remove\"\ntimeout_seconds = 3\nmax_restarts = 0\n\
         hyperparameters = {{ mode = \"spawn_and_hang\", pid_file = {:?} }}\n",
        pid_file.to_str().unwrap()
    );
    run(&config, &out);
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("the worker wrote its child's pid")
        .trim()
        .parse()
        .unwrap();
    // SIGKILL is delivered at once; give the kernel a moment to tear the process down.
    let start = std::time::Instant::now();
    while alive(pid) && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!alive(pid), "the worker's child {pid} outlived the run");
    let spawner = cells(&out).into_iter().find(|c| c.0 == "spawner").unwrap();
    assert!(spawner.1.is_nan(), "{spawner:?}");
}

/// dp-bench stopped by SIGINT or SIGTERM mid-run ends its busy worker and what the worker
/// started in a session of its own, then exits with 128 + the signal.
#[test]
fn an_interrupted_run_takes_its_workers_children_with_it() {
    for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT")] {
        let dir = tempfile::tempdir().unwrap();
        let (config, out) = (dir.path().join("c.toml"), dir.path().join("run"));
        let pid_file = dir.path().join("child.pid");
        std::fs::write(
            &config,
            format!(
                "{HEAD}\n[methods.spawner]\nkind = \"external\"\n\
                 command = [\"python3\", \"crates/dp-bench/tests/workers/misbehave.py\"]\n\
                 relation = \"add_remove\"\ntimeout_seconds = 600\n\
                 hyperparameters = {{ mode = \"spawn_and_hang\", pid_file = {:?} }}\n",
                pid_file.to_str().unwrap()
            ),
        )
        .unwrap();
        let mut run = common::dp_bench_cmd_in(
            &common::repo_root(),
            &[
                config.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--quiet",
            ],
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
        let start = std::time::Instant::now();
        let pid = loop {
            let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
            if let Ok(pid) = text.trim().parse::<u32>() {
                break pid;
            }
            assert!(start.elapsed().as_secs() < 120, "{name}: no child started");
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        // SAFETY: kill(2) on the child this test started.
        unsafe { libc::kill(run.id() as libc::pid_t, signal) };
        let status = run.wait().unwrap();
        assert_eq!(status.code(), Some(128 + signal), "{name}: {status}");
        let start = std::time::Instant::now();
        while alive(pid) && start.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(
            !alive(pid),
            "{name}: the worker's child {pid} outlived dp-bench"
        );
    }
}

#[test]
fn a_learner_that_zeroes_the_shared_labels_leaves_another_learners_cells_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let head = HEAD.replace("trials = 1", "trials = 4");
    let honest = misbehaving("honest", "honest", "");
    let alone = dir.path().join("alone");
    run(&format!("{head}{honest}"), &alone);
    let beside = dir.path().join("beside");
    let log = run(
        &format!("{head}{}{honest}", misbehaving("a_zero", "zero_labels", "")),
        &beside,
    );
    assert!(log.contains("changed since it was written"), "{log}");
    let of = |out: &Path| -> Vec<(f64, f64)> {
        let mut v: Vec<(f64, f64)> = cells(out)
            .into_iter()
            .filter(|c| c.0 == "honest")
            .map(|c| (c.1, c.2))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    };
    assert_eq!(of(&alone), of(&beside));
    assert_eq!(of(&alone).len(), 4);
}

#[test]
fn misbehaving_learners_fail_or_are_flagged_in_their_own_cells_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let modes = [
        ("honest", ""),
        ("overclaim", ""),
        ("crash", ""),
        ("hang", "timeout_seconds = 2\n"),
        ("not_json", ""),
        ("wrong_id", ""),
        ("short_theta", ""),
        ("nan_theta", ""),
        ("unknown_event", ""),
        ("wrong_relation", ""),
        ("decline", ""),
    ];
    let mut config = HEAD.to_string();
    for (mode, extra) in modes {
        config.push_str(&misbehaving(mode, mode, extra));
    }
    let start = std::time::Instant::now();
    run(&config, &out);
    eprintln!(
        "11 external cells and alg1 in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let cells = cells(&out);
    assert_eq!(cells.len(), 12);

    // The built-in method beside them completes.
    let alg1 = one(&cells, "alg1");
    assert!(alg1.1.is_finite() && alg1.2 <= 1.0, "{alg1:?}");

    // A plain pure-ε declaration at the target certifies exactly the target.
    let honest = one(&cells, "honest");
    assert!(honest.1.is_finite(), "{honest:?}");
    assert_eq!(honest.2, 1.0);
    assert_eq!(honest.3["over_budget"], false);

    // Declaring 2ε is accounted as 2ε, flagged, and its accuracy is not reported at ε.
    let over = one(&cells, "overclaim");
    assert_eq!(over.2, 2.0, "{over:?}");
    assert!(
        over.1.is_nan(),
        "an over-budget cell reports no accuracy at its target"
    );
    assert_eq!(over.3["over_budget"], true);
    assert!(over.3["accuracy"].as_f64().unwrap() > 50.0, "{over:?}");
    assert_eq!(over.3["event"]["epsilon"], 2.0);
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let row = summary
        .lines()
        .find(|l| l.starts_with("overclaim,"))
        .unwrap();
    assert!(
        row.starts_with("overclaim,1,NaN,") && row.ends_with(",2"),
        "{row}"
    );

    for (method, needle) in [
        ("crash", "boom: the learner fell over"),
        ("crash", "exit status: 3"),
        ("hang", "no response within timeout_seconds = 2"),
        ("not_json", "malformed response, not JSON"),
        ("wrong_id", "does not echo the request's id"),
        ("short_theta", "theta has 40 values, expected 41"),
        ("nan_theta", "JSON has no NaN or Infinity"),
        ("unknown_event", "event.type: unknown event type \"ZCDp\""),
        (
            "wrong_relation",
            "declared relation REPLACE_ONE but the config says ADD_OR_REMOVE_ONE",
        ),
        ("decline", "the learner declined: ConvergenceWarning"),
    ] {
        let c = one(&cells, method);
        let err = c.3["error"].as_str().unwrap_or_else(|| panic!("{c:?}"));
        assert!(err.contains(needle), "{method}: {err:?} lacks {needle:?}");
        assert!(!err.contains("exit status: exit"), "{method}: {err:?}");
        assert!(c.1.is_nan() && c.2 == f64::INFINITY, "{c:?}");
    }
}

#[test]
fn a_tuned_learner_pays_for_its_prior_and_must_declare_what_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let tuned = |name: &str, mode: &str, tuning: &str| {
        misbehaving(
            name,
            mode,
            &format!("tuning = \"{tuning}\"\nprior = {{ sign = [1.0, -1.0] }}\n"),
        )
    };
    let config = HEAD.replace("trials = 1", "trials = 3")
        + &tuned("honest_tuned", "tuned", "honest")
        + &tuned("free", "tuned", "dishonest")
        + &tuned("liar", "switch", "honest")
        + &tuned("mute", "nodeclare", "honest");
    run(&config, &out);
    let cells = cells(&out);
    let of = |m: &'static str| cells.iter().filter(move |c| c.0 == m);
    for c in of("honest_tuned") {
        // Pure ε per run, tuned by Papernot–Steinke: each run gets less than the target and
        // the whole procedure is certified at or below it.
        let run_eps = c.3["run_epsilon"].as_f64().unwrap();
        assert!(run_eps > 0.05 && run_eps < 0.5, "{c:?}");
        assert!(c.2 <= 1.0 && c.2 > 0.9, "{c:?}");
        assert!(c.1.is_finite(), "{c:?}");
        assert_eq!(
            c.3["runs"].as_u64().unwrap() as usize,
            c.3["scores"].as_array().unwrap().len()
        );
    }
    for c in of("free") {
        // Every point at the full budget: each certified at the target, the cost of picking
        // ignored (the reference the leaderboard labels as such).
        assert_eq!(c.2, 1.0, "{c:?}");
        assert_eq!(c.3["scores"].as_array().unwrap().len(), 2, "{c:?}");
    }
    for c in of("liar") {
        let err = c.3["error"].as_str().unwrap_or_else(|| panic!("{c:?}"));
        assert!(err.contains("a learner must declare what it does"), "{err}");
        assert!(c.1.is_nan() && c.2 == f64::INFINITY, "{c:?}");
    }
    for c in of("mute") {
        let err = c.3["error"].as_str().unwrap_or_else(|| panic!("{c:?}"));
        assert!(
            err.contains("cannot plan honest tuning at (1, 0.00001)"),
            "{err}"
        );
        assert!(
            err.contains("declaring point sign=1.0 at per-run ε"),
            "{err}"
        );
        assert!(err.contains("unknown method 'declare'"), "{err}");
    }
    // Dishonest tuning reports the sign that is best on mean over trials: +1.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let row = summary.lines().find(|l| l.starts_with("free,")).unwrap();
    assert!(row.contains("sign=1.0"), "{row}");
}

#[test]
fn a_crashing_learner_is_restarted_a_bounded_number_of_times() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let config = HEAD.replace("trials = 1", "trials = 6")
        + &misbehaving("crash", "crash", "max_restarts = 1\n");
    run(&config, &out);
    let cells = cells(&out);
    let crashes: Vec<_> = cells.iter().filter(|c| c.0 == "crash").collect();
    assert_eq!(crashes.len(), 6);
    let unavailable = crashes
        .iter()
        .filter(|c| {
            c.3["error"]
                .as_str()
                .unwrap()
                .starts_with("learner unavailable")
        })
        .count();
    // Two restarts exceed max_restarts = 1; cells that start later fail without a worker.
    assert!((1..=4).contains(&unavailable), "{crashes:?}");
    assert_eq!(cells.iter().filter(|c| c.0 == "alg1").count(), 6);
}

fn have_diffprivlib() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import diffprivlib, numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!(
            "SKIPPED: python3 cannot import diffprivlib and numpy; install them with \
             `python3 -m pip install -r examples/python/requirements.txt`"
        );
    }
    ok
}

#[test]
fn the_example_learners_run_are_certified_deterministic_and_resume() {
    if !have_diffprivlib() {
        return;
    }
    let config = "seed = 11\ntrials = 1\nepsilons = [0.5, 2.0]\ndelta = 1e-5\n\n[dataset]\n\
                  name = \"adult\"\nnormalize_rows = true\nbias = 1.0\ntest_fraction = 0.2\n\
                  split_seed = 10000019\nsubsample = 400\n\n[methods.alg1]\nkind = \"alg1\"\n\n\
                  [methods.diffprivlib]\nkind = \"external\"\n\
                  command = [\"python3\", \"examples/python/diffprivlib_logreg.py\"]\n\
                  relation = \"replace_one\"\nhyperparameters = { C = 1.0 }\n\n\
                  [methods.dpsgd_numpy]\nkind = \"external\"\n\
                  command = [\"python3\", \"examples/python/numpy_dpsgd.py\"]\n\
                  relation = \"add_remove\"\n\
                  hyperparameters = { epochs = 5, batch_size = 64, clip = 1.0, lr = 0.5 }\n\n\
                  [methods.dpsgd_numpy_honest]\nkind = \"external\"\n\
                  command = [\"python3\", \"examples/python/numpy_dpsgd.py\"]\n\
                  relation = \"add_remove\"\ntuning = \"honest\"\n\
                  hyperparameters = { epochs = 1, batch_size = 64 }\n\
                  prior = { lr = [0.1, 0.5], clip = [1.0] }\n";
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let start = std::time::Instant::now();
    run(config, &a);
    eprintln!(
        "example learners, 8 cells: {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let cells_a = cells(&a);
    for (method, acc, eps, details) in &cells_a {
        assert!(acc.is_finite() && *acc > 40.0, "{method}: {acc} {details}");
        assert!(*eps > 0.0, "{method}: {eps}");
        if method != "alg1" {
            assert_eq!(details["over_budget"], false, "{method}: {details}");
        }
    }
    let targets = [0.5, 2.0];
    let dpl: Vec<f64> = cells_a
        .iter()
        .filter(|c| c.0 == "diffprivlib")
        .map(|c| c.2)
        .collect();
    assert_eq!(dpl, targets, "one pure ε release certifies exactly its ε");
    // Honest tuning of the NumPy learner over its prior: calibrated on its declarations
    // (down to per-run targets its own accountant cannot reach), certified at or below target.
    let tuned: Vec<_> = cells_a
        .iter()
        .filter(|c| c.0 == "dpsgd_numpy_honest")
        .collect();
    for (c, t) in tuned.iter().zip(targets) {
        assert!(c.2 <= t && c.2 > 0.8 * t, "{c:?}");
        assert!(c.3["run_epsilon"].as_f64().unwrap() < t, "{c:?}");
    }
    let sgd: Vec<_> = cells_a.iter().filter(|c| c.0 == "dpsgd_numpy").collect();
    for (c, t) in sgd.iter().zip(targets) {
        assert!(c.2 <= t && c.2 > 0.3 * t, "{c:?}");
        assert_eq!(c.3["event"]["type"], "SelfComposed");
        assert_eq!(c.3["relation"], "ADD_OR_REMOVE_ONE");
    }

    // The arrays are valid .npy for numpy's memory map, float64, C order, labels in {0, 1}:
    // each learner's own copy, under `external/learner-<digest>/<data digest>/`.
    let first = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
    };
    let learner = first(&a.join("external"));
    assert!(
        learner
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("learner-"),
        "{learner:?}"
    );
    let npy = first(&learner);
    let check = "import sys, numpy as np\n\
                 x = np.load(sys.argv[1], mmap_mode='r', allow_pickle=False)\n\
                 y = np.load(sys.argv[2], mmap_mode='r', allow_pickle=False)\n\
                 assert x.dtype == np.float64 and x.flags.c_contiguous and x.shape[0] == y.shape[0]\n\
                 assert set(np.unique(y)) == {0.0, 1.0}, np.unique(y)\n\
                 print(x.shape)";
    let o = Command::new("python3")
        .args(["-c", check])
        .arg(npy.join("X.npy"))
        .arg(npy.join("y.npy"))
        .output()
        .unwrap();
    assert_success(&o);
    let shape = stdout(&o);
    assert!(shape.starts_with("(400, "), "{shape}");

    // Same config, fresh folder: the same cells, byte for byte (workers are deterministic
    // given the seed); the same folder again: nothing to run.
    run(config, &b);
    let read = |d: &Path| std::fs::read(d.join("cells.csv")).unwrap();
    assert_eq!(read(&a), read(&b), "two runs differ");
    let err = run(config, &a);
    assert!(err.contains("(0 run now, 8 already done)"), "{err}");
}
