//! A labelled design matrix prepared once per dataset and shared by every learner run.

use crate::error::{DpError, Result};
use crate::features::{Csr, FeatureMatrix, Row};
use std::sync::{Arc, OnceLock};

/// Dense inputs at most this dense are copied to CSR by [`GlmData::new`].
pub const COMPACT_DENSITY: f64 = 0.25;

/// Largest dimension for which [`GlmData::gram`] is formed (`d²` memory, `d³/3` to factor).
pub const GRAM_MAX_D: usize = 512;

/// Features, ±1 labels and the per-row/per-column norms that clipping and preconditioning
/// need.
///
/// Prepared once per dataset because every Algorithm 1 solve and every DP-SGD run (one per
/// grid cell) needs the norms, and computing them costs a full pass over `X`. A dense `X`
/// with at most [`COMPACT_DENSITY`] non-zeros (Adult's one-hot rows: 15 of 105) is copied to
/// CSR here: the learners are bound by passes over `X`, and the copy holds exactly the same
/// values, so results differ from the dense path only by summation order.
#[derive(Clone, Debug)]
pub struct GlmData<'a> {
    x: Storage<'a>,
    y: &'a [f64],
    row_norms: Vec<f64>,
    max_row_norm: f64,
    col_sq_norms: Vec<f64>,
    // Shared with relabelled copies ([`GlmData::relabel`]): both depend on `X` only.
    gram: Arc<OnceLock<Option<Vec<f64>>>>,
    columns: Arc<OnceLock<Csr>>,
    /// Dense rows rounded to f32 and their norms, made on first use (DP-SGD's
    /// `feature_storage = "f32"`); used only when `f32_rows` is set.
    rows_f32: Arc<OnceLock<(Vec<f32>, Vec<f64>)>>,
    f32_rows: bool,
}

#[derive(Clone, Debug)]
enum Storage<'a> {
    Borrowed(&'a FeatureMatrix),
    Compact(Arc<FeatureMatrix>),
}

impl<'a> GlmData<'a> {
    /// Checks that `y` has one label in {−1, +1} per row and that `X` is finite.
    pub fn new(x: &'a FeatureMatrix, y: &'a [f64]) -> Result<Self> {
        Self::build(Storage::Borrowed(x), y)
    }

    /// [`GlmData::new`] for a matrix the data own, e.g. a per-hyperparameter clipped copy of
    /// the training rows (Iyengar et al. tune the clipping bound).
    pub fn from_owned(x: FeatureMatrix, y: &'a [f64]) -> Result<Self> {
        Self::build(Storage::Compact(Arc::new(x)), y)
    }

