//! What every paper's figures share: the outcome of a figure step, value grids, and saving a
//! figure with its data.
//!
//! Every figure is written as `figN.png`, `figN.svg` and `figN.csv` (the plotted data in long
//! format) so that the claims checked by the tests are checked on exactly what is plotted.

pub mod csv;

use std::path::{Path, PathBuf};

use crate::plot::{Drawing, save_drawing};
use csv::LongCsv;

/// What one step of a figure run did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Files written.
    Written(Vec<PathBuf>),
    /// Nothing written, and why (with the command that would produce the inputs).
    Skipped(String),
}

/// Parses `key=value` pairs from a `;`-separated label such as `sigma=5;beta=1;lambda=20`.
#[cfg(test)]
pub fn label_value(label: &str, key: &str) -> Option<f64> {
    label
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .and_then(|(_, v)| v.parse().ok())
}

/// `n ≥ 2` points evenly spaced from `lo` to `hi`.
pub fn linspace(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
        .collect()
}

/// `n ≥ 2` points evenly spaced on a log scale from `lo` to `hi` (both > 0).
pub fn geomspace(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = linspace(lo.ln(), hi.ln(), n)
        .into_iter()
        .map(f64::exp)
        .collect();
    // exp(ln x) need not return x; keep the ends exact so that tables read cleanly.
    v[0] = lo;
    v[n - 1] = hi;
    v
}

/// Writes `<stem>.png`, `<stem>.svg` and `<stem>.csv` into `out`.
pub fn save<D: Drawing>(
    out: &Path,
    stem: &str,
    figure: &D,
    data: &LongCsv,
) -> anyhow::Result<Vec<PathBuf>> {
    let base = out.join(stem);
    save_drawing(figure, &base)?;
    let csv_path = base.with_extension("csv");
    data.write(&csv_path)?;
    Ok(vec![
        base.with_extension("png"),
        base.with_extension("svg"),
        csv_path,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_and_grids() {
        let id = "sigma=5;beta=1;lambda=20";
        assert_eq!(label_value(id, "lambda"), Some(20.0));
        assert_eq!(label_value(id, "L"), None);
        let g = geomspace(1.0, 1000.0, 4);
        assert!((g[1] - 10.0).abs() < 1e-12 && g[3] == 1000.0);
        assert_eq!(linspace(0.0, 1.0, 3), vec![0.0, 0.5, 1.0]);
    }
}
