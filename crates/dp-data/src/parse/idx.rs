//! MNIST IDX files (big-endian header, `u8` payload) → Iyengar et al.'s 65,000-row MNIST.
//!
//! Iyengar et al.'s `mnist.py` uses TensorFlow's `input_data.read_data_sets`, whose training
//! part is the 60,000 training images *minus the first 5,000* (held out as validation), with
//! pixels scaled to `[0, 1]` (÷255); it stacks that with the 10,000 test images (65,000 rows,
//! Table I) and trains ten one-vs-all classifiers, splitting ε and δ among them. We keep the
//! digits in [`Dataset::classes`] and set `y` to the first one-vs-all task (digit 0 vs rest);
//! [`Dataset::one_vs_rest`] gives the others. (TF's loader re-seeds NumPy from the clock, so
//! their shuffle of these rows is not reproducible; ours comes from [`crate::Preprocess`].)

use dp_core::features::FeatureMatrix;
use serde::Serialize;

use crate::dataset::Dataset;
use crate::error::{DataError, Result};

/// Magic number of an unsigned-byte IDX file with `dims` dimensions.
fn magic(dims: u8) -> u32 {
    0x0000_0800 | dims as u32
}

fn header(bytes: &[u8], dims: u8, file: &str) -> Result<Vec<usize>> {
    let word = |k: usize| -> Result<u32> {
        bytes
            .get(4 * k..4 * k + 4)
            .map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")))
            .ok_or_else(|| DataError::parse(file, "truncated IDX header"))
    };
    let m = word(0)?;
    if m != magic(dims) {
        return Err(DataError::parse(
            file,
            format!("IDX magic {m:#010x}, expected {:#010x}", magic(dims)),
        ));
    }
    let shape: Vec<usize> = (1..=dims as usize)
        .map(|k| word(k).map(|v| v as usize))
        .collect::<Result<_>>()?;
    let expected = 4 * (1 + dims as usize) + shape.iter().product::<usize>();
    if bytes.len() != expected {
        return Err(DataError::parse(
            file,
            format!("{} bytes, header implies {expected}", bytes.len()),
        ));
    }
    Ok(shape)
}

/// Images of an `idx3-ubyte` file: `(count, rows·cols, pixels)`.
pub fn images(bytes: &[u8], file: &str) -> Result<(usize, usize, Vec<u8>)> {
    let shape = header(bytes, 3, file)?;
    Ok((shape[0], shape[1] * shape[2], bytes[16..].to_vec()))
}

/// Labels of an `idx1-ubyte` file.
pub fn labels(bytes: &[u8], file: &str) -> Result<Vec<u8>> {
    header(bytes, 1, file)?;
    Ok(bytes[8..].to_vec())
}

/// Which rows to use.
#[derive(Clone, Debug, Serialize)]
pub struct MnistLayout {
    /// Leading training images dropped (TensorFlow's `validation_size`, 5,000).
    pub validation: usize,
    /// Digit that is +1 in `y`.
    pub positive_class: u32,
}

impl Default for MnistLayout {
    fn default() -> Self {
        MnistLayout {
            validation: 5_000,
            positive_class: 0,
        }
    }
}

/// Builds the dataset from the four decompressed IDX files.
pub fn parse(
    train_images: &[u8],
    train_labels: &[u8],
    test_images: &[u8],
    test_labels: &[u8],
    layout: &MnistLayout,
) -> Result<Dataset> {
    let (n_tr, d, px_tr) = images(train_images, "train-images-idx3-ubyte")?;
    let lab_tr = labels(train_labels, "train-labels-idx1-ubyte")?;
    let (n_te, d_te, px_te) = images(test_images, "t10k-images-idx3-ubyte")?;
    let lab_te = labels(test_labels, "t10k-labels-idx1-ubyte")?;
    if lab_tr.len() != n_tr || lab_te.len() != n_te || d_te != d {
        return Err(DataError::parse(
            "mnist",
            "image and label files disagree in count or size",
        ));
    }
    if layout.validation > n_tr {
        return Err(DataError::Invalid(format!(
            "validation {} exceeds {n_tr} training images",
            layout.validation
        )));
    }
    let pixels = px_tr[layout.validation * d..].iter().chain(&px_te);
    let x: Vec<f64> = pixels.map(|&p| p as f64 / 255.0).collect();
    let classes: Vec<u32> = lab_tr[layout.validation..]
        .iter()
        .chain(&lab_te)
        .map(|&c| c as u32)
        .collect();
    if let Some(c) = classes.iter().find(|&&c| c > 9) {
        return Err(DataError::parse(
            "mnist",
            format!("label {c} is not a digit"),
        ));
    }
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
        name: "mnist".into(),
        x: FeatureMatrix::dense(x, n, d),
        y,
        classes: Some(classes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn idx3(imgs: &[[u8; 4]]) -> Vec<u8> {
        let mut b = magic(3).to_be_bytes().to_vec();
        for v in [imgs.len() as u32, 2, 2] {
            b.extend(v.to_be_bytes());
        }
        imgs.iter().for_each(|i| b.extend(i));
        b
    }

    fn idx1(labels: &[u8]) -> Vec<u8> {
        let mut b = magic(1).to_be_bytes().to_vec();
        b.extend((labels.len() as u32).to_be_bytes());
        b.extend(labels);
        b
    }

    fn gz_round_trip(b: Vec<u8>) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&b).unwrap();
        let gz = e.finish().unwrap();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn small_gz_idx_files() {
        let tr = gz_round_trip(idx3(&[[0, 0, 0, 0], [255, 0, 0, 51], [0, 255, 255, 0]]));
        let trl = gz_round_trip(idx1(&[5, 0, 3]));
        let te = gz_round_trip(idx3(&[[1, 2, 3, 4]]));
        let tel = gz_round_trip(idx1(&[0]));
        let layout = MnistLayout {
            validation: 1,
            positive_class: 0,
        };
        let d = parse(&tr, &trl, &te, &tel, &layout).unwrap();
        assert_eq!(
            (d.x.nrows(), d.x.ncols()),
            (3, 4),
            "first training image held out"
        );
        assert_eq!(d.classes, Some(vec![0, 3, 0]));
        assert_eq!(d.y, vec![1.0, -1.0, 1.0]);
        assert_eq!(d.x.row(0).dot(&[1.0, 0.0, 0.0, 1.0]), 1.0 + 51.0 / 255.0);
        assert_eq!(d.x.row(2).dot(&[0.0, 0.0, 0.0, 1.0]), 4.0 / 255.0);
        assert_eq!(d.one_vs_rest(3).unwrap().y, vec![-1.0, 1.0, -1.0]);
    }

    #[test]
    fn header_errors() {
        let good = idx3(&[[0; 4]]);
        assert!(images(&good, "f").is_ok());
        assert!(
            images(&good[..good.len() - 1], "f").is_err(),
            "truncated payload"
        );
        assert!(labels(&good, "f").is_err(), "wrong magic");
        let l = idx1(&[1, 2]);
        assert!(
            parse(
                &good,
                &l,
                &good,
                &idx1(&[1]),
                &MnistLayout {
                    validation: 0,
                    positive_class: 0
                }
            )
            .is_err()
        );
    }
}
