//! Parsers for the raw file formats. Each takes verified bytes and returns a [`crate::Dataset`]
//! (or its parts); none touches the filesystem, so tests feed them small hand-written files.

pub mod adult;
pub mod adult_neel;
pub mod adult_public;
pub mod covertype;
pub mod gisette;
pub mod idx;
pub mod kddcup;
pub mod onehot;
pub mod rcv1;
pub mod realsim;
pub mod svmlight;

use crate::error::{DataError, Result};

/// The bytes as UTF-8 text, or a parse error naming the file.
pub(crate) fn utf8<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| DataError::parse(file, format!("not UTF-8 text: {e}")))
}

/// Parses one numeric token, with the file and 1-based line in the error.
pub(crate) fn number(tok: &str, file: &str, line: usize) -> Result<f64> {
    tok.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| DataError::at_line(file, line, format!("`{tok}` is not a finite number")))
}
