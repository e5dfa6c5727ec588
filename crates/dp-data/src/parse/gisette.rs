//! Gisette (`gisette_train.data` + `gisette_train.labels`): dense, space-separated integers
//! (each line ends with a trailing space), labels `1` / `-1` one per line.
//!
//! Values are kept raw (0–999), as in Iyengar et al.'s `gisette.py`; scale with
//! [`crate::Preprocess`] (e.g. `normalize_rows`).

use dp_core::features::FeatureMatrix;

use super::{number, utf8};
use crate::dataset::Dataset;
use crate::error::{DataError, Result};

/// Parses the feature and label files; every row must have the first row's width.
pub fn parse(data: &[u8], labels: &[u8]) -> Result<Dataset> {
    const DATA: &str = "gisette_train.data";
    const LABELS: &str = "gisette_train.labels";
    let mut x = Vec::new();
    let mut ncols = None;
    let mut nrows = 0;
    for (i, line) in utf8(data, DATA)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let before = x.len();
        for tok in line.split_ascii_whitespace() {
            x.push(number(tok, DATA, i + 1)?);
        }
        let width = x.len() - before;
        match ncols {
            None => ncols = Some(width),
            Some(w) if w != width => {
                return Err(DataError::at_line(
                    DATA,
                    i + 1,
                    format!("{width} values, expected {w}"),
                ));
            }
            Some(_) => {}
        }
        nrows += 1;
    }
    let mut y = Vec::with_capacity(nrows);
    for (i, line) in utf8(labels, LABELS)?.lines().enumerate() {
        match line.trim() {
            "" => continue,
            "1" | "+1" => y.push(1.0),
            "-1" => y.push(-1.0),
            other => {
                return Err(DataError::at_line(
                    LABELS,
                    i + 1,
                    format!("label `{other}` is not ±1"),
                ));
            }
        }
    }
    if y.len() != nrows {
        return Err(DataError::parse(
            LABELS,
            format!("{} labels for {nrows} feature rows", y.len()),
        ));
    }
    let ncols = ncols.unwrap_or(0);
    Ok(Dataset {
        name: "gisette".into(),
        x: FeatureMatrix::dense(x, nrows, ncols),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_file_in_the_distributed_format() {
        let data = "0 550 0 495 \n0 0 0 999 \n12 0 7 0 \n";
        let labels = "1\n-1\n1\n";
        let d = parse(data.as_bytes(), labels.as_bytes()).unwrap();
        assert_eq!((d.x.nrows(), d.x.ncols()), (3, 4));
        assert_eq!(d.y, vec![1.0, -1.0, 1.0]);
        assert_eq!(d.x.nnz(), 5);
        assert_eq!(d.x.row(1).dot(&[0.0, 0.0, 0.0, 1.0]), 999.0);
        assert_eq!(d.x.row(2).dot(&[1.0, 0.0, 1.0, 0.0]), 19.0);
    }

    #[test]
    fn ragged_rows_and_label_count_are_errors() {
        assert!(parse(b"1 2 3 \n4 5 \n", b"1\n-1\n").is_err());
        assert!(parse(b"1 2 \n4 5 \n", b"1\n").is_err());
        assert!(parse(b"1 2 \n", b"0\n").is_err());
        assert!(parse(b"1 x \n", b"1\n").is_err());
    }
}
