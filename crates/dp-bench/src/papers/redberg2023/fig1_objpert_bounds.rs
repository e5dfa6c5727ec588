//! Figure 1: δ(ε) of objective perturbation by four bounds — Kifer et al. (Thm 2.8), the RDP
//! bound (Thm 3.2) converted to (ε, δ), the privacy profile (Thm 3.1) and the Gaussian lower
//! bound (Lemma 3.4) — for the paper's two settings.

use std::path::{Path, PathBuf};

use dp_core::accounting::default_orders;

use super::Setting;
use crate::figures::csv::LongCsv;
use crate::figures::{linspace, save};
use crate::plot::{Figure, Panel, Series};

/// The paper's panels (caption of Figure 1): left σ = 5, β = 1, λ = 20; right σ = 10, β = 1,
/// λ = 5; L = 1.
pub const SETTINGS: [Setting; 2] = [
    Setting {
        sigma: 5.0,
        beta: 1.0,
        lambda: 20.0,
        lipschitz: 1.0,
    },
    Setting {
        sigma: 10.0,
        beta: 1.0,
        lambda: 5.0,
        lipschitz: 1.0,
    },
];

/// Largest ε per panel: where Kifer et al.'s δ is still visible on the log scale while the
/// other bounds have fallen to 1e-20–1e-40.
const EPS_MAX: [f64; 2] = [2.0, 1.2];
const POINTS: usize = 150;

/// The four bounds, in legend order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Kifer et al. (2012), Thm 2.8 (δ = 1 where λ < 2β/ε).
    Kifer,
    /// Thm 3.2 RDP converted with the improved conversion over the default orders.
    Rdp,
    /// Thm 3.1 privacy profile (tight for the dominating pair).
    Profile,
    /// Lemma 3.4: the Gaussian mechanism with sensitivity L and noise σ.
    GaussianLower,
}

impl Bound {
    /// All bounds in legend order.
    pub const ALL: [Bound; 4] = [
        Bound::Kifer,
        Bound::Rdp,
        Bound::Profile,
        Bound::GaussianLower,
    ];

    /// CSV identifier.
    pub fn id(self) -> &'static str {
        match self {
            Bound::Kifer => "kifer",
            Bound::Rdp => "rdp",
            Bound::Profile => "profile",
            Bound::GaussianLower => "gaussian_lower",
        }
    }

    fn legend(self) -> &'static str {
        match self {
            Bound::Kifer => "Kifer et al. (Thm 2.8)",
            Bound::Rdp => "RDP (Thm 3.2)",
            Bound::Profile => "privacy profile (Thm 3.1)",
            Bound::GaussianLower => "lower bound (Lemma 3.4)",
        }
    }
}

/// δ(ε) of every bound at every ε of each panel: `(panel index, ε, bound, δ)`.
pub fn data() -> anyhow::Result<Vec<(usize, f64, Bound, f64)>> {
    let orders = default_orders();
    let mut rows = Vec::new();
    for (p, setting) in SETTINGS.iter().enumerate() {
        let op = setting.objpert()?;
        let rdp = op.rdp_curve(&orders)?;
        // ε = 0 is excluded: Kifer et al.'s theorem needs ε > 0.
        for eps in linspace(0.0, EPS_MAX[p], POINTS + 1).into_iter().skip(1) {
            for bound in Bound::ALL {
                let delta = match bound {
                    Bound::Kifer => op.kifer_delta(eps)?,
                    Bound::Rdp => rdp.delta(eps)?,
                    Bound::Profile => op.profile_delta(eps)?,
                    Bound::GaussianLower => op.gaussian_lower_delta(eps)?,
                };
                rows.push((p, eps, bound, delta));
            }
        }
    }
    Ok(rows)
}

