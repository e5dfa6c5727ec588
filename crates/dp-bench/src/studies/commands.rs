//! The programs a config runs (outside learners' workers). A config that names one is code:
//! before anything runs, every command is shown on stderr, a program that cannot be found
//! fails validation, and `--no-external` refuses the config. `dp-bench check` shows the same
//! without running anything.

use std::path::{Path, PathBuf};

use crate::error::UsageError;
use crate::experiment::config::Config;

/// One command of a config: the method that runs it, its argv and where its program is.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// The method's name (its `[methods.NAME]` table).
    pub method: String,
    /// The argv, run as given (never through a shell).
    pub argv: Vec<String>,
    /// The program found: the path itself when `argv[0]` holds a `/`, else the first match on
    /// `PATH`; `None` when there is none.
    pub program: Option<PathBuf>,
}

/// Every command `cfg` will run, in method order.
pub fn of(cfg: &Config) -> Vec<Command> {
    let mut out = Vec::new();
    for (name, spec) in &cfg.methods {
        for argv in spec.method.commands() {
            let program = argv.first().and_then(|p| find(p));
            out.push(Command {
                method: name.clone(),
                argv,
                program,
            });
        }
    }
    out
}

/// Where `program` would be run from, as `execvp` searches (relative paths from the working
/// directory).
fn find(program: &str) -> Option<PathBuf> {
    let runnable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return runnable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| runnable(p))
}

/// An argv as one line a reader can check: each argument in single quotes when it holds
/// anything but letters, digits and `-_./=:,+@%`, with quotes, backslashes and control
/// characters escaped as Rust escapes them (a display, not a shell command).
pub fn shown(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.escape_default())
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Before a run: refuses the config under `--no-external` or when a program is missing,
/// else shows every command on stderr. Nothing is printed for a config that runs none.
pub fn announce(cfg: &Config, path: &Path, no_external: bool) -> anyhow::Result<()> {
    let commands = of(cfg);
    if commands.is_empty() {
        return Ok(());
    }
    let list = commands
        .iter()
        .map(|c| format!("  methods.{}: {}", c.method, shown(&c.argv)))
        .collect::<Vec<_>>()
        .join("\n");
    if no_external {
        return Err(UsageError(format!(
            "{}: refused by --no-external: the config runs outside programs:\n{list}",
            path.display()
        ))
        .into());
    }
    check_found(&commands, path)?;
    errln!(
        "{}: runs these programs (a config with outside learners is code; \
         `dp-bench check {}` lists them without running anything):\n{list}",
        path.display(),
        path.display()
    );
    Ok(())
}

/// Refuses the first command whose program cannot be found, naming the method and program.
pub fn check_found(commands: &[Command], path: &Path) -> anyhow::Result<()> {
    let Some(c) = commands.iter().find(|c| c.program.is_none()) else {
        return Ok(());
    };
    Err(UsageError(format!(
        "{}: `methods.{}.command` names the program {:?}, which is not {} (the command is \
         run as given, never through a shell)",
        path.display(),
        c.method,
        c.argv[0],
        if c.argv[0].contains('/') {
            "an executable file (paths are relative to the working directory)"
        } else {
            "on PATH"
        }
    ))
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argv_is_shown_as_one_unambiguous_line() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shown(&argv(&["python3", "examples/python/numpy_dpsgd.py"])),
            "python3 examples/python/numpy_dpsgd.py"
        );
        assert_eq!(
            shown(&argv(&["sh", "-c", "touch PWNED; exec python3 x.py"])),
            "sh -c 'touch PWNED; exec python3 x.py'"
        );
        assert_eq!(shown(&argv(&["a\nb", "it's", ""])), "'a\\nb' 'it\\'s' ''");
    }

    #[test]
    fn programs_are_found_as_exec_finds_them() {
        assert!(find("sh").is_some());
        assert_eq!(find("no-such-program-dpbench"), None);
        assert_eq!(find("./no/such/file"), None);
        // A directory is not a program.
        assert_eq!(find("/"), None);
    }
}
