//! `dp-bench run CONFIG.toml` (also `dp-bench CONFIG.toml`).

use std::path::PathBuf;

use clap::Args;

use super::usage;
use crate::experiment::shard::Shard;

/// Arguments of `dp-bench run`.
#[derive(Args)]
pub struct RunArgs {
    /// Experiment config (TOML), e.g. configs/adult.toml.
    config: PathBuf,
    /// Results folder (default: the config's `output_dir`, else results/<config file stem>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Run one shard of the cells into <results>/shards/I-of-N/ (then `dp-bench merge`):
    /// I/N, slurm (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT), slurm/N or k8s/N
    /// (JOB_COMPLETION_INDEX). An audit runs its block of every audit's runs; a sequential
    /// study (DPareto, a search, an illustrative problem, a one-run audit) runs whole in shard 0.
    #[arg(long, value_name = "SPEC")]
    shard: Option<String>,
    /// Refuse a config that runs outside programs (`kind = "external"` learners); without
    /// it, every such command is shown on stderr before anything runs.
    #[arg(long)]
    no_external: bool,
}

/// Validates the whole config before any work, then runs (or resumes) the study it declares.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let shard = parse_shard(args.shard.as_deref())?;
    crate::studies::run(&args.config, args.out, args.quiet, shard, args.no_external)
}

/// `--shard SPEC`, read with the batch system's variables.
pub fn parse_shard(spec: Option<&str>) -> anyhow::Result<Option<Shard>> {
    match spec {
        Some(spec) => match Shard::parse(spec, |k| std::env::var(k).ok()) {
            Ok(s) => Ok(Some(s)),
            Err(e) => usage(e),
        },
        None => Ok(None),
    }
}
