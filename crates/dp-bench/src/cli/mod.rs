//! Subcommands and the error convention they share.

pub mod data;
pub mod figures;
pub mod privacy;
pub mod run;

use std::process::ExitCode;

/// Bad user input (a flag, a config key, a value out of range). Exits with code 2, like
/// clap's own usage errors, so scripts can tell "you asked wrong" from "it broke".
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Shorthand for returning a [`UsageError`].
pub fn usage<T>(msg: impl Into<String>) -> anyhow::Result<T> {
    Err(UsageError(msg.into()).into())
}

/// Prints `error: …` (one line per cause) and picks the exit code.
pub fn report_error(e: &anyhow::Error) -> ExitCode {
    let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    eprintln!("error: {}", chain.join(": "));
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
        let _ = e.print();
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
    eprintln!("{} (see --help)", line.join(" "));
    ExitCode::from(2)
}
