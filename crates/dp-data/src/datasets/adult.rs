//! UCI Adult (census income), `adult.data` + `adult.test`: complete records, the records
//! Iyengar et al.'s preprocessing script keeps, and an encoding from public facts alone.

use serde_json::json;

use crate::dataset::Dataset;
use crate::entry::{Build, DatasetEntry, Encoding, Sources, no_recipe};
use crate::error::Result;
use crate::parse::adult::{self, Records};
use crate::parse::adult_public;
use crate::registry::{DatasetId, RawFile};

/// `adult.data`, the training file (also all that Neel et al. use).
pub const ADULT_DATA: RawFile = RawFile {
    name: "adult.data",
    url: "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data",
    sha256: "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    alt_sha256: &[],
    gz: false,
};

/// `adult.data` then `adult.test`.
pub const FILES: &[RawFile] = &[
    ADULT_DATA,
    RawFile {
        name: "adult.test",
        url: "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test",
        sha256: "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        alt_sha256: &[],
        gz: false,
    },
];

/// UCI Adult, train + test.
pub static ADULT: DatasetEntry = DatasetEntry {
    name: "adult",
    summary: "UCI Adult, train+test without missing values: 45,222 x 104 dense, income >50K",
    files: FILES,
    raw_dir: "adult",
    shape: (45_222, 104),
    fixed_train_rows: None,
    encoding: Encoding::ReadsRows(ADULT_READS),
    build: Build::Parse {
        parse: |s| parse(s, Records::Complete),
        recipe: no_recipe,
    },
};

/// UCI Adult exactly as Iyengar et al.'s preprocessing script builds it (45,220 rows).
pub static ADULT_IYENGAR: DatasetEntry = DatasetEntry {
    name: "adult-iyengar",
    summary: "UCI Adult as Iyengar et al.'s script builds it (last record of each file dropped): 45,220 x 104 dense, income >50K",
    files: FILES,
    raw_dir: "adult",
    shape: (45_220, 104),
    fixed_train_rows: None,
    encoding: Encoding::ReadsRows(ADULT_READS),
    build: Build::Parse {
        parse: |s| parse(s, Records::IyengarScript),
        recipe: || json!(Records::IyengarScript),
    },
};

/// Why the papers' Adult encodings are not end-to-end private.
const ADULT_READS: &str = "the one-hot categories are those present in the rows and the \
    continuous columns are divided by their maximum over the rows (adult-public encodes from \
    public facts)";

/// UCI Adult encoded from public facts alone: the categories `adult.names` lists, continuous
/// columns over public bounds (`parse::adult_public`).
pub static ADULT_PUBLIC: DatasetEntry = DatasetEntry {
    name: "adult-public",
    summary: "UCI Adult, train+test without missing values, encoded from public facts (adult.names' categories, public bounds, no fnlwgt): 45,222 x 104 dense, income >50K",
    files: FILES,
    raw_dir: "adult",
    shape: (45_222, 104),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| adult_public::parse(s.bytes(0), s.bytes(1)),
        recipe: || json!("adult-public-1"),
    },
};

fn parse(s: &Sources, keep: Records) -> Result<Dataset> {
    adult::parse(s.bytes(0), s.bytes(1), keep)
}

// Named as the enum variants these handles replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// UCI Adult, train + test.
    pub const Adult: DatasetId = DatasetId::of(&ADULT);
    /// UCI Adult as Iyengar et al.'s preprocessing script builds it.
    pub const AdultIyengar: DatasetId = DatasetId::of(&ADULT_IYENGAR);
    /// UCI Adult encoded from public facts alone.
    pub const AdultPublic: DatasetId = DatasetId::of(&ADULT_PUBLIC);
}
