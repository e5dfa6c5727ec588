//! Finished cells on disk: `cells.parquet` and `cells.csv`, rewritten atomically after each
//! cell so an interrupted run leaves only whole cells behind and can resume.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;
use polars::prelude::*;

pub use super::record::CellRecord;

/// The results folder of one config.
pub struct Store {
    dir: PathBuf,
    rows: Vec<CellRecord>,
    /// Held for the store's lifetime; the OS releases it when the process ends, however.
    _lock: File,
}

/// Name of the lock file that keeps two runs from writing one results folder.
const LOCK_FILE: &str = ".dp-bench.lock";

impl Store {
    /// Opens `dir`, loading finished cells from `cells.parquet` if present.
    ///
    /// Takes an exclusive lock on the folder first: two runs appending to one `cells.parquet`
    /// would each rewrite it from their own rows and lose the other's cells.
    pub fn open(dir: &Path) -> anyhow::Result<Store> {
        let lock = lock_dir(dir)?;
        let path = dir.join("cells.parquet");
        let rows = if path.exists() {
            read_parquet(&path)?
        } else {
            Vec::new()
        };
        Ok(Store {
            dir: dir.to_path_buf(),
            rows,
            _lock: lock,
        })
    }

    /// Finished cells.
    pub fn rows(&self) -> &[CellRecord] {
        &self.rows
    }

    /// True if a cell with this key is already stored.
    pub fn contains(&self, key: &str) -> bool {
        self.rows.iter().any(|r| r.key == key)
    }

    /// Adds a finished cell and rewrites both files atomically.
    pub fn append(&mut self, row: CellRecord) -> anyhow::Result<()> {
        self.rows.push(row);
        self.flush()
    }

    fn flush(&self) -> anyhow::Result<()> {
        let mut df = to_frame(&self.rows)?;
        write_atomic(&self.dir.join("cells.parquet"), |f| {
            ParquetWriter::new(f).finish(&mut df)?;
            Ok(())
        })?;
        write_atomic(&self.dir.join("cells.csv"), |f| {
            CsvWriter::new(f).include_header(true).finish(&mut df)?;
            Ok(())
        })
    }
}

/// Creates `dir` and takes its exclusive run lock (held while the returned file lives): two
/// runs appending to one results folder would lose each other's rows.
pub fn lock_dir(dir: &Path) -> anyhow::Result<File> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create results directory {}", dir.display()))?;
    let lock_path = dir.join(LOCK_FILE);
    let lock = File::create(&lock_path)
        .with_context(|| format!("cannot create {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "another dp-bench run is writing to {} (it holds {}); wait for it to finish, \
             or give this run its own folder with --out DIR",
            dir.display(),
            lock_path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", lock_path.display()))
        }
    }
}

/// Writes through a temporary file in the same directory, then renames over `path`.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut File) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = dp_data::fetch::temp_file_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    write(tmp.as_file_mut()).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().ok();
    tmp.persist(path)
        .with_context(|| format!("cannot move the finished file to {}", path.display()))?;
    Ok(())
}

fn to_frame(rows: &[CellRecord]) -> anyhow::Result<DataFrame> {
    macro_rules! col {
        ($name:literal, $f:expr) => {
            Column::new($name.into(), rows.iter().map($f).collect::<Vec<_>>())
        };
    }
    Ok(DataFrame::new(
        rows.len(),
        vec![
            col!("method", |r| r.method.clone()),
            col!("kind", |r| r.kind.clone()),
            col!("epsilon", |r| r.epsilon),
            col!("delta", |r| r.delta),
            col!("trial", |r| r.trial),
            col!("seed", |r| r.seed),
            col!("accuracy", |r| r.accuracy),
            col!("epsilon_accounted", |r| r.epsilon_accounted),
            col!("wall_ms", |r| r.wall_ms),
            col!("key", |r| r.key.clone()),
            col!("details", |r| r.details.to_string()),
        ],
    )?)
}

