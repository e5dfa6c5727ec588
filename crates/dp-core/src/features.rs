//! The one feature-matrix type learners and datasets share: dense (row-major, viewed as a
//! faer matrix) or sparse (CSR).
//!
//! Row-major storage is deliberate: DP-SGD and per-example clipping touch one row at a time,
//! while full-batch products go through faer's row-major views at full speed.

use faer::{MatRef, Par};

/// A compressed-sparse-row matrix with `f64` values.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Row pointers, length `nrows + 1`.
    pub indptr: Vec<usize>,
    /// Column index of each stored value, sorted within a row.
    pub indices: Vec<u32>,
    /// Stored values.
    pub values: Vec<f64>,
}

/// A borrowed row: dense values or sparse (indices, values).
#[derive(Clone, Copy, Debug)]
pub enum Row<'a> {
    /// All `ncols` values.
    Dense(&'a [f64]),
    /// Column indices and their values.
    Sparse(&'a [u32], &'a [f64]),
}

impl Row<'_> {
    /// xᵀθ.
    #[inline]
    pub fn dot(&self, theta: &[f64]) -> f64 {
        match *self {
            Row::Dense(x) => dot(x, theta),
            Row::Sparse(idx, val) => idx
                .iter()
                .zip(val)
                .map(|(&j, &v)| v * theta[j as usize])
                .sum(),
        }
    }

    /// out += a·x.
    #[inline]
    pub fn axpy(&self, a: f64, out: &mut [f64]) {
        match *self {
            Row::Dense(x) => {
                for (o, &v) in out.iter_mut().zip(x) {
                    *o += a * v;
                }
            }
            Row::Sparse(idx, val) => {
                for (&j, &v) in idx.iter().zip(val) {
                    out[j as usize] += a * v;
                }
            }
        }
    }

    /// ‖x‖₂².
    #[inline]
    pub fn norm_sq(&self) -> f64 {
        match *self {
            Row::Dense(x) => dot(x, x),
            Row::Sparse(_, val) => dot(val, val),
        }
    }
}

/// Dot product written so the compiler vectorises it (four independent accumulators).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let chunks = n / 4;
    for c in 0..chunks {
        let i = 4 * c;
        acc[0] += a[i] * b[i];
        acc[1] += a[i + 1] * b[i + 1];
        acc[2] += a[i + 2] * b[i + 2];
        acc[3] += a[i + 3] * b[i + 3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for i in 4 * chunks..n {
        s += a[i] * b[i];
    }
    s
}

/// `Σₖ values[k]·v[indices[k]]` with `L` independent partial sums (`L` a power of two) so
/// that the gathers of different lanes overlap; lanes are reduced pairwise, (a₀ + a₁) +
/// (a₂ + a₃), then the tail is added. Different `L` sum in different orders.
#[inline]
pub fn gather_dot<const L: usize>(indices: &[u32], values: &[f64], v: &[f64]) -> f64 {
    let mut acc = [0.0f64; L];
    let (ic, vc) = (indices.chunks_exact(L), values.chunks_exact(L));
    let tail: f64 = ic
        .remainder()
        .iter()
        .zip(vc.remainder())
        .map(|(&i, &x)| x * v[i as usize])
        .sum();
    for (i, x) in ic.zip(vc) {
        for k in 0..L {
            acc[k] += x[k] * v[i[k] as usize];
        }
    }
    let mut width = L;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            acc[k] = acc[2 * k] + acc[2 * k + 1];
        }
    }
    acc[0] + tail
}

/// Dense (row-major) or sparse (CSR) features, `n × d`.
#[derive(Clone, Debug, PartialEq)]
pub enum FeatureMatrix {
    /// Row-major dense storage: entry (i, j) at `data[i * ncols + j]`.
    Dense {
        /// Row-major values.
        data: Vec<f64>,
        /// Number of rows.
        nrows: usize,
        /// Number of columns.
        ncols: usize,
    },
    /// Sparse rows.
    Sparse(Csr),
}

