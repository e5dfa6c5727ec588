//! Labelled datasets, the per-row preprocessing of the papers, and the train/test split.

use dp_core::features::FeatureMatrix;
use serde::{Deserialize, Serialize};

use crate::error::{DataError, Result};
use crate::numpy_rng::NumpyLegacyRng;

/// Features with ±1 labels (and the multi-class labels where the data has them).
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// Registry name (or a caller-chosen name).
    pub name: String,
    /// `n × d` features.
    pub x: FeatureMatrix,
    /// Binary labels, each +1 or −1.
    pub y: Vec<f64>,
    /// Multi-class labels `0..n_classes` (MNIST digits), aligned with the rows; `y` is then the
    /// one-vs-rest task of one class (see [`Dataset::one_vs_rest`]).
    pub classes: Option<Vec<u32>>,
}

impl Dataset {
    /// Number of examples.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Whether there are no examples.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// Fraction of +1 labels (0 for an empty dataset).
    pub fn positive_fraction(&self) -> f64 {
        if self.y.is_empty() {
            return 0.0;
        }
        self.y.iter().filter(|&&v| v > 0.0).count() as f64 / self.y.len() as f64
    }

    /// Number of classes (2 for binary data).
    pub fn n_classes(&self) -> usize {
        self.classes
            .as_ref()
            .map_or(2, |c| c.iter().max().map_or(0, |&m| m as usize + 1))
    }

    /// The same rows with `y = +1` exactly for multi-class label `class` (one-vs-all, as
    /// Iyengar et al. train MNIST). Errors for binary-only data.
    pub fn one_vs_rest(&self, class: u32) -> Result<Dataset> {
        let classes = self.classes.as_ref().ok_or_else(|| {
            DataError::Invalid(format!(
                "{} has no multi-class labels; one-vs-rest needs them",
                self.name
            ))
        })?;
        let y = classes
            .iter()
            .map(|&c| if c == class { 1.0 } else { -1.0 })
            .collect();
        Ok(Dataset { y, ..self.clone() })
    }

    /// The rows `rows`, in that order.
    pub fn select(&self, rows: &[usize]) -> Dataset {
        Dataset {
            name: self.name.clone(),
            x: self.x.select_rows(rows),
            y: rows.iter().map(|&i| self.y[i]).collect(),
            classes: self
                .classes
                .as_ref()
                .map(|c| rows.iter().map(|&i| c[i]).collect()),
        }
    }

    /// `n` rows drawn without replacement within each label, so the label balance is kept
    /// (positives: `round(n · positive_fraction)`), in their original order. The draw is
    /// NumPy's legacy `RandomState(seed).permutation` per label, positives first.
    pub fn stratified_subsample(&self, n: usize, seed: u32) -> Result<Dataset> {
        if n == 0 || n > self.len() {
            return Err(DataError::Invalid(format!(
                "subsample = {n} must be in 1..={} (the rows of {})",
                self.len(),
                self.name
            )));
        }
        Ok(self.select(&self.stratified_draw(n, seed)))
    }

    /// Splits off `n` rows drawn as [`Dataset::stratified_subsample`] draws them (the label
    /// balance kept): `(the other rows, the n rows)`, each in the original order. How a
    /// validation set is carved from the training rows, by a fixed seed over the rows'
    /// positions within each label (a row added before the carve reshuffles it: guarantees
    /// are for neighbours of the fixed split).
    pub fn stratified_holdout(&self, n: usize, seed: u32) -> Result<(Dataset, Dataset)> {
        if n == 0 || n >= self.len() {
            return Err(DataError::Invalid(format!(
                "a holdout of {n} rows must leave rows of {} ({} in all) on both sides",
                self.name,
                self.len()
            )));
        }
        let held = self.stratified_draw(n, seed);
        let mut is_held = vec![false; self.len()];
        for &i in &held {
            is_held[i] = true;
        }
        let kept: Vec<usize> = (0..self.len()).filter(|&i| !is_held[i]).collect();
        Ok((self.select(&kept), self.select(&held)))
    }

