//! Handles to the registered datasets ([`DatasetId`]) and the raw-file description they share.
//!
//! The datasets themselves, with their files' canonical URLs and pinned sha256, are the
//! entries of [`crate::datasets::DATASETS`].

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::datasets::DATASETS;
use crate::entry::DatasetEntry;
use crate::error::DataError;

/// One raw file of a dataset.
#[derive(Clone, Copy, Debug)]
pub struct RawFile {
    /// File name (also its name in the cache and the mirror).
    pub name: &'static str,
    /// Canonical download URL.
    pub url: &'static str,
    /// sha256 of the file as distributed at `url`.
    pub sha256: &'static str,
    /// Other accepted sha256 values: byte-different copies with identical content (a
    /// recompressed `.gz` whose decompressed bytes match the original's known hash).
    pub alt_sha256: &'static [&'static str],
    /// Whether the file is gzip-compressed.
    pub gz: bool,
}

impl RawFile {
    /// Whether `sha` (lower-case hex) is an accepted hash of this file.
    pub fn accepts(&self, sha: &str) -> bool {
        self.sha256 == sha || self.alt_sha256.contains(&sha)
    }
}

/// A registered dataset: a handle to its [`DatasetEntry`] in [`DATASETS`].
///
/// Equal, hashed and ordered by registry name and table position, so two handles to the same
/// entry agree wherever they were made.
#[derive(Clone, Copy)]
pub struct DatasetId(&'static DatasetEntry);

impl DatasetId {
    /// The handle of `entry` (which must also be listed in [`DATASETS`]).
    pub(crate) const fn of(entry: &'static DatasetEntry) -> DatasetId {
        DatasetId(entry)
    }

    /// Registry name, as typed on the command line.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Everything the registry knows about the dataset.
    pub fn spec(self) -> &'static DatasetEntry {
        self.0
    }

    /// Rows of the dataset's own training set when it comes with a fixed train/test split
    /// (the first rows train, the rest test), as the papers that use it split it.
    pub fn fixed_train_rows(self) -> Option<usize> {
        self.0.fixed_train_rows
    }

    /// Comma-separated list of all registry names (for error messages).
    pub fn valid_names() -> String {
        DATASETS
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Position in the listing order.
    fn position(self) -> usize {
        DATASETS
            .iter()
            .position(|d| d.name() == self.name())
            .expect("every DatasetId is listed in DATASETS")
    }
}

impl PartialEq for DatasetId {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for DatasetId {}

impl Hash for DatasetId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl PartialOrd for DatasetId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DatasetId {
    /// Listing order, as the enum this handle replaced was ordered.
    fn cmp(&self, other: &Self) -> Ordering {
        self.position().cmp(&other.position())
    }
}

impl fmt::Debug for DatasetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DatasetId").field(&self.name()).finish()
    }
}

impl fmt::Display for DatasetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DatasetId {
    type Err = DataError;

    fn from_str(s: &str) -> Result<Self, DataError> {
        DATASETS
            .iter()
            .copied()
            .find(|d| d.name() == s)
            .ok_or_else(|| DataError::UnknownDataset {
                name: s.to_string(),
                valid: DatasetId::valid_names(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_follows_the_table() {
        for (i, &d) in DATASETS.iter().enumerate() {
            assert_eq!(d.name().parse::<DatasetId>().unwrap(), d);
            assert_eq!(d.position(), i);
            assert_eq!(format!("{d:?}"), format!("DatasetId({:?})", d.name()));
        }
        assert!(DatasetId::Adult < DatasetId::SyntheticH);
        let err = "nope".parse::<DatasetId>().unwrap_err().to_string();
        assert!(
            err.contains("adult") && err.contains("synthetic-h"),
            "{err}"
        );
    }
}
