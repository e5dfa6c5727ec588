//! Figure 3 (Appendix C.2, "Figure C.2"): RDP curves ε(α) of the Gaussian ("normal"), the
//! half-normal and the ObjPert mechanism, varying σ and λ.
//!
//! The paper's text fixes only the pattern of the four panels, not their values: 3a and 3c
//! share λ (large), 3b and 3d share λ (small), and σ is larger in 3a/3b than in 3c/3d
//! ("as σ increases, between Figures 3c and 3a, and between Figures 3d and 3b"); the
//! half-normal–ObjPert gap is "best displayed in Figure 3b" (large σ, small λ). The values
//! below (σ ∈ {1, 10}, λ ∈ {2, 100}, β = L = 1) follow that pattern.

use std::path::{Path, PathBuf};

use dp_core::accounting::{gaussian, half_normal};

use super::Setting;
use crate::figures::csv::LongCsv;
use crate::figures::{geomspace, save};
use crate::plot::{Figure, Panel, Series};

/// Panels (a)–(d).
pub const SETTINGS: [Setting; 4] = [
    Setting {
        sigma: 10.0,
        beta: 1.0,
        lambda: 100.0,
        lipschitz: 1.0,
    },
    Setting {
        sigma: 10.0,
        beta: 1.0,
        lambda: 2.0,
        lipschitz: 1.0,
    },
    Setting {
        sigma: 1.0,
        beta: 1.0,
        lambda: 100.0,
        lipschitz: 1.0,
    },
    Setting {
        sigma: 1.0,
        beta: 1.0,
        lambda: 2.0,
        lipschitz: 1.0,
    },
];

const ALPHA_MIN: f64 = 1.05;
const ALPHA_MAX: f64 = 1000.0;
const POINTS: usize = 150;

/// The three mechanisms, in legend order.
pub const MECHANISMS: [&str; 3] = ["normal", "half-normal", "ObjPert"];

/// ε(α) per panel, order and mechanism: `(panel, α, mechanism index, ε)`.
pub fn data() -> anyhow::Result<Vec<(usize, f64, usize, f64)>> {
    let orders = geomspace(ALPHA_MIN, ALPHA_MAX, POINTS);
    let mut rows = Vec::new();
    for (p, s) in SETTINGS.iter().enumerate() {
        let curves = [
            gaussian::rdp_curve(s.sigma, s.lipschitz, &orders)?,
            half_normal::rdp_curve(s.sigma, s.lipschitz, &orders)?,
            s.objpert()?.rdp_curve(&orders)?,
        ];
        for (m, curve) in curves.iter().enumerate() {
            for (&a, &e) in curve.orders.iter().zip(&curve.eps) {
                rows.push((p, a, m, e));
            }
        }
    }
    Ok(rows)
}

/// Writes fig3.{png,svg,csv}.
pub fn write(out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let rows = data()?;
    let mut csv = LongCsv::new(&["panel", "alpha", "mechanism", "epsilon"]);
    for &(p, a, m, e) in &rows {
        csv.push(vec![
            SETTINGS[p].id().into(),
            a.into(),
            MECHANISMS[m].into(),
            e.into(),
        ])?;
    }
    let panels = SETTINGS
        .iter()
        .enumerate()
        .map(|(p, s)| Panel {
            title: format!("({}) {}", ['a', 'b', 'c', 'd'][p], s.title()),
            x_label: "Rényi order α (log scale)".into(),
            y_label: "RDP ε(α) (nats, log scale)".into(),
            log_x: true,
            log_y: true,
            series: MECHANISMS
                .iter()
                .enumerate()
                .map(|(m, name)| {
                    let points = rows
                        .iter()
                        .filter(|r| r.0 == p && r.2 == m)
                        .map(|r| (r.1, r.3));
                    Series {
                        dashed: m == 0,
                        dots: false,
                        steps: false,
                        ..Series::line(*name, points.collect())
                    }
                })
                .collect(),
            y_range: None,
        })
        .collect();
    let figure = Figure {
        title: "Figure 3: RDP of the normal, half-normal and ObjPert mechanisms (Redberg et al. 2023, App. C.2)"
            .into(),
        panels,
        columns: 2,
    };
    save(out, "fig3", &figure, &csv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::csv::Table;
    use crate::figures::label_value;
    use anyhow::{Context, ensure};
    use std::collections::BTreeMap;

    /// The paper's claims on the CSV: ObjPert ≥ half-normal ≥ normal everywhere, and the
    /// ObjPert − half-normal gap is smaller for the larger λ at equal σ and α.
    fn check(t: &Table) -> anyhow::Result<()> {
        // (panel, α) → ε per mechanism
        let mut pts: BTreeMap<(String, u64), [f64; 3]> = BTreeMap::new();
        for i in 0..t.rows.len() {
            let mech = t.text(i, "mechanism")?;
            let m = MECHANISMS
                .iter()
                .position(|m| *m == mech)
                .context("unknown mechanism")?;
            let key = (
                t.text(i, "panel")?.to_string(),
                t.num(i, "alpha")?.to_bits(),
            );
            pts.entry(key).or_insert([f64::NAN; 3])[m] = t.num(i, "epsilon")?;
        }
        ensure!(pts.len() == 4 * POINTS, "{} points", pts.len());
        for ((panel, a), [normal, half, objpert]) in &pts {
            let a = f64::from_bits(*a);
            ensure!(
                *normal > 0.0 && half >= normal,
                "{panel} α={a}: half-normal {half} < normal {normal}"
            );
            ensure!(
                objpert > half,
                "{panel} α={a}: ObjPert {objpert} ≤ half-normal {half}"
            );
        }
        let param = |p: &str, k: &str| label_value(p, k).with_context(|| format!("no {k} in {p}"));
        let mut compared = 0;
        for ((p1, a1), e1) in &pts {
            for ((p2, a2), e2) in &pts {
                let (s1, s2) = (param(p1, "sigma")?, param(p2, "sigma")?);
                let (l1, l2) = (param(p1, "lambda")?, param(p2, "lambda")?);
                if a1 == a2 && s1 == s2 && l1 < l2 {
                    let (gap_small_lambda, gap_large_lambda) = (e1[2] - e1[1], e2[2] - e2[1]);
                    ensure!(
                        gap_large_lambda < gap_small_lambda,
                        "σ={s1} α={}: gap at λ={l2} ({gap_large_lambda}) ≥ gap at λ={l1} ({gap_small_lambda})",
                        f64::from_bits(*a1)
                    );
                    compared += 1;
                }
            }
        }
        ensure!(compared == 2 * POINTS, "{compared} comparisons");
        Ok(())
    }

    #[test]
    fn figures_fig3_objpert_above_half_normal_above_normal_and_gap_shrinks_with_lambda() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path()).unwrap();
        let t = Table::read(&dir.path().join("fig3.csv")).unwrap();
        check(&t).unwrap();
        // The check can fail: swapped mechanisms, or the λ of two panels exchanged.
        assert!(check(&t.swapped("mechanism", "normal", "half-normal")).is_err());
        assert!(check(&t.swapped("mechanism", "ObjPert", "half-normal")).is_err());
        let (small, large) = (SETTINGS[1].id(), SETTINGS[0].id());
        assert!(check(&t.swapped("panel", &small, &large)).is_err());
    }
}