    /// The same rows with other labels (one-vs-all: one binary problem per class), sharing
    /// the features, their norms and the cached Gram matrix and column view.
    pub fn relabel<'b>(&self, y: &'b [f64]) -> Result<GlmData<'b>>
    where
        'a: 'b,
    {
        check_labels(y, self.n())?;
        Ok(GlmData {
            x: match &self.x {
                Storage::Borrowed(x) => Storage::Borrowed(x),
                Storage::Compact(x) => Storage::Compact(x.clone()),
            },
            y,
            row_norms: self.row_norms.clone(),
            max_row_norm: self.max_row_norm,
            col_sq_norms: self.col_sq_norms.clone(),
            gram: self.gram.clone(),
            columns: self.columns.clone(),
            rows_f32: self.rows_f32.clone(),
            f32_rows: self.f32_rows,
        })
    }

    fn build(storage: Storage<'a>, y: &'a [f64]) -> Result<Self> {
        let x = match &storage {
            Storage::Borrowed(x) => *x,
            Storage::Compact(x) => x.as_ref(),
        };
        check_labels(y, x.nrows())?;
        let row_norms = x.row_norms();
        if row_norms.iter().any(|r| !r.is_finite()) {
            return Err(DpError::Invalid(
                "feature matrix has non-finite values".into(),
            ));
        }
        let max_row_norm = row_norms.iter().copied().fold(0.0, f64::max);
        let mut col_sq_norms = vec![0.0; x.ncols()];
        for i in 0..x.nrows() {
            add_squares(x.row(i), &mut col_sq_norms);
        }
        let cells = (x.nrows() * x.ncols()).max(1) as f64;
        let x = match x {
            FeatureMatrix::Dense { .. } if (x.nnz() as f64) <= COMPACT_DENSITY * cells => {
                Storage::Compact(Arc::new(FeatureMatrix::Sparse(to_csr(x))))
            }
            _ => storage,
        };
        Ok(GlmData {
            x,
            y,
            row_norms,
            max_row_norm,
            col_sq_norms,
            gram: Default::default(),
            columns: Default::default(),
            rows_f32: Default::default(),
            f32_rows: false,
        })
    }

    /// The features in the storage the learners use (possibly a CSR copy of the input).
    pub fn x(&self) -> &FeatureMatrix {
        match &self.x {
            Storage::Borrowed(x) => x,
            Storage::Compact(x) => x.as_ref(),
        }
    }

    /// The labels.
    pub fn y(&self) -> &'a [f64] {
        self.y
    }

    /// The same data, with DP-SGD streaming dense rows from an `f32` copy (half the memory
    /// traffic; arithmetic stays `f64`). The copy is made once and shared by clones. Sparse
    /// data are unaffected.
    pub fn with_f32_rows(&self) -> GlmData<'a> {
        let mut c = self.clone();
        c.f32_rows = true;
        c
    }

    /// The `f32` rows and their norms (computed from the `f32` values, so that clipping bounds
    /// the gradients actually used), when asked for by [`GlmData::with_f32_rows`] and dense.
    pub fn dense_f32(&self) -> Option<(&[f32], &[f64])> {
        if !self.f32_rows {
            return None;
        }
        let FeatureMatrix::Dense { data, ncols, .. } = self.x() else {
            return None;
        };
        let (rows, norms) = self.rows_f32.get_or_init(|| {
            let rows: Vec<f32> = data.iter().map(|&v| v as f32).collect();
            let norms = rows
                .chunks_exact((*ncols).max(1))
                .map(|r| {
                    r.iter()
                        .map(|&v| f64::from(v) * f64::from(v))
                        .sum::<f64>()
                        .sqrt()
                })
                .collect();
            (rows, norms)
        });
        Some((rows, norms))
    }

    /// `‖xᵢ‖₂` for every row.
    pub fn row_norms(&self) -> &[f64] {
        &self.row_norms
    }

    /// `maxᵢ ‖xᵢ‖₂`.
    pub fn max_row_norm(&self) -> f64 {
        self.max_row_norm
    }

    /// `Σᵢ xᵢⱼ²` for every column `j`.
    pub fn col_sq_norms(&self) -> &[f64] {
        &self.col_sq_norms
    }

    /// `XᵀX` (row-major `d × d`), formed on first use and cached; `None` when
    /// `d > GRAM_MAX_D`. Algorithm 1 builds its L-BFGS preconditioner from it.
    pub fn gram(&self) -> Option<&[f64]> {
        self.gram
            .get_or_init(|| (self.d() <= GRAM_MAX_D).then(|| gram(self.x())))
            .as_deref()
    }

    /// The columns of `X` as the rows of a CSR matrix (`Xᵀ`, non-zeros only), built on first
    /// use and cached: full-gradient learners form `Xᵀv` as one gather per column and update
    /// margins one column at a time.
    pub fn columns(&self) -> &Csr {
        self.columns.get_or_init(|| transpose(self.x()))
    }

    /// Number of examples.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Number of features (including any bias column).
    pub fn d(&self) -> usize {
        self.col_sq_norms.len()
    }
}

/// One label in {−1, +1} per row.
fn check_labels(y: &[f64], rows: usize) -> Result<()> {
    if y.len() != rows {
        return Err(DpError::Invalid(format!(
            "{} labels for {rows} rows",
            y.len()
        )));
    }
    match y.iter().find(|&&v| v != 1.0 && v != -1.0) {
        Some(bad) => Err(DpError::Invalid(format!(
            "labels must be -1 or +1, found {bad}"
        ))),
        None => Ok(()),
    }
}

fn add_squares(row: Row<'_>, out: &mut [f64]) {
    match row {
        Row::Dense(v) => out.iter_mut().zip(v).for_each(|(o, x)| *o += x * x),
        Row::Sparse(idx, val) => {
            for (&j, &x) in idx.iter().zip(val) {
                out[j as usize] += x * x;
            }
        }
    }
}