/// Writes fig1.{png,svg,csv}.
pub fn write(out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let rows = data()?;
    let mut csv = LongCsv::new(&["panel", "epsilon", "bound", "delta"]);
    for &(p, eps, bound, delta) in &rows {
        csv.push(vec![
            SETTINGS[p].id().into(),
            eps.into(),
            bound.id().into(),
            delta.into(),
        ])?;
    }
    let panels = SETTINGS
        .iter()
        .enumerate()
        .map(|(p, setting)| Panel {
            title: format!("{}: {}", ["left", "right"][p], setting.title()),
            x_label: "ε (privacy loss, nats)".into(),
            y_label: "δ(ε) (log scale)".into(),
            log_x: false,
            log_y: true,
            series: Bound::ALL
                .iter()
                .map(|&b| {
                    let points = rows
                        .iter()
                        .filter(|r| r.0 == p && r.2 == b)
                        .map(|r| (r.1, r.3));
                    Series {
                        dashed: b == Bound::GaussianLower,
                        dots: false,
                        steps: false,
                        ..Series::line(b.legend(), points.collect())
                    }
                })
                .collect(),
            y_range: None,
        })
        .collect();
    let figure = Figure {
        title: "Figure 1: (ε, δ) bounds for objective perturbation (Redberg et al. 2023)".into(),
        panels,
        columns: 2,
    };
    save(out, "fig1", &figure, &csv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::csv::Table;
    use anyhow::ensure;
    use std::collections::{BTreeMap, BTreeSet};

    /// The paper's claim on the CSV: profile ≤ RDP ≤ Kifer, and all ≥ the Gaussian lower
    /// bound, at every plotted ε of both panels; the four curves are distinct over most of it.
    fn check(t: &Table) -> anyhow::Result<()> {
        ensure!(
            t.columns == ["panel", "epsilon", "bound", "delta"],
            "columns {:?}",
            t.columns
        );
        let mut by_point: BTreeMap<(String, u64), [f64; 4]> = BTreeMap::new();
        for i in 0..t.rows.len() {
            let key = (
                t.text(i, "panel")?.to_string(),
                t.num(i, "epsilon")?.to_bits(),
            );
            let bound = t.text(i, "bound")?;
            let b = Bound::ALL.iter().position(|b| b.id() == bound);
            let b = b.ok_or_else(|| anyhow::anyhow!("unknown bound {bound}"))?;
            by_point.entry(key).or_insert([f64::NAN; 4])[b] = t.num(i, "delta")?;
        }
        ensure!(by_point.len() == 2 * POINTS, "{} points", by_point.len());
        let panels: BTreeSet<&str> = by_point.keys().map(|k| k.0.as_str()).collect();
        ensure!(panels.len() == 2, "panels {panels:?}");
        let mut strict = 0;
        for ((panel, eps), [kifer, rdp, profile, lower]) in &by_point {
            let eps = f64::from_bits(*eps);
            let all = [kifer, rdp, profile, lower];
            ensure!(
                all.iter().all(|d| (0.0..=1.0).contains(*d)),
                "{panel} ε={eps}: {all:?}"
            );
            ensure!(
                profile <= rdp,
                "{panel} ε={eps}: profile {profile} > RDP {rdp}"
            );
            ensure!(rdp <= kifer, "{panel} ε={eps}: RDP {rdp} > Kifer {kifer}");
            ensure!(
                lower <= profile,
                "{panel} ε={eps}: lower bound {lower} > profile {profile}"
            );
            if *lower > 0.0 && profile < rdp && rdp < kifer && lower < profile {
                strict += 1;
            }
        }
        ensure!(
            strict > POINTS,
            "only {strict} points with four distinct bounds"
        );
        Ok(())
    }

    #[test]
    fn figures_fig1_bounds_are_ordered_as_in_the_paper() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(write(dir.path()).unwrap().len(), 3);
        let t = Table::read(&dir.path().join("fig1.csv")).unwrap();
        check(&t).unwrap();
        // The check can fail: exchanging any two adjacent bounds breaks the ordering.
        for (a, b) in [
            ("profile", "rdp"),
            ("rdp", "kifer"),
            ("gaussian_lower", "profile"),
        ] {
            assert!(
                check(&t.swapped("bound", a, b)).is_err(),
                "{a} <-> {b} not detected"
            );
        }
    }
}
