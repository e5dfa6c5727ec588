//! LIBSVM a1a (Platt's binarised Adult, 123 features), the train and test sets of Avent et
//! al. (2020).

use serde_json::json;

use crate::entry::{Build, DatasetEntry, Encoding};
use crate::parse::svmlight;
use crate::registry::{DatasetId, RawFile};

/// a1a's feature count: LIBSVM's page says 123 (the largest index in the files is 119).
const N_FEATURES: usize = 123;

/// LIBSVM a1a: `a1a.t` (30,956 rows) then `a1a` (1,605 rows).
pub static A1A: DatasetEntry = DatasetEntry {
    name: "a1a",
    summary: "LIBSVM a1a (Adult, Platt's binary features): 32,561 x 123 sparse, rows 0..30,956 from a1a.t (train), then a1a (test), income >50K",
    files: &[
        RawFile {
            name: "a1a.t",
            url: "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a1a.t",
            sha256: "0212d0c4a3996fe6fb6a0ab54033d9f4fa4b60369b6e3bb141821d9ffc40c04d",
            alt_sha256: &[],
            gz: false,
        },
        RawFile {
            name: "a1a",
            url: "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a1a",
            sha256: "eb54c45f1bdb51286f803dd092eb8202b44637a858fc6c4e533a2d64a0d94b4e",
            alt_sha256: &[],
            gz: false,
        },
    ],
    raw_dir: "a1a",
    shape: (32_561, N_FEATURES),
    fixed_train_rows: Some(30_956),
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| {
            let train = svmlight::parse(s.bytes(0), s.name(0), N_FEATURES)?;
            let test = svmlight::parse(s.bytes(1), s.name(1), N_FEATURES)?;
            train.concat(test, s.dataset())
        },
        recipe: || json!({"n_features": N_FEATURES}),
    },
};

// Named as the enum variant this handle replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// LIBSVM a1a.
    pub const A1a: DatasetId = DatasetId::of(&A1A);
}
