//! `dp-bench run configs/avent2020/illustrative-*.toml`: one illustrative problem's exact
//! grid, its random initial sample and what DPareto's surrogates make of it (Figs. 1–4), and
//! a DPareto run against the exact front, written as CSV into the results folder.
//!
//! Files: `grid.csv` (every grid point), `initial.csv` (the k₀ random points), `surrogate.csv`
//! (GP means and HV-PoI on the grid), `next.csv` (HV-PoI's maximiser), `bo.csv` (a DPareto
//! run, in order), `summary.csv` (hypervolumes), `provenance.json` and `config.toml`. A
//! folder whose `config.toml` equals the config is complete and is not recomputed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Deserialize;

use super::logreg::{BoltOnData, BoltOnToy};
use super::svt::SvtToy;
use super::{Evaluated, Toy, dpareto, exact, log_hypervolume, random_inputs, surrogate_view};
use crate::error::UsageError;
use crate::experiment::config::{read_text, toml_error};
use crate::experiment::provenance::Provenance;
use crate::experiment::runner::out_dir;
use crate::figures::csv::LongCsv;
use crate::files::{lock_dir, write_text_atomic};

/// Which problem.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Problem {
    /// Output-perturbation logistic regression on a1a.
    Logistic,
    /// The sparse vector technique with the paper's closed-form ε.
    Svt,
    /// The sparse vector technique with the certified ε (⌈C⌉ positives charged).
    SvtCertified,
}

/// An illustrative-problem config (`study = "illustrative"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IllustrativeConfig {
    /// Must be "avent2020".
    pub paper: String,
    /// Must be "illustrative" (what routed the config here).
    pub study: String,
    /// The problem.
    pub illustrative: Problem,
    /// Seed of every random draw.
    pub seed: u64,
    /// Runs averaged by the utility oracle (paper: 50).
    pub runs: usize,
    /// Grid points per axis of the exact front (paper: 55).
    pub grid: usize,
    /// Random initial points of Figs. 3–4 (paper: 250).
    pub initial: usize,
    /// DPareto run compared with the exact front: random points, then BO iterations.
    pub bo_initial: usize,
    /// BO iterations of that run.
    pub bo_iterations: usize,
    /// Keep only the first training rows (logistic; default all 30,956).
    #[serde(default)]
    pub max_train_rows: Option<usize>,
    /// Results folder (default `results/avent2020/<config stem>`).
    #[serde(default)]
    pub output_dir: Option<PathBuf>,
}

impl IllustrativeConfig {
    /// Reads and validates a config.
    pub fn load(path: &Path) -> anyhow::Result<IllustrativeConfig> {
        Self::parse(&read_text(path)?, path)
    }

    /// Parses and validates config text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<IllustrativeConfig> {
        let cfg: IllustrativeConfig =
            toml::from_str(text).map_err(|e| toml_error(text, path, &e))?;
        let fail = |m: &str| anyhow::Error::from(UsageError(format!("{}: {m}", path.display())));
        if cfg.paper != "avent2020" {
            return Err(fail(
                "`paper` must be \"avent2020\" for an illustrative problem",
            ));
        }
        if cfg.study != "illustrative" {
            return Err(fail(
                "`study` must be \"illustrative\" for an illustrative problem",
            ));
        }
        if cfg.runs == 0 || cfg.grid < 2 {
            return Err(fail("`runs` must be >= 1 and `grid` >= 2"));
        }
        if cfg.initial < 2 || cfg.bo_initial < 2 {
            return Err(fail(
                "`initial` and `bo_initial` must be >= 2 (the GPs need points)",
            ));
        }
        Ok(cfg)
    }
}

fn points_csv(ev: &Evaluated) -> anyhow::Result<LongCsv> {
    let mut csv = LongCsv::new(&["x", "y", "epsilon", "error"]);
    for (i, x) in ev.x.iter().enumerate() {
        csv.push(vec![
            x[0].into(),
            x[1].into(),
            ev.epsilon[i].into(),
            ev.error[i].into(),
        ])?;
    }
    Ok(csv)
}

/// Computes and writes everything for `cfg` into `dir` (see the module notes).
pub fn run(cfg: &IllustrativeConfig, config_text: &str, dir: &Path) -> anyhow::Result<f64> {
    let _lock = lock_dir(dir, "illustrative")?;
    let done = dir.join("config.toml");
    if std::fs::read_to_string(&done).is_ok_and(|t| t == config_text) {
        return Ok(0.0);
    }
    let start = Instant::now();
    // SVT's queries are synthetic (drawn from the seed): no dataset to hash.
    let dataset = match cfg.illustrative {
        Problem::Logistic => {
            let data = BoltOnData::load(cfg.max_train_rows)?;
            compute(&BoltOnToy::new(&data, cfg.runs, cfg.seed)?, cfg, dir)?;
            "a1a"
        }
        Problem::Svt | Problem::SvtCertified => {
            let certified = cfg.illustrative == Problem::SvtCertified;
            compute(&SvtToy::new(cfg.runs, cfg.seed, certified), cfg, dir)?;
            "none (synthetic SVT queries)"
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    // Before config.toml: a folder that claims to be complete always says what made it.
    Provenance::here("illustrative", seconds, dataset).write(dir)?;
    write_text_atomic(&done, config_text)?;
    Ok(seconds)
}

fn compute(toy: &dyn Toy, cfg: &IllustrativeConfig, dir: &Path) -> anyhow::Result<()> {
    let grid = exact(toy, cfg.grid)?;
    points_csv(&grid)?.write(&dir.join("grid.csv"))?;

    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let initial = Evaluated::of(toy, random_inputs(toy, cfg.initial, &mut rng))?;
    points_csv(&initial)?.write(&dir.join("initial.csv"))?;
    let view = surrogate_view(toy, &initial, cfg.grid, cfg.seed)?;
    let mut csv = LongCsv::new(&["x", "y", "epsilon", "error", "hvpoi"]);
    for (i, x) in grid.x.iter().enumerate() {
        csv.push(vec![
            x[0].into(),
            x[1].into(),
            view.epsilon[i].into(),
            view.error[i].into(),
            view.acquisition[i].into(),
        ])?;
    }
    csv.write(&dir.join("surrogate.csv"))?;
    let next = Evaluated::of(toy, vec![view.next])?;
    points_csv(&next)?.write(&dir.join("next.csv"))?;

    let bo = dpareto(toy, cfg.bo_initial, cfg.bo_iterations, cfg.seed)?;
    points_csv(&bo)?.write(&dir.join("bo.csv"))?;
    let total = bo.x.len();
    let random = initial.prefix(total.min(initial.x.len()));
    let mut summary = LongCsv::new(&["series", "points", "hypervolume"]);
    for (name, ev) in [
        ("exact grid", &grid),
        ("DPareto", &bo),
        ("random (initial sample)", &random),
        ("random (all initial)", &initial),
    ] {
        summary.push(vec![
            name.into(),
            (ev.x.len() as u64).into(),
            log_hypervolume(toy, &ev.objectives())?.into(),
        ])?;
    }
    summary.write(&dir.join("summary.csv"))
}

/// The results folder of a config at `path`.
pub fn default_dir(path: &Path, cfg: &IllustrativeConfig) -> PathBuf {
    out_dir(path, Some("avent2020"), cfg.output_dir.as_deref())
}
