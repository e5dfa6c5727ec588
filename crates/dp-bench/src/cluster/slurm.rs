//! `dp-bench slurm CONFIG… --shards N`: a Slurm job-array script whose tasks run the configs'
//! shards (a study config is one task: a study runs whole) and a merge job that depends on the
//! whole array (`afterok`). Every path in the scripts is absolute and the tasks start in the
//! current folder, so they run wherever Slurm places them on a shared file system. Every value
//! in them is quoted or refused by [`super::shell`]: a config or flag cannot add a command.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::shell::{path_text, quote, quote_path, sbatch_value};

/// One array task: a config, its results folder, and its shard (none for a study).
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// The config file (absolute).
    pub config: PathBuf,
    /// Its results folder (absolute).
    pub out: PathBuf,
    /// `Some((I, N))` for shard I of N of a grid config.
    pub shard: Option<(usize, usize)>,
}

/// `#SBATCH` resources of the array tasks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--time` (Slurm's formats, e.g. `2:00:00`).
    pub time: Option<String>,
    /// `--cpus-per-task` (also the task's rayon threads).
    pub cpus_per_task: u32,
    /// `--mem` (e.g. `8G`).
    pub mem: Option<String>,
}

/// The scripts to write, and how to submit them.
#[derive(Clone, Debug, PartialEq)]
pub struct Scripts {
    /// The array script.
    pub array: String,
    /// The merge script.
    pub merge: String,
}

/// Builds the scripts: `bin` is the dp-bench binary, `workdir` where tasks start, `logs` where
/// Slurm writes their output, `name` the job name. Refuses (naming the value) anything that
/// cannot be written safely: text with control characters, paths that are not UTF-8, and a
/// `logs` path with a backslash (which would switch off Slurm's `%A_%a` file-name patterns).
pub fn scripts(
    tasks: &[Task],
    res: &Resources,
    bin: &Path,
    workdir: &Path,
    logs: &Path,
    name: &str,
) -> Result<Scripts, String> {
    let bin = quote_path("the dp-bench binary path", bin)?;
    let workdir = sbatch_value(
        "the current folder (--chdir)",
        path_text("the current folder", workdir)?,
    )?;
    let logs_text = path_text("the scripts folder (--scripts)", logs)?;
    if logs_text.contains('\\') {
        return Err(format!(
            "the scripts folder (--scripts) {logs_text:?} contains a backslash, which Slurm's \
             log file names cannot hold; choose a folder without one"
        ));
    }
    // `%` is Slurm's pattern character in --output: `%%` is a literal one.
    let logs_pattern = |file: &str| {
        sbatch_value(
            "the scripts folder (--scripts)",
            &format!("{}/{file}", logs_text.replace('%', "%%")),
        )
    };
    let mut header = String::from("#!/bin/bash\n");
    for (k, v) in [
        ("partition", &res.partition),
        ("time", &res.time),
        ("mem", &res.mem),
    ] {
        if let Some(v) = v {
            let v = sbatch_value(&format!("--{k}"), v)?;
            writeln!(header, "#SBATCH --{k}={v}").expect("string");
        }
    }
    let common = header;
    let job = |suffix: &str| sbatch_value("the job name", &format!("{name}{suffix}"));

    let mut array = common.clone();
    writeln!(array, "#SBATCH --job-name={}", job("")?).expect("string");
    writeln!(array, "#SBATCH --array=0-{}", tasks.len().saturating_sub(1)).expect("string");
    writeln!(array, "#SBATCH --cpus-per-task={}", res.cpus_per_task).expect("string");
    writeln!(array, "#SBATCH --chdir={workdir}").expect("string");
    writeln!(array, "#SBATCH --output={}", logs_pattern("%A_%a.out")?).expect("string");
    array.push_str(
        "# Written by `dp-bench slurm`. Each task runs one shard of a grid config (or a whole\n\
         # study); a resubmitted task (`sbatch --array=K this-script`) resumes its shard.\n\
         set -euo pipefail\n\
         export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n\
         case \"$SLURM_ARRAY_TASK_ID\" in\n",
    );
    for (k, t) in tasks.iter().enumerate() {
        let shard = t
            .shard
            .map(|(i, n)| format!(" --shard {i}/{n}"))
            .unwrap_or_default();
        writeln!(
            array,
            "  {k}) exec {bin} run {} --out {}{shard} --quiet ;;",
            quote_path("the config path", &t.config)?,
            quote_path("the results folder", &t.out)?,
        )
        .expect("string");
    }
    array.push_str(
        "  *) echo \"no task $SLURM_ARRAY_TASK_ID in this array\" >&2; exit 2 ;;\nesac\n",
    );

    let mut merge = common;
    writeln!(merge, "#SBATCH --job-name={}", job("-merge")?).expect("string");
    writeln!(merge, "#SBATCH --cpus-per-task=1").expect("string");
    writeln!(merge, "#SBATCH --chdir={workdir}").expect("string");
    writeln!(merge, "#SBATCH --output={}", logs_pattern("%j-merge.out")?).expect("string");
    merge.push_str("# Written by `dp-bench slurm`: merges the shards once every task succeeded.\nset -euo pipefail\n");
    let mut merged: Vec<&Path> = tasks
        .iter()
        .filter(|t| t.shard.is_some())
        .map(|t| t.out.as_path())
        .collect();
    merged.dedup();
    for out in &merged {
        writeln!(
            merge,
            "{bin} merge {}",
            quote_path("the results folder", out)?
        )
        .expect("string");
    }
    if merged.is_empty() {
        merge.push_str("echo 'studies only: nothing to merge'\n");
    }
    Ok(Scripts { array, merge })
}

