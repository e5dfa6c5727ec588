//! `fig1.csv` / `fig3.csv` (one row per dataset, algorithm, calibration and tuning at the
//! paper's table ε) and `tables.md` (ours beside the paper's, and what the paper calibration
//! certifies).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::paper_values::{ALGORITHMS, DISPLAY, paper_accuracy, table_epsilon};
use super::results::Row;
use crate::figures::Outcome;
use crate::figures::csv::{Field, LongCsv};
use crate::files::write_text_atomic;

/// Columns of `fig1.csv` and `fig3.csv`.
pub const COLUMNS: [&str; 12] = [
    "dataset",
    "loss",
    "epsilon",
    "algorithm",
    "calibration",
    "tuning",
    "mean_accuracy",
    "std",
    "trials",
    "best_config",
    "epsilon_certified",
    "paper_accuracy",
];

/// Rows at the paper's table ε (0.1 binary, 1 multiclass), in the paper's column order.
pub fn table_rows(rows: &[Row]) -> Vec<&Row> {
    let mut out: Vec<&Row> = rows
        .iter()
        .filter(|r| (r.epsilon - table_epsilon(&r.dataset)).abs() < 1e-9)
        .collect();
    let rank = |a: &str| ALGORITHMS.iter().position(|x| *x == a).unwrap_or(99);
    out.sort_by(|a, b| {
        (rank(&a.algorithm), &a.calibration, &a.tuning).cmp(&(
            rank(&b.algorithm),
            &b.calibration,
            &b.tuning,
        ))
    });
    out.sort_by_key(|r| super::DATASETS.iter().position(|d| *d == r.dataset));
    out
}

/// Writes `<stem>.csv`, or says why not.
pub fn write_fig_table(
    out: &Path,
    stem: &str,
    rows: &[Row],
    results: &Path,
    loss: &str,
) -> anyhow::Result<Outcome> {
    let picked = table_rows(rows);
    if picked.is_empty() {
        return Ok(Outcome::Skipped(super::missing_message(
            &format!("{stem}.csv"),
            results,
            loss,
        )));
    }
    let mut csv = LongCsv::new(&COLUMNS);
    for r in picked {
        let paper = paper_accuracy(loss == "huber", &r.dataset, &r.algorithm);
        csv.push(vec![
            r.dataset.clone().into(),
            r.loss.clone().into(),
            r.epsilon.into(),
            r.algorithm.clone().into(),
            r.calibration.clone().into(),
            r.tuning.clone().into(),
            r.mean_accuracy.into(),
            r.std.into(),
            (r.trials as u64).into(),
            r.best_config.clone().into(),
            r.epsilon_certified.into(),
            paper.map_or(Field::Text(String::new()), Field::from),
        ])?;
    }
    let path = out.join(format!("{stem}.csv"));
    csv.write(&path)?;
    Ok(Outcome::Written(vec![path]))
}

fn find<'a>(rows: &'a [Row], d: &str, a: &str, cal: &str, tun: &str, eps: f64) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.dataset == d
            && r.algorithm == a
            && (a == "np" || (r.calibration == cal && r.tuning == tun))
            && (r.epsilon - eps).abs() < 1e-9
    })
}

fn datasets(rows: &[Row]) -> Vec<&'static str> {
    super::DATASETS
        .iter()
        .copied()
        .filter(|d| rows.iter().any(|r| r.dataset == *d))
        .collect()
}

fn cell(r: Option<&Row>) -> String {
    r.map_or("–".into(), |r| {
        format!("{:.1} ± {:.1}", r.mean_accuracy, r.std)
    })
}

fn eps_cell(r: Option<&Row>) -> String {
    match r.map(|r| r.epsilon_certified) {
        None => "–".into(),
        Some(e) if e.is_infinite() => "∞".into(),
        Some(e) => format!("{e:.3}"),
    }
}

fn accuracy_table(s: &mut String, rows: &[Row], huber: bool, cal: &str, tun: &str) {
    let _ = writeln!(s, "| dataset (ε) | {} |", DISPLAY.join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(DISPLAY.len()));
    for d in datasets(rows) {
        let eps = table_epsilon(d);
        let ours: Vec<String> = ALGORITHMS
            .iter()
            .map(|a| {
                let paper = paper_accuracy(huber, d, a).map_or("–".into(), |p| format!("{p}"));
                format!("{} ({paper})", cell(find(rows, d, a, cal, tun, eps)))
            })
            .collect();
        let _ = writeln!(s, "| {d} ({eps}) | {} |", ours.join(" | "));
    }
}

fn certified_table(s: &mut String, rows: &[Row]) {
    let mut eps: Vec<f64> = rows.iter().map(|r| r.epsilon).collect();
    eps.sort_by(f64::total_cmp);
    eps.dedup();
    for d in datasets(rows) {
        let _ = writeln!(s, "\n{d}:\n");
        let _ = writeln!(s, "| target ε | {} |", DISPLAY[1..].join(" | "));
        let _ = writeln!(s, "|---|{}", "---|".repeat(DISPLAY.len() - 1));
        for &e in &eps {
            let v: Vec<String> = ALGORITHMS[1..]
                .iter()
                .map(|a| eps_cell(find(rows, d, a, "paper", "dishonest", e)))
                .collect();
            let _ = writeln!(s, "| {e:.4} | {} |", v.join(" | "));
        }
    }
}

