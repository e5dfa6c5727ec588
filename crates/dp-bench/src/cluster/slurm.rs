//! `dp-bench slurm CONFIG… --shards N`: a Slurm job-array script whose tasks run the configs'
//! shards (a study config is one task: a study runs whole) and a merge job that depends on the
//! whole array (`afterok`). Every path in the scripts is absolute and the tasks start in the
//! current folder, so they run wherever Slurm places them on a shared file system.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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

/// Quotes `s` for a POSIX shell.
fn sh(s: &Path) -> String {
    format!("'{}'", s.display().to_string().replace('\'', "'\\''"))
}

/// Builds the scripts: `bin` is the dp-bench binary, `workdir` where tasks start, `logs` where
/// Slurm writes their output, `name` the job name.
pub fn scripts(
    tasks: &[Task],
    res: &Resources,
    bin: &Path,
    workdir: &Path,
    logs: &Path,
    name: &str,
) -> Scripts {
    let mut header = String::from("#!/bin/bash\n");
    let mut opt = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            writeln!(header, "#SBATCH --{k}={v}").expect("string");
        }
    };
    opt("partition", &res.partition);
    opt("time", &res.time);
    opt("mem", &res.mem);
    let common = header;

    let mut array = common.clone();
    writeln!(array, "#SBATCH --job-name={name}").expect("string");
    writeln!(array, "#SBATCH --array=0-{}", tasks.len().saturating_sub(1)).expect("string");
    writeln!(array, "#SBATCH --cpus-per-task={}", res.cpus_per_task).expect("string");
    writeln!(array, "#SBATCH --chdir={}", workdir.display()).expect("string");
    writeln!(array, "#SBATCH --output={}/%A_%a.out", logs.display()).expect("string");
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
            "  {k}) exec {} run {} --out {}{shard} --quiet ;;",
            sh(bin),
            sh(&t.config),
            sh(&t.out)
        )
        .expect("string");
    }
    array.push_str(
        "  *) echo \"no task $SLURM_ARRAY_TASK_ID in this array\" >&2; exit 2 ;;\nesac\n",
    );

    let mut merge = common;
    writeln!(merge, "#SBATCH --job-name={name}-merge").expect("string");
    writeln!(merge, "#SBATCH --cpus-per-task=1").expect("string");
    writeln!(merge, "#SBATCH --chdir={}", workdir.display()).expect("string");
    writeln!(merge, "#SBATCH --output={}/%j-merge.out", logs.display()).expect("string");
    merge.push_str("# Written by `dp-bench slurm`: merges the shards once every task succeeded.\nset -euo pipefail\n");
    let mut merged: Vec<&Path> = tasks
        .iter()
        .filter(|t| t.shard.is_some())
        .map(|t| t.out.as_path())
        .collect();
    merged.dedup();
    for out in &merged {
        writeln!(merge, "{} merge {}", sh(bin), sh(out)).expect("string");
    }
    if merged.is_empty() {
        merge.push_str("echo 'studies only: nothing to merge'\n");
    }
    Scripts { array, merge }
}

/// The shell line that submits the array and then the merge on its success.
pub fn submit_command(array: &Path, merge: &Path) -> String {
    format!(
        "jid=$(sbatch --parsable {}) && sbatch --dependency=afterok:${{jid%%;*}} {}",
        sh(array),
        sh(merge)
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
        );
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
}
