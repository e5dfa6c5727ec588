//! KDD Cup 1999 10% file, Iyengar et al.'s 70,000-row sample, normal vs attack.

use serde_json::json;

use crate::entry::{Build, DatasetEntry, Encoding};
use crate::parse::kddcup::{self, KddSample};
use crate::registry::{DatasetId, RawFile};

/// KDD Cup 1999 10% file, Iyengar et al.'s 70,000-row sample.
pub static KDDCUP99: DatasetEntry = DatasetEntry {
    name: "kddcup99",
    summary: "KDD Cup 1999 10%, Iyengar sample: 70,000 x 113 dense (one-hot + raw numeric), normal vs attack",
    files: &[RawFile {
        name: "kddcup.data_10_percent.gz",
        url: "http://kdd.ics.uci.edu/databases/kddcup99/kddcup.data_10_percent.gz",
        sha256: "8045aca0d84e70e622d1148d7df782496f6333bf6eb979a1b0837c42a9fd9561",
        alt_sha256: &[],
        gz: true,
    }],
    raw_dir: "kddcup99",
    // 38 numeric columns + the 75 categories the seeded sample hits.
    shape: (70_000, 113),
    fixed_train_rows: None,
    encoding: Encoding::ReadsRows(
        "its 70,000 rows are drawn with replacement (a record can appear several times) and the one-hot categories are those present in the sample",
    ),
    build: Build::Parse {
        parse: |s| kddcup::parse(&s.gunzip(0)?, &KddSample::default()),
        recipe: || json!(KddSample::default()),
    },
};

// Named as the enum variant this handle replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// KDD Cup 1999, Iyengar et al.'s sample.
    pub const KddCup99: DatasetId = DatasetId::of(&KDDCUP99);
}
