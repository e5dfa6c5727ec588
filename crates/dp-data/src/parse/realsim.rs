//! LIBSVM real-sim (`real-sim.bz2`, SVMlight format) → 72,309 × 20,958 sparse, labels ±1.
//!
//! Iyengar et al.'s `datasets/preprocess/realsim.py` reads the file (`utils_sparse.read_matrix`:
//! label `int(tok[0])`, one-based `index:value` pairs), builds a CSR matrix, calls
//! `np.random.seed(10000019)`, shuffles a row index and reorders matrix and labels with it.
//! Its output has a bug: it saves the shuffled matrix's `indices` and `indptr` but the value
//! array read from the file *before* the shuffle. Their row `i` (document `perm[i]`) therefore
//! carries its own columns with values taken, in order, from the file-order value stream at
//! the offset where row `i` starts. Under the scipy they pin (0.19, `requirements.txt`),
//! `csr[index, :]` is a sparse product `P · csr`, which lists each row's columns in
//! *descending* order and drops explicit zeros; the values land in that order. Labels are
//! shuffled correctly.
//!
//! - [`Values::File`] (dataset `real-sim`) keeps every document's own values, in file order;
//!   [`crate::Preprocess`]'s default seed-10000019 shuffle gives their row order and labels.
//! - [`Values::IyengarScript`] (dataset `real-sim-iyengar`) reproduces the saved arrays: rows
//!   are kept in file order with the values their shuffled position received, so the same
//!   default shuffle yields exactly the matrix their experiments loaded.

use serde::Serialize;

use super::svmlight::{CsrBuilder, parse_line};
use super::utf8;
use crate::dataset::Dataset;
use crate::error::{DataError, Result};
use crate::numpy_rng::NumpyLegacyRng;

/// Columns of real-sim (the shape the authors pass to `csr_matrix`).
pub const N_FEATURES: usize = 20_958;
/// Documents in real-sim.
pub const N_ROWS: usize = 72_309;

/// Which values each row carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Values {
    /// Each document's own values.
    File,
    /// As the authors' saved arrays, whose values are misaligned by their seed-`seed` shuffle.
    IyengarScript {
        /// `np.random.seed` value (10000019).
        seed: u32,
    },
}

/// One parsed document: label, sorted zero-based indices, values in index order and in the
/// order the file lists them.
struct Doc {
    label: f64,
    indices: Vec<u32>,
    values: Vec<f64>,
    file_order_values: Vec<f64>,
}

