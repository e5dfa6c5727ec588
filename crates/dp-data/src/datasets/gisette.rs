//! NIPS 2003 Gisette (UCI), training part.

use crate::entry::{Build, DatasetEntry, Encoding, no_recipe};
use crate::parse::gisette;
use crate::registry::{DatasetId, RawFile};

/// NIPS 2003 Gisette, training part (6,000 × 5,000).
pub static GISETTE: DatasetEntry = DatasetEntry {
    name: "gisette",
    summary: "Gisette training part: 6,000 x 5,000 dense raw pixel features, digit 4 vs 9",
    files: &[
        RawFile {
            name: "gisette_train.data",
            url: "https://archive.ics.uci.edu/ml/machine-learning-databases/gisette/GISETTE/gisette_train.data",
            sha256: "6d4c5e998afe67937b9e77a3334e03c85e545ebc65a6eb1333ffc14125cfc389",
            alt_sha256: &[],
            gz: false,
        },
        RawFile {
            name: "gisette_train.labels",
            url: "https://archive.ics.uci.edu/ml/machine-learning-databases/gisette/GISETTE/gisette_train.labels",
            sha256: "42bd681fe51b161f033df773df14a0116e492676555ab14616c1b72edc054075",
            alt_sha256: &[],
            gz: false,
        },
    ],
    raw_dir: "gisette",
    shape: (6_000, 5_000),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| gisette::parse(s.bytes(0), s.bytes(1)),
        recipe: no_recipe,
    },
};

// Named as the enum variant this handle replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// NIPS 2003 Gisette, training part.
    pub const Gisette: DatasetId = DatasetId::of(&GISETTE);
}
