//! `dp-bench figures`.

use clap::Args;

/// Arguments of `dp-bench figures`.
#[derive(Args)]
pub struct FiguresArgs {}

/// Runs the subcommand.
pub fn run(_args: FiguresArgs) -> anyhow::Result<()> {
    anyhow::bail!("dp-bench figures is not implemented yet")
}
