//! `dp-bench`: privacy calculators, dataset tools, TOML-defined experiment grids and figures.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;
mod experiment;
mod figures;
mod plot;

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
    Run(cli::run::RunArgs),
    /// Privacy calculators: Gaussian, DP-SGD, objective perturbation, Algorithm 1.
    Privacy(cli::privacy::PrivacyArgs),
    /// List, fetch and describe datasets.
    Data(cli::data::DataArgs),
    /// Regenerate a paper's figures and tables.
    Figures(cli::figures::FiguresArgs),
}

/// `dp-bench configs/x.toml …` is shorthand for `dp-bench run configs/x.toml …`.
fn normalise_args() -> Vec<std::ffi::OsString> {
    let mut args: Vec<_> = std::env::args_os().collect();
    if let Some(first) = args.get(1).and_then(|a| a.to_str())
        && first.ends_with(".toml")
    {
        args.insert(1, "run".into());
    }
    args
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(normalise_args()) {
        Ok(cli) => cli,
        Err(e) => return cli::report_clap_error(e),
    };
    let result = match cli.command {
        Command::Run(a) => cli::run::run(a),
        Command::Privacy(a) => cli::privacy::run(a),
        Command::Data(a) => cli::data::run(a),
        Command::Figures(a) => cli::figures::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => cli::report_error(&e),
    }
}
