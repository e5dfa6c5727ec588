//! `dp-bench merge RESULTS_DIR` and `dp-bench slurm CONFIG… --shards N`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use clap::Args;

use super::usage;
use crate::cluster::merge::{merge, study_results};
use crate::cluster::shell::{path_text, sbatch_value};
use crate::cluster::slurm::{Resources, Task, scripts, submit_command};
use crate::experiment::shard::MAX_SHARDS;

/// Arguments of `dp-bench merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The results folder whose `shards/` to merge (the `--out` the shards ran with).
    results: PathBuf,
}

/// Merges the finished shards of a results folder.
pub fn run_merge(args: MergeArgs) -> anyhow::Result<()> {
    // Not a failure: a study's folder already is its results, as `run --shard I/N` says for
    // a study's other shards.
    if let Some(study) = study_results(&args.results) {
        errln!("{study}");
        return Ok(());
    }
    let report = merge(&args.results)?;
    if let Some(run) = &report.audit {
        errln!("merged {} shards", report.shards);
        return crate::studies::report_audit(&report.dir.display().to_string(), run);
    }
    errln!(
        "merged {} shards: {} cells; results in {}",
        report.shards,
        report.cells,
        report.dir.display()
    );
    out!(
        "{}",
        std::fs::read_to_string(report.dir.join("summary.md"))?
    )?;
    Ok(())
}

/// Arguments of `dp-bench slurm`.
#[derive(Args)]
pub struct SlurmArgs {
    /// Experiment configs: each grid config is split into `--shards` tasks, each study config
    /// is one task.
    #[arg(required = true)]
    configs: Vec<PathBuf>,
    /// Shards per grid config.
    #[arg(long, default_value_t = 4)]
    shards: usize,
    /// Slurm partition (`--partition`).
    #[arg(long)]
    partition: Option<String>,
    /// Time limit per task (`--time`, e.g. 2:00:00).
    #[arg(long)]
    time: Option<String>,
    /// CPUs per task (`--cpus-per-task`; also the task's threads).
    #[arg(long, default_value_t = 2)]
    cpus_per_task: u32,
    /// Memory per task (`--mem`, e.g. 8G).
    #[arg(long)]
    mem: Option<String>,
    /// Results folder of a single grid config (default: its `output_dir`, else
    /// results/[paper/]<config stem>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the scripts and Slurm's logs go (default: <first results folder>/slurm).
    #[arg(long)]
    scripts: Option<PathBuf>,
    /// Submit with sbatch instead of printing the command.
    #[arg(long)]
    submit: bool,
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(p).with_context(|| format!("cannot make {} absolute", p.display()))
}

