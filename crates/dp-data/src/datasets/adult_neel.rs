//! UCI Adult as Neel et al. (2019) use it: `adult.data` only, balanced, 7 columns.

use serde_json::json;

use super::adult::ADULT_DATA;
use crate::entry::{Build, DatasetEntry, Encoding};
use crate::parse::adult_neel;
use crate::registry::DatasetId;

/// UCI Adult as Neel et al. (2019) use it (15,682 × 23).
pub static ADULT_NEEL: DatasetEntry = DatasetEntry {
    name: "adult-neel",
    summary: "UCI adult.data as Neel et al. use it: all 7,841 >50K plus 7,841 random <=50K records, 7 columns: 15,682 x 23 dense",
    files: &[ADULT_DATA],
    raw_dir: "adult",
    shape: (15_682, 23),
    fixed_train_rows: None,
    encoding: Encoding::ReadsRows(
        "as many negatives are drawn as the file has positives (a count of the rows), and capital-loss is divided by its maximum over the rows (4,356)",
    ),
    build: Build::Parse {
        parse: |s| adult_neel::parse(s.bytes(0)),
        recipe: || json!({"balance_seed": adult_neel::NEEL_SEED}),
    },
};

// Named as the enum variant this handle replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// UCI Adult as Neel et al. (2019) use it.
    pub const AdultNeel: DatasetId = DatasetId::of(&ADULT_NEEL);
}
