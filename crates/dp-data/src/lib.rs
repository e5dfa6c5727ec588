//! Benchmark datasets: verified downloads, parsing and preprocessing.
//!
//! The datasets of Iyengar et al. (2019) and Redberg et al. (2023) — Adult, Gisette, RCV1,
//! real-sim, KDDCup99, Covertype, MNIST and the `make_classification` sets — as
//! [`dp_core::features::FeatureMatrix`] with ±1 labels.
//!
//! - Each dataset is one [`DatasetEntry`] (raw files, parser, shape, split) in the table
//!   [`datasets::DATASETS`]; a [`DatasetId`] is a handle to one.
//! - Raw files come from the cache, a mirror (`DPBENCH_DATA_MIRROR`) or their canonical URL,
//!   and are sha256-verified before first use ([`fetch`](mod@fetch)).
//! - Parsed datasets are cached in a binary format keyed by the raw hashes and the recipe
//!   ([`cache`]), so a second load is a file read.
//! - [`Preprocess`] applies the papers' row normalisation / clipping / bias column and a seeded
//!   80/20 split; datasets distributed with their own split keep it ([`SplitRule`]).
//!
//! ```no_run
//! let split = dp_data::load("adult", &dp_data::Preprocess::redberg())?;
//! assert_eq!(split.train.x.ncols(), 105);
//! # Ok::<(), dp_data::DataError>(())
//! ```

pub mod cache;
pub mod config;
pub mod dataset;
pub mod datasets;
pub mod entry;
pub mod error;
pub mod fetch;
pub mod load;
pub mod numpy_rng;
pub mod parse;
pub mod registry;
pub mod split;
pub mod synthetic;

use std::path::PathBuf;

pub use config::{DataConfig, Mirror};
pub use dataset::{Dataset, Preprocess, Split};
pub use entry::{Build, DatasetEntry, Encoding, Sources};
pub use error::{DataError, Result};
pub use load::DatasetInfo;
pub use registry::{DatasetId, RawFile};
pub use split::SplitRule;
pub use synthetic::MakeClassification;

/// All registered datasets, in listing order.
pub fn list() -> &'static [DatasetId] {
    datasets::DATASETS
}

/// Loads `name` with `pre` applied, configured from the environment ([`DataConfig::from_env`]).
pub fn load(name: &str, pre: &Preprocess) -> Result<Split> {
    DataConfig::from_env().load(name.parse()?, pre)
}

/// The whole dataset `name` without preprocessing, configured from the environment.
pub fn dataset(name: &str) -> Result<Dataset> {
    DataConfig::from_env().dataset(name.parse()?)
}

/// Fetches (and verifies) `name`'s raw files, configured from the environment.
pub fn fetch(name: &str) -> Result<Vec<PathBuf>> {
    DataConfig::from_env().fetch(name.parse()?)
}

/// Describes `name` (loading it if needed), configured from the environment.
pub fn info(name: &str) -> Result<DatasetInfo> {
    DataConfig::from_env().info(name.parse()?)
}
