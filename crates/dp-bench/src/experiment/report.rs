//! The human-facing outputs of a run beyond the tables: the accuracy figure and a copy of the
//! config that produced the results.

use std::path::Path;

use super::config::Config;
use super::store::write_text_atomic;
use super::summary::SummaryRow;
use crate::plot::{Figure, Panel, Series};

/// Saves the config next to the results so a folder documents how it was made.
pub fn write_config_copy(dir: &Path, cfg: &Config) -> anyhow::Result<()> {
    let text = cfg.to_toml()?;
    write_text_atomic(&dir.join("config.toml"), &text)
}

/// One accuracy-vs-ε panel: a line with 95% error bars per method.
pub fn accuracy_panel(title: &str, rows: &[SummaryRow]) -> Panel {
    let mut methods: Vec<&str> = rows.iter().map(|r| r.method.as_str()).collect();
    methods.sort();
    methods.dedup();
    let series = methods
        .iter()
        .map(|m| {
            let mut pts: Vec<&SummaryRow> = rows.iter().filter(|r| r.method == *m).collect();
            pts.sort_by(|a, b| a.epsilon.total_cmp(&b.epsilon));
            Series {
                name: m.to_string(),
                points: pts.iter().map(|r| (r.epsilon, r.mean_accuracy)).collect(),
                err: Some(pts.iter().map(|r| r.ci95).collect()),
                dashed: false,
                dots: false,
                steps: false,
            }
        })
        .collect();
    Panel {
        title: title.to_string(),
        x_label: "privacy budget ε (log scale)".into(),
        y_label: "test accuracy (%)".into(),
        log_x: true,
        log_y: false,
        series,
        y_range: None,
    }
}

/// The run's figure: test accuracy against ε with 1.96·SE error bars.
pub fn accuracy_figure(cfg: &Config, rows: &[SummaryRow], dataset: &str) -> Figure {
    Figure {
        title: format!(
            "{}: test accuracy vs ε (δ = {:e}, {} trials)",
            cfg.experiment, cfg.delta, cfg.trials
        ),
        panels: vec![accuracy_panel(dataset, rows)],
        columns: 1,
    }
}