/// The shell line that submits the array and then the merge on its success (the script
/// paths were checked by [`scripts`] through their folder).
pub fn submit_command(array: &Path, merge: &Path) -> String {
    let q = |p: &Path| quote(&p.to_string_lossy());
    format!(
        "jid=$(sbatch --parsable {}) && sbatch --dependency=afterok:${{jid%%;*}} {}",
        q(array),
        q(merge)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_task_per_shard_and_study_and_a_merge_per_grid() {
        let tasks = vec![
            Task {
                config: "/c/a.toml".into(),
                out: "/r/a".into(),
                shard: Some((0, 2)),
            },
            Task {
                config: "/c/a.toml".into(),
                out: "/r/a".into(),
                shard: Some((1, 2)),
            },
            Task {
                config: "/c/it's.toml".into(),
                out: "/r/s".into(),
                shard: None,
            },
        ];
        let res = Resources {
            partition: Some("short".into()),
            time: Some("1:00:00".into()),
            cpus_per_task: 4,
            mem: None,
        };
        let s = scripts(
            &tasks,
            &res,
            Path::new("/bin/dp-bench"),
            Path::new("/w"),
            Path::new("/r/a/slurm/logs"),
            "dpbench-a",
        )
        .unwrap();
        assert!(s.array.contains("#SBATCH --array=0-2\n"), "{}", s.array);
        assert!(s.array.contains("#SBATCH --partition=short\n"));
        assert!(s.array.contains("#SBATCH --time=1:00:00\n"));
        assert!(!s.array.contains("--mem"));
        assert!(s.array.contains("#SBATCH --cpus-per-task=4\n"));
        assert!(s.array.contains(
            "  1) exec '/bin/dp-bench' run '/c/a.toml' --out '/r/a' --shard 1/2 --quiet ;;"
        ));
        assert!(
            s.array.contains(
                "  2) exec '/bin/dp-bench' run '/c/it'\\''s.toml' --out '/r/s' --quiet ;;"
            )
        );
        assert_eq!(s.merge.matches(" merge ").count(), 1, "{}", s.merge);
        assert!(s.merge.contains("'/bin/dp-bench' merge '/r/a'"));
        assert_eq!(
            submit_command(Path::new("/s/array.sh"), Path::new("/s/merge.sh")),
            "jid=$(sbatch --parsable '/s/array.sh') && sbatch --dependency=afterok:${jid%%;*} '/s/merge.sh'"
        );
    }

    /// Runs `script` with bash in `dir`; the fake binary writes its arguments to `args.txt`.
    fn run_script(script: &str, dir: &Path, task: &str) -> (bool, Vec<String>) {
        let path = dir.join("script.sh");
        std::fs::write(&path, script).unwrap();
        let _ = std::fs::remove_file(dir.join("args.txt"));
        let ok = std::process::Command::new("bash")
            .arg(&path)
            .current_dir(dir)
            .env("SLURM_ARRAY_TASK_ID", task)
            .env("ARGS_OUT", dir.join("args.txt"))
            .status()
            .unwrap()
            .success();
        let args = std::fs::read_to_string(dir.join("args.txt")).unwrap_or_default();
        let args = args.split_terminator('\0').map(String::from).collect();
        (ok, args)
    }

    #[cfg(unix)]
    #[test]
    fn hostile_paths_and_resources_stay_data() {
        use crate::cluster::shell::tests::{HOSTILE, sbatch_args};
        let dir = tempfile::tempdir().unwrap();
        // The binary itself sits in a hostile folder; it records what it was given.
        let bin_dir = dir.path().join("bin $(touch pwned) 'q' `touch pwned`");
        std::fs::create_dir_all(&bin_dir).unwrap();
        let bin = bin_dir.join("dp-bench");
        std::fs::write(&bin, "#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$ARGS_OUT\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let tasks: Vec<Task> = HOSTILE
            .iter()
            .enumerate()
            .map(|(i, h)| Task {
                config: dir.path().join(format!("{h}.toml")),
                out: dir.path().join(format!("{i} {h}")),
                shard: (i % 2 == 0).then_some((i, HOSTILE.len())),
            })
            .collect();
        let logs = dir.path().join("logs 100% #x 'y' $(touch pwned)");
        for &h in HOSTILE {
            let res = Resources {
                partition: Some(h.into()),
                time: Some(format!("1:00 {h}")),
                cpus_per_task: 2,
                mem: Some(h.into()),
            };
            let s = scripts(&tasks, &res, &bin, dir.path(), &logs, &format!("j {h}")).unwrap();
            for text in [&s.array, &s.merge] {
                let n = std::process::Command::new("bash")
                    .args(["-n", "-c", text])
                    .status()
                    .unwrap();
                assert!(n.success(), "bash -n: {text}");
                // sbatch reads back exactly the values given.
                let sbatch: Vec<String> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("#SBATCH"))
                    .flat_map(sbatch_args)
                    .collect();
                for want in [
                    format!("--partition={h}"),
                    format!("--time=1:00 {h}"),
                    format!("--mem={h}"),
                    format!("--chdir={}", dir.path().display()),
                ] {
                    assert!(sbatch.contains(&want), "{want:?} in {sbatch:?}");
                }
                let logs = logs.display().to_string().replace('%', "%%");
                assert!(
                    sbatch
                        .iter()
                        .any(|a| a.starts_with(&format!("--output={logs}/%")))
                );
            }
        }
        let s = scripts(&tasks, &Resources::default(), &bin, dir.path(), &logs, "j").unwrap();
        for (k, t) in tasks.iter().enumerate() {
            let (ok, args) = run_script(&s.array, dir.path(), &k.to_string());
            assert!(ok, "task {k}");
            let mut want = vec!["run".to_string(), t.config.display().to_string()];
            want.extend(["--out".into(), t.out.display().to_string()]);
            if let Some((i, n)) = t.shard {
                want.extend(["--shard".into(), format!("{i}/{n}")]);
            }
            want.push("--quiet".into());
            assert_eq!(args, want, "task {k}");
        }
        let (ok, _) = run_script(&s.array, dir.path(), "99");
        assert!(!ok, "an unknown task id fails");
        let (ok, args) = run_script(&s.merge, dir.path(), "");
        assert!(ok);
        assert_eq!(
            args,
            [
                "merge".to_string(),
                tasks.last().unwrap().out.display().to_string()
            ]
        );
        assert!(!dir.path().join("pwned").exists(), "nothing hostile ran");
    }

    #[test]
    fn control_characters_are_refused_naming_the_value() {
        let task = |config: &str, out: &str| Task {
            config: config.into(),
            out: out.into(),
            shard: Some((0, 1)),
        };
        let ok = [task("/c/a.toml", "/r/a")];
        let (bin, w, logs) = (Path::new("/b/dp-bench"), Path::new("/w"), Path::new("/r/l"));
        let time = Resources {
            time: Some("1:00\ntouch pwned".into()),
            ..Resources::default()
        };
        let e = scripts(&ok, &time, bin, w, logs, "j").unwrap_err();
        assert!(
            e.starts_with("--time = ") && e.contains("control character"),
            "{e}"
        );
        let res = Resources::default();
        for (tasks, bin, w, logs, name, what) in [
            (
                &[task("/c/a\n.toml", "/r/a")][..],
                bin,
                w,
                logs,
                "j",
                "config path",
            ),
            (
                &[task("/c/a.toml", "/r/o\ntouch pwned #")],
                bin,
                w,
                logs,
                "j",
                "results folder",
            ),
            (&ok, Path::new("/b\r/x"), w, logs, "j", "binary"),
            (&ok, bin, Path::new("/w\n"), logs, "j", "current folder"),
            (
                &ok,
                bin,
                w,
                Path::new("/r/o\ntouch pwned #/l"),
                "j",
                "--scripts",
            ),
            (&ok, bin, w, Path::new("/r/a\\b"), "j", "backslash"),
            (&ok, bin, w, logs, "j\nid", "job name"),
        ] {
            let e = scripts(tasks, &res, bin, w, logs, name).unwrap_err();
            assert!(e.contains(what), "{what}: {e}");
        }
    }
}
