//! The audit table and figure (`dp-bench figures audit`): for every audited mechanism, in the
//! papers' calibration and the certified one, the claimed ε, the certified ε and the measured
//! lower bound side by side (configs in `configs/audit/`, run by `dp-bench audit`).

use std::path::Path;

use anyhow::Context as _;

use super::PaperSpec;
use crate::audit::Outcome as Audit;
use crate::audit::table;
use crate::figures::csv::{Field, LongCsv};
use crate::figures::{Outcome, save};
use crate::files::write_text_atomic;
use crate::plot::{Figure, Panel, Series};

/// The entry in [`super::PAPERS`].
pub const SPEC: PaperSpec = PaperSpec {
    id: "audit",
    title: "Privacy audits: measured lower bounds on ε beside the claimed and certified ε",
    configs: &[
        "redberg2023",
        "iyengar2019",
        "iyengar2019-short-batch",
        "one-run",
        "one-run-white-box",
        "white-box",
        "white-box-psgd",
        "white-box-psgd-paper",
        "white-box-psgd-paper-adult",
        "white-box-alg1",
        "white-box-amp",
        "white-box-pfw",
        "white-box-pscpsgd",
        "white-box-ppsgd",
        "neel2019-opdisc",
        "avent2020-svt",
    ],
    figures,
};

/// Drawn range of ε: a certified ε above it (or ∞) is drawn at the top, a measured 0 at the
/// bottom; the CSV holds the values.
const Y_RANGE: (f64, f64) = (0.01, 1000.0);

/// The stored outcomes of one audit folder (`audits/NAME@EPS.json`), by method and ε.
pub fn load(dir: &Path) -> anyhow::Result<Vec<Audit>> {
    let audits = dir.join("audits");
    let mut paths: Vec<_> = std::fs::read_dir(&audits)
        .with_context(|| format!("cannot read {}", audits.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut audits = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p)?;
            serde_json::from_str(&text).with_context(|| format!("{} is not an audit", p.display()))
        })
        .collect::<anyhow::Result<Vec<Audit>>>()?;
    // File names sort "16" before "4": order by method, then ε as a number.
    audits.sort_by(|a, b| {
        (&a.method, a.epsilon_target)
            .partial_cmp(&(&b.method, b.epsilon_target))
            .expect("finite targets")
    });
    Ok(audits)
}

/// Writes `table.csv`, `table.md` and `fig1` into `out` from `<results>/<config stem>/`.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for stem in SPEC.configs {
        let dir = results.join(stem);
        if dir.join("audits").is_dir() {
            runs.push((*stem, load(&dir)?));
        } else {
            skipped.push(Outcome::Skipped(format!(
                "audit {stem} skipped: no {}; run `cargo run --release -p dp-bench -- audit \
                 configs/audit/{stem}.toml`",
                dir.join("audits").display()
            )));
        }
    }
    if runs.is_empty() {
        return Ok(skipped);
    }
    let mut written = write_table(out, &runs)?;
    written.extend(write_figure(out, &runs)?);
    skipped.insert(0, Outcome::Written(written));
    Ok(skipped)
}

fn write_table(out: &Path, runs: &[(&str, Vec<Audit>)]) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let mut columns = vec!["config"];
    columns.extend_from_slice(table::COLUMNS);
    let mut csv = LongCsv::new(&columns);
    let mut md = table::md_header(Some("config"));
    for (stem, audits) in runs {
        for a in audits {
            let mut row = vec![Field::Text(stem.to_string())];
            row.extend(table::fields(a));
            csv.push(row)?;
            md.push_str(&table::md_row(a, Some(stem)));
        }
    }
    md.push_str(table::MD_NOTE);
    let (c, m) = (out.join("table.csv"), out.join("table.md"));
    csv.write(&c)?;
    write_text_atomic(&m, &md)?;
    Ok(vec![c, m])
}

