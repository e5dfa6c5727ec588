//! `study = "grid"` (the default): every method at every target ε for every trial, cells in
//! parallel, sharded across jobs if asked. With an `[audit]` table the same grid is audited
//! instead of scored (see [`crate::audit`]).

use std::path::{Path, PathBuf};

use super::{Planned, Request, StudyKind};
use crate::audit::table::Verdict;
use crate::error::UsageError;
use crate::experiment::audit_settings::AuditTest;
use crate::experiment::config::Config;
use crate::experiment::runner;
use crate::experiment::shard::Shard;

/// The grid study.
pub const KIND: StudyKind = StudyKind {
    name: "grid",
    summary: "method x target epsilon x trial, every cell independent (the default)",
    shardable: true,
    run,
    plan,
};

fn run(req: &Request) -> anyhow::Result<()> {
    let cfg = Config::parse(req.text, req.path)?;
    super::commands::announce(&cfg, req.path, req.no_external)?;
    if cfg.audit.is_some() {
        return run_audit(&cfg, req.path, req.out.clone(), req.quiet, req.shard);
    }
    let dir = req
        .out
        .clone()
        .unwrap_or_else(|| runner::default_out_dir(req.path, &cfg));
    let report = runner::run_part(&cfg, &dir, req.shard, !req.quiet)?;
    let part = req.shard.map_or(String::new(), |s| {
        format!(" shard {} of {}:", s.index, s.count)
    });
    errln!(
        "{}:{part} {} cells ({} run now, {} already done) in {:.1} s; results in {}",
        req.path.display(),
        report.total,
        report.ran,
        report.skipped,
        report.seconds,
        report.dir.display()
    );
    if req.shard.is_some() {
        errln!("when every shard is done: dp-bench merge {}", dir.display());
        return Ok(());
    }
    out!(
        "{}",
        std::fs::read_to_string(report.dir.join("summary.md"))?
    )?;
    Ok(())
}

fn plan(path: &Path, out: Option<&Path>) -> anyhow::Result<Planned> {
    let cfg = Config::parse(&super::read(path)?, path)?;
    if let Some(settings) = &cfg.audit {
        if settings.test == AuditTest::OneRun {
            return Err(UsageError(format!(
                "{}: a one-run audit is one training run (minutes); run it with `dp-bench audit`",
                path.display()
            ))
            .into());
        }
        return Ok(Planned {
            out: audit_dir(&cfg, path, out.map(Path::to_path_buf)),
            from_key: cfg.output_dir.is_some(),
        });
    }
    Ok(Planned {
        out: out.map_or_else(|| runner::default_out_dir(path, &cfg), Path::to_path_buf),
        from_key: cfg.output_dir.is_some(),
    })
}

/// An audit's results folder: `--out`, else the config's `output_dir`, else
/// `results/audit/<config stem>`.
fn audit_dir(cfg: &Config, path: &Path, out: Option<PathBuf>) -> PathBuf {
    out.or_else(|| cfg.output_dir.clone()).unwrap_or_else(|| {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("audit");
        PathBuf::from("results/audit").join(stem)
    })
}

/// Runs the audits of a loaded audit config and prints their table; fails (exit 1) when any
/// measured ε exceeds its certified ε.
pub fn run_audit(
    cfg: &Config,
    path: &Path,
    out: Option<PathBuf>,
    quiet: bool,
    shard: Option<Shard>,
) -> anyhow::Result<()> {
    // A one-run audit is one training run: whole, in shard 0. Other audits split their runs
    // (seeded per run) into one block per shard.
    let one_run = cfg.audit.as_ref().map(|a| a.test) == Some(AuditTest::OneRun);
    if one_run && super::idle_shard(path, "a one-run audit", shard) {
        return Ok(());
    }
    let shard = shard.filter(|_| !one_run);
    let dir = audit_dir(cfg, path, out);
    if let Some(s) = shard {
        let run = crate::audit::run_shard(cfg, &dir, s, !quiet)?;
        errln!(
            "{}: shard {} of {}: its runs of {} audits ({} run now, {} already there) in {:.1} s, \
             in {}",
            path.display(),
            s.index,
            s.count,
            run.ran + run.reused,
            run.ran,
            run.reused,
            run.seconds,
            run.dir.display()
        );
        errln!("when every shard is done: dp-bench merge {}", dir.display());
        return Ok(());
    }
    let run = crate::audit::run(cfg, &dir, !quiet)?;
    report_audit(&path.display().to_string(), &run)
}

/// Prints what an audit run (or merge) found; fails (exit 1) when any measured ε exceeds its
/// certified ε.
pub fn report_audit(what: &str, run: &crate::audit::AuditRun) -> anyhow::Result<()> {
    errln!(
        "{what}: {} audits ({} run now, {} reused) in {:.1} s; table in {}",
        run.outcomes.len(),
        run.ran,
        run.reused,
        run.seconds,
        run.dir.join("audit.md").display()
    );
    for o in &run.outcomes {
        errln!(
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