/// Parses the decompressed file (`file` names it in errors) with `n_features` columns.
pub fn parse(text_bytes: &[u8], file: &str, n_features: usize, values: Values) -> Result<Dataset> {
    let mut docs = Vec::new();
    for (i, line) in utf8(text_bytes, file)?.lines().enumerate() {
        let Some(l) = parse_line(line, n_features, file, i + 1)? else {
            continue;
        };
        let label = match l.head.parse::<i64>() {
            Ok(1) => 1.0,
            Ok(-1) => -1.0,
            _ => {
                let msg = format!("label `{}` is not ±1", l.head);
                return Err(DataError::at_line(file, i + 1, msg));
            }
        };
        // The authors' value array lists the pairs as the file does; scipy sorts the indices.
        let file_order_values = line
            .split('#')
            .next()
            .unwrap_or("")
            .split_ascii_whitespace()
            .skip(1)
            .filter_map(|t| t.split_once(':'))
            .filter(|(k, _)| *k != "qid")
            .map(|(_, v)| v.parse::<f64>().expect("validated by parse_line"))
            .collect();
        docs.push(Doc {
            label,
            indices: l.indices,
            values: l.values,
            file_order_values,
        });
    }
    if docs.is_empty() {
        return Err(DataError::parse(file, "no documents"));
    }

    let mut b = CsrBuilder::new(n_features);
    let y = docs.iter().map(|d| d.label).collect();
    match values {
        Values::File => docs.iter().for_each(|d| b.push(&d.indices, &d.values)),
        Values::IyengarScript { seed } => {
            let stream: Vec<f64> = docs
                .iter()
                .flat_map(|d| d.file_order_values.iter().copied())
                .collect();
            // The shuffled matrix (a sparse product) has no explicit zeros.
            let columns: Vec<Vec<u32>> = docs
                .iter()
                .map(|d| {
                    let pairs = d.indices.iter().zip(&d.values);
                    pairs.filter(|p| *p.1 != 0.0).map(|p| *p.0).collect()
                })
                .collect();
            // Their row i is document perm[i]; it starts where the rows before it end.
            let perm = NumpyLegacyRng::new(seed).permutation(docs.len());
            let mut start = vec![0; docs.len()];
            let mut offset = 0;
            for &p in &perm {
                start[p] = offset;
                offset += columns[p].len();
            }
            for (cols, &s) in columns.iter().zip(&start) {
                // Stream values go to the columns in descending order; store them ascending.
                let vals: Vec<f64> = stream[s..s + cols.len()].iter().rev().copied().collect();
                b.push(cols, &vals);
            }
        }
    }
    Ok(Dataset {
        name: "real-sim".into(),
        x: b.finish(),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preprocess;
    use dp_core::features::{Csr, FeatureMatrix};
    use std::io::Write;

    const SEED: u32 = 10_000_019;

    /// Seven documents; document `r` has `r % 3 + 1` entries with values `r+1 . k`, so
    /// misplaced values are recognisable.
    const SEVEN: &str = "+1 1:1.0\n-1 2:2.0 4:2.1\n+1 1:3.0 3:3.1 5:3.2\n-1 2:4.0\n\
                         +1 1:5.0 3:5.1\n-1 2:6.0 4:6.1 6:6.2\n+1 1:7.0\n";

    fn bz2_round_trip(text: &str) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        e.write_all(text.as_bytes()).unwrap();
        crate::fetch::bunzip2(&e.finish().unwrap(), "real-sim.bz2").unwrap()
    }

    fn csr(d: &Dataset) -> &Csr {
        match &d.x {
            FeatureMatrix::Sparse(c) => c,
            FeatureMatrix::Dense { .. } => panic!("sparse expected"),
        }
    }

    /// Row `i` as (column, value) pairs in *descending* column order, as their arrays list it.
    fn their_row(c: &Csr, i: usize) -> Vec<(u32, f64)> {
        let r = c.indptr[i]..c.indptr[i + 1];
        c.indices[r.clone()]
            .iter()
            .copied()
            .zip(c.values[r].iter().copied())
            .rev()
            .collect()
    }

    /// After the default seed-10000019 shuffle, without a test split.
    fn shuffled(d: &Dataset) -> Dataset {
        let pre = Preprocess {
            test_fraction: 0.0,
            ..Preprocess::default()
        };
        pre.apply(d).unwrap().train
    }

    #[test]
    fn small_bz2_file_keeps_each_documents_values() {
        let d = parse(&bz2_round_trip(SEVEN), "real-sim", 6, Values::File).unwrap();
        assert_eq!((d.x.nrows(), d.x.ncols()), (7, 6));
        assert_eq!(d.y, vec![1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0]);
        let c = csr(&d);
        assert_eq!(c.indptr, vec![0, 1, 3, 6, 7, 9, 12, 13]);
        // Document 2: "+1 1:3.0 3:3.1 5:3.2".
        assert_eq!(&c.indices[3..6], &[0, 2, 4]);
        assert_eq!(&c.values[3..6], &[3.0, 3.1, 3.2]);
    }

    /// Expected rows from running their `realsim.py` + `gridsearch.py` loading on `SEVEN` with
    /// NumPy and scipy, `csr[index, :]` done as scipy 0.19 does it (`extractor(index) * csr`).
    #[test]
    fn iyengar_values_match_their_saved_arrays() {
        let d = parse(
            SEVEN.as_bytes(),
            "real-sim",
            6,
            Values::IyengarScript { seed: SEED },
        )
        .unwrap();
        let clean = parse(SEVEN.as_bytes(), "real-sim", 6, Values::File).unwrap();
        // Columns and labels stay with their documents; only the values move.
        assert_eq!((&csr(&d).indices, &d.y), (&csr(&clean).indices, &clean.y));

        let theirs = shuffled(&d);
        // np.random.seed(10000019); np.random.shuffle(arange(7)) = [3, 6, 1, 5, 4, 0, 2]
        assert_eq!(theirs.y, vec![-1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0]);
        let expected: [&[(u32, f64)]; 7] = [
            &[(1, 1.0)],
            &[(0, 2.0)],
            &[(3, 2.1), (1, 3.0)],
            &[(5, 3.1), (3, 3.2), (1, 4.0)],
            &[(2, 5.0), (0, 5.1)],
            &[(0, 6.0)],
            &[(4, 6.1), (2, 6.2), (0, 7.0)],
        ];
        for (i, row) in expected.iter().enumerate() {
            assert_eq!(their_row(csr(&theirs), i), row.to_vec(), "row {i}");
        }
    }

    #[test]
    fn unsorted_lines_and_explicit_zeros_follow_scipy_0_19() {
        // Stream [0.3, 0.1, 0.0, 0.2]; the product drops document 1's explicit zero, and the
        // shuffle is [1, 0], so row 0 (document 1) takes 0.3 and row 1 (document 0) the next two.
        let d = parse(
            b"+1 3:0.3 1:0.1\n-1 2:0 3:0.2\n",
            "t",
            3,
            Values::IyengarScript { seed: SEED },
        )
        .unwrap();
        assert_eq!(NumpyLegacyRng::new(SEED).permutation(2), vec![1, 0]);
        let theirs = shuffled(&d);
        assert_eq!(their_row(csr(&theirs), 0), vec![(2, 0.3)]);
        assert_eq!(their_row(csr(&theirs), 1), vec![(2, 0.1), (0, 0.0)]);
        assert_eq!(theirs.y, vec![-1.0, 1.0]);
    }

    #[test]
    fn bad_labels_and_pairs_are_errors() {
        for bad in [
            "0 1:1\n",
            "2 1:1\n",
            "x 1:1\n",
            "+1 7:1\n",
            "+1 1:1 1:2\n",
            "\n",
        ] {
            assert!(
                parse(bad.as_bytes(), "t", 6, Values::File).is_err(),
                "{bad:?}"
            );
        }
    }
}
