//! From a registry name to a (cached) [`Dataset`], a [`Split`] or a [`DatasetInfo`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use dp_core::features::FeatureMatrix;
use serde::Serialize;
use serde_json::json;

use crate::cache;
use crate::config::DataConfig;
use crate::dataset::{Dataset, Preprocess, Split};
use crate::entry::{Build, Sources};
use crate::error::{DataError, Result};
use crate::fetch::{Fetched, obtain};
use crate::registry::DatasetId;
use crate::split::SplitRule;
use crate::synthetic::MakeClassification;

/// Bumped whenever a parser's output changes, so stale processed caches are not reused.
const PARSER_VERSION: u32 = 1;

/// Summary of a dataset as loaded (before any [`Preprocess`]).
#[derive(Clone, Debug, Serialize)]
pub struct DatasetInfo {
    /// Registry name.
    pub name: String,
    /// One-line description.
    pub summary: String,
    /// Number of examples.
    pub rows: usize,
    /// Number of features (before any bias column).
    pub features: usize,
    /// Non-zero feature values.
    pub nonzeros: usize,
    /// `dense` or `sparse`.
    pub storage: &'static str,
    /// Fraction of +1 labels.
    pub positive_fraction: f64,
    /// Number of classes (2 for binary tasks).
    pub classes: usize,
    /// How runs split the rows by default ([`SplitRule::default_for`]).
    pub split: SplitRule,
    /// Training rows under `split`.
    pub train_rows: usize,
    /// Test rows under `split`.
    pub test_rows: usize,
    /// Raw file name → pinned sha256 (empty for generated data).
    pub sha256: BTreeMap<String, String>,
    /// Generator parameters for synthetic data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generator: Option<MakeClassification>,
    /// The processed-cache file.
    pub cache_file: PathBuf,
    /// `null` when encoding a record reads no other record; otherwise what it reads (the
    /// dataset is then not end-to-end private: [`crate::Encoding`]).
    pub reads_rows: Option<&'static str>,
}

/// Generator parameters of a synthetic dataset.
pub fn generator(id: DatasetId) -> Option<MakeClassification> {
    match id.spec().build {
        Build::Generate(params) => Some(params()),
        Build::Parse { .. } => None,
    }
}

/// The dataset-specific recipe: everything besides the raw bytes that determines the output.
fn recipe(id: DatasetId) -> serde_json::Value {
    match id.spec().build {
        Build::Generate(params) => json!(params()),
        Build::Parse { recipe, .. } => recipe(),
    }
}

/// Full processed-cache key: parser version, dataset, pinned raw hashes and recipe.
pub fn cache_key(id: DatasetId) -> String {
    let files: Vec<_> = id
        .spec()
        .files
        .iter()
        .map(|f| json!({"file": f.name, "sha256": f.sha256}))
        .collect();
    json!({
        "parser_version": PARSER_VERSION,
        "dataset": id.name(),
        "files": files,
        "recipe": recipe(id),
    })
    .to_string()
}

/// Rows and columns the real files must produce (a guard against format drift).
pub fn expected_shape(id: DatasetId) -> (usize, usize) {
    id.spec().shape
}

impl DataConfig {
    /// Verified raw files of `id` (fetching missing ones); empty for generated datasets.
    pub fn fetch_raw(&self, id: DatasetId) -> Result<Vec<Fetched>> {
        id.spec()
            .files
            .iter()
            .map(|f| obtain(self, id.spec().raw_dir, f))
            .collect()
    }

    /// Makes `id` available offline: raw files for real data, the processed cache for
    /// generated data. Returns the paths.
    pub fn fetch(&self, id: DatasetId) -> Result<Vec<PathBuf>> {
        if id.spec().files.is_empty() {
            self.dataset(id)?;
            return Ok(vec![self.cache_path(id)]);
        }
        Ok(self.fetch_raw(id)?.into_iter().map(|f| f.path).collect())
    }

    /// Processed-cache file of `id`.
    pub fn cache_path(&self, id: DatasetId) -> PathBuf {
        cache::path_for(&self.processed_dir(), id.name(), &cache_key(id))
    }

    /// The full dataset (no preprocessing), from the processed cache when present.
    pub fn dataset(&self, id: DatasetId) -> Result<Dataset> {
        let key = cache_key(id);
        let path = self.cache_path(id);
        match cache::read(&path, &key)? {
            cache::Cached::Hit(d) => return Ok(d),
            cache::Cached::Miss => self.note(format_args!(
                "building {id} (cached afterwards in {})",
                path.display()
            )),
            // Everything in the file is derived from the verified raw files, so rebuilding
            // gives back exactly the bytes it should have held.
            cache::Cached::Invalid(why) => self.note(format_args!(
                "processed cache {} is not usable ({why}); rebuilding {id} from its verified raw files",
                path.display()
            )),
        }
        let d = self.build(id)?;
        d.validate()?;
        let (rows, cols) = expected_shape(id);
        if (d.x.nrows(), d.x.ncols()) != (rows, cols) {
            return Err(DataError::parse(
                id.name(),
                format!(
                    "parsed {} x {}, expected {rows} x {cols}",
                    d.x.nrows(),
                    d.x.ncols()
                ),
            ));
        }
        cache::write(&path, &key, &d)?;
        Ok(d)
    }

    fn build(&self, id: DatasetId) -> Result<Dataset> {
        match id.spec().build {
            Build::Generate(params) => params().dataset(id.name()),
            Build::Parse { parse, .. } => parse(&Sources::new(id.spec(), &self.fetch_raw(id)?)),
        }
    }