impl FeatureMatrix {
    /// Dense matrix from row-major values; panics if the length does not match.
    pub fn dense(data: Vec<f64>, nrows: usize, ncols: usize) -> Self {
        assert_eq!(
            data.len(),
            nrows * ncols,
            "dense data length must be nrows * ncols"
        );
        FeatureMatrix::Dense { data, nrows, ncols }
    }

    /// `nrows` rows at the origin, stored sparse (no entries): the rows a white-box auditor
    /// places where every loss gradient is 0.
    pub fn origin(nrows: usize, ncols: usize) -> Self {
        FeatureMatrix::Sparse(Csr {
            nrows,
            ncols,
            indptr: vec![0; nrows + 1],
            indices: Vec::new(),
            values: Vec::new(),
        })
    }

    /// Number of rows (examples).
    pub fn nrows(&self) -> usize {
        match self {
            FeatureMatrix::Dense { nrows, .. } => *nrows,
            FeatureMatrix::Sparse(c) => c.nrows,
        }
    }

    /// Number of columns (features).
    pub fn ncols(&self) -> usize {
        match self {
            FeatureMatrix::Dense { ncols, .. } => *ncols,
            FeatureMatrix::Sparse(c) => c.ncols,
        }
    }

    /// Number of stored non-zero values.
    pub fn nnz(&self) -> usize {
        match self {
            FeatureMatrix::Dense { data, .. } => data.iter().filter(|v| **v != 0.0).count(),
            FeatureMatrix::Sparse(c) => c.values.iter().filter(|v| **v != 0.0).count(),
        }
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> Row<'_> {
        match self {
            FeatureMatrix::Dense { data, ncols, .. } => {
                Row::Dense(&data[i * ncols..(i + 1) * ncols])
            }
            FeatureMatrix::Sparse(c) => {
                let (s, e) = (c.indptr[i], c.indptr[i + 1]);
                Row::Sparse(&c.indices[s..e], &c.values[s..e])
            }
        }
    }

    /// Asks the cache for the start of row `i` ahead of its use: a hint, with no effect on
    /// results (a no-op off x86-64).
    #[inline]
    pub fn prefetch_row(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let (a, b) = match self {
                FeatureMatrix::Dense { data, ncols, .. } => (data[i * ncols..].as_ptr(), None),
                FeatureMatrix::Sparse(c) => {
                    let s = c.indptr[i];
                    (c.values[s..].as_ptr(), Some(c.indices[s..].as_ptr()))
                }
            };
            // SAFETY: SSE is baseline on x86-64, and a prefetch never dereferences: it is a
            // hint that cannot fault, and both pointers are in bounds anyway.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(a.cast());
                if let Some(b) = b {
                    _mm_prefetch::<_MM_HINT_T0>(b.cast());
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// A faer view of dense data (None for sparse).
    pub fn as_faer(&self) -> Option<MatRef<'_, f64>> {
        match self {
            FeatureMatrix::Dense { data, nrows, ncols } => {
                Some(MatRef::from_row_major_slice(data, *nrows, *ncols))
            }
            FeatureMatrix::Sparse(_) => None,
        }
    }

    /// out = Xθ.
    pub fn matvec(&self, theta: &[f64], out: &mut [f64]) {
        assert_eq!(theta.len(), self.ncols());
        assert_eq!(out.len(), self.nrows());
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.row(i).dot(theta);
        }
    }

    /// out = Xᵀv.
    pub fn t_matvec(&self, v: &[f64], out: &mut [f64]) {
        assert_eq!(v.len(), self.nrows());
        assert_eq!(out.len(), self.ncols());
        out.iter_mut().for_each(|o| *o = 0.0);
        match self {
            FeatureMatrix::Dense { .. } => {
                let x = self.as_faer().expect("dense");
                let vv = faer::ColRef::from_slice(v);
                let o = faer::ColMut::from_slice_mut(out);
                faer::linalg::matmul::matmul(
                    o.as_mat_mut(),
                    faer::Accum::Replace,
                    x.transpose(),
                    vv.as_mat(),
                    1.0,
                    Par::Seq,
                );
            }
            FeatureMatrix::Sparse(_) => {
                for (i, &vi) in v.iter().enumerate() {
                    if vi != 0.0 {
                        self.row(i).axpy(vi, out);
                    }
                }
            }
        }
    }

