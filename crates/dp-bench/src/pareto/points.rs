//! Evaluated points and their checkpoint: `points.jsonl`, one JSON line appended (and synced)
//! per finished point, so a killed study loses at most the point it was evaluating and resumes
//! from the rest. A torn last line (the process died mid-write) is dropped on reading.
//!
//! Every line carries a checksum ([`crate::experiment::checksum`]) and its point's index, so a
//! duplicated, deleted, swapped or edited line is found: a study is sequential (each point may
//! depend on those before it), so the points before the first damaged line are kept, the rest
//! are set aside in `damaged.log` and the study goes on from there, as an uninterrupted run.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::space::DIM;
use crate::experiment::checksum::{self, Opened};
use crate::experiment::journal::{Damage, damage_error, set_aside_sequential_damage};
use crate::files::{lock_dir, open_append, write_text_atomic};

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
        let lock = lock_dir(dir, "search")?;
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
        let (points, damage) = scan(&path)?;
        set_aside_sequential_damage(dir, &damage, points.len())?;
        // Rewrite without a torn tail or damage so that appends start on a fresh line.
        let mut text = String::new();
        for p in &points {
            text.push_str(&sealed_line(p)?);
        }
        write_text_atomic(&path, &text)?;
        let file = open_append(&path)?;
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
        anyhow::ensure!(
            p.index == self.points.len(),
            "point {} appended as number {} of {}",
            p.index,
            self.points.len(),
            self.path.display()
        );
        let line = sealed_line(&p)?;
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        self.points.push(p);
        Ok(())
    }
}

/// A point's checkpoint line: its JSON with a checksum, and a newline.
fn sealed_line(p: &Point) -> anyhow::Result<String> {
    let body = serde_json::to_vec(p)?;
    Ok(String::from_utf8(checksum::seal(&body))? + "\n")
}

/// Every whole line of a checkpoint; a final line without its newline is a torn write. A
/// damaged line is an error naming it (readers must not silently draw a different front).
pub fn read_points(path: &Path) -> anyhow::Result<Vec<Point>> {
    let (points, damage) = scan(path)?;
    if !damage.is_empty() {
        return Err(damage_error(
            path.parent().unwrap_or(Path::new(".")),
            &damage,
        ));
    }
    Ok(points)
}

/// The members of a point's line (any other member is damage).
const FIELDS: [&str; 14] = [
    "index",
    "source",
    "x",
    "epochs",
    "lot",
    "lr",
    "clip",
    "noise_multiplier",
    "steps",
    "epsilon",
    "accuracies",
    "diverged",
    "wall_ms",
    "bo",
];

/// The good points before the first damaged line, and the damaged line and every later one.
fn scan(path: &Path) -> anyhow::Result<(Vec<Point>, Vec<Damage>)> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let whole = match text.iter().rposition(|&b| b == b'\n') {
        Some(i) => &text[..=i],
        None => &[][..],
    };
    let lines: Vec<&[u8]> = whole.split_inclusive(|&b| b == b'\n').collect();
    // A checkpoint written since checksums exist has them on every line.
    let sealed = lines
        .iter()
        .any(|l| matches!(checksum::open(l), Ok(Opened::Sealed(_))));
    let mut points = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match check_line(line, i, sealed) {
            Ok(p) => points.push(p),
            Err(reason) => {
                let damage = lines[i..]
                    .iter()
                    .enumerate()
                    .map(|(k, l)| Damage {
                        location: format!("{} line {}", path.display(), i + k + 1),
                        reason: if k == 0 {
                            reason.clone()
                        } else {
                            format!("follows damaged line {} (points are sequential)", i + 1)
                        },
                        content: String::from_utf8_lossy(l).into_owned(),
                    })
                    .collect();
                return Ok((points, damage));
            }
        }
    }
    Ok((points, Vec::new()))
}

