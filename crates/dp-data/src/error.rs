//! Errors of dataset fetching, parsing and caching.

use std::path::PathBuf;

/// Everything that can go wrong between a dataset name and a [`crate::Split`].
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The name is not in the registry.
    #[error("unknown dataset `{name}`; valid names: {valid}")]
    UnknownDataset {
        /// The name asked for.
        name: String,
        /// Comma-separated registry names.
        valid: String,
    },
    /// A raw file's bytes do not hash to the pinned sha256; the bytes were not used or cached.
    #[error(
        "checksum mismatch for {file} from {source_desc}: expected sha256 {expected}, got {actual}"
    )]
    Checksum {
        /// Raw file name.
        file: String,
        /// Where the bytes came from (mirror path, URL or cache path).
        source_desc: String,
        /// Pinned sha256.
        expected: String,
        /// sha256 of the bytes received.
        actual: String,
    },
    /// Not cached, not in the mirror, and the download failed or was disabled.
    #[error(
        "cannot obtain {file} (dataset {dataset}) from {url}: {reason}; set DPBENCH_DATA_MIRROR to a directory, \
         file:// or http(s):// base laid out <mirror>/{dataset}/{file}"
    )]
    Unavailable {
        /// Dataset name.
        dataset: String,
        /// Raw file name.
        file: String,
        /// Canonical URL.
        url: String,
        /// Why each source failed.
        reason: String,
    },
    /// A filesystem operation failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What was being done (`reading`, `writing`, …).
        op: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A raw file is not in the expected format.
    #[error("{file}: {msg}")]
    Parse {
        /// Raw file name, with a line number where known.
        file: String,
        /// What was wrong.
        msg: String,
    },
    /// Invalid preprocessing or generator parameters.
    #[error("{0}")]
    Invalid(String),
}

/// Result alias for dp-data.
pub type Result<T> = std::result::Result<T, DataError>;

impl DataError {
    /// Shorthand for a [`DataError::Parse`] at a 1-based line.
    pub(crate) fn at_line(file: &str, line: usize, msg: impl std::fmt::Display) -> Self {
        DataError::Parse {
            file: format!("{file} line {line}"),
            msg: msg.to_string(),
        }
    }

    /// Shorthand for a [`DataError::Parse`] without a position.
    pub(crate) fn parse(file: &str, msg: impl std::fmt::Display) -> Self {
        DataError::Parse {
            file: file.to_string(),
            msg: msg.to_string(),
        }
    }

    /// Wraps an I/O error with its path.
    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        DataError::Io {
            op,
            path: path.into(),
            source,
        }
    }
}
