//! The error type every layer may raise for bad user input. It lives at the bottom of the
//! crate so that configs, stores and studies report usage errors without importing the CLI
//! above them; the CLI maps it to exit code 2.

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