/// Writes `tables.md`: Fig. 1 and Fig. 3 ours beside the paper's, per calibration and
/// tuning, and the ε the paper calibration actually certifies.
pub fn write_markdown(out: &Path, logistic: &[Row], huber: &[Row]) -> anyhow::Result<Outcome> {
    let mut s = String::from(
        "# Iyengar et al. 2019: Fig. 1 and Fig. 3 reproduced\n\n\
         Test accuracy in percent, mean ± std over trials (ddof 0, as the paper), the paper's \
         value in parentheses. ε = 0.1 for binary tasks, 1 for multiclass ones. *Paper \
         calibration* is the authors' noise formulas, which are not private at the stated ε \
         everywhere (see the certified-ε table); *certified* is this project's calibration, \
         whose every cell this project's accountants certify at the target. *Dishonest* tuning reports \
         the grid point with the best mean test accuracy (the paper's protocol, tuning cost \
         ignored); *honest* is Papernot–Steinke private selection, its cost accounted.\n",
    );
    for (title, rows, huber) in [
        ("Fig. 1: logistic regression", logistic, false),
        ("Fig. 3: Huber SVM (h = 0.1)", huber, true),
    ] {
        if rows.is_empty() {
            continue;
        }
        for (cal, tun, what) in [
            (
                "paper",
                "dishonest",
                "paper calibration, dishonest tuning (the paper's protocol)",
            ),
            (
                "certified",
                "dishonest",
                "certified calibration, dishonest tuning",
            ),
            (
                "certified",
                "honest",
                "certified calibration, honest tuning (end-to-end private)",
            ),
            ("paper", "honest", "paper calibration, honest tuning"),
        ] {
            let _ = writeln!(s, "\n## {title}: {what}\n");
            accuracy_table(&mut s, rows, huber, cal, tun);
        }
        let _ = writeln!(
            s,
            "\n## {title}: ε the accountant certifies for the paper calibration \
             (dishonest tuning, the reported grid point, largest over trials; ∞: no guarantee)\n"
        );
        certified_table(&mut s, rows);
    }
    let path: PathBuf = out.join("tables.md");
    write_text_atomic(&path, &s)?;
    Ok(Outcome::Written(vec![path]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::csv::Table;

    fn row(algorithm: &str, calibration: &str, epsilon: f64, acc: f64, cert: f64) -> Row {
        Row {
            dataset: "adult".into(),
            loss: "logistic".into(),
            algorithm: algorithm.into(),
            calibration: calibration.into(),
            tuning: "dishonest".into(),
            epsilon,
            mean_accuracy: acc,
            std: 0.5,
            trials: 10,
            best_config: "L=1;lr=0.1".into(),
            epsilon_certified: cert,
        }
    }

    #[test]
    fn fig1_keeps_the_table_epsilon_and_puts_the_papers_value_beside_ours() {
        let dir = tempfile::tempdir().unwrap();
        let rows = vec![
            row("psgd", "paper", 0.1, 78.0, 0.03),
            row("psgd", "paper", 1.0, 82.0, 1.68),
            row("psgd", "certified", 0.1, 80.0, 0.09),
            row("amp", "paper", 0.1, 79.0, f64::INFINITY),
        ];
        let Outcome::Written(files) =
            write_fig_table(dir.path(), "fig1", &rows, dir.path(), "logistic").unwrap()
        else {
            panic!("skipped")
        };
        let t = Table::read(&files[0]).unwrap();
        assert_eq!(t.columns, COLUMNS.map(String::from).to_vec());
        assert_eq!(t.rows.len(), 3, "only ε = 0.1 rows for a binary dataset");
        // The paper's column order: AMP before P-SGD; the paper's Adult values attached.
        assert_eq!(t.text(0, "algorithm").unwrap(), "amp");
        assert_eq!(t.num(0, "paper_accuracy").unwrap(), 79.1);
        assert_eq!(t.num(1, "paper_accuracy").unwrap(), 78.5);
        assert!(t.num(0, "epsilon_certified").unwrap().is_infinite());
        let Outcome::Written(md) = write_markdown(dir.path(), &rows, &[]).unwrap() else {
            panic!("skipped")
        };
        let text = std::fs::read_to_string(&md[0]).unwrap();
        assert!(text.contains("78.0 ± 0.5 (78.5)"), "{text}");
        assert!(
            text.contains("| 1.0000 |") && text.contains("1.680"),
            "{text}"
        );
        assert!(text.contains("∞"), "{text}");
    }

    #[test]
    fn missing_runs_are_skipped_with_the_command() {
        let dir = tempfile::tempdir().unwrap();
        match write_fig_table(dir.path(), "fig3", &[], dir.path(), "huber").unwrap() {
            Outcome::Skipped(msg) => assert!(msg.contains("adult-huber.toml"), "{msg}"),
            other => panic!("{other:?}"),
        }
    }
}