/// The panels of one config's audits: one per kind, its paper and certified methods in it,
/// unless the kind has two methods of one calibration (DP-SGD full batch and sampled): then
/// one per method. Returns each panel's name and methods, in the audits' order.
fn panel_groups(audits: &[Audit]) -> Vec<(String, Vec<&str>)> {
    let mut kinds: Vec<&str> = audits.iter().map(|a| a.kind.as_str()).collect();
    kinds.dedup();
    let mut groups = Vec::new();
    for kind in kinds {
        let mut methods: Vec<(&str, &str)> = audits
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| (a.method.as_str(), a.calibration.as_str()))
            .collect();
        methods.dedup();
        let shared = methods
            .iter()
            .any(|m| methods.iter().filter(|o| o.1 == m.1 && o.0 != m.0).count() > 0);
        if shared {
            groups.extend(methods.iter().map(|m| (m.0.to_string(), vec![m.0])));
        } else {
            groups.push((kind.to_string(), methods.iter().map(|m| m.0).collect()));
        }
    }
    groups
}

/// One panel per (config, kind): claimed, certified and measured ε against the target ε, for
/// the paper calibration (where the kind has one) and the certified one.
fn write_figure(
    out: &Path,
    runs: &[(&str, Vec<Audit>)],
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let clamp = |e: f64| e.clamp(Y_RANGE.0, Y_RANGE.1);
    let mut data = LongCsv::new(&["panel", "series", "epsilon_target", "epsilon"]);
    let mut panels = Vec::new();
    for (stem, audits) in runs {
        for (name, methods) in panel_groups(audits) {
            let of = |cal: &str| {
                let (methods, cal) = (methods.clone(), cal.to_string());
                audits
                    .iter()
                    .filter(move |a| methods.contains(&a.method.as_str()) && a.calibration == cal)
            };
            // Paper and certified first, so that a colour means the same in every panel; then
            // a kind's other calibrations (OPDisc's authors' code and χ-bound).
            let mut calibrations = vec!["paper", "certified"];
            for a in audits
                .iter()
                .filter(|a| methods.contains(&a.method.as_str()))
            {
                if !calibrations.contains(&a.calibration.as_str()) {
                    calibrations.push(a.calibration.as_str());
                }
            }
            let targets: Vec<f64> = calibrations
                .iter()
                .flat_map(|&cal| of(cal))
                .map(|a| a.epsilon_target)
                .collect();
            let (lo, hi) = targets
                .iter()
                .fold((f64::MAX, 0.0_f64), |(l, h), &t| (l.min(t), h.max(t)));
            let mut series = vec![Series {
                dashed: true,
                ..Series::line("claimed ε (target)", vec![(lo, lo), (hi, hi)])
            }];
            // Paper and certified always get their two lines (empty when the kind has no such
            // calibration), so that a colour means the same in every panel.
            for &cal in &calibrations {
                let none = if of(cal).next().is_none() {
                    " (n/a)"
                } else {
                    ""
                };
                let pts = |f: fn(&Audit) -> f64| {
                    of(cal)
                        .map(|a| (a.epsilon_target, clamp(f(a))))
                        .collect::<Vec<_>>()
                };
                series.push(Series::line(
                    format!("certified, {cal}{none}"),
                    pts(|a| a.epsilon_certified),
                ));
                series.push(Series {
                    dashed: true,
                    ..Series::line(format!("measured ≥, {cal}{none}"), pts(|a| a.epsilon_lower))
                });
            }
            let title = format!("{name} ({stem})");
            for s in &series {
                for &(x, y) in &s.points {
                    data.push(vec![
                        Field::Text(title.clone()),
                        Field::Text(s.name.clone()),
                        Field::Num(x),
                        Field::Num(y),
                    ])?;
                }
            }
            panels.push(Panel {
                title,
                x_label: "target ε".into(),
                y_label: "ε (log)".into(),
                log_x: true,
                log_y: true,
                series,
                y_range: Some(Y_RANGE),
            });
        }
    }
    let figure = Figure {
        title: "Audits: claimed, certified and measured ε (∞ or > 1000 drawn at 1000, 0 at 0.01)"
            .into(),
        panels,
        columns: 3,
    };
    save(out, "fig1", &figure, &data)
}
