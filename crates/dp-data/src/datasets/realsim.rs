//! LIBSVM real-sim (72,309 documents, real vs simulated): each row with its own values, and
//! the rows as Iyengar et al.'s script saves them.

use serde_json::json;

use crate::dataset::{Dataset, IYENGAR_SEED};
use crate::entry::{Build, DatasetEntry, Encoding, Sources};
use crate::error::Result;
use crate::parse::realsim::{self, Values};
use crate::registry::{DatasetId, RawFile};

/// real-sim from the LIBSVM site (Iyengar et al. download the `http://` form of this URL). The
/// sha256 is the one pinned by pratikrathore8/rlaopt-experiments
/// (`src/rlaopt_experiments/suites/real_erm/data.py`), the only public pin found; it has not
/// been checked against a download here.
const FILES: &[RawFile] = &[RawFile {
    name: "real-sim.bz2",
    url: "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/real-sim.bz2",
    sha256: "7cd52374f55ce62e803ef33ca1c44689427c23d481eff64026f8ba9f53b8cc27",
    alt_sha256: &[],
    gz: false,
}];

/// The values Iyengar et al.'s script leaves in each row.
const IYENGAR_VALUES: Values = Values::IyengarScript { seed: IYENGAR_SEED };

/// LIBSVM real-sim, each row with its own values.
pub static REAL_SIM: DatasetEntry = DatasetEntry {
    name: "real-sim",
    summary: "LIBSVM real-sim: 72,309 x 20,958 sparse tf-idf, real vs simulated (labels as distributed)",
    files: FILES,
    raw_dir: "real-sim",
    shape: (realsim::N_ROWS, realsim::N_FEATURES),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| parse(s, Values::File),
        recipe: || json!(Values::File),
    },
};

/// real-sim exactly as Iyengar et al.'s script saves it (values misaligned by its shuffle).
pub static REAL_SIM_IYENGAR: DatasetEntry = DatasetEntry {
    name: "real-sim-iyengar",
    summary: "real-sim as Iyengar et al.'s script saves it (values shifted by its seed-10000019 shuffle): 72,309 x 20,958 sparse",
    files: FILES,
    raw_dir: "real-sim",
    shape: (realsim::N_ROWS, realsim::N_FEATURES),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| parse(s, IYENGAR_VALUES),
        recipe: || json!(IYENGAR_VALUES),
    },
};

fn parse(s: &Sources, values: Values) -> Result<Dataset> {
    let text = s.bunzip2(0)?;
    realsim::parse(&text, s.name(0), realsim::N_FEATURES, values)
}

// Named as the enum variants these handles replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// LIBSVM real-sim, each row with its own values.
    pub const RealSim: DatasetId = DatasetId::of(&REAL_SIM);
    /// real-sim as Iyengar et al.'s script saves it.
    pub const RealSimIyengar: DatasetId = DatasetId::of(&REAL_SIM_IYENGAR);
}
