//! Figure 5 (Appendix I.1): RDP curves of objective perturbation and DP-SGD.
//!
//! The paper's text gives the DP-SGD regime, "n² rounds of sampled Gaussian mechanism with
//! Poisson sampling probability 1/n", but not σ, λ or n. We use the same noise and gradient
//! bound for both (σ = z = 5, L = C = 1), ObjPert with β = 1, λ = 20 (Figure 1's left panel)
//! and n ∈ {100, 1000}, plus the Gaussian mechanism α/(2σ²) as the reference both are compared
//! to in the text.

use std::path::{Path, PathBuf};

use dp_core::accounting::gaussian;
use dp_core::accounting::subsampled_gaussian::dpsgd_curve;

use super::Setting;
use crate::figures::csv::LongCsv;
use crate::figures::{geomspace, save};
use crate::plot::{Figure, Panel, Series};

/// Objective perturbation parameters.
pub const OBJPERT: Setting = Setting {
    sigma: 5.0,
    beta: 1.0,
    lambda: 20.0,
    lipschitz: 1.0,
};

/// Dataset sizes n of the DP-SGD runs (q = 1/n, T = n² steps, noise multiplier σ).
pub const NS: [u64; 2] = [100, 1000];

const ALPHA_MIN: f64 = 1.05;
const ALPHA_MAX: f64 = 1000.0;
const POINTS: usize = 150;

/// One curve of the figure.
#[derive(Clone, Debug)]
pub struct Curve {
    /// CSV identifier with parameters.
    pub id: String,
    /// Legend text.
    pub legend: String,
    /// (α, ε(α)).
    pub points: Vec<(f64, f64)>,
    /// Reference curve (drawn dashed).
    pub reference: bool,
}

/// ObjPert, DP-SGD for each n, and the Gaussian reference.
pub fn data() -> anyhow::Result<Vec<Curve>> {
    let orders = geomspace(ALPHA_MIN, ALPHA_MAX, POINTS);
    let zip = |c: dp_core::accounting::RdpCurve| {
        c.orders
            .iter()
            .copied()
            .zip(c.eps.iter().copied())
            .collect()
    };
    let s = OBJPERT;
    // The reference first, so that the curves compared to it are drawn on top.
    let mut curves = vec![
        Curve {
            id: format!("gaussian(sigma={})", s.sigma),
            legend: "Gaussian α/(2σ²)".into(),
            points: zip(gaussian::rdp_curve(s.sigma, s.lipschitz, &orders)?),
            reference: true,
        },
        Curve {
            id: format!("objpert({})", s.id()),
            legend: format!("ObjPert, λ = {}", s.lambda),
            points: zip(s.objpert()?.rdp_curve(&orders)?),
            reference: false,
        },
    ];
    for &n in &NS {
        let (q, steps) = (1.0 / n as f64, n * n);
        curves.push(Curve {
            id: format!("dpsgd(n={n};q={q};T={steps};z={})", s.sigma),
            legend: format!("DP-SGD, n = {n}"),
            points: zip(dpsgd_curve(q, s.sigma, steps, &orders)?),
            reference: false,
        });
    }
    Ok(curves)
}

/// Writes fig5.{png,svg,csv}.
pub fn write(out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let curves = data()?;
    let mut csv = LongCsv::new(&["alpha", "mechanism", "epsilon"]);
    for c in &curves {
        for &(a, e) in &c.points {
            csv.push(vec![a.into(), c.id.clone().into(), e.into()])?;
        }
    }
    let panel = Panel {
        title: format!(
            "σ = z = {}, L = C = {}, β = {}; DP-SGD: q = 1/n, T = n² steps",
            OBJPERT.sigma, OBJPERT.lipschitz, OBJPERT.beta
        ),
        x_label: "Rényi order α (log scale)".into(),
        y_label: "RDP ε(α) (nats, log scale)".into(),
        log_x: true,
        log_y: true,
        series: curves
            .iter()
            .map(|c| Series {
                dashed: c.reference,
                dots: false,
                steps: false,
                ..Series::line(c.legend.clone(), c.points.clone())
            })
            .collect(),
        y_range: None,
    };
    let figure = Figure {
        title: "Figure 5: RDP of ObjPert vs DP-SGD (Redberg et al. 2023, App. I.1)".into(),
        panels: vec![panel],
        columns: 1,
    };
    save(out, "fig5", &figure, &csv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::csv::Table;
    use std::collections::BTreeMap;

    /// The text's claim, checked on the CSV: DP-SGD is below ObjPert at small α and above it at
    /// large α (it leaps towards n²α/(2σ²)), while ObjPert stays within a constant of the
    /// Gaussian curve.
    #[test]
    fn figures_fig5_dpsgd_wins_at_small_orders_and_objpert_at_large_ones() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path()).unwrap();
        let t = Table::read(&dir.path().join("fig5.csv")).unwrap();
        let mut by: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for i in 0..t.rows.len() {
            by.entry(t.text(i, "mechanism").unwrap().to_string())
                .or_default()
                .push((t.num(i, "alpha").unwrap(), t.num(i, "epsilon").unwrap()));
        }
        assert_eq!(by.len(), 2 + NS.len());
        let objpert = &by.iter().find(|(k, _)| k.starts_with("objpert")).unwrap().1;
        let gauss = &by
            .iter()
            .find(|(k, _)| k.starts_with("gaussian"))
            .unwrap()
            .1;
        let c = OBJPERT.objpert().unwrap().c();
        for (o, g) in objpert.iter().zip(gauss.iter()) {
            assert!(
                o.1 >= g.1 && o.1 <= g.1 + c + std::f64::consts::LN_2 / (o.0 - 1.0) + 1e-12,
                "α={}",
                o.0
            );
        }
        for n in NS {
            let dpsgd = &by
                .iter()
                .find(|(k, _)| k.starts_with(&format!("dpsgd(n={n};")))
                .unwrap()
                .1;
            assert_eq!(dpsgd.len(), objpert.len());
            let (first, last) = (0, dpsgd.len() - 1);
            assert!(
                dpsgd[first].1 < objpert[first].1,
                "n={n}: DP-SGD not below ObjPert at α={}",
                dpsgd[first].0
            );
            assert!(
                dpsgd[last].1 > objpert[last].1,
                "n={n}: DP-SGD not above ObjPert at α={}",
                dpsgd[last].0
            );
            // One crossing: DP-SGD minus ObjPert changes sign exactly once.
            let signs: Vec<bool> = dpsgd
                .iter()
                .zip(objpert.iter())
                .map(|(d, o)| d.1 > o.1)
                .collect();
            assert_eq!(
                signs.windows(2).filter(|w| w[0] != w[1]).count(),
                1,
                "n={n}"
            );
        }
    }
}
