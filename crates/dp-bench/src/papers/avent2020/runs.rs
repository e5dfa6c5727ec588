//! The study results the figures read: for each setting and study, the full-budget run when
//! it is complete, else the scaled-down (`-fast`) one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{MNIST_SETTINGS, SETTINGS};
use anyhow::Context;

use crate::pareto::StudyConfig;
use crate::pareto::points::{Point, read_points};

/// One finished (or partial) study.
#[derive(Clone, Debug)]
pub struct Run {
    /// Config stem, e.g. `adult-lr-sgd-dpareto`.
    pub stem: String,
    /// Evaluated points in order.
    pub points: Vec<Point>,
}

impl Run {
    /// Legend text: the study and its size, e.g. `DPareto (272 pts, adult-lr-sgd-dpareto)`.
    pub fn label(&self, study: &str) -> String {
        format!("{study} ({} pts)", self.points.len())
    }
}

/// Every complete run found, keyed by (setting prefix, study suffix without `-fast`,
/// whether it is the `-fast` one).
#[derive(Clone, Debug, Default)]
pub struct Runs {
    runs: BTreeMap<(String, String, bool), Run>,
    /// The results folder they were read from (named when a figure has nothing to draw).
    root: PathBuf,
}

/// Study suffixes the figures use.
pub const STUDIES: &[&str] = &[
    "dpareto",
    "random",
    "grid3",
    "grid4",
    "random-uniform",
    "table2",
];

/// Points the study in `dir` was configured for (from the `study.json` its run wrote).
fn expected(dir: &Path) -> anyhow::Result<usize> {
    let path = dir.join("study.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let cfg: StudyConfig = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a study config", path.display()))?;
    Ok(cfg.total_points())
}

impl Runs {
    /// Reads every complete `<results>/<setting>-<study>[-fast]/points.jsonl` (a partial run
    /// would compare budgets unequally).
    pub fn load(results: &Path) -> anyhow::Result<Runs> {
        let mut runs = BTreeMap::new();
        for (setting, _) in SETTINGS.iter().chain(MNIST_SETTINGS) {
            for study in STUDIES {
                for suffix in ["", "-fast"] {
                    let stem = format!("{setting}-{study}{suffix}");
                    let dir = results.join(&stem);
                    let points = read_points(&dir.join("points.jsonl"))?;
                    if !points.is_empty() && points.len() >= expected(&dir)? {
                        runs.insert(
                            (setting.to_string(), study.to_string(), !suffix.is_empty()),
                            Run { stem, points },
                        );
                    }
                }
            }
        }
        Ok(Runs {
            runs,
            root: results.to_path_buf(),
        })
    }

    /// The run of `study` for `setting`: the paper-budget one if complete, else `-fast`.
    pub fn get(&self, setting: &str, study: &str) -> Option<&Run> {
        self.at(setting, study, false)
            .or_else(|| self.at(setting, study, true))
    }

    /// The run of `study` for `setting` at one budget (`fast`: the scaled-down one).
    pub fn at(&self, setting: &str, study: &str, fast: bool) -> Option<&Run> {
        self.runs
            .get(&(setting.to_string(), study.to_string(), fast))
    }

    /// The results folder the runs were read from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}