    /// The dataset preprocessed, shuffled and split.
    pub fn load(&self, id: DatasetId, pre: &Preprocess) -> Result<Split> {
        pre.validate()?;
        pre.apply_owned(self.dataset(id)?)
    }

    /// Shape, sparsity, label balance, split sizes and raw hashes of `id`.
    pub fn info(&self, id: DatasetId) -> Result<DatasetInfo> {
        let d = self.dataset(id)?;
        let split = SplitRule::default_for(id);
        let (train_rows, test_rows) = split.sizes(d.len());
        Ok(DatasetInfo {
            name: id.name().to_string(),
            summary: id.spec().summary.to_string(),
            rows: d.len(),
            features: d.x.ncols(),
            nonzeros: d.x.nnz(),
            storage: match d.x {
                FeatureMatrix::Dense { .. } => "dense",
                FeatureMatrix::Sparse(_) => "sparse",
            },
            positive_fraction: d.positive_fraction(),
            classes: d.n_classes(),
            split,
            train_rows,
            test_rows,
            sha256: id
                .spec()
                .files
                .iter()
                .map(|f| (f.name.to_string(), f.sha256.to_string()))
                .collect(),
            generator: generator(id),
            cache_file: self.cache_path(id),
            reads_rows: match id.spec().encoding {
                crate::Encoding::Public => None,
                crate::Encoding::ReadsRows(why) => Some(why),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::DATASETS;

    #[test]
    fn cache_keys_differ_per_dataset_and_pin_hashes() {
        let keys: Vec<String> = DATASETS.iter().map(|&d| cache_key(d)).collect();
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(cache_key(DatasetId::Adult).contains(DatasetId::Adult.spec().files[0].sha256));
        assert!(cache_key(DatasetId::SyntheticH).contains("\"n_features\":5000"));
    }

    #[test]
    fn synthetic_l_is_generated_then_served_from_cache() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(dir.path()).with_download(false);
        let first = cfg.dataset(DatasetId::SyntheticL).unwrap();
        assert!(cfg.cache_path(DatasetId::SyntheticL).exists());
        assert_eq!(cfg.dataset(DatasetId::SyntheticL).unwrap(), first);
        let info = cfg.info(DatasetId::SyntheticL).unwrap();
        assert_eq!(
            (info.rows, info.features, info.train_rows, info.test_rows),
            (10_000, 40, 8_000, 2_000)
        );
        assert!(info.sha256.is_empty());
        let split = cfg
            .load(DatasetId::SyntheticL, &Preprocess::redberg())
            .unwrap();
        assert_eq!(
            (split.train.x.ncols(), split.train.len(), split.test.len()),
            (41, 8_000, 2_000)
        );
        assert!(split.train.x.max_row_norm() <= 2f64.sqrt() + 1e-12);
    }

    #[test]
    fn a_bit_flipped_processed_cache_is_rebuilt_to_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(dir.path()).with_download(false);
        let first = cfg.dataset(DatasetId::SyntheticL).unwrap();
        let path = cfg.cache_path(DatasetId::SyntheticL);
        let good = std::fs::read(&path).unwrap();
        let mut bad = good.clone();
        // Low byte of a feature value near the end: still decodes, to slightly other data.
        let at = bad.len() - 32 - 8;
        bad[at] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(matches!(
            cache::read(&path, &cache_key(DatasetId::SyntheticL)).unwrap(),
            cache::Cached::Invalid(_)
        ));
        assert_eq!(cfg.dataset(DatasetId::SyntheticL).unwrap(), first);
        assert_eq!(std::fs::read(&path).unwrap(), good, "rebuilt in place");
    }

    #[test]
    fn offline_real_dataset_without_mirror_names_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(dir.path()).with_download(false);
        let msg = cfg.dataset(DatasetId::Gisette).unwrap_err().to_string();
        assert!(
            msg.contains("gisette_train.data") && msg.contains("DPBENCH_DATA_MIRROR"),
            "{msg}"
        );
        assert!(msg.contains("https://archive.ics.uci.edu/"), "{msg}");
    }

    #[test]
    fn covertype_and_real_sim_name_their_sources_and_verify_mirror_copies() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(dir.path()).with_download(false);
        for (id, needle) in [
            (DatasetId::Covertype, "covtype/covtype.data.gz"),
            (DatasetId::RealSim, "binary/real-sim.bz2"),
            (DatasetId::RealSimIyengar, "binary/real-sim.bz2"),
        ] {
            let msg = cfg.dataset(id).unwrap_err().to_string();
            assert!(
                msg.contains(needle) && msg.contains("DPBENCH_DATA_MIRROR"),
                "{msg}"
            );
        }
        // A mirror copy with other bytes is a checksum error, and nothing is cached.
        let mirror = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(mirror.path().join("real-sim")).unwrap();
        std::fs::write(mirror.path().join("real-sim/real-sim.bz2"), b"BZh9").unwrap();
        let cfg = cfg.with_mirror(crate::Mirror::Dir(mirror.path().to_path_buf()));
        let err = cfg.dataset(DatasetId::RealSimIyengar).unwrap_err();
        assert!(matches!(err, DataError::Checksum { .. }), "{err}");
        assert!(!cfg.raw_dir("real-sim").join("real-sim.bz2").exists());
        // The two real-sim datasets share the raw file but not the processed cache.
        let (a, b) = (
            cache_key(DatasetId::RealSim),
            cache_key(DatasetId::RealSimIyengar),
        );
        assert!(
            b.contains("10000019") && !a.contains("10000019"),
            "{a}\n{b}"
        );
    }
}
