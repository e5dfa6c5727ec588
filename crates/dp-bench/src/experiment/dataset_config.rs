//! `[dataset]`: which dataset, how its rows are preprocessed, and how they are split into
//! training, validation and test rows.

use serde::{Deserialize, Serialize};

use super::selection::ValidationMode;

/// Which dataset and how to preprocess it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DatasetConfig {
    /// Registry name (`dp-bench data list`).
    pub name: String,
    /// Scale every row to unit ℓ2 norm (Redberg et al.).
    #[serde(default = "yes")]
    pub normalize_rows: bool,
    /// Value of the appended bias feature (default 1); 0 appends none (Iyengar et al.'s
    /// models have no bias feature).
    #[serde(default = "one", with = "zero_is_none")]
    pub bias: Option<f64>,
    /// Fraction of rows held out for testing; 0 holds none out and scores every method
    /// in-sample on the training rows (Neel et al.'s protocol).
    #[serde(default = "default_test_fraction")]
    pub test_fraction: f64,
    /// Train on a label-stratified subsample of this many training rows (drawn once with
    /// `split_seed`, the same for every cell); absent: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subsample: Option<usize>,
    /// Seed of the shuffle that makes the (fixed) train/test split; the default is the seed
    /// of Iyengar et al.'s preprocessing scripts.
    #[serde(default = "default_split_seed")]
    pub split_seed: u64,
    /// Clip every row to this ℓ2 norm (Iyengar et al.).
    #[serde(default)]
    pub clip_row_norm: Option<f64>,
    /// Clip every coordinate to [−c, c] (Iyengar et al.).
    #[serde(default)]
    pub clip_linf: Option<f64>,
    /// Train one binary problem per class of the multi-class labels and predict the argmax
    /// (Iyengar et al.'s MNIST: each class at (ε/K, δ/K)); the Iyengar et al. methods run it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub one_vs_all: bool,
    /// Fraction of the training rows carved out as validation rows (label-stratified, by a
    /// seed fixed from `split_seed`, the same rows for every learner): every choice made from
    /// data (honest tuning's selection, the dishonest reference's best point) then reads their
    /// scores, and the test rows are read once per released model. 0 (the default) keeps the
    /// papers' protocol, where selection reads the test rows.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub validation_fraction: f64,
    /// How selection reads the validation rows: `"private"` (default; each candidate's score
    /// is released by the Laplace mechanism and paid for in its event) or `"public"` (exact
    /// scores, an assumption the results then rest on).
    #[serde(default, skip_serializing_if = "ValidationMode::is_default")]
    pub validation: ValidationMode,
}

impl DatasetConfig {
    /// The dp-data preprocessing recipe these keys describe.
    pub fn preprocess(&self) -> dp_data::Preprocess {
        dp_data::Preprocess {
            normalize_rows: self.normalize_rows,
            clip_row_norm: self.clip_row_norm,
            clip_linf: self.clip_linf,
            bias: self.bias,
            shuffle_seed: self.split_seed,
            test_fraction: self.test_fraction,
        }
    }
}

/// `bias = 0` means no bias column, and is written back as 0 (TOML has no null, and an
/// absent key means the default of 1).
mod zero_is_none {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(v.unwrap_or(0.0))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        let v = f64::deserialize(d)?;
        Ok((v != 0.0).then_some(v))
    }
}

fn default_split_seed() -> u64 {
    u64::from(dp_data::dataset::IYENGAR_SEED)
}

fn yes() -> bool {
    true
}
fn one() -> Option<f64> {
    Some(1.0)
}
fn default_test_fraction() -> f64 {
    0.2
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl DatasetConfig {
    /// The checks of the keys that need no data.
    pub fn check(&self) -> Result<(), String> {
        let number = crate::quoting::number;
        if !(self.test_fraction >= 0.0 && self.test_fraction < 1.0) {
            return Err(format!(
                "key `dataset.test_fraction` = {} must be in [0, 1) (0: score in-sample)",
                number(self.test_fraction)
            ));
        }
        if !(self.validation_fraction >= 0.0 && self.validation_fraction <= 0.5) {
            return Err(format!(
                "key `dataset.validation_fraction` = {} must be in [0, 0.5] (0: no validation \
                 rows, selection reads the test rows as the papers did)",
                number(self.validation_fraction)
            ));
        }
        if self.validation_fraction > 0.0 && self.test_fraction == 0.0 {
            return Err(
                "key `dataset.validation_fraction` needs held-out test rows: set \
                        `dataset.test_fraction` > 0 (0 scores in-sample)"
                    .into(),
            );
        }
        if self.subsample == Some(0) {
            return Err("key `dataset.subsample` = 0 must be >= 1 (or absent: all rows)".into());
        }
        Ok(())
    }

    /// Rows carved from `n` training rows for validation (at least one on each side when the
    /// fraction is positive).
    pub fn validation_rows(&self, n: usize) -> usize {
        if self.validation_fraction == 0.0 || n < 2 {
            return 0;
        }
        ((n as f64 * self.validation_fraction).round() as usize).clamp(1, n - 1)
    }

    /// The seed of the validation draw: fixed by `split_seed`, distinct from the split's own.
    pub fn validation_seed(&self) -> u32 {
        (dp_core::seed::derive_seed(&[b"validation", &self.split_seed.to_le_bytes()]) >> 32) as u32
    }
}
