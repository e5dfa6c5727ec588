//! KDD Cup 1999 (10% file) → Iyengar et al.'s 70,000-row sample, normal vs attack.
//!
//! Their `kddcup99.py`: `np.random.seed(10000019)`, then
//! `np.random.randint(494021, size=70000)` row indices (with replacement), the three symbolic
//! columns (protocol_type, service, flag) one-hot with categories sorted and fitted *on the
//! sample*, followed by the 38 numeric columns unscaled, label `normal.` → +1 else −1. We replay
//! the same draws with [`NumpyLegacyRng`], so the sampled rows are theirs. The numeric columns
//! are left raw as in their code (their docstring mentions column scaling, the code does not
//! do it); use [`crate::Preprocess`] clipping or normalisation. On the real file the sample
//! has 70,000 × 113 features (3 + 62 + 10 indicators + 38 numeric; an independent NumPy replay
//! of their script agrees), one column fewer than the 114 of their Table I.

use dp_core::features::FeatureMatrix;
use serde::Serialize;

use super::onehot::OneHot;
use super::{number, utf8};
use crate::dataset::Dataset;
use crate::error::{DataError, Result};
use crate::numpy_rng::NumpyLegacyRng;

/// Fields per line: 41 attributes + label.
pub const N_FIELDS: usize = 42;
/// The symbolic attributes: protocol_type, service, flag.
pub const SYMBOLIC: [usize; 3] = [1, 2, 3];

/// How many rows to draw and with which `np.random.seed`.
#[derive(Clone, Debug, Serialize)]
pub struct KddSample {
    /// Rows drawn with replacement (70,000).
    pub rows: usize,
    /// Seed (10000019).
    pub seed: u32,
}

impl Default for KddSample {
    fn default() -> Self {
        KddSample {
            rows: 70_000,
            seed: 10_000_019,
        }
    }
}

/// Parses the decompressed file and draws the sample.
pub fn parse(text_bytes: &[u8], sample: &KddSample) -> Result<Dataset> {
    const FILE: &str = "kddcup.data_10_percent";
    let lines: Vec<&str> = utf8(text_bytes, FILE)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return Err(DataError::parse(FILE, "no records"));
    }
    let mut rng = NumpyLegacyRng::new(sample.seed);
    let picks: Vec<usize> = (0..sample.rows).map(|_| rng.randint(lines.len())).collect();

    let mut records = Vec::with_capacity(picks.len());
    for &p in &picks {
        let fields: Vec<&str> = lines[p].split(',').map(str::trim).collect();
        if fields.len() != N_FIELDS {
            return Err(DataError::at_line(
                FILE,
                p + 1,
                format!("{} fields, expected {N_FIELDS}", fields.len()),
            ));
        }
        records.push((p, fields));
    }
    let symbolic: Vec<Vec<&str>> = records
        .iter()
        .map(|(_, f)| SYMBOLIC.iter().map(|&c| f[c]).collect())
        .collect();
    let onehot = OneHot::fit(&symbolic, SYMBOLIC.len());
    let width = onehot.width();
    let n_numeric = N_FIELDS - 1 - SYMBOLIC.len();
    let d = width + n_numeric;

    let mut x = vec![0.0; records.len() * d];
    let mut y = Vec::with_capacity(records.len());
    for (i, ((p, f), sym)) in records.iter().zip(&symbolic).enumerate() {
        let row = &mut x[i * d..(i + 1) * d];
        for (k, v) in sym.iter().enumerate() {
            row[onehot.column(k, v).expect("fitted")] = 1.0;
        }
        let numeric = (0..N_FIELDS - 1).filter(|c| !SYMBOLIC.contains(c));
        for (j, c) in numeric.enumerate() {
            row[width + j] = number(f[c], FILE, p + 1)?;
        }
        y.push(if f[N_FIELDS - 1] == "normal." {
            1.0
        } else {
            -1.0
        });
    }
    let n = y.len();
    Ok(Dataset {
        name: "kddcup99".into(),
        x: FeatureMatrix::dense(x, n, d),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn line(proto: &str, service: &str, flag: &str, src_bytes: u32, label: &str) -> String {
        let mut f: Vec<String> = (0..41).map(|i| format!("{}", i % 3)).collect();
        f[0] = "0".into();
        f[1] = proto.into();
        f[2] = service.into();
        f[3] = flag.into();
        f[4] = src_bytes.to_string();
        f.push(label.into());
        f.join(",")
    }

    #[test]
    fn small_gz_file_in_the_distributed_format() {
        let text = [
            line("tcp", "http", "SF", 181, "normal."),
            line("udp", "private", "SF", 105, "normal."),
            line("icmp", "ecr_i", "SF", 1032, "smurf."),
            line("tcp", "private", "S0", 0, "neptune."),
        ]
        .join("\n")
            + "\n";
        // Round-trip through gzip as the real file is distributed.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text.as_bytes()).unwrap();
        let gz = enc.finish().unwrap();
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut raw)
            .unwrap();

        let sample = KddSample {
            rows: 12,
            seed: 10_000_019,
        };
        let d = parse(&raw, &sample).unwrap();
        let mut rng = NumpyLegacyRng::new(10_000_019);
        let picks: Vec<usize> = (0..12).map(|_| rng.randint(4)).collect();
        assert_eq!(d.len(), 12);
        // src_bytes (first numeric column after the one-hot block) identifies the source line.
        let src = [181.0, 105.0, 1032.0, 0.0];
        let width = d.x.ncols() - 38;
        for (i, &p) in picks.iter().enumerate() {
            let mut row = vec![0.0; d.x.ncols()];
            d.x.row(i).axpy(1.0, &mut row);
            assert_eq!(row[width + 1], src[p], "row {i} comes from line {p}");
            assert_eq!(d.y[i], if p < 2 { 1.0 } else { -1.0 });
            assert_eq!(row[..width].iter().sum::<f64>(), 3.0);
        }
        // Categories come from the sample only, sorted.
        let mut seen: Vec<usize> = picks.clone();
        seen.sort();
        seen.dedup();
        let protos: std::collections::BTreeSet<&str> = seen
            .iter()
            .map(|&p| ["tcp", "udp", "icmp", "tcp"][p])
            .collect();
        let services: std::collections::BTreeSet<&str> = seen
            .iter()
            .map(|&p| ["http", "private", "ecr_i", "private"][p])
            .collect();
        let flags: std::collections::BTreeSet<&str> =
            seen.iter().map(|&p| ["SF", "SF", "SF", "S0"][p]).collect();
        assert_eq!(width, protos.len() + services.len() + flags.len());
    }

    #[test]
    fn wrong_field_count_is_an_error() {
        assert!(
            parse(
                b"0,tcp,http,SF,1,normal.\n",
                &KddSample { rows: 1, seed: 1 }
            )
            .is_err()
        );
    }
}