/// `XᵀX`, row-major.
fn gram(x: &FeatureMatrix) -> Vec<f64> {
    let d = x.ncols();
    let mut g = vec![0.0; d * d];
    match x {
        FeatureMatrix::Dense { .. } => {
            let xm = x.as_faer().expect("dense");
            let gm = faer::MatMut::from_row_major_slice_mut(&mut g, d, d);
            faer::linalg::matmul::matmul(
                gm,
                faer::Accum::Replace,
                xm.transpose(),
                xm,
                1.0,
                faer::Par::Seq,
            );
        }
        FeatureMatrix::Sparse(c) => {
            // Lower triangle from per-row outer products (column indices are sorted), then mirror.
            for i in 0..c.nrows {
                let (idx, val) = (
                    &c.indices[c.indptr[i]..c.indptr[i + 1]],
                    &c.values[c.indptr[i]..c.indptr[i + 1]],
                );
                for (a, (&j, &v)) in idx.iter().zip(val).enumerate() {
                    let row = &mut g[j as usize * d..(j as usize + 1) * d];
                    for (&k, &w) in idx[..=a].iter().zip(&val[..=a]) {
                        row[k as usize] += v * w;
                    }
                }
            }
            for j in 0..d {
                for k in 0..j {
                    g[k * d + j] = g[j * d + k];
                }
            }
        }
    }
    g
}

/// `Xᵀ` as CSR (row j = column j of X, row indices ascending), non-zeros only.
fn transpose(x: &FeatureMatrix) -> Csr {
    let (n, d) = (x.nrows(), x.ncols());
    let mut count = vec![0usize; d + 1];
    let each = |f: &mut dyn FnMut(usize, u32, f64)| {
        for i in 0..n {
            match x.row(i) {
                Row::Dense(v) => v
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0.0)
                    .for_each(|(j, &v)| f(i, j as u32, v)),
                Row::Sparse(idx, val) => idx
                    .iter()
                    .zip(val)
                    .filter(|(_, v)| **v != 0.0)
                    .for_each(|(&j, &v)| f(i, j, v)),
            }
        }
    };
    each(&mut |_, j, _| count[j as usize + 1] += 1);
    for j in 0..d {
        count[j + 1] += count[j];
    }
    let indptr = count.clone();
    let mut next = count;
    let mut indices = vec![0u32; indptr[d]];
    let mut values = vec![0.0; indptr[d]];
    each(&mut |i, j, v| {
        let at = &mut next[j as usize];
        indices[*at] = i as u32;
        values[*at] = v;
        *at += 1;
    });
    Csr {
        nrows: d,
        ncols: n,
        indptr,
        indices,
        values,
    }
}