    /// The sorted indices of `n` rows (1 ≤ n ≤ len) drawn within each label.
    fn stratified_draw(&self, n: usize, seed: u32) -> Vec<usize> {
        let (pos, neg): (Vec<usize>, Vec<usize>) = (0..self.len()).partition(|&i| self.y[i] > 0.0);
        let n_pos = ((n as f64) * self.positive_fraction()).round() as usize;
        let n_pos = n_pos.min(pos.len()).max(n.saturating_sub(neg.len()));
        let mut rng = NumpyLegacyRng::new(seed);
        let mut keep = Vec::with_capacity(n);
        for (rows, k) in [(&pos, n_pos), (&neg, n - n_pos)] {
            let order = rng.permutation(rows.len());
            keep.extend(order[..k].iter().map(|&j| rows[j]));
        }
        keep.sort_unstable();
        keep
    }

    /// The rows of `self` then those of `other` (same storage and column count), named `name`:
    /// how datasets distributed as a train file and a test file become one dataset.
    pub fn concat(self, other: Dataset, name: &str) -> Result<Dataset> {
        let mismatch = |what: &str| {
            Err(DataError::Invalid(format!(
                "{name}: cannot stack {} under {}: {what} differ",
                other.name, self.name
            )))
        };
        if self.x.ncols() != other.x.ncols() {
            return mismatch("column counts");
        }
        if self.classes.is_some() != other.classes.is_some() {
            return mismatch("multi-class labels");
        }
        let x = match (self.x, other.x) {
            (
                FeatureMatrix::Dense {
                    mut data,
                    nrows,
                    ncols,
                },
                FeatureMatrix::Dense {
                    data: d2,
                    nrows: n2,
                    ..
                },
            ) => {
                data.extend(d2);
                FeatureMatrix::dense(data, nrows + n2, ncols)
            }
            (FeatureMatrix::Sparse(mut a), FeatureMatrix::Sparse(b)) => {
                let base = a.indices.len();
                a.indptr.extend(b.indptr[1..].iter().map(|p| p + base));
                a.indices.extend(b.indices);
                a.values.extend(b.values);
                a.nrows += b.nrows;
                FeatureMatrix::Sparse(a)
            }
            _ => return mismatch("storage kinds (dense and sparse)"),
        };
        let mut y = self.y;
        y.extend(other.y);
        let classes = self.classes.zip(other.classes).map(|(mut a, b)| {
            a.extend(b);
            a
        });
        Ok(Dataset {
            name: name.to_string(),
            x,
            y,
            classes,
        })
    }

    /// Checks shapes and that every label is ±1 and every feature finite.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(DataError::Invalid(format!("{}: {m}", self.name)));
        if self.x.nrows() != self.y.len() {
            return bad(format!(
                "{} rows but {} labels",
                self.x.nrows(),
                self.y.len()
            ));
        }
        let n_classes = self.classes.as_ref().map_or(self.y.len(), Vec::len);
        if n_classes != self.y.len() {
            return bad(format!(
                "{n_classes} class labels for {} rows",
                self.y.len()
            ));
        }
        if let Some(v) = self.y.iter().find(|&&v| v != 1.0 && v != -1.0) {
            return bad(format!("label {v} is not ±1"));
        }
        let values: &[f64] = match &self.x {
            FeatureMatrix::Dense { data, .. } => data,
            FeatureMatrix::Sparse(c) => &c.values,
        };
        if values.iter().any(|v| !v.is_finite()) {
            return bad("non-finite feature value".into());
        }
        Ok(())
    }
}

/// A train/test split of one dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    /// The first `⌊n·(1 − test_fraction)⌋` shuffled rows.
    pub train: Dataset,
    /// The remaining rows.
    pub test: Dataset,
}

