//! UCI Covertype (`covtype.data.gz`) → 581,012 × 54 dense, 7 classes, as Iyengar et al. build it.
//!
//! Their `datasets/preprocess/covertype.py` reads every record (54 attributes + the cover type
//! 1–7), divides each attribute column whose maximum exceeds 1 by that maximum (the 10
//! quantitative columns; the 44 wilderness/soil indicators are left as 0/1), one-hot encodes
//! the cover type into 7 label columns (cover type `k` → column `k − 1`), then calls
//! `np.random.seed(10000019); np.random.shuffle(all_data)`. We keep the file order and the
//! cover types in [`Dataset::classes`] as `0..7` (cover type − 1, their column index), with `y`
//! the first one-vs-all task (class 0, Spruce/Fir, vs rest; see [`Dataset::one_vs_rest`]).
//! [`crate::Preprocess`]'s default seed-10000019 shuffle then gives their row order.

use dp_core::features::FeatureMatrix;
use serde::Serialize;

use super::{number, utf8};
use crate::dataset::Dataset;
use crate::error::{DataError, Result};

/// Attributes per record (10 quantitative, 4 wilderness areas, 40 soil types).
pub const N_FEATURES: usize = 54;
/// Number of cover types.
pub const N_CLASSES: u32 = 7;

/// Which class is +1 in `y` (default: class 0, cover type 1).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CovertypeLayout {
    /// Class index (cover type − 1) that is +1 in `y`.
    pub positive_class: u32,
}

/// Parses the decompressed `covtype.data` and scales it as the authors' script does.
pub fn parse(text_bytes: &[u8], layout: &CovertypeLayout) -> Result<Dataset> {
    const FILE: &str = "covtype.data";
    let text = utf8(text_bytes, FILE)?;
    let rows = text.lines().filter(|l| !l.trim().is_empty()).count();
    let mut x = Vec::with_capacity(rows * N_FEATURES);
    let mut classes = Vec::with_capacity(rows);
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != N_FEATURES + 1 {
            return Err(DataError::at_line(
                FILE,
                i + 1,
                format!("{} fields, expected {}", fields.len(), N_FEATURES + 1),
            ));
        }
        for f in &fields[..N_FEATURES] {
            x.push(number(f, FILE, i + 1)?);
        }
        let cover = fields[N_FEATURES];
        match cover.parse::<u32>() {
            Ok(c) if (1..=N_CLASSES).contains(&c) => classes.push(c - 1),
            _ => {
                return Err(DataError::at_line(
                    FILE,
                    i + 1,
                    format!("cover type `{cover}` is not in 1..={N_CLASSES}"),
                ));
            }
        }
    }
    if classes.is_empty() {
        return Err(DataError::parse(FILE, "no records"));
    }
    scale_columns_above_one(&mut x, N_FEATURES);
    let y = classes
        .iter()
        .map(|&c| {
            if c == layout.positive_class {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    let n = classes.len();
    Ok(Dataset {
        name: "covertype".into(),
        x: FeatureMatrix::dense(x, n, N_FEATURES),
        y,
        classes: Some(classes),
    })
}

/// `if col.max() > 1: col = col / col.max()` for every column of a row-major matrix.
fn scale_columns_above_one(x: &mut [f64], d: usize) {
    let mut max = vec![f64::NEG_INFINITY; d];
    for row in x.chunks_exact(d) {
        for (m, &v) in max.iter_mut().zip(row) {
            *m = m.max(v);
        }
    }
    for row in x.chunks_exact_mut(d) {
        for (v, &m) in row.iter_mut().zip(&max) {
            if m > 1.0 {
                *v /= m;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// One record: the 10 quantitative values, wilderness area `w` (1–4), soil type `s`
    /// (1–40) and the cover type, comma-separated as in `covtype.data`.
    fn record(quant: [i32; 10], w: usize, s: usize, cover: &str) -> String {
        let mut f: Vec<String> = quant.iter().map(i32::to_string).collect();
        f.extend((1..=4).map(|k| u8::from(k == w).to_string()));
        f.extend((1..=40).map(|k| u8::from(k == s).to_string()));
        f.push(cover.into());
        f.join(",")
    }

    fn gz_round_trip(text: &str) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        crate::fetch::gunzip(&e.finish().unwrap(), "covtype.data.gz").unwrap()
    }

    #[test]
    fn small_gz_file_in_the_distributed_format() {
        let text = [
            record([2596, 51, 3, 258, 0, 510, 221, 232, 148, 6279], 1, 29, "5"),
            record([2590, 56, 2, 212, -6, 390, 220, 235, 151, 6225], 1, 29, "5"),
            record(
                [2804, 139, 9, 268, 65, 3180, 234, 238, 135, 6121],
                3,
                12,
                "2",
            ),
            record([3000, 0, 1, 0, -40, 1, 254, 0, 1, 0], 4, 40, "1"),
        ]
        .join("\n")
            + "\n";
        let d = parse(&gz_round_trip(&text), &CovertypeLayout::default()).unwrap();
        // Cover types 5, 5, 2, 1 → class indices 4, 4, 1, 0 (`n_classes` is the largest + 1).
        assert_eq!((d.x.nrows(), d.x.ncols(), d.n_classes()), (4, 54, 5));
        assert_eq!(d.classes, Some(vec![4, 4, 1, 0]));
        assert_eq!(d.y, vec![-1.0, -1.0, -1.0, 1.0]);
        let row = |i: usize| {
            let mut r = vec![0.0; 54];
            d.x.row(i).axpy(1.0, &mut r);
            r
        };
        let (r0, r2, r3) = (row(0), row(2), row(3));
        // Quantitative columns divided by their maximum (exactly as NumPy's `col / col.max()`).
        assert_eq!(r0[0], 2596.0 / 3000.0);
        assert_eq!(r0[9], 6279.0 / 6279.0);
        assert_eq!(r3[4], -40.0 / 65.0, "negative values keep their sign");
        assert_eq!(r3[8], 1.0 / 151.0);
        // Indicator columns stay 0/1: wilderness 3 and soil 12 of record 2.
        assert_eq!((r2[10 + 2], r2[14 + 11]), (1.0, 1.0));
        assert_eq!(r2[10..].iter().sum::<f64>(), 2.0);
        assert_eq!(d.one_vs_rest(4).unwrap().y, vec![1.0, 1.0, -1.0, -1.0]);
    }

    #[test]
    fn columns_with_max_at_most_one_are_left_alone() {
        let mut x = vec![0.0, 2.0, 0.5, 1.0, 4.0, -3.0, 0.0, 1.0, 0.25];
        scale_columns_above_one(&mut x, 3);
        assert_eq!(x, vec![0.0, 0.5, 0.5, 1.0, 1.0, -3.0, 0.0, 0.25, 0.25]);
    }

    #[test]
    fn malformed_records_are_errors() {
        let good = record([1; 10], 1, 1, "7");
        assert!(parse(good.as_bytes(), &CovertypeLayout::default()).is_ok());
        for bad in [
            record([1; 10], 1, 1, "0"),
            record([1; 10], 1, 1, "8"),
            record([1; 10], 1, 1, "x"),
            good.replace(",7", ""),
            good.replacen('1', "a", 1),
        ] {
            assert!(
                parse(bad.as_bytes(), &CovertypeLayout::default()).is_err(),
                "{bad}"
            );
        }
        assert!(parse(b"\n", &CovertypeLayout::default()).is_err());
    }
}
