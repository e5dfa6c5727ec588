//! `dp-bench run`.

use clap::Args;

/// Arguments of `dp-bench run`.
#[derive(Args)]
pub struct RunArgs {}

/// Runs the subcommand.
pub fn run(_args: RunArgs) -> anyhow::Result<()> {
    anyhow::bail!("dp-bench run is not implemented yet")
}