/// Line `i` (0-based) as a point, checked: checksum, members, index, ranges.
fn check_line(line: &[u8], i: usize, sealed: bool) -> Result<Point, String> {
    let body = match checksum::open(line)? {
        Opened::Sealed(b) => b,
        Opened::Unsealed(_) if sealed => return Err("no checksum among checksummed lines".into()),
        Opened::Unsealed(b) => b.to_vec(),
    };
    let v: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    if let Some(k) = v
        .as_object()
        .and_then(|o| o.keys().find(|k| !FIELDS.contains(&k.as_str())))
    {
        return Err(format!("unknown member {k:?}"));
    }
    let p: Point = serde_json::from_value(v).map_err(|e| e.to_string())?;
    if p.index != i {
        return Err(format!(
            "holds point {} where point {i} belongs (a line was duplicated, deleted or moved)",
            p.index
        ));
    }
    if p.epsilon.is_nan() || p.epsilon < 0.0 {
        return Err(format!("ε = {} is not >= 0", p.epsilon));
    }
    if p.accuracies.is_empty()
        || p.accuracies
            .iter()
            .any(|a| !(a.is_nan() || (0.0..=1.0).contains(a)))
    {
        return Err(format!("accuracies {:?} are not in [0, 1]", p.accuracies));
    }
    if !(p.noise_multiplier > 0.0 && p.lr > 0.0 && p.clip > 0.0 && p.lot >= 1) {
        return Err("a hyperparameter is out of range".into());
    }
    Ok(p)
}

impl crate::experiment::engine::Log for PointLog {
    type Record = Point;

    fn rows(&self) -> &[Point] {
        self.points()
    }

    /// Appended and synced at once: a study is sequential, so a killed one keeps every point
    /// before the one it was evaluating.
    fn append(&mut self, p: Point) -> anyhow::Result<()> {
        PointLog::append(self, p)
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    fn ordered(&self) -> bool {
        true
    }
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

    /// A duplicated, deleted, swapped or edited line (each valid JSON) keeps the points before
    /// it and sets aside the rest; readers get an error naming the line.
    #[test]
    fn damaged_checkpoints_keep_the_good_prefix() {
        type Edit = fn(&mut Vec<String>);
        let edits: [(&str, Edit); 5] = [
            ("duplicated", |l| l.insert(2, l[1].clone())),
            ("deleted", |l| {
                l.remove(2);
            }),
            ("swapped", |l| l.swap(2, 3)),
            ("edited", |l| l[2] = l[2].replace("0.8", "0.9")),
            ("unsealed", |l| {
                l[2] = serde_json::to_string(&point(2)).unwrap()
            }),
        ];
        for (what, edit) in edits {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("points.jsonl");
            {
                let mut log = PointLog::open(dir.path(), "{}").unwrap();
                for i in 0..5 {
                    log.append(point(i)).unwrap();
                }
            }
            let mut lines: Vec<String> = std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
            edit(&mut lines);
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            let err = format!("{:#}", read_points(&path).unwrap_err());
            assert!(err.contains("line 3"), "{what}: {err}");
            let mut log = PointLog::open(dir.path(), "{}").unwrap();
            assert_eq!(log.points(), &[point(0), point(1)], "{what}");
            for i in 2..5 {
                log.append(point(i)).unwrap();
            }
            drop(log);
            assert_eq!(read_points(&path).unwrap().len(), 5, "{what}");
            let damaged = std::fs::read_to_string(dir.path().join("damaged.log")).unwrap();
            assert!(damaged.contains("line 3"), "{what}: {damaged}");
        }
    }

    /// Checkpoints written before checksums existed still read.
    #[test]
    fn old_checkpoints_without_checksums_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("points.jsonl");
        let text: String = (0..3)
            .map(|i| serde_json::to_string(&point(i)).unwrap() + "\n")
            .collect();
        std::fs::write(&path, text).unwrap();
        assert_eq!(read_points(&path).unwrap().len(), 3);
    }

    #[test]
    fn another_config_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        drop(PointLog::open(dir.path(), "{\"a\":1}").unwrap());
        let e = PointLog::open(dir.path(), "{\"a\":2}").err().unwrap();
        assert!(e.to_string().contains("different study config"), "{e}");
    }
}
