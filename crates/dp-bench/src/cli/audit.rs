//! `dp-bench audit CONFIG.toml`: measured lower bounds on ε for every method and target ε of
//! an audit config (see [`crate::audit`]).

use std::path::{Path, PathBuf};

use clap::Args;

use super::usage;
use crate::audit::table::Verdict;
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
}

/// Runs the audits; fails (exit 1) when any measured ε exceeds its certified ε.
pub fn run(args: AuditArgs) -> anyhow::Result<()> {
    let cfg = Config::load(&args.config)?;
    if cfg.audit.is_none() {
        return usage(format!(
            "{}: not an audit config (no [audit] table); run it with `dp-bench run`, or add \
             `[audit]` (see docs/audit.md)",
            args.config.display()
        ));
    }
    run_loaded(&cfg, &args.config, args.out, args.quiet)
}

/// Runs the audits of a loaded audit config (also what `dp-bench run` does with one).
pub fn run_loaded(
    cfg: &Config,
    path: &Path,
    out: Option<PathBuf>,
    quiet: bool,
) -> anyhow::Result<()> {
    let dir = out.or_else(|| cfg.output_dir.clone()).unwrap_or_else(|| {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("audit");
        PathBuf::from("results/audit").join(stem)
    });
    let run = crate::audit::run(cfg, &dir, !quiet)?;
    eprintln!(
        "{}: {} audits ({} run now, {} reused) in {:.1} s; table in {}",
        path.display(),
        run.outcomes.len(),
        run.ran,
        run.reused,
        run.seconds,
        run.dir.join("audit.md").display()
    );
    for o in &run.outcomes {
        eprintln!(
            "  {:<18} ε = {:<6.3} certified {:>10.4}  measured ≥ {:.4}  {}",
            o.method,
            o.epsilon_target,
            o.epsilon_certified,
            o.epsilon_lower,
            Verdict::of(o).words()
        );
    }
    let bad: Vec<String> = run
        .outcomes
        .iter()
        .filter(|o| Verdict::of(o) == Verdict::Violation)
        .map(|o| format!("{} at ε = {}", o.method, o.epsilon_target))
        .collect();
    anyhow::ensure!(
        bad.is_empty(),
        "measured ε above the certified ε for {}: a learner releases more than its event \
         says, or an accountant under-reports (at the stated confidence)",
        bad.join(", ")
    );
    Ok(())
}
