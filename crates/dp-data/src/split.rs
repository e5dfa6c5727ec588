//! Which rows of a dataset train and which test, by default: the one rule that `dp-bench data
//! info` reports and the runners apply, so the two cannot disagree.
//!
//! A dataset distributed with its own train/test split (a1a, all of MNIST) is split there, as
//! the papers that use it do: the studies (DPareto) and Avent et al.'s illustrative problems
//! accept only such datasets. Every other dataset is shuffled and split by
//! [`Preprocess::default`], the grid configs' `[dataset]` defaults.

use serde::Serialize;

use crate::dataset::{Dataset, Preprocess, Split};
use crate::registry::DatasetId;

/// How a dataset's rows are divided into training and test rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SplitRule {
    /// The distribution's own split: the first `train_rows` rows train, the rest test.
    Fixed {
        /// Rows of the distribution's training file(s).
        train_rows: usize,
    },
    /// Shuffled with NumPy's legacy `RandomState(seed)`, the last `test_fraction` held out.
    Shuffled {
        /// Fraction of rows held out.
        test_fraction: f64,
        /// Seed of the shuffle.
        seed: u64,
    },
}

impl SplitRule {
    /// The rule runs use for `id` when a config does not say otherwise.
    pub fn default_for(id: DatasetId) -> SplitRule {
        match id.fixed_train_rows() {
            Some(train_rows) => SplitRule::Fixed { train_rows },
            None => {
                let pre = Preprocess::default();
                SplitRule::Shuffled {
                    test_fraction: pre.test_fraction,
                    seed: pre.shuffle_seed,
                }
            }
        }
    }

    /// Training and test row counts for a dataset of `n` rows.
    pub fn sizes(&self, n: usize) -> (usize, usize) {
        let train = match *self {
            SplitRule::Fixed { train_rows } => train_rows.min(n),
            SplitRule::Shuffled { test_fraction, .. } => Preprocess {
                test_fraction,
                ..Preprocess::default()
            }
            .train_rows(n),
        };
        (train, n - train)
    }

    /// One line for people: which rows train and who runs this split.
    pub fn describe(&self) -> String {
        match *self {
            SplitRule::Fixed { train_rows } => format!(
                "fixed: the distribution's own split, rows 0..{train_rows} train, the rest test \
                 (as studies run it)"
            ),
            SplitRule::Shuffled {
                test_fraction,
                seed,
            } => format!(
                "shuffled (seed {seed}), last {test_fraction} held out (grid configs' default; \
                 `dataset.test_fraction` and `dataset.split_seed` change it)"
            ),
        }
    }
}

impl Dataset {
    /// The fixed split at `train_rows`: rows `0..min(train_rows, max_train)` train and rows
    /// `train_rows..` test, so capping the training rows never moves a row into the test set.
    pub fn split_fixed(&self, train_rows: usize, max_train: Option<usize>) -> Split {
        let train_rows = train_rows.min(self.len());
        let kept = max_train.map_or(train_rows, |m| m.min(train_rows));
        let rows = |r: std::ops::Range<usize>| r.collect::<Vec<_>>();
        Split {
            train: self.select(&rows(0..kept)),
            test: self.select(&rows(train_rows..self.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dp_core::features::FeatureMatrix;

    #[test]
    fn datasets_with_their_own_split_keep_it() {
        assert_eq!(
            SplitRule::default_for(DatasetId::A1a),
            SplitRule::Fixed { train_rows: 30_956 }
        );
        assert_eq!(
            SplitRule::default_for(DatasetId::A1a).sizes(32_561),
            (30_956, 1_605)
        );
        assert_eq!(
            SplitRule::default_for(DatasetId::MnistFull).sizes(70_000),
            (60_000, 10_000)
        );
        assert_eq!(
            SplitRule::default_for(DatasetId::Adult).sizes(45_222),
            (36_177, 9_045)
        );
    }

    #[test]
    fn a_fixed_split_caps_training_rows_without_moving_test_rows() {
        let d = Dataset {
            name: "t".into(),
            x: FeatureMatrix::dense((0..5).map(f64::from).collect(), 5, 1),
            y: vec![1.0, -1.0, 1.0, -1.0, 1.0],
            classes: None,
        };
        let whole = d.split_fixed(3, None);
        assert_eq!((whole.train.len(), whole.test.len()), (3, 2));
        assert_eq!(whole.test, d.select(&[3, 4]));
        let capped = d.split_fixed(3, Some(1));
        assert_eq!(capped.train, d.select(&[0]));
        assert_eq!(capped.test, whole.test);
        assert_eq!(
            SplitRule::Fixed { train_rows: 3 }.sizes(d.len()),
            (whole.train.len(), whole.test.len())
        );
    }
}
