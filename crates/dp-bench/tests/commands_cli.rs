//! A config that runs outside programs is code: `dp-bench check` shows every command without
//! running anything, a run shows them before it starts, `--no-external` refuses them, and a
//! program that does not exist fails validation (exit 2) with nothing written.

mod common;

use common::{code_out_err, dp_bench_cmd_in, output};

const HEAD: &str = "seed = 1\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-6\n\
                    [dataset]\nname = \"synthetic-l\"\n";

fn external(command: &str) -> String {
    format!(
        "{HEAD}[methods.w]\nkind = \"external\"\ncommand = {command}\n\
         relation = \"add_remove\"\n"
    )
}

/// Runs dp-bench with `args` in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    code_out_err(&output(&mut dp_bench_cmd_in(dir, args)))
}

#[test]
fn check_shows_a_shell_command_and_runs_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("c.toml");
    let hostile = r#"["sh", "-c", "touch PWNED; exec python3 x.py"]"#;
    std::fs::write(&config, external(hostile)).unwrap();
    let (code, out, err) = run_in(tmp.path(), &["check", "c.toml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("methods.w: sh -c 'touch PWNED; exec python3 x.py'"),
        "{out}"
    );
    assert!(
        out.contains("1 method(s) at 1 ε × 1 trial(s): 1 cells"),
        "{out}"
    );
    assert!(!tmp.path().join("PWNED").exists(), "check ran the command");
    // --no-external refuses the run before anything is written or run.
    let (code, _, err) = run_in(
        tmp.path(),
        &["run", "c.toml", "--no-external", "--out", "r"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("refused by --no-external") && err.contains("touch PWNED"),
        "{err}"
    );
    assert!(!tmp.path().join("r").exists() && !tmp.path().join("PWNED").exists());
    // A built-in grid has none to show; its relation is said when the config fixes one.
    let relation = HEAD.replace(
        "delta = 1e-6\n",
        "delta = 1e-6\nrelation = \"replace_one\"\n",
    );
    std::fs::write(&config, format!("{relation}[methods.a]\nkind = \"alg1\"\n")).unwrap();
    let (code, out, _) = run_in(tmp.path(), &["check", "c.toml"]);
    assert_eq!(code, 0);
    assert!(out.contains("outside programs: none"), "{out}");
    assert!(
        out.contains("certified under REPLACE_ONE neighbours"),
        "{out}"
    );
}

#[test]
fn a_missing_program_fails_validation_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    for (command, why) in [
        (r#"["no-such-program-dpbench"]"#, "not on PATH"),
        (r#"["./workers/none.py"]"#, "not an executable file"),
    ] {
        std::fs::write(tmp.path().join("c.toml"), external(command)).unwrap();
        for args in [
            &["check", "c.toml"][..],
            &["run", "c.toml", "--out", "r", "--quiet"],
        ] {
            let (code, _, err) = run_in(tmp.path(), args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(
                err.contains("`methods.w.command`") && err.contains(why),
                "{err}"
            );
        }
        assert!(!tmp.path().join("r").exists());
    }
}

#[test]
fn a_run_shows_its_commands_before_it_starts() {
    // `false` exists and fails every fit: the cells fail, the run completes, and the
    // command was on stderr first.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("c.toml"), external(r#"["false"]"#)).unwrap();
    let (code, _, err) = run_in(tmp.path(), &["run", "c.toml", "--out", "r", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(first.contains("runs these programs"), "{err}");
    assert!(err.contains("  methods.w: false"), "{err}");
}
