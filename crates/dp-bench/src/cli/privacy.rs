//! `dp-bench privacy`.

use clap::Args;

/// Arguments of `dp-bench privacy`.
#[derive(Args)]
pub struct PrivacyArgs {}

/// Runs the subcommand.
pub fn run(_args: PrivacyArgs) -> anyhow::Result<()> {
    anyhow::bail!("dp-bench privacy is not implemented yet")
}