    /// ‖xᵢ‖₂ for every row.
    pub fn row_norms(&self) -> Vec<f64> {
        (0..self.nrows())
            .map(|i| self.row(i).norm_sq().sqrt())
            .collect()
    }

    /// Largest row norm.
    pub fn max_row_norm(&self) -> f64 {
        self.row_norms().into_iter().fold(0.0, f64::max)
    }

    /// A new matrix with the given rows, in the given order.
    pub fn select_rows(&self, rows: &[usize]) -> FeatureMatrix {
        match self {
            FeatureMatrix::Dense { data, ncols, .. } => {
                let mut out = Vec::with_capacity(rows.len() * ncols);
                for &i in rows {
                    out.extend_from_slice(&data[i * ncols..(i + 1) * ncols]);
                }
                FeatureMatrix::dense(out, rows.len(), *ncols)
            }
            FeatureMatrix::Sparse(c) => {
                let mut indptr = Vec::with_capacity(rows.len() + 1);
                indptr.push(0);
                let (mut indices, mut values) = (Vec::new(), Vec::new());
                for &i in rows {
                    let (s, e) = (c.indptr[i], c.indptr[i + 1]);
                    indices.extend_from_slice(&c.indices[s..e]);
                    values.extend_from_slice(&c.values[s..e]);
                    indptr.push(indices.len());
                }
                FeatureMatrix::Sparse(Csr {
                    nrows: rows.len(),
                    ncols: c.ncols,
                    indptr,
                    indices,
                    values,
                })
            }
        }
    }

    /// Applies `f(row_index, values)` to every row's stored values in place (e.g. scaling).
    pub fn map_rows_mut(&mut self, mut f: impl FnMut(usize, &mut [f64])) {
        match self {
            FeatureMatrix::Dense { data, ncols, .. } => {
                for (i, row) in data.chunks_mut(*ncols).enumerate() {
                    f(i, row);
                }
            }
            FeatureMatrix::Sparse(c) => {
                for i in 0..c.nrows {
                    let (s, e) = (c.indptr[i], c.indptr[i + 1]);
                    f(i, &mut c.values[s..e]);
                }
            }
        }
    }

    /// A copy with one more column, zero in every row, and, when `row` is `Some(v)`, one more
    /// row that is `v` in that column and zero elsewhere: the white-box auditor's coordinate,
    /// which no data row touches, and its Dirac canary.
    pub fn with_dirac_column(&self, row: Option<f64>) -> FeatureMatrix {
        match self {
            FeatureMatrix::Dense { data, nrows, ncols } => {
                let extra = usize::from(row.is_some());
                let mut out = Vec::with_capacity((nrows + extra) * (ncols + 1));
                for i in 0..*nrows {
                    out.extend_from_slice(&data[i * ncols..(i + 1) * ncols]);
                    out.push(0.0);
                }
                if let Some(v) = row {
                    out.extend(std::iter::repeat_n(0.0, *ncols));
                    out.push(v);
                }
                FeatureMatrix::dense(out, nrows + extra, ncols + 1)
            }
            FeatureMatrix::Sparse(c) => {
                let mut out = Csr {
                    ncols: c.ncols + 1,
                    ..c.clone()
                };
                if let Some(v) = row {
                    out.nrows += 1;
                    out.indices.push(c.ncols as u32);
                    out.values.push(v);
                    out.indptr.push(out.indices.len());
                }
                FeatureMatrix::Sparse(out)
            }
        }
    }

