//! `dp-bench privacy …`: calculators over the dp-core accountants.
//!
//! Every subcommand answers one question (ε, δ, or a noise parameter) chosen by which flags
//! are given; `--json` prints exactly one JSON object whose keys name the answer.

use clap::{Args, Subcommand};

mod alg1;
mod dpsgd;
mod event;
mod gaussian;
mod objpert;
mod output;

/// Arguments of `dp-bench privacy`.
#[derive(Args)]
pub struct PrivacyArgs {
    #[command(subcommand)]
    command: PrivacyCommand,
    /// Print one JSON object instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand)]
enum PrivacyCommand {
    /// Gaussian mechanism (analytic; k-fold composition exact, or by the PLD/RDP accountant).
    Gaussian(gaussian::GaussianArgs),
    /// DP-SGD: subsampled Gaussian over T steps (Poisson or without replacement), optionally
    /// with private tuning.
    Dpsgd(dpsgd::DpsgdArgs),
    /// Objective perturbation for GLMs (Kifer et al., RDP, privacy profile, lower bound).
    Objpert(objpert::ObjpertArgs),
    /// Redberg et al.'s Algorithm 1: ε of given parameters, or calibrated σ and λ.
    Alg1(alg1::Alg1Args),
    /// Any event in the JSON vocabulary outside learners declare (dp_accounting's DpEvent
    /// classes): ε by RDP, by PLD, and the smaller (what dp-bench certifies).
    Event(event::EventArgs),
}

/// Runs the calculator and prints the answer.
pub fn run(args: PrivacyArgs) -> anyhow::Result<()> {
    let answer = match args.command {
        PrivacyCommand::Gaussian(a) => gaussian::run(a)?,
        PrivacyCommand::Dpsgd(a) => dpsgd::run(a)?,
        PrivacyCommand::Objpert(a) => objpert::run(a)?,
        PrivacyCommand::Alg1(a) => alg1::run(a)?,
        PrivacyCommand::Event(a) => event::run(a)?,
    };
    Ok(answer.print(args.json)?)
}
