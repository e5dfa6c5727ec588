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