/// CSR copy of the non-zeros of a matrix, row order and values unchanged.
fn to_csr(x: &FeatureMatrix) -> Csr {
    let (n, d) = (x.nrows(), x.ncols());
    let nnz = x.nnz();
    let mut csr = Csr {
        nrows: n,
        ncols: d,
        indptr: Vec::with_capacity(n + 1),
        indices: Vec::with_capacity(nnz),
        values: Vec::with_capacity(nnz),
    };
    csr.indptr.push(0);
    for i in 0..n {
        match x.row(i) {
            Row::Dense(v) => {
                for (j, &val) in v.iter().enumerate() {
                    if val != 0.0 {
                        csr.indices.push(j as u32);
                        csr.values.push(val);
                    }
                }
            }
            Row::Sparse(idx, val) => {
                csr.indices.extend_from_slice(idx);
                csr.values.extend_from_slice(val);
            }
        }
        csr.indptr.push(csr.indices.len());
    }
    csr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_labels_and_shapes() {
        let x = FeatureMatrix::dense(vec![3.0, 4.0, 0.0, 1.0], 2, 2);
        let d = GlmData::new(&x, &[1.0, -1.0]).unwrap();
        assert_eq!(d.row_norms(), &[5.0, 1.0]);
        assert_eq!(d.max_row_norm(), 5.0);
        assert_eq!(d.col_sq_norms(), &[9.0, 17.0]);
        assert_eq!((d.n(), d.d()), (2, 2));
        assert!(matches!(d.x(), FeatureMatrix::Dense { .. }));
        assert!(GlmData::new(&x, &[1.0]).is_err());
        assert!(GlmData::new(&x, &[1.0, 0.0]).is_err());
        let bad = FeatureMatrix::dense(vec![f64::NAN, 0.0, 0.0, 1.0], 2, 2);
        assert!(GlmData::new(&bad, &[1.0, 1.0]).is_err());
    }

    #[test]
    fn sparse_dense_input_is_compacted_without_changing_values() {
        let mut v = vec![0.0; 5 * 8];
        v[3] = 1.5;
        v[8 + 7] = -2.0;
        v[4 * 8] = 0.25;
        let x = FeatureMatrix::dense(v, 5, 8);
        let y = [1.0, -1.0, 1.0, 1.0, -1.0];
        let d = GlmData::new(&x, &y).unwrap();
        assert!(matches!(d.x(), FeatureMatrix::Sparse(_)));
        let theta: Vec<f64> = (0..8).map(|j| j as f64 - 2.5).collect();
        for i in 0..5 {
            assert_eq!(d.x().row(i).dot(&theta), x.row(i).dot(&theta));
        }
        assert_eq!(d.x().row_norms(), x.row_norms());
        assert_eq!(d.d(), 8);
    }

    #[test]
    fn columns_are_the_transpose_for_both_storages() {
        let v: Vec<f64> = (0..7 * 5)
            .map(|k| if k % 4 == 1 { (k as f64).cos() } else { 0.0 })
            .collect();
        let dense = FeatureMatrix::dense(v.clone(), 7, 5);
        let csr = FeatureMatrix::Sparse(to_csr(&dense));
        let y = [1.0; 7];
        for x in [&dense, &csr] {
            let d = GlmData::new(x, &y).unwrap();
            let t = d.columns();
            assert_eq!((t.nrows, t.ncols), (5, 7));
            let mut seen = 0;
            for j in 0..5 {
                for p in t.indptr[j]..t.indptr[j + 1] {
                    let i = t.indices[p] as usize;
                    assert_eq!(t.values[p], v[i * 5 + j]);
                    seen += 1;
                }
            }
            assert_eq!(seen, v.iter().filter(|x| **x != 0.0).count());
        }
    }

    #[test]
    fn relabel_shares_the_features_and_checks_the_labels() {
        let v: Vec<f64> = (0..6 * 4)
            .map(|k| if k % 5 == 0 { 1.5 } else { 0.0 })
            .collect();
        let x = FeatureMatrix::dense(v, 6, 4);
        let y = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0];
        let d = GlmData::new(&x, &y).unwrap();
        let cols = d.columns() as *const Csr;
        let other = [-1.0; 6];
        let r = d.relabel(&other).unwrap();
        assert_eq!(r.y(), &other);
        assert_eq!(r.row_norms(), d.row_norms());
        assert!(
            std::ptr::eq(r.x(), d.x()),
            "the features are shared, not copied"
        );
        assert!(
            std::ptr::eq(r.columns(), cols),
            "the cached column view is shared"
        );
        assert!(d.relabel(&[1.0; 5]).is_err(), "one label per row");
        assert!(d.relabel(&[0.0; 6]).is_err(), "labels are ±1");
    }

    #[test]
    fn gram_matches_the_definition_for_both_storages() {
        let v: Vec<f64> = (0..6 * 4)
            .map(|k| {
                if k % 3 == 0 {
                    0.0
                } else {
                    (k as f64 * 0.7).sin()
                }
            })
            .collect();
        let dense = FeatureMatrix::dense(v.clone(), 6, 4);
        let y = [1.0; 6];
        let gd = GlmData::new(&dense, &y).unwrap();
        assert!(matches!(gd.x(), FeatureMatrix::Dense { .. }));
        let csr = FeatureMatrix::Sparse(to_csr(&dense));
        let gs = GlmData::new(&csr, &y).unwrap();
        for (a, b) in [(gd.gram().unwrap(), gs.gram().unwrap())] {
            for j in 0..4 {
                for k in 0..4 {
                    let expect: f64 = (0..6).map(|i| v[i * 4 + j] * v[i * 4 + k]).sum();
                    assert!((a[j * 4 + k] - expect).abs() < 1e-12);
                    assert!((b[j * 4 + k] - expect).abs() < 1e-12);
                }
            }
        }
        let wide = FeatureMatrix::dense(vec![1.0; GRAM_MAX_D + 1], 1, GRAM_MAX_D + 1);
        assert!(GlmData::new(&wide, &[1.0]).unwrap().gram().is_none());
    }
}
