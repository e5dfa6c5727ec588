//! Subcommands and the error convention they share.

// The `///` comments here are also clap's `--help` text, whose `<paper>`-style placeholders
// rustdoc would read as HTML tags; escaping them would put backslashes in `--help`.
#![allow(rustdoc::invalid_html_tags)]

pub mod audit;
pub mod check;
pub mod cluster;
pub mod data;
pub mod figures;
pub mod privacy;
pub mod report;
pub mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Differentially private convex learning benchmarks.
#[derive(Parser)]
#[command(name = "dp-bench", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a TOML experiment config (same as `dp-bench CONFIG.toml`).
    Run(run::RunArgs),
    /// Validate a config without running anything: what it runs, and every outside program.
    Check(check::CheckArgs),
    /// Audit a config's mechanisms: measured lower bounds on ε beside the certified ε.
    Audit(audit::AuditArgs),
    /// Privacy calculators: Gaussian, DP-SGD, objective perturbation, Algorithm 1.
    Privacy(privacy::PrivacyArgs),
    /// List, fetch and describe datasets.
    Data(data::DataArgs),
    /// Regenerate a paper's figures and tables.
    Figures(figures::FiguresArgs),
    /// Merge the finished shards of a results folder (runs with --shard) into one result.
    Merge(cluster::MergeArgs),
    /// Write (and optionally submit) a Slurm job array running a config's shards, then a merge.
    Slurm(cluster::SlurmArgs),
    /// Write one static HTML page with every paper's figures, tables, runs and provenance.
    Report(report::ReportArgs),
    /// List the method kinds and papers this build knows.
    List,
}

/// `dp-bench configs/x.toml …` is shorthand for `dp-bench run configs/x.toml …`.
fn normalise_args(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if let Some(first) = args.get(1).and_then(|a| a.to_str())
        && first.ends_with(".toml")
    {
        args.insert(1, "run".into());
    }
    args
}

/// The `dp-bench` command line: parses `args` (program name first) and runs the subcommand.
pub fn main_with(args: Vec<std::ffi::OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(normalise_args(args)) {
        Ok(cli) => cli,
        Err(e) => return report_clap_error(e),
    };
    let result = match cli.command {
        Command::Run(a) => run::run(a),
        Command::Check(a) => check::run(a),
        Command::Audit(a) => audit::run(a),
        Command::Privacy(a) => privacy::run(a),
        Command::Data(a) => data::run(a),
        Command::Figures(a) => figures::run(a),
        Command::Merge(a) => cluster::run_merge(a),
        Command::Slurm(a) => cluster::run_slurm(a),
        Command::Report(a) => report::run(a),
        Command::List => list(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}

fn list() -> anyhow::Result<()> {
    outln!("method kinds ([methods.NAME] kind = ...):")?;
    for m in crate::methods::Registry::active().entries() {
        outln!("  {:<10} {}", m.kind, m.summary)?;
    }
    for f in crate::methods::FEATURE_KINDS.iter().filter(|f| !f.built) {
        outln!(
            "  not in this build: {}, which need {}: {}",
            f.kinds.join(", "),
            f.needs,
            f.rebuild()
        )?;
    }
    outln!("study kinds (top-level study = ...; \"grid\" when absent):")?;
    for k in crate::studies::STUDIES {
        outln!("  {:<12} {}", k.name, k.summary)?;
    }
    outln!("papers (dp-bench figures ID, configs/ID/):")?;
    for p in crate::papers::PAPERS {
        outln!("  {:<12} {}", p.id, p.title)?;
    }
    Ok(())
}

pub use crate::error::UsageError;

/// Shorthand for returning a [`UsageError`].
pub fn usage<T>(msg: impl Into<String>) -> anyhow::Result<T> {
    Err(UsageError(msg.into()).into())
}

/// Prints `error: …` (one line per cause) and picks the exit code.
pub fn report_error(e: &anyhow::Error) -> ExitCode {
    let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    errln!("error: {}", chain.join(": "));
    if e.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}

/// Prints help and version as clap does; condenses usage errors to one line (exit 2).
pub fn report_clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        if let Err(err) = e.print() {
            errln!("error: writing to standard output: {err}");
            return ExitCode::from(1);
        }
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let text = e.render().to_string();
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect();
    errln!("{} (see --help)", line.join(" "));
    ExitCode::from(2)
}
