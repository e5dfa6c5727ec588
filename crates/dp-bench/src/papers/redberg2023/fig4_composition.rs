//! Figure 4 (Appendix D.3.1): k-fold composition of objective perturbation (σ = 8, β = 1,
//! λ = 10, L = 1). δ(ε) from the composed RDP curve (k·ε(α), then converted) against the
//! FFT-based PLD accountant on the dominating pair of Lemma D.6 (the paper's "PLRV bound" D.11).

use std::path::{Path, PathBuf};

use dp_core::accounting::default_orders;
use dp_core::accounting::pld::{Pld, PldConfig};

use super::Setting;
use crate::figures::csv::LongCsv;
use crate::figures::{linspace, save};
use crate::plot::{Figure, Panel, Series};

/// The paper's setting (caption of Figure 4).
pub const SETTING: Setting = Setting {
    sigma: 8.0,
    beta: 1.0,
    lambda: 10.0,
    lipschitz: 1.0,
};

/// Numbers of compositions, one panel each (the paper does not list its k).
pub const KS: [u64; 4] = [1, 10, 100, 1000];

/// Each panel spans ε from 0 to where the RDP δ reaches this value. It stays well above the
/// PLD accountant's pessimistic floor ((k + 1)·1e-15 of truncated tail mass), which would
/// otherwise dominate its δ.
const DELTA_FLOOR: f64 = 1e-10;
/// Each panel starts where the PLD δ falls below this value.
const DELTA_TOP: f64 = 0.95;
const POINTS: usize = 120;

/// The two accountants.
pub const METHODS: [&str; 2] = ["rdp", "pld"];

/// `(k, ε, method index, δ)` for every panel.
pub fn data() -> anyhow::Result<Vec<(u64, f64, usize, f64)>> {
    let orders = default_orders();
    let op = SETTING.objpert()?;
    let single_rdp = op.rdp_curve(&orders)?;
    let single_pld = Pld::objpert(
        SETTING.sigma,
        SETTING.lambda,
        SETTING.beta,
        SETTING.lipschitz,
        &PldConfig::default(),
    )?;
    let mut rows = Vec::new();
    for &k in &KS {
        let rdp = single_rdp.scaled(k);
        let pld = single_pld.self_compose(k)?;
        // From where δ leaves ≈ 1 (both δ are ≈ 1 below k·c) to where the RDP δ is at the floor.
        let eps_min = pld.epsilon(DELTA_TOP)?;
        let eps_max = rdp.epsilon(DELTA_FLOOR)?.0;
        for eps in linspace(eps_min, eps_max, POINTS) {
            rows.push((k, eps, 0, rdp.delta(eps)?));
            rows.push((k, eps, 1, pld.delta(eps)?));
        }
    }
    Ok(rows)
}

/// Writes fig4.{png,svg,csv}.
pub fn write(out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let rows = data()?;
    let mut csv = LongCsv::new(&["k", "epsilon", "method", "delta"]);
    for &(k, eps, m, delta) in &rows {
        csv.push(vec![k.into(), eps.into(), METHODS[m].into(), delta.into()])?;
    }
    let legend = ["RDP (Thm 3.2, composed)", "PLD accountant (D.11)"];
    let panels = KS
        .iter()
        .map(|&k| Panel {
            title: format!("k = {k} compositions"),
            x_label: "ε (privacy loss, nats)".into(),
            y_label: "δ(ε) (log scale)".into(),
            log_x: false,
            log_y: true,
            series: (0..2)
                .map(|m| {
                    let points = rows
                        .iter()
                        .filter(|r| r.0 == k && r.2 == m)
                        .map(|r| (r.1, r.3));
                    Series::line(legend[m], points.collect())
                })
                .collect(),
            y_range: Some((DELTA_FLOOR / 10.0, 1.0)),
        })
        .collect();
    let figure = Figure {
        title: format!(
            "Figure 4: k-fold composition of ObjPert, {} (Redberg et al. 2023, App. D)",
            SETTING.title()
        ),
        panels,
        columns: 2,
    };
    save(out, "fig4", &figure, &csv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::csv::Table;
    use anyhow::{Context, ensure};
    use std::collections::BTreeMap;

    /// `(k, ε bits) → [δ_RDP, δ_PLD]` from the CSV.
    fn points(t: &Table) -> anyhow::Result<BTreeMap<(u64, u64), [f64; 2]>> {
        let mut pts: BTreeMap<(u64, u64), [f64; 2]> = BTreeMap::new();
        for i in 0..t.rows.len() {
            let method = t.text(i, "method")?;
            let m = METHODS
                .iter()
                .position(|m| *m == method)
                .context("unknown method")?;
            let key = (t.num(i, "k")? as u64, t.num(i, "epsilon")?.to_bits());
            pts.entry(key).or_insert([f64::NAN; 2])[m] = t.num(i, "delta")?;
        }
        ensure!(pts.len() == KS.len() * POINTS, "{} points", pts.len());
        Ok(pts)
    }

    /// The paper's claim on the CSV: the PLD accountant's δ is never above the RDP one, for
    /// every k and ε; and (not a degenerate figure) it is strictly tighter over most of each
    /// panel, by a factor of 2 or more somewhere.
    fn check(t: &Table) -> anyhow::Result<()> {
        let mut tighter: BTreeMap<u64, (usize, f64)> = BTreeMap::new();
        for (&(k, eps), &[rdp, pld]) in &points(t)? {
            let eps = f64::from_bits(eps);
            ensure!((0.0..=1.0).contains(&pld), "k={k} ε={eps}: δ_PLD = {pld}");
            ensure!(pld <= rdp, "k={k} ε={eps}: PLD δ {pld} > RDP δ {rdp}");
            let t = tighter.entry(k).or_insert((0, 1.0));
            t.0 += usize::from(pld < rdp);
            t.1 = t.1.max(rdp / pld);
        }
        for k in KS {
            let (strict, ratio) = tighter[&k];
            ensure!(
                strict > POINTS / 2 && ratio >= 2.0,
                "k={k}: {strict} tighter points, best ratio {ratio}"
            );
        }
        Ok(())
    }

    #[test]
    fn figures_fig4_pld_is_never_looser_than_rdp() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path()).unwrap();
        let t = Table::read(&dir.path().join("fig4.csv")).unwrap();
        check(&t).unwrap();
        assert!(check(&t.swapped("method", "rdp", "pld")).is_err());
    }

    /// At k = 1 the PLD accountant evaluates the privacy profile of Thm 3.1, which has a closed
    /// form: it must match it from above (the accountant is pessimistic).
    #[test]
    fn figures_fig4_single_release_pld_matches_the_closed_form_profile() {
        let op = SETTING.objpert().unwrap();
        let pld = Pld::objpert(
            SETTING.sigma,
            SETTING.lambda,
            SETTING.beta,
            SETTING.lipschitz,
            &PldConfig::default(),
        )
        .unwrap();
        for eps in linspace(0.0, 0.85, 35) {
            let (exact, numeric) = (op.profile_delta(eps).unwrap(), pld.delta(eps).unwrap());
            assert!(
                numeric >= exact * (1.0 - 1e-9),
                "ε={eps}: PLD {numeric} < profile {exact}"
            );
            assert!(
                numeric <= exact * 1.01 + 1e-13,
                "ε={eps}: PLD {numeric} ≫ profile {exact}"
            );
        }
    }
}