/// Row-wise preprocessing, shuffle and split. Applied in this order:
///
/// 1. `normalize_rows`: `x ← x/‖x‖₂` (Redberg et al.; all-zero rows stay zero);
/// 2. `clip_linf`: each coordinate clamped to `[−c, c]` (Iyengar et al., private Frank–Wolfe);
/// 3. `clip_row_norm`: `x ← x·min(1, L/‖x‖₂)` (Iyengar et al.'s sample clipping);
/// 4. `bias`: a constant column with this value appended *after* clipping, so with unit rows
///    and bias 1 every row has norm ≤ √2 (the bound Redberg et al. use);
/// 5. shuffle with NumPy's legacy `RandomState(shuffle_seed).shuffle` (so seed 10000019 gives
///    exactly Iyengar et al.'s Gisette order) and split off the last `test_fraction`.
///
/// Step 2 precedes step 3 so that, with both set, both bounds hold at the end. Every step
/// uses only its own row, so none of them costs privacy budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Preprocess {
    /// Scale every row to unit l2 norm.
    pub normalize_rows: bool,
    /// Clip every row to l2 norm at most this.
    pub clip_row_norm: Option<f64>,
    /// Clip every coordinate to `[-c, c]`.
    pub clip_linf: Option<f64>,
    /// Append a constant feature with this value.
    pub bias: Option<f64>,
    /// Seed of the row shuffle (must fit in 32 bits, as NumPy's).
    pub shuffle_seed: u64,
    /// Fraction of rows held out for testing, in `[0, 1)`.
    pub test_fraction: f64,
}

/// The seed Iyengar et al.'s preprocessing scripts pass to `np.random.seed`.
pub const IYENGAR_SEED: u32 = 10_000_019;

impl Default for Preprocess {
    /// No feature changes, Iyengar's seed, 80/20 split.
    fn default() -> Self {
        Preprocess {
            normalize_rows: false,
            clip_row_norm: None,
            clip_linf: None,
            bias: None,
            shuffle_seed: IYENGAR_SEED as u64,
            test_fraction: 0.2,
        }
    }
}

impl Preprocess {
    /// Redberg et al.'s setting: unit-norm rows plus a bias feature of 1.
    pub fn redberg() -> Self {
        Preprocess {
            normalize_rows: true,
            bias: Some(1.0),
            ..Preprocess::default()
        }
    }

    /// Rejects out-of-range values with a message naming the field.
    pub fn validate(&self) -> Result<()> {
        let err = |m: String| Err(DataError::Invalid(m));
        for (name, v) in [
            ("clip_row_norm", self.clip_row_norm),
            ("clip_linf", self.clip_linf),
        ] {
            if let Some(v) = v.filter(|v| !(*v > 0.0 && v.is_finite())) {
                return err(format!("{name} = {v} must be > 0 and finite"));
            }
        }
        if let Some(b) = self.bias.filter(|b| !b.is_finite()) {
            return err(format!("bias = {b} must be finite"));
        }
        if !(0.0..1.0).contains(&self.test_fraction) {
            return err(format!(
                "test_fraction = {} must be in [0, 1)",
                self.test_fraction
            ));
        }
        if u32::try_from(self.shuffle_seed).is_err() {
            return err(format!(
                "shuffle_seed = {} must be below 2^32",
                self.shuffle_seed
            ));
        }
        Ok(())
    }

    /// Number of training rows for `n` examples: `⌊n·(1 − test_fraction)⌋`, as
    /// `int(n * 0.8)` in the reference scripts.
    pub fn train_rows(&self, n: usize) -> usize {
        ((n as f64) * (1.0 - self.test_fraction)).floor() as usize
    }

    /// Applies steps 1–4 (no shuffle) to a copy of `data`.
    pub fn transform(&self, data: &Dataset) -> Result<Dataset> {
        self.transform_owned(data.clone())
    }

    /// Applies steps 1–4 (no shuffle) in place, without copying `data` first.
    pub fn transform_owned(&self, data: Dataset) -> Result<Dataset> {
        self.validate()?;
        let mut out = data;
        let (normalize, linf, l2) = (self.normalize_rows, self.clip_linf, self.clip_row_norm);
        if normalize || linf.is_some() || l2.is_some() {
            out.x
                .map_rows_mut(|_, row| transform_row(row, normalize, linf, l2));
        }
        if let Some(b) = self.bias {
            out.x = out.x.with_bias_column(b);
        }
        Ok(out)
    }

    /// Transforms, shuffles and splits `data`.
    pub fn apply(&self, data: &Dataset) -> Result<Split> {
        self.apply_owned(data.clone())
    }

