//! Configs read with the built-in method table: the engine's [`Config::parse_with`] takes any
//! [`Registry`]; these are the everyday entry points, here because the table is.

use std::path::Path;

use super::Registry;
use crate::experiment::config::{Config, read_text};

impl Config {
    /// Reads and validates a config file; every problem names the file and the key.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        Self::parse(&read_text(path)?, path)
    }

    /// Parses and validates config text with the built-in methods; `path` is only used in
    /// messages.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        Self::parse_with(text, path, &Registry::builtin())
    }
}
