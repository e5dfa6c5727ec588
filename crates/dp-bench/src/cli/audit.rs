//! `dp-bench audit CONFIG.toml`: measured lower bounds on ε for every method and target ε of
//! an audit config (see [`crate::audit`]).

use std::path::PathBuf;

use clap::Args;

use super::usage;
use crate::experiment::config::Config;

/// Arguments of `dp-bench audit`.
#[derive(Args)]
pub struct AuditArgs {
    /// Audit config (TOML with an [audit] table), e.g. configs/audit/fast.toml.
    config: PathBuf,
    /// Results folder (default: the config's `output_dir`, else results/audit/<config stem>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Run one shard's block of every audit's runs into <results>/shards/I-of-N/ (then
    /// `dp-bench merge <results>`, which gives the table one process would): I/N, slurm,
    /// slurm/N or k8s/N, as `dp-bench run --shard`. A one-run audit runs whole in shard 0.
    #[arg(long, value_name = "SPEC")]
    shard: Option<String>,
}

/// Runs the audits; fails (exit 1) when any measured ε exceeds its certified ε.
pub fn run(args: AuditArgs) -> anyhow::Result<()> {
    let text = crate::studies::read(&args.config)?;
    let kind = crate::studies::declared(&text, &args.config)?;
    if kind.name != "grid" {
        return usage(format!(
            "{}: a {} study cannot be audited; an audit config is a grid config with an \
             [audit] table (see docs/audit.md)",
            args.config.display(),
            kind.name
        ));
    }
    let cfg = Config::parse(&text, &args.config)?;
    if cfg.audit.is_none() {
        return usage(format!(
            "{}: not an audit config (no [audit] table); run it with `dp-bench run`, or add \
             `[audit]` (see docs/audit.md)",
            args.config.display()
        ));
    }
    let shard = super::run::parse_shard(args.shard.as_deref())?;
    crate::studies::commands::announce(&cfg, &args.config, false)?;
    crate::studies::run_audit(&cfg, &args.config, args.out, args.quiet, shard)
}
