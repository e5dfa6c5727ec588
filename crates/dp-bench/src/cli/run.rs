//! `dp-bench run CONFIG.toml` (also `dp-bench CONFIG.toml`).

use std::path::PathBuf;

use clap::Args;

use super::usage;
use crate::experiment::config::Config;
use crate::experiment::runner;
use crate::experiment::shard::Shard;
use crate::papers::avent2020::toy::run as illustrative;

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
    /// (JOB_COMPLETION_INDEX). A study or illustrative config runs whole in shard 0.
    #[arg(long, value_name = "SPEC")]
    shard: Option<String>,
}

/// Validates the whole config before any work, then runs the unfinished cells.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let shard = match &args.shard {
        Some(spec) => match Shard::parse(spec, |k| std::env::var(k).ok()) {
            Ok(s) => Some(s),
            Err(e) => return usage(e),
        },
        None => None,
    };
    if let Ok(text) = std::fs::read_to_string(&args.config) {
        let (study, toy) = (
            crate::pareto::is_study(&text),
            illustrative::is_illustrative(&text),
        );
        if let Some(s) = shard.filter(|s| (study || toy) && s.index != 0) {
            eprintln!(
                "{}: a study runs whole, in shard 0; shard {} of {} has nothing to do",
                args.config.display(),
                s.index,
                s.count
            );
            return Ok(());
        }
        if study {
            return run_study(args);
        }
        if toy {
            return run_illustrative(args, &text);
        }
    }
    let cfg = Config::load(&args.config)?;
    if cfg.audit.is_some() {
        // An audit (declared by its [audit] table) runs whole, like a study.
        if let Some(s) = shard.filter(|s| s.index != 0) {
            eprintln!(
                "{}: an audit runs whole, in shard 0; shard {} of {} has nothing to do",
                args.config.display(),
                s.index,
                s.count
            );
            return Ok(());
        }
        return super::audit::run_loaded(&cfg, &args.config, args.out, args.quiet);
    }
    let dir = args
        .out
        .unwrap_or_else(|| runner::default_out_dir(&args.config, &cfg));
    let report = runner::run_part(&cfg, &dir, shard, !args.quiet)?;
    let part = shard.map_or(String::new(), |s| {
        format!(" shard {} of {}:", s.index, s.count)
    });
    eprintln!(
        "{}:{part} {} cells ({} run now, {} already done) in {:.1} s; results in {}",
        args.config.display(),
        report.total,
        report.ran,
        report.skipped,
        report.seconds,
        report.dir.display()
    );
    if shard.is_some() {
        eprintln!("when every shard is done: dp-bench merge {}", dir.display());
        return Ok(());
    }
    print!(
        "{}",
        std::fs::read_to_string(report.dir.join("summary.md"))?
    );
    Ok(())
}

/// A privacy–utility study (a config with a top-level `study` key).
fn run_study(args: RunArgs) -> anyhow::Result<()> {
    let cfg = crate::pareto::StudyConfig::load(&args.config)?;
    let dir = args
        .out
        .unwrap_or_else(|| cfg.default_out_dir(&args.config));
    let report = crate::pareto::runner::run(&cfg, &dir, !args.quiet)?;
    eprintln!(
        "{}: {} points ({} evaluated now) in {:.1} s; results in {}",
        args.config.display(),
        report.total,
        report.ran,
        report.seconds,
        report.dir.display()
    );
    let hv = std::fs::read_to_string(report.dir.join("hv.csv"))?;
    if let Some(last) = hv.lines().last() {
        println!("hypervolume w.r.t. (10, 1) after (points, HV): {last}");
    }
    Ok(())
}

/// One of Avent et al.'s illustrative problems (a config with a top-level `illustrative` key).
fn run_illustrative(args: RunArgs, text: &str) -> anyhow::Result<()> {
    let cfg = illustrative::IllustrativeConfig::load(&args.config)?;
    let dir = args
        .out
        .unwrap_or_else(|| illustrative::default_dir(&args.config, &cfg));
    let seconds = illustrative::run(&cfg, text, &dir)?;
    eprintln!(
        "{}: {} in {seconds:.1} s; results in {}",
        args.config.display(),
        if seconds == 0.0 {
            "already complete"
        } else {
            "computed"
        },
        dir.display()
    );
    print!("{}", std::fs::read_to_string(dir.join("summary.csv"))?);
    Ok(())
}