    /// A copy with a constant column of `value` appended (the bias feature).
    pub fn with_bias_column(&self, value: f64) -> FeatureMatrix {
        match self {
            FeatureMatrix::Dense { data, nrows, ncols } => {
                let mut out = Vec::with_capacity(nrows * (ncols + 1));
                for row in data.chunks(*ncols) {
                    out.extend_from_slice(row);
                    out.push(value);
                }
                FeatureMatrix::dense(out, *nrows, ncols + 1)
            }
            FeatureMatrix::Sparse(c) => {
                let mut indptr = Vec::with_capacity(c.nrows + 1);
                indptr.push(0);
                let (mut indices, mut values) = (Vec::new(), Vec::new());
                for i in 0..c.nrows {
                    let (s, e) = (c.indptr[i], c.indptr[i + 1]);
                    indices.extend_from_slice(&c.indices[s..e]);
                    values.extend_from_slice(&c.values[s..e]);
                    indices.push(c.ncols as u32);
                    values.push(value);
                    indptr.push(indices.len());
                }
                FeatureMatrix::Sparse(Csr {
                    nrows: c.nrows,
                    ncols: c.ncols + 1,
                    indptr,
                    indices,
                    values,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_dot_sums_its_lanes_pairwise_then_the_tail() {
        let v: Vec<f64> = (0..9).map(|k| 0.1 + (k as f64).sin()).collect();
        let idx = [8u32, 0, 3, 5, 1, 7, 2];
        let val = [1.5, -0.25, 3.0, 1e-3, 2.0, -7.0, 0.5];
        let t = |k: usize| val[k] * v[idx[k] as usize];
        let two = (t(0) + t(2) + t(4)) + (t(1) + t(3) + t(5));
        assert_eq!(gather_dot::<2>(&idx, &val, &v), two + t(6));
        let four = (t(0) + t(1)) + (t(2) + t(3));
        assert_eq!(gather_dot::<4>(&idx, &val, &v), four + (t(4) + t(5) + t(6)));
        let exact: f64 = (0..7).map(t).sum();
        assert!((gather_dot::<1>(&idx, &val, &v) - exact).abs() < 1e-12);
    }

    #[test]
    fn a_dirac_column_is_zero_but_in_its_own_row_dense_or_sparse() {
        let (dense, sparse) = both();
        for m in [&dense, &sparse] {
            let out = m.with_dirac_column(Some(1.5));
            assert_eq!((out.nrows(), out.ncols()), (3, 4));
            let (theta, mut xt) = ([1.0, 2.0, 3.0, 10.0], [0.0; 3]);
            out.matvec(&theta, &mut xt);
            let mut base = [0.0; 2];
            m.matvec(&theta[..3], &mut base);
            assert_eq!(xt, [base[0], base[1], 15.0]);
            let plain = m.with_dirac_column(None);
            assert_eq!((plain.nrows(), plain.ncols()), (2, 4));
        }
    }

    fn both() -> (FeatureMatrix, FeatureMatrix) {
        let dense = FeatureMatrix::dense(vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0], 2, 3);
        let sparse = FeatureMatrix::Sparse(Csr {
            nrows: 2,
            ncols: 3,
            indptr: vec![0, 2, 3],
            indices: vec![0, 2, 1],
            values: vec![1.0, 2.0, 3.0],
        });
        (dense, sparse)
    }

    #[test]
    fn dense_and_sparse_agree() {
        let (d, s) = both();
        let theta = [1.0, -1.0, 0.5];
        let (mut a, mut b) = (vec![0.0; 2], vec![0.0; 2]);
        d.matvec(&theta, &mut a);
        s.matvec(&theta, &mut b);
        assert_eq!(a, vec![2.0, -3.0]);
        assert_eq!(a, b);
        let v = [2.0, 1.0];
        let (mut a, mut b) = (vec![0.0; 3], vec![0.0; 3]);
        d.t_matvec(&v, &mut a);
        s.t_matvec(&v, &mut b);
        assert_eq!(a, vec![2.0, 3.0, 4.0]);
        assert_eq!(a, b);
        assert_eq!(d.row_norms(), s.row_norms());
        assert_eq!(d.nnz(), s.nnz());
        let (db, sb) = (d.with_bias_column(1.0), s.with_bias_column(1.0));
        assert_eq!(
            db.select_rows(&[1]).row_norms(),
            sb.select_rows(&[1]).row_norms()
        );
        assert_eq!(db.ncols(), 4);
    }
}
