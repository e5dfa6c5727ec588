//! `fig2` / `fig4`: test accuracy against ε, one panel per (dataset, calibration and tuning),
//! one line per algorithm with ±std error bars, so the published (paper-calibrated, dishonest)
//! curves stand beside the certified ones.

use std::path::Path;

use super::paper_values::{ALGORITHMS, DISPLAY};
use super::results::Row;
use crate::figures::csv::LongCsv;
use crate::figures::{Outcome, save};
use crate::plot::{Figure, Panel, Series};

/// (calibration, tuning, panel caption) in panel order.
const VARIANTS: [(&str, &str, &str); 3] = [
    (
        "paper",
        "dishonest",
        "paper noise, dishonest tuning (as published; not all private)",
    ),
    (
        "certified",
        "dishonest",
        "certified noise, dishonest tuning",
    ),
    (
        "certified",
        "honest",
        "certified noise, honest tuning (end-to-end private)",
    ),
];

/// Writes `<stem>.{png,svg,csv}` or says why not.
pub fn write(
    out: &Path,
    stem: &str,
    rows: &[Row],
    results: &Path,
    loss: &str,
) -> anyhow::Result<Outcome> {
    if rows.is_empty() {
        return Ok(Outcome::Skipped(super::missing_message(
            stem, results, loss,
        )));
    }
    let mut csv = LongCsv::new(&[
        "dataset",
        "algorithm",
        "calibration",
        "tuning",
        "epsilon",
        "mean_accuracy",
        "std",
        "trials",
        "best_config",
        "epsilon_certified",
    ]);
    for r in rows {
        csv.push(vec![
            r.dataset.clone().into(),
            r.algorithm.clone().into(),
            r.calibration.clone().into(),
            r.tuning.clone().into(),
            r.epsilon.into(),
            r.mean_accuracy.into(),
            r.std.into(),
            (r.trials as u64).into(),
            r.best_config.clone().into(),
            r.epsilon_certified.into(),
        ])?;
    }
    let mut panels = Vec::new();
    for d in super::DATASETS {
        if !rows.iter().any(|r| r.dataset == *d) {
            continue;
        }
        for (cal, tun, caption) in VARIANTS {
            // Every algorithm in every panel, so that an algorithm keeps its colour across panels.
            let series: Vec<Series> = ALGORITHMS
                .iter()
                .zip(DISPLAY)
                .map(|(a, name)| {
                    let mut pts: Vec<&Row> = rows
                        .iter()
                        .filter(|r| {
                            r.dataset == *d
                                && r.algorithm == *a
                                && (*a == "np" || (r.calibration == cal && r.tuning == tun))
                        })
                        .collect();
                    pts.sort_by(|x, y| x.epsilon.total_cmp(&y.epsilon));
                    Series {
                        name: if pts.is_empty() {
                            format!("{name} (not run)")
                        } else {
                            name.to_string()
                        },
                        points: pts.iter().map(|r| (r.epsilon, r.mean_accuracy)).collect(),
                        err: Some(pts.iter().map(|r| r.std).collect()),
                        dashed: *a == "np",
                        dots: false,
                        steps: false,
                    }
                })
                .collect();
            if series.iter().any(|s| !s.dashed && !s.points.is_empty()) {
                panels.push(Panel {
                    title: format!("{d}: {caption}"),
                    x_label: "ε".into(),
                    y_label: "test accuracy (%), ± std".into(),
                    log_x: true,
                    log_y: false,
                    series,
                    y_range: None,
                });
            }
        }
    }
    let what = if loss == "huber" {
        "Huber SVM"
    } else {
        "logistic regression"
    };
    let n = if loss == "huber" { 4 } else { 2 };
    let figure = Figure {
        title: format!("Figure {n}: accuracy vs ε, {what} (Iyengar et al. 2019), δ = 1/n²"),
        panels,
        columns: VARIANTS.len(),
    };
    Ok(Outcome::Written(save(out, stem, &figure, &csv)?))
}