    /// Like [`Preprocess::apply`], consuming `data` (saves one copy of the features).
    pub fn apply_owned(&self, data: Dataset) -> Result<Split> {
        let transformed = self.transform_owned(data)?;
        let seed = u32::try_from(self.shuffle_seed).expect("validated");
        let order = NumpyLegacyRng::new(seed).permutation(transformed.len());
        let n_train = self.train_rows(order.len());
        Ok(Split {
            train: transformed.select(&order[..n_train]),
            test: transformed.select(&order[n_train..]),
        })
    }
}

fn l2(row: &[f64]) -> f64 {
    dp_core::features::dot(row, row).sqrt()
}

fn transform_row(row: &mut [f64], normalize: bool, linf: Option<f64>, clip: Option<f64>) {
    if normalize {
        let n = l2(row);
        if n > 0.0 {
            row.iter_mut().for_each(|v| *v /= n);
        }
    }
    if let Some(c) = linf {
        row.iter_mut().for_each(|v| *v = v.clamp(-c, c));
    }
    if let Some(bound) = clip {
        let n = l2(row);
        if n > bound {
            let s = bound / n;
            row.iter_mut().for_each(|v| *v *= s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dp_core::features::Csr;

    #[test]
    fn stratified_subsample_keeps_the_balance_and_order() {
        let n = 40;
        let d = Dataset {
            name: "t".into(),
            x: FeatureMatrix::dense((0..n).map(f64::from).collect(), n as usize, 1),
            y: (0..n)
                .map(|i| if i % 4 == 0 { 1.0 } else { -1.0 })
                .collect(),
            classes: None,
        };
        let s = d.stratified_subsample(20, 7).unwrap();
        assert_eq!(s.len(), 20);
        assert_eq!(s.y.iter().filter(|&&v| v > 0.0).count(), 5);
        let mut xs = [0.0; 20];
        for (i, v) in xs.iter_mut().enumerate() {
            *v = s.x.row(i).dot(&[1.0]);
        }
        assert!(xs.windows(2).all(|w| w[0] < w[1]), "original order kept");
        assert_eq!(s, d.stratified_subsample(20, 7).unwrap());
        assert_ne!(s, d.stratified_subsample(20, 8).unwrap());
        assert!(d.stratified_subsample(41, 7).is_err());
        assert!(d.stratified_subsample(0, 7).is_err());
    }

    fn toy(sparse: bool) -> Dataset {
        let rows = [
            [3.0, 4.0, 0.0],
            [0.0, 0.0, 0.0],
            [0.0, -0.5, 0.0],
            [10.0, 0.0, -10.0],
            [1.0, 1.0, 1.0],
        ];
        let x = if sparse {
            let (mut indptr, mut indices, mut values) = (vec![0], vec![], vec![]);
            for r in &rows {
                for (j, &v) in r.iter().enumerate() {
                    if v != 0.0 {
                        indices.push(j as u32);
                        values.push(v);
                    }
                }
                indptr.push(indices.len());
            }
            FeatureMatrix::Sparse(Csr {
                nrows: 5,
                ncols: 3,
                indptr,
                indices,
                values,
            })
        } else {
            FeatureMatrix::dense(rows.concat(), 5, 3)
        };
        Dataset {
            name: "toy".into(),
            x,
            y: vec![1.0, -1.0, 1.0, -1.0, 1.0],
            classes: None,
        }
    }

    #[test]
    fn row_bounds_hold_dense_and_sparse() {
        for sparse in [false, true] {
            let d = toy(sparse);
            let p = Preprocess {
                normalize_rows: true,
                ..Default::default()
            };
            let n = p.transform(&d).unwrap().x.row_norms();
            assert_eq!(n[1], 0.0, "zero rows stay zero");
            for (i, v) in n.iter().enumerate().filter(|(i, _)| *i != 1) {
                assert!((v - 1.0).abs() < 1e-12, "row {i}: {v}");
            }
            let p = Preprocess {
                clip_row_norm: Some(2.0),
                ..Default::default()
            };
            let n = p.transform(&d).unwrap().x.row_norms();
            assert!(
                (n[0] - 2.0).abs() < 1e-12 && (n[2] - 0.5).abs() < 1e-15,
                "{n:?}"
            );
            // Direction is kept: row 0 becomes (1.2, 1.6, 0).
            assert!((p.transform(&d).unwrap().x.row(0).dot(&[1.0, 0.0, 0.0]) - 1.2).abs() < 1e-12);
            let p = Preprocess {
                clip_linf: Some(0.25),
                clip_row_norm: Some(0.3),
                ..Default::default()
            };
            let t = p.transform(&d).unwrap();
            for i in 0..5 {
                let mut out = vec![0.0; 3];
                t.x.row(i).axpy(1.0, &mut out);
                assert!(out.iter().all(|v| v.abs() <= 0.25), "{out:?}");
                assert!(l2(&out) <= 0.3 + 1e-12);
            }
            // Unit rows + bias 1: every non-zero row has norm exactly √2.
            let t = Preprocess::redberg().transform(&d).unwrap();
            assert_eq!(t.x.ncols(), 4);
            assert!((t.x.row_norms()[0] - 2f64.sqrt()).abs() < 1e-12);
            assert_eq!(t.x.row_norms()[1], 1.0);
        }
    }

    #[test]
    fn split_is_a_seeded_partition() {
        let d = toy(false);
        let p = Preprocess {
            test_fraction: 0.4,
            ..Default::default()
        };
        let s = p.apply(&d).unwrap();
        assert_eq!((s.train.len(), s.test.len()), (3, 2));
        // Same seed, same split; the rows are a permutation of the input.
        assert_eq!(s, p.apply(&d).unwrap());
        let mut norms: Vec<f64> = s
            .train
            .x
            .row_norms()
            .into_iter()
            .chain(s.test.x.row_norms())
            .collect();
        let mut orig = d.x.row_norms();
        norms.sort_by(f64::total_cmp);
        orig.sort_by(f64::total_cmp);
        assert_eq!(norms, orig);
        // Labels travel with their rows: positive rows are exactly those with norm 5, 0.5, √3.
        for part in [&s.train, &s.test] {
            for (i, &y) in part.y.iter().enumerate() {
                let n = part.x.row(i).norm_sq().sqrt();
                let positive = [5.0, 0.5, 3f64.sqrt()]
                    .iter()
                    .any(|v| (v - n).abs() < 1e-12);
                assert_eq!(y > 0.0, positive);
            }
        }
        // The 80/20 rule is int(n * 0.8).
        assert_eq!(Preprocess::default().train_rows(45_222), 36_177);
        assert_eq!(Preprocess::default().train_rows(6_000), 4_800);
    }

    #[test]
    fn invalid_settings_are_rejected() {
        let d = toy(false);
        for p in [
            Preprocess {
                clip_row_norm: Some(0.0),
                ..Default::default()
            },
            Preprocess {
                clip_linf: Some(f64::NAN),
                ..Default::default()
            },
            Preprocess {
                test_fraction: 1.0,
                ..Default::default()
            },
            Preprocess {
                shuffle_seed: 1 << 32,
                ..Default::default()
            },
            Preprocess {
                bias: Some(f64::INFINITY),
                ..Default::default()
            },
        ] {
            assert!(p.apply(&d).is_err(), "{p:?}");
        }
        let json = r#"{"normalize_rows": true, "bias": 1.0}"#;
        let p: Preprocess = serde_json::from_str(json).unwrap();
        assert_eq!(p, Preprocess::redberg());
        assert!(serde_json::from_str::<Preprocess>(r#"{"normalise": true}"#).is_err());
    }

    #[test]
    fn one_vs_rest_relabels() {
        let mut d = toy(false);
        assert!(d.one_vs_rest(0).is_err());
        d.classes = Some(vec![0, 1, 2, 1, 0]);
        let o = d.one_vs_rest(1).unwrap();
        assert_eq!(o.y, vec![-1.0, 1.0, -1.0, 1.0, -1.0]);
        assert_eq!(o.n_classes(), 3);
        assert!((o.positive_fraction() - 0.4).abs() < 1e-15);
    }
}
