//! Paper figures and tables, regenerated from the accountants (Figures 1, 3, 4, 5) and from
//! experiment results on disk (Figure 2, Tables 1–2).
//!
//! Every figure is written as `figN.png`, `figN.svg` and `figN.csv` (the plotted data in long
//! format) so that the claims checked by the tests are checked on exactly what is plotted.

pub mod csv;
pub mod fig1_objpert_bounds;
pub mod fig2_accuracy;
pub mod fig3_rdp_curves;
pub mod fig4_composition;
pub mod fig5_objpert_vs_dpsgd;
pub mod tables;

use std::path::{Path, PathBuf};

use dp_core::accounting::objpert::ObjPert;

use crate::plot::Figure;
use csv::LongCsv;

/// What one step of a figure run did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Files written.
    Written(Vec<PathBuf>),
    /// Nothing written, and why (with the command that would produce the inputs).
    Skipped(String),
}

/// Regenerates every figure and table of Redberg, Koskela & Wang (2023) into `out`, reading
/// experiment results from `results/<config stem>/summary.csv`.
pub fn redberg2023(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    Ok(vec![
        Outcome::Written(fig1_objpert_bounds::write(out)?),
        Outcome::Written(fig3_rdp_curves::write(out)?),
        Outcome::Written(fig4_composition::write(out)?),
        Outcome::Written(fig5_objpert_vs_dpsgd::write(out)?),
        fig2_accuracy::write(out, results)?,
        tables::write(out, results)?,
    ])
}

/// Objective perturbation parameters of one panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// Noise σ of the linear perturbation.
    pub sigma: f64,
    /// Per-example Hessian bound β.
    pub beta: f64,
    /// Regularisation λ.
    pub lambda: f64,
    /// Gradient norm bound L.
    pub lipschitz: f64,
}

impl Setting {
    /// The accountant for these parameters.
    pub fn objpert(&self) -> anyhow::Result<ObjPert> {
        Ok(ObjPert::new(
            self.sigma,
            self.lambda,
            self.beta,
            self.lipschitz,
        )?)
    }

    /// Machine-readable label used in the CSVs: `sigma=5;beta=1;lambda=20` (plus `;L=…` when L ≠ 1).
    pub fn id(&self) -> String {
        let mut s = format!(
            "sigma={};beta={};lambda={}",
            self.sigma, self.beta, self.lambda
        );
        if self.lipschitz != 1.0 {
            s.push_str(&format!(";L={}", self.lipschitz));
        }
        s
    }

    /// Human-readable label for titles: `σ = 5, β = 1, λ = 20, L = 1`.
    pub fn title(&self) -> String {
        format!(
            "σ = {}, β = {}, λ = {}, L = {}",
            self.sigma, self.beta, self.lambda, self.lipschitz
        )
    }
}

/// Parses `key=value` pairs from a `;`-separated label such as [`Setting::id`].
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
pub fn save(
    out: &Path,
    stem: &str,
    figure: &Figure,
    data: &LongCsv,
) -> anyhow::Result<Vec<PathBuf>> {
    let base = out.join(stem);
    figure.save(&base)?;
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
    fn figures_labels_and_grids() {
        let s = Setting {
            sigma: 5.0,
            beta: 1.0,
            lambda: 20.0,
            lipschitz: 1.0,
        };
        assert_eq!(s.id(), "sigma=5;beta=1;lambda=20");
        assert_eq!(label_value(&s.id(), "lambda"), Some(20.0));
        assert_eq!(label_value(&s.id(), "L"), None);
        let g = geomspace(1.0, 1000.0, 4);
        assert!((g[1] - 10.0).abs() < 1e-12 && g[3] == 1000.0);
        assert_eq!(linspace(0.0, 1.0, 3), vec![0.0, 0.5, 1.0]);
    }
}
