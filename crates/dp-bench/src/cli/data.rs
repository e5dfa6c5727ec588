//! `dp-bench data`.

use clap::Args;

/// Arguments of `dp-bench data`.
#[derive(Args)]
pub struct DataArgs {}

/// Runs the subcommand.
pub fn run(_args: DataArgs) -> anyhow::Result<()> {
    anyhow::bail!("dp-bench data is not implemented yet")
}
