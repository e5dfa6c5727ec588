//! Values someone else wrote (a config, a flag) stay data: generated Slurm scripts quote or
//! refuse them, method names keep to a safe charset, and config errors read cleanly.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{FLOOR, config_head, dp_bench_in, stderr};

fn config() -> String {
    config_head("hostile", 3, 2, "[1.0]") + "\n" + FLOOR
}

fn bash(cwd: &Path, script: &Path, task: &str) -> Output {
    Command::new("bash")
        .arg(script)
        .current_dir(cwd)
        .env("SLURM_ARRAY_TASK_ID", task)
        .output()
        .expect("bash runs")
}

/// Every path under `dir`, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        out.push(p.display().to_string());
        if p.is_dir() {
            out.extend(tree(&p));
        }
    }
    out.sort();
    out
}

#[test]
fn slurm_refuses_line_breaks_naming_the_flag_or_key_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let good = cwd.join("good.toml");
    std::fs::write(&good, config()).unwrap();
    let bad = cwd.join("bad.toml");
    std::fs::write(
        &bad,
        format!("output_dir = \"out/o\\ntouch pwned #\"\n{}", config()),
    )
    .unwrap();
    let before = tree(cwd);
    let g = good.to_str().unwrap();
    for (args, names) in [
        (vec!["slurm", bad.to_str().unwrap()], "key `output_dir`"),
        (vec!["slurm", g, "--time", "1:00\ntouch pwned"], "--time"),
        (vec!["slurm", g, "--partition", "p\r#x"], "--partition"),
        (vec!["slurm", g, "--mem", "8G\n"], "--mem"),
        (vec!["slurm", g, "--out", "r\nx"], "--out"),
        (vec!["slurm", g, "--scripts", "s\nx"], "--scripts"),
    ] {
        let out = dp_bench_in(cwd, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{names}: {err}");
        assert!(
            err.contains(names) && err.contains("control character"),
            "{names}: {err}"
        );
        assert_eq!(tree(cwd), before, "{names}: nothing may be written");
    }
}

#[test]
fn slurm_scripts_from_hostile_paths_run_exactly_what_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let cfg_dir = cwd.join("cfg 'q' $(touch pwned) #x \\ y");
    std::fs::create_dir_all(&cfg_dir).unwrap();
    let cfg = cfg_dir.join("it's `touch pwned`.toml");
    // Results (and so the Slurm log folder) with quotes, `;`, `$` and Slurm's `%`.
    let out_dir = cwd.join("res \"1\" ; touch pwned; $HOME %j");
    let toml_path = out_dir
        .to_str()
        .unwrap()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    std::fs::write(&cfg, format!("output_dir = \"{toml_path}\"\n{}", config())).unwrap();
    let out = dp_bench_in(
        cwd,
        &[
            "slurm",
            cfg.to_str().unwrap(),
            "--shards",
            "2",
            "--partition",
            "short queue #1",
            "--time",
            "1:00:00",
        ],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let scripts = out_dir.join("slurm");
    let (array, merge) = (scripts.join("array.sh"), scripts.join("merge.sh"));
    let text = std::fs::read_to_string(&array).unwrap();
    assert!(
        text.contains("#SBATCH --partition=\"short queue #1\"\n"),
        "{text}"
    );
    assert!(text.contains("#SBATCH --time=1:00:00\n"), "{text}");
    for script in [&array, &merge] {
        let n = Command::new("bash").arg("-n").arg(script).output().unwrap();
        assert!(n.status.success(), "bash -n {}", script.display());
    }
    for task in ["0", "1"] {
        let out = bash(cwd, &array, task);
        assert!(out.status.success(), "task {task}: {}", stderr(&out));
    }
    let out = bash(cwd, &merge, "");
    assert!(out.status.success(), "merge: {}", stderr(&out));
    // The tasks ran the named config into the named folder, and nothing else ran.
    let cells = std::fs::read_to_string(out_dir.join("cells.csv")).unwrap();
    assert_eq!(cells.lines().count(), 1 + 2, "{cells}");
    let found = tree(cwd);
    assert!(
        !found.iter().any(|p| p.ends_with("/pwned")),
        "a hostile line ran: {found:?}"
    );
}

#[test]
fn method_names_are_validated_and_unknown_fields_read_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    for (i, (text, want)) in [
        (
            config().replace("[methods.floor]", "[methods.\"alg1,99.9\"]"),
            "table `methods.\"alg1,99.9\"`: a method name may only hold",
        ),
        (
            config().replace("[methods.floor]", "[methods.\"a|b\"]"),
            "rename it, e.g. [methods.\"a_b\"]",
        ),
        (
            config().replace(
                "kind = \"constant\"",
                "kind = \"dpsgd\"\ntuning = \"dishonest\"\nepoch = 3",
            ),
            "methods.floor: unknown field `epoch`, expected one of",
        ),
    ]
    .iter()
    .enumerate()
    {
        let cfg = cwd.join(format!("c{i}.toml"));
        std::fs::write(&cfg, text).unwrap();
        let out_dir = cwd.join(format!("out{i}"));
        let out = dp_bench_in(
            cwd,
            &[cfg.to_str().unwrap(), "--out", out_dir.to_str().unwrap()],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{want}: {err}");
        assert!(!err.contains("key `methods.floor.unknown"), "{err}");
        assert!(!out_dir.exists());
    }
}
