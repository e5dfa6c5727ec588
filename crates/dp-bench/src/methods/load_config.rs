//! Configs read with the process's method table: the engine's [`Config::parse_with`] takes any
//! [`Registry`]; these are the everyday entry points, here because the table is.

use std::path::Path;

use super::Registry;
use crate::experiment::config::{Config, read_text};

impl Config {
    /// Reads and validates a config file; every problem names the file and the key.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        Self::parse(&read_text(path)?, path)
    }

    /// Parses and validates config text with the process's method table
    /// ([`Registry::active`]: the built-in methods unless a program installed its own);
    /// `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        Self::parse_with(text, path, Registry::active())
    }
}
