//! Aggregation of finished cells into the paper's table: mean test accuracy and 95% CI.

use std::collections::BTreeMap;
use std::path::Path;

use super::config::{Config, MethodConfig, Tuning};
use super::store::{CellResult, write_atomic};

/// One row of `summary.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// Method name.
    pub method: String,
    /// Target ε.
    pub epsilon: f64,
    /// Mean test accuracy over trials (percent).
    pub mean_accuracy: f64,
    /// 1.96 × standard error of the mean.
    pub ci95: f64,
    /// Number of trials aggregated.
    pub trials: usize,
    /// Learning rate chosen by dishonest tuning (NaN otherwise).
    pub chosen_lr: f64,
}

/// Mean and 1.96 × standard error (sample standard deviation; 0 for a single value).
pub fn mean_ci95(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 1.96 * (var / n).sqrt())
}

/// Parses a cell's `[[lr, accuracy], …]` list.
pub fn parse_lr_accuracies(s: &str) -> Vec<(f64, f64)> {
    serde_json::from_str::<Vec<(f64, f64)>>(s).unwrap_or_default()
}

/// Aggregates cells per (method, ε). Dishonest tuning reports the single learning rate with the
/// best mean accuracy over trials (the paper's "best mean test accuracy"); every other method
/// averages what each trial released.
pub fn summarize(cfg: &Config, rows: &[CellResult]) -> Vec<SummaryRow> {
    let mut groups: BTreeMap<(String, u64), Vec<&CellResult>> = BTreeMap::new();
    for r in rows {
        if cfg.methods.contains_key(&r.method) && cfg.epsilons.contains(&r.epsilon) {
            groups
                .entry((r.method.clone(), r.epsilon.to_bits()))
                .or_default()
                .push(r);
        }
    }
    let mut out = Vec::new();
    for ((method, eps_bits), cells) in groups {
        let dishonest = matches!(
            cfg.methods.get(&method),
            Some(MethodConfig::Dpsgd(d)) if d.tuning == Tuning::Dishonest
        );
        let (accs, chosen_lr) = if dishonest {
            let mut by_lr: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
            for c in &cells {
                for (lr, acc) in parse_lr_accuracies(&c.lr_accuracies) {
                    by_lr.entry(lr.to_bits()).or_default().push(acc);
                }
            }
            let best = by_lr
                .iter()
                .filter(|(_, v)| v.len() == cells.len())
                .max_by(|a, b| mean_ci95(a.1).0.total_cmp(&mean_ci95(b.1).0));
            match best {
                Some((lr, v)) => (v.clone(), f64::from_bits(*lr)),
                None => (cells.iter().map(|c| c.accuracy).collect(), f64::NAN),
            }
        } else {
            (cells.iter().map(|c| c.accuracy).collect(), f64::NAN)
        };
        let (mean, ci) = mean_ci95(&accs);
        out.push(SummaryRow {
            method,
            epsilon: f64::from_bits(eps_bits),
            mean_accuracy: mean,
            ci95: ci,
            trials: accs.len(),
            chosen_lr,
        });
    }
    out.sort_by(|a, b| {
        a.method
            .cmp(&b.method)
            .then(a.epsilon.total_cmp(&b.epsilon))
    });
    out
}

/// Writes `summary.csv` and `summary.md` atomically.
pub fn write(dir: &Path, rows: &[SummaryRow]) -> anyhow::Result<()> {
    let mut csv = String::from("method,epsilon,mean_accuracy,ci95,trials\n");
    for r in rows {
        csv.push_str(&format!(
            "{},{},{:.4},{:.4},{}\n",
            r.method, r.epsilon, r.mean_accuracy, r.ci95, r.trials
        ));
    }
    write_atomic(&dir.join("summary.csv"), |f| {
        use std::io::Write;
        f.write_all(csv.as_bytes())?;
        Ok(())
    })?;
    let md = markdown_table(rows);
    write_atomic(&dir.join("summary.md"), |f| {
        use std::io::Write;
        f.write_all(md.as_bytes())?;
        Ok(())
    })
}

/// The summary as a Markdown table: one row per ε, one column per method, "mean ± ci95".
pub fn markdown_table(rows: &[SummaryRow]) -> String {
    let methods: Vec<String> = {
        let mut m: Vec<String> = rows.iter().map(|r| r.method.clone()).collect();
        m.dedup();
        m.sort();
        m.dedup();
        m
    };
    let mut eps: Vec<f64> = rows.iter().map(|r| r.epsilon).collect();
    eps.sort_by(f64::total_cmp);
    eps.dedup();
    let mut s = format!(
        "| ε | {} |\n|---|{}\n",
        methods.join(" | "),
        "---|".repeat(methods.len())
    );
    for e in eps {
        s.push_str(&format!("| {e} |"));
        for m in &methods {
            match rows.iter().find(|r| &r.method == m && r.epsilon == e) {
                Some(r) => s.push_str(&format!(" {:.2} ± {:.2} |", r.mean_accuracy, r.ci95)),
                None => s.push_str(" – |"),
            }
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_matches_hand_computation() {
        let (m, ci) = mean_ci95(&[1.0, 2.0, 3.0, 4.0]);
        assert!((m - 2.5).abs() < 1e-12);
        // sd = sqrt(5/3), se = sd/2
        assert!((ci - 1.96 * (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(mean_ci95(&[7.0]), (7.0, 0.0));
    }
}
