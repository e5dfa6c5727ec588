//! Table 2: mean HV(DPareto) − HV(random sampling) over disjoint parts of a long random run,
//! with a two-sided 95 % t-interval (P l.353-364: "19 parts of size 256 to match the number of
//! BO points" of 5,000 draws). Each part has as many points as DPareto's BO iterations (256 at
//! the paper's budget); DPareto's HV is one number, with its seed points (all 272, as
//! `pf_utils.test` scores a run) and, as a variant, without them (256).

use std::path::Path;

use super::SETTINGS;
use super::runs::Runs;
use crate::figures::Outcome;
use crate::figures::csv::LongCsv;
use crate::files::write_text_atomic;
use crate::pareto::output::hypervolume;
use crate::pareto::points::{Point, Source};

/// The paper's values: (mean, CI low, CI high) for LR+SGD, LR+Adam, SVM+SGD.
pub const PAPER: [(f64, f64, f64); 3] = [
    (0.158, 0.053, 0.264),
    (0.439, 0.272, 0.607),
    (0.282, 0.161, 0.402),
];

/// t_{0.975, df} for df = 1..=30.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// Mean and 95 % t-interval of `d` (at least two values, at most 31).
pub fn t_interval(d: &[f64]) -> Option<(f64, f64, f64)> {
    let n = d.len();
    if !(2..=T975.len() + 1).contains(&n) {
        return None;
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    let sd = (d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let h = T975[n - 2] * sd / (n as f64).sqrt();
    Some((mean, mean - h, mean + h))
}

/// Writes `table2.csv` and `table2.md`.
pub fn write(out: &Path, runs: &Runs, results: &Path) -> anyhow::Result<Outcome> {
    let mut csv = LongCsv::new(&[
        "setting",
        "bo_run",
        "bo_points",
        "rs_run",
        "parts",
        "part_size",
        "hv_bo",
        "hv_rs_mean",
        "diff_mean",
        "ci_low",
        "ci_high",
        "diff_mean_without_seeds",
        "ci_low_without_seeds",
        "ci_high_without_seeds",
        "paper_mean",
        "paper_ci_low",
        "paper_ci_high",
    ]);
    let mut md = String::from(
        "# Avent et al. 2020, Table 2: HV(DPareto) − HV(random sampling), Adult\n\n\
         Hypervolume w.r.t. (ε, error) = (10, 1). Random-sampling parts are consecutive, disjoint\n\
         blocks of a long random run, each as large as DPareto's BO iterations (the paper's 19 × 256);\n\
         HV(BO) counts all of DPareto's points, seeds included; 95 % two-sided t-interval.\n\n\
         | setting | DPareto run (points) | random parts × size | HV(BO) | mean HV(RS) | diff (95 % CI) | without the seed points | paper |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    let mut any = false;
    for ((setting, label), paper) in SETTINGS.iter().zip(PAPER) {
        // Both at the paper's budget if that pair is complete, else both scaled down.
        let pair = |fast| {
            Some((
                runs.at(setting, "dpareto", fast)?,
                runs.at(setting, "table2", fast)?,
            ))
        };
        let Some((bo, rs)) = pair(false).or_else(|| pair(true)) else {
            continue;
        };
        let bo_only: Vec<Point> = bo
            .points
            .iter()
            .filter(|p| p.source == Source::Bo)
            .cloned()
            .collect();
        let size = bo_only.len();
        if size == 0 {
            continue;
        }
        let parts: Vec<&[Point]> = rs.points.chunks_exact(size).collect();
        let bo_all = hypervolume(&bo.points)?;
        let bo_wo = hypervolume(&bo_only)?;
        let rs_hv: Vec<f64> = parts
            .iter()
            .map(|p| hypervolume(p))
            .collect::<anyhow::Result<_>>()?;
        let diffs = |base: f64| rs_hv.iter().map(|r| base - r).collect::<Vec<_>>();
        let (Some(with), Some(without)) = (t_interval(&diffs(bo_all)), t_interval(&diffs(bo_wo)))
        else {
            continue;
        };
        any = true;
        let rs_mean = rs_hv.iter().sum::<f64>() / rs_hv.len() as f64;
        csv.push(vec![
            (*setting).into(),
            bo.stem.as_str().into(),
            (bo.points.len() as u64).into(),
            rs.stem.as_str().into(),
            (parts.len() as u64).into(),
            (size as u64).into(),
            bo_all.into(),
            rs_mean.into(),
            with.0.into(),
            with.1.into(),
            with.2.into(),
            without.0.into(),
            without.1.into(),
            without.2.into(),
            paper.0.into(),
            paper.1.into(),
            paper.2.into(),
        ])?;
        md.push_str(&format!(
            "| {label} | {} ({}) | {} × {size} | {bo_all:.3} | {rs_mean:.3} | {:.3} ({:.3}, {:.3}) | {:.3} ({:.3}, {:.3}) | {} ({}, {}) |\n",
            crate::quoting::md_cell(&bo.stem), bo.points.len(), parts.len(), with.0, with.1, with.2, without.0, without.1, without.2,
            paper.0, paper.1, paper.2
        ));
    }
    if !any {
        return Ok(Outcome::Skipped(format!(
            "Table 2 skipped: needs a DPareto run and a long random run per setting under {}; run \
             e.g. `cargo run --release -p dp-bench -- configs/avent2020/adult-lr-sgd-table2.toml \
             --out {}`",
            results.display(),
            results.join("adult-lr-sgd-table2").display()
        )));
    }
    let (c, m) = (out.join("table2.csv"), out.join("table2.md"));
    csv.write(&c)?;
    write_text_atomic(&m, &md)?;
    Ok(Outcome::Written(vec![c, m]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_uses_student_t() {
        // 19 parts: t = 2.101 as the paper.
        let d: Vec<f64> = (0..19).map(|i| i as f64).collect();
        let (m, lo, hi) = t_interval(&d).unwrap();
        let sd = (d.iter().map(|v| (v - 9.0f64).powi(2)).sum::<f64>() / 18.0).sqrt();
        assert_eq!(m, 9.0);
        assert!((hi - m - 2.101 * sd / 19f64.sqrt()).abs() < 1e-12);
        assert!((m - lo - (hi - m)).abs() < 1e-12);
        assert!(t_interval(&[1.0]).is_none());
    }
}