/// Writes the array and merge scripts, then prints or runs the submission.
pub fn run_slurm(args: SlurmArgs) -> anyhow::Result<()> {
    if !(1..=MAX_SHARDS).contains(&args.shards) {
        return usage(format!(
            "--shards = {} must be in 1..={MAX_SHARDS} (MAX_SHARDS, docs/limits.md)",
            args.shards
        ));
    }
    if args.cpus_per_task == 0 {
        return usage("--cpus-per-task = 0 must be >= 1");
    }
    if args.out.is_some() && args.configs.len() > 1 {
        return usage("--out names the results folder of one config; give one config or none");
    }
    // Checked before anything is read or written, so the message names the flag.
    for (flag, v) in [
        ("--partition", &args.partition),
        ("--time", &args.time),
        ("--mem", &args.mem),
    ] {
        if let Some(v) = v {
            sbatch_value(flag, v).or_else(usage)?;
        }
    }
    if let Some(d) = &args.scripts {
        path_text("--scripts", d).or_else(usage)?;
    }
    let mut tasks = Vec::new();
    for path in &args.configs {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        path_text("the config path", path).or_else(usage)?;
        let config = absolute(path)?;
        let kind = crate::studies::declared(&text, path)?;
        let planned = (kind.plan)(path, args.out.as_deref())?;
        check_out(&planned.out, args.out.is_some(), planned.from_key, path)?;
        let out = absolute(&planned.out)?;
        if kind.shardable {
            for i in 0..args.shards {
                tasks.push(Task {
                    config: config.clone(),
                    out: out.clone(),
                    shard: Some((i, args.shards)),
                });
            }
        } else {
            tasks.push(Task {
                config,
                out,
                shard: None,
            });
        }
    }
    if tasks.len() > MAX_SHARDS {
        return usage(format!(
            "{} configs × --shards {} make {} array tasks, more than {MAX_SHARDS} (MAX_SHARDS, \
             docs/limits.md): use fewer shards or several arrays",
            args.configs.len(),
            args.shards,
            tasks.len()
        ));
    }
    // The tasks write into every results folder: each must be new, empty or a results folder
    // of the task's kind (a study checks its own kind when it runs) before anything is
    // written. The scripts' `slurm/` inside one is dp-bench's and does not make it foreign.
    let mut outs: Vec<(&Path, bool)> = tasks
        .iter()
        .map(|t| (t.out.as_path(), t.shard.is_some()))
        .collect();
    outs.dedup();
    for (out, grid) in outs {
        crate::files::check_dir(out, grid.then_some("grid"))?;
    }
    let dir = match &args.scripts {
        // The scripts overwrite `array.sh` and `merge.sh` by name: the same rule.
        Some(d) => absolute(d).and_then(|d| crate::files::claim_dir(&d, "slurm").map(|_| d))?,
        None => tasks[0].out.join("slurm"),
    };
    let logs = dir.join("logs");
    let bin = std::env::current_exe().context("cannot locate the dp-bench binary")?;
    let workdir = std::env::current_dir().context("cannot read the current folder")?;
    let stem = args.configs[0]
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("run");
    let res = Resources {
        partition: args.partition,
        time: args.time,
        cpus_per_task: args.cpus_per_task,
        mem: args.mem,
    };
    let s = scripts(
        &tasks,
        &res,
        &bin,
        &workdir,
        &logs,
        &format!("dpbench-{stem}"),
    )
    .or_else(usage)?;
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let (array, merge_script) = (dir.join("array.sh"), dir.join("merge.sh"));
    for (path, text) in [(&array, &s.array), (&merge_script, &s.merge)] {
        crate::files::write_text_atomic(path, text)?;
    }
    errln!(
        "wrote {} ({} tasks) and {}",
        array.display(),
        tasks.len(),
        merge_script.display()
    );
    if !args.submit {
        outln!("{}", submit_command(&array, &merge_script))?;
        return Ok(());
    }
    let job = sbatch(&["--parsable"], &array)?;
    let merge_job = sbatch(
        &["--parsable", &format!("--dependency=afterok:{job}")],
        &merge_script,
    )?;
    outln!("submitted array job {job} and merge job {merge_job}")?;
    Ok(())
}

/// Refuses a results folder that no script can name, saying where it came from: `--out`,
/// the config's `output_dir`, or (by default) the config's file name.
fn check_out(out: &Path, flag: bool, key: bool, config: &Path) -> anyhow::Result<()> {
    let what = if flag {
        "--out".to_string()
    } else if key {
        format!("{}: key `output_dir`", config.display())
    } else {
        format!("{}: the results folder named after it", config.display())
    };
    path_text(&what, out).map(|_| ()).or_else(usage)
}

/// Runs `sbatch FLAGS SCRIPT` and returns the job id.
fn sbatch(flags: &[&str], script: &Path) -> anyhow::Result<String> {
    let out = Command::new("sbatch")
        .args(flags)
        .arg(script)
        .output()
        .context("cannot run sbatch (is Slurm's client installed and on PATH?)")?;
    if !out.status.success() {
        anyhow::bail!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `jobid[;cluster]`.
    Ok(text.trim().split(';').next().unwrap_or("").to_string())
}
