//! Evaluated points and their checkpoint: `points.jsonl`, one JSON line appended (and synced)
//! per finished point, so a killed study loses at most the point it was evaluating and resumes
//! from the rest. A torn last line (the process died mid-write) is dropped on reading.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::space::DIM;
use crate::experiment::store::{lock_dir, write_text_atomic};

/// Where a point came from.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A draw of the random study (also DPareto's seed points).
    Random,
    /// A grid point.
    Grid,
    /// Proposed by DPareto's acquisition.
    Bo,
}

impl Source {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Source::Random => "random",
            Source::Grid => "grid",
            Source::Bo => "bo",
        }
    }
}

/// What DPareto knew when it proposed a point (diagnostics and exact resumption).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct BoTrace {
    /// Log-hyperparameters of the privacy GP after the fit (warm start of the next fit).
    pub privacy_gp: Vec<f64>,
    /// Log-hyperparameters of the utility GP after the fit.
    pub utility_gp: Vec<f64>,
    /// HV-PoI at the proposal (transformed space).
    pub acquisition: f64,
    /// Seconds spent fitting and searching.
    pub seconds: f64,
}

/// One evaluated λ.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Point {
    /// Position in the study (0-based; the order points were proposed in).
    pub index: usize,
    /// Who proposed it.
    pub source: Source,
    /// The proposal as the optimiser saw it (epochs and lot unrounded).
    pub x: [f64; DIM],
    /// Epochs trained.
    pub epochs: u32,
    /// Lot size trained.
    pub lot: usize,
    /// Learning rate.
    pub lr: f64,
    /// Clipping norm.
    pub clip: f64,
    /// Noise multiplier.
    pub noise_multiplier: f64,
    /// Steps charged.
    pub steps: u64,
    /// The privacy oracle's ε at the study's δ.
    pub epsilon: f64,
    /// Test accuracy of each replication.
    pub accuracies: Vec<f64>,
    /// Replications that stopped on a non-finite value.
    pub diverged: usize,
    /// Wall time of the evaluation (all replications), milliseconds.
    pub wall_ms: f64,
    /// DPareto's state at the proposal.
    #[serde(default)]
    pub bo: Option<BoTrace>,
}

impl Point {
    /// 1 − mean accuracy: the utility objective.
    pub fn error(&self) -> f64 {
        1.0 - self.accuracies.iter().sum::<f64>() / self.accuracies.len() as f64
    }

    /// The best replication's error (Figure 7's optimistic front).
    pub fn error_best(&self) -> f64 {
        1.0 - self
            .accuracies
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The worst replication's error.
    pub fn error_worst(&self) -> f64 {
        1.0 - self
            .accuracies
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min)
    }
}

/// The open checkpoint of a results folder (holds the folder's run lock).
pub struct PointLog {
    path: PathBuf,
    file: File,
    points: Vec<Point>,
    _lock: File,
}

impl PointLog {
    /// Opens `dir/points.jsonl`, reading the points already there. `fingerprint` is the study
    /// config as JSON: a folder written by a different config is refused rather than mixed.
    pub fn open(dir: &Path, fingerprint: &str) -> anyhow::Result<PointLog> {
        let lock = lock_dir(dir)?;
        let fp_path = dir.join("study.json");
        match std::fs::read_to_string(&fp_path) {
            Ok(old) if old != fingerprint => anyhow::bail!(
                "{} holds the results of a different study config ({}); give this run its own \
                 folder with --out DIR or delete that one",
                dir.display(),
                fp_path.display()
            ),
            Ok(_) => {}
            Err(_) => write_text_atomic(&fp_path, fingerprint)?,
        }
        let path = dir.join("points.jsonl");
        let points = read_points(&path)?;
        // Rewrite without a torn tail so that appends start on a fresh line.
        let text: String = points
            .iter()
            .map(|p| serde_json::to_string(p).map(|s| s + "\n"))
            .collect::<Result<_, _>>()?;
        write_text_atomic(&path, &text)?;
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        Ok(PointLog {
            path,
            file,
            points,
            _lock: lock,
        })
    }

    /// Points finished so far, in the order they were appended.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Appends and syncs one finished point.
    pub fn append(&mut self, p: Point) -> anyhow::Result<()> {
        let line = serde_json::to_string(&p)? + "\n";
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        self.points.push(p);
        Ok(())
    }
}

/// Every whole line of a checkpoint; a final line without its newline is a torn write.
pub fn read_points(path: &Path) -> anyhow::Result<Vec<Point>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    whole
        .lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{} line {}: not a point", path.display(), i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(i: usize) -> Point {
        Point {
            index: i,
            source: Source::Random,
            x: [1.4, 30.2, 0.01, 1.0, 2.0],
            epochs: 1,
            lot: 30,
            lr: 0.01,
            clip: 1.0,
            noise_multiplier: 2.0,
            steps: 10,
            epsilon: 0.5,
            accuracies: vec![0.8, 0.7],
            diverged: 0,
            wall_ms: 1.0,
            bo: None,
        }
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_appends_continue() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut log = PointLog::open(dir.path(), "{}").unwrap();
            log.append(point(0)).unwrap();
            log.append(point(1)).unwrap();
        }
        let path = dir.path().join("points.jsonl");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(r#"{"index":2,"sour"#);
        std::fs::write(&path, text).unwrap();
        let mut log = PointLog::open(dir.path(), "{}").unwrap();
        assert_eq!(log.points().len(), 2);
        log.append(point(2)).unwrap();
        drop(log);
        let back = read_points(&path).unwrap();
        assert_eq!(back, vec![point(0), point(1), point(2)]);
        assert!((back[0].error() - 0.25).abs() < 1e-15);
        assert!((back[0].error_best() - 0.2).abs() < 1e-15);
    }

    #[test]
    fn another_config_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        drop(PointLog::open(dir.path(), "{\"a\":1}").unwrap());
        let e = PointLog::open(dir.path(), "{\"a\":2}").err().unwrap();
        assert!(e.to_string().contains("different study config"), "{e}");
    }
}
