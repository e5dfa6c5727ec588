//! SVMlight-style sparse rows: `<head> <index>:<value> …`, one-based indices, `#` comments.
//!
//! The head token is the label in SVMlight files and the document id in RCV1's LYRL2004
//! vector files, so the line parser hands it back untouched.

use dp_core::features::{Csr, FeatureMatrix};

use super::utf8;
use crate::dataset::Dataset;
use crate::error::{DataError, Result};

/// One parsed line: the head token and the (zero-based index, value) pairs, sorted by index.
pub struct SparseLine<'a> {
    /// First token (label or document id).
    pub head: &'a str,
    /// Zero-based column indices, strictly increasing.
    pub indices: Vec<u32>,
    /// Values aligned with `indices`.
    pub values: Vec<f64>,
}

/// Parses one line; `Ok(None)` for blank or comment-only lines. Indices must be in
/// `1..=n_features`; duplicates are an error.
pub fn parse_line<'a>(
    line: &'a str,
    n_features: usize,
    file: &str,
    lineno: usize,
) -> Result<Option<SparseLine<'a>>> {
    let line = line.split('#').next().unwrap_or("");
    let mut toks = line.split_ascii_whitespace();
    let Some(head) = toks.next() else {
        return Ok(None);
    };
    let mut pairs = Vec::new();
    for tok in toks {
        let bad = || DataError::at_line(file, lineno, format!("`{tok}` is not index:value"));
        let (i, v) = tok.split_once(':').ok_or_else(bad)?;
        if i == "qid" {
            continue;
        }
        let i: usize = i.parse().map_err(|_| bad())?;
        let v: f64 = v
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(bad)?;
        if i == 0 || i > n_features {
            return Err(DataError::at_line(
                file,
                lineno,
                format!("index {i} outside 1..={n_features}"),
            ));
        }
        pairs.push(((i - 1) as u32, v));
    }
    pairs.sort_unstable_by_key(|p| p.0);
    if pairs.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(DataError::at_line(file, lineno, "duplicate feature index"));
    }
    let (indices, values) = pairs.into_iter().unzip();
    Ok(Some(SparseLine {
        head,
        indices,
        values,
    }))
}

/// Accumulates rows into a CSR matrix.
pub struct CsrBuilder {
    ncols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl CsrBuilder {
    /// An empty matrix with `ncols` columns.
    pub fn new(ncols: usize) -> Self {
        CsrBuilder {
            ncols,
            indptr: vec![0],
            indices: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Appends a row (indices sorted, below `ncols`).
    pub fn push(&mut self, indices: &[u32], values: &[f64]) {
        debug_assert!(indices.iter().all(|&j| (j as usize) < self.ncols));
        self.indices.extend_from_slice(indices);
        self.values.extend_from_slice(values);
        self.indptr.push(self.indices.len());
    }

    /// The finished matrix.
    pub fn finish(self) -> FeatureMatrix {
        let nrows = self.indptr.len() - 1;
        FeatureMatrix::Sparse(Csr {
            nrows,
            ncols: self.ncols,
            indptr: self.indptr,
            indices: self.indices,
            values: self.values,
        })
    }
}

/// A whole SVMlight file with numeric labels (`> 0` → +1, otherwise −1).
pub fn parse(bytes: &[u8], file: &str, n_features: usize) -> Result<Dataset> {
    let mut b = CsrBuilder::new(n_features);
    let mut y = Vec::new();
    for (i, line) in utf8(bytes, file)?.lines().enumerate() {
        if let Some(l) = parse_line(line, n_features, file, i + 1)? {
            let label: f64 = l
                .head
                .parse()
                .map_err(|_| DataError::at_line(file, i + 1, "bad label"))?;
            y.push(if label > 0.0 { 1.0 } else { -1.0 });
            b.push(&l.indices, &l.values);
        }
    }
    Ok(Dataset {
        name: file.to_string(),
        x: b.finish(),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sorted_zero_based_rows() {
        let text = "# header comment\n+1 3:0.5 1:2 # trailing\n-1 qid:3 2:1e-3\n\n0 \n";
        let d = parse(text.as_bytes(), "t.svm", 3).unwrap();
        assert_eq!(d.y, vec![1.0, -1.0, -1.0]);
        let FeatureMatrix::Sparse(c) = &d.x else {
            panic!("sparse expected")
        };
        assert_eq!(c.indptr, vec![0, 2, 3, 3]);
        assert_eq!(c.indices, vec![0, 2, 1]);
        assert_eq!(c.values, vec![2.0, 0.5, 1e-3]);
    }

    #[test]
    fn rejects_bad_indices() {
        for bad in ["1 0:1\n", "1 4:1\n", "1 2:1 2:3\n", "1 2=1\n", "1 2:nan\n"] {
            assert!(parse(bad.as_bytes(), "t", 3).is_err(), "{bad}");
        }
    }
}
