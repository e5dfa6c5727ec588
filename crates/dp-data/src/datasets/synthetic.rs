//! Iyengar et al.'s `make_classification` datasets (parameters in [`crate::synthetic`]).

use crate::entry::{Build, DatasetEntry, Encoding};
use crate::registry::DatasetId;
use crate::synthetic::MakeClassification;

/// Iyengar et al.'s low-dimensional data (10,000 × 40, as their code).
pub static SYNTHETIC_L: DatasetEntry = DatasetEntry {
    name: "synthetic-l",
    summary: "make_classification 10,000 x 40, 30 informative, 2 redundant, class_sep 2 (generated, as Iyengar et al.'s code)",
    files: &[],
    raw_dir: "synthetic-l",
    shape: (10_000, 40),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Generate(MakeClassification::synthetic_l),
};

/// Iyengar et al.'s high-dimensional data (5,000 × 5,000, Table I).
pub static SYNTHETIC_H: DatasetEntry = DatasetEntry {
    name: "synthetic-h",
    summary: "make_classification 5,000 x 5,000, 10 informative, class_sep 2 (generated)",
    files: &[],
    raw_dir: "synthetic-h",
    shape: (5_000, 5_000),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Generate(MakeClassification::synthetic_h),
};

/// The same generator at 2,000 × 2,000 (their code's size; the Huber experiments).
pub static SYNTHETIC_H_2000: DatasetEntry = DatasetEntry {
    name: "synthetic-h-2000",
    summary: "make_classification 2,000 x 2,000, 10 informative, class_sep 2 (generated; Iyengar et al.'s Huber size)",
    files: &[],
    raw_dir: "synthetic-h-2000",
    shape: (2_000, 2_000),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Generate(MakeClassification::synthetic_h_2000),
};

// Named as the enum variants these handles replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// Synthetic-L.
    pub const SyntheticL: DatasetId = DatasetId::of(&SYNTHETIC_L);
    /// Synthetic-H, 5,000 × 5,000.
    pub const SyntheticH: DatasetId = DatasetId::of(&SYNTHETIC_H);
    /// Synthetic-H, 2,000 × 2,000.
    pub const SyntheticH2000: DatasetId = DatasetId::of(&SYNTHETIC_H_2000);
}