/// The finished cells of a results folder (`cells.parquet`), read without taking its lock
/// (for figures, which only read); empty when the folder has none.
pub fn read_cells(dir: &Path) -> anyhow::Result<Vec<CellRecord>> {
    let path = dir.join("cells.parquet");
    if path.exists() {
        read_parquet(&path)
    } else {
        Ok(Vec::new())
    }
}

fn read_parquet(path: &Path) -> anyhow::Result<Vec<CellRecord>> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let unreadable = |e: &dyn std::fmt::Display| {
        anyhow::anyhow!(
            "{} is not a readable results file of this version ({e}); move it away to start over",
            path.display()
        )
    };
    let df = ParquetReader::new(file)
        .finish()
        .map_err(|e| unreadable(&e))?;
    let n = df.height();
    let s = |name: &str| -> anyhow::Result<Vec<String>> {
        Ok(df
            .column(name)
            .map_err(|e| unreadable(&e))?
            .str()?
            .iter()
            .map(|v| v.unwrap_or_default().to_string())
            .collect())
    };
    let f = |name: &str| -> anyhow::Result<Vec<f64>> {
        Ok(df
            .column(name)
            .map_err(|e| unreadable(&e))?
            .f64()?
            .iter()
            .map(|v| v.unwrap_or(f64::NAN))
            .collect())
    };
    let (method, kind, key, details) = (s("method")?, s("kind")?, s("key")?, s("details")?);
    let (epsilon, delta, accuracy) = (f("epsilon")?, f("delta")?, f("accuracy")?);
    let (eps_acc, wall) = (f("epsilon_accounted")?, f("wall_ms")?);
    let trial: Vec<u32> = df
        .column("trial")?
        .u32()?
        .iter()
        .map(|v| v.unwrap_or(0))
        .collect();
    let seed: Vec<u64> = df
        .column("seed")?
        .u64()?
        .iter()
        .map(|v| v.unwrap_or(0))
        .collect();
    (0..n)
        .map(|i| {
            Ok(CellRecord {
                method: method[i].clone(),
                kind: kind[i].clone(),
                epsilon: epsilon[i],
                delta: delta[i],
                trial: trial[i],
                seed: seed[i],
                accuracy: accuracy[i],
                epsilon_accounted: eps_acc[i],
                wall_ms: wall[i],
                key: key[i].clone(),
                details: serde_json::from_str(&details[i]).map_err(|e| unreadable(&e))?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(trial: u32) -> CellRecord {
        CellRecord {
            method: "alg1".into(),
            epsilon: 1.0,
            delta: 1e-5,
            trial,
            seed: u64::MAX - 3,
            kind: "alg1".into(),
            accuracy: 83.2,
            details: serde_json::json!({"noise": 6.86, "scores": [[0.1, 83.2]]}),
            epsilon_accounted: 0.99,
            wall_ms: 12.5,
            key: format!("alg1|1|{trial}|abc"),
        }
    }

    #[test]
    fn append_and_reopen_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(dir.path()).unwrap();
        s.append(row(0)).unwrap();
        s.append(row(1)).unwrap();
        drop(s);
        let s2 = Store::open(dir.path()).unwrap();
        assert_eq!(s2.rows().len(), 2);
        assert!(s2.contains("alg1|1|1|abc"));
        assert_eq!(s2.rows()[0].seed, u64::MAX - 3);
        assert_eq!(s2.rows()[0].detail("noise"), 6.86);
        assert!(s2.rows()[0].detail("lambda").is_nan());
        assert!(dir.path().join("cells.csv").exists());
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [LOCK_FILE, "cells.csv", "cells.parquet"],
            "no temporary files"
        );
    }

    #[test]
    fn a_second_run_on_the_same_folder_is_refused_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = Store::open(dir.path()).unwrap();
        first.append(row(0)).unwrap();
        let err = Store::open(dir.path())
            .err()
            .expect("second open must fail");
        let msg = format!("{err:#}");
        assert!(
            msg.contains("another dp-bench run") && msg.contains("--out"),
            "{msg}"
        );
        drop(first);
        assert_eq!(Store::open(dir.path()).unwrap().rows().len(), 1);
    }
}
