//! Finished cells on disk. Each finished cell is appended to the journal (`cells.log`, O(1)
//! per cell whatever the run's size); the journal is compacted into `cells.parquet`,
//! `cells.csv` and `timings.csv` (sorted by key, written atomically) at the end of a run, on
//! resume and at merge. An interrupted run leaves only whole cells behind and resumes.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::cells_file;
use super::journal::{Journal, damage_error, set_aside_damage};
pub use super::record::CellRecord;

/// The results folder of one config (or one shard of it).
pub struct Store {
    dir: PathBuf,
    rows: Vec<CellRecord>,
    /// Keys of `rows[..indexed]`; appends leave the rest to [`Store::contains`].
    keys: HashSet<String>,
    indexed: usize,
    journal: Journal,
    /// Time spent appending and compacting, for the benchmark of the store's share of a run.
    busy: Duration,
    /// Held for the store's lifetime; the OS releases it when the process ends, however.
    _lock: File,
}

/// Name of the lock file that keeps two runs from writing one results folder.
pub use crate::files::{LOCK_FILE, lock_dir, write_atomic, write_text_atomic};
/// Sub-folder of a results folder where cells of an earlier version of its config are kept.
pub const STALE_DIR: &str = "stale";

impl Store {
    /// Opens `dir`, loading finished cells from the compacted files and the journal; cells
    /// found in the journal are compacted at once (a resumed run starts compact).
    ///
    /// Takes an exclusive lock on the folder first: two runs appending to one journal would
    /// interleave and compact each other's cells away.
    pub fn open(dir: &Path) -> anyhow::Result<Store> {
        let lock = lock_dir(dir, "grid")?;
        let start = Instant::now();
        let (journal, logged) = Journal::open(dir)?;
        let had_log = !logged.is_empty();
        let (rows, keys, damage) = with_journal(dir, logged)?;
        set_aside_damage(dir, &damage)?;
        // Compacting drops damaged rows from the tables, so they are reported once.
        let resumed = had_log || !damage.is_empty();
        let indexed = rows.len();
        let mut store = Store {
            dir: dir.to_path_buf(),
            rows,
            keys,
            indexed,
            journal,
            busy: Duration::ZERO,
            _lock: lock,
        };
        if resumed {
            store.compact()?;
        }
        store.busy = start.elapsed();
        Ok(store)
    }

    /// Finished cells: in key order as of the last compaction, then those appended since, in
    /// finishing order.
    pub fn rows(&self) -> &[CellRecord] {
        &self.rows
    }

    /// True if a cell with this key is already stored.
    pub fn contains(&mut self, key: &str) -> bool {
        for r in &self.rows[self.indexed..] {
            self.keys.insert(r.key.clone());
        }
        self.indexed = self.rows.len();
        self.keys.contains(key)
    }

    /// Adds a finished cell: one line for the journal, written by the next
    /// [`Store::flush`] (or compaction).
    pub fn append(&mut self, row: CellRecord) -> anyhow::Result<()> {
        let start = Instant::now();
        self.journal.append(&row)?;
        self.rows.push(row);
        self.busy += start.elapsed();
        Ok(())
    }

    /// Writes the appended cells to the journal (one `write`): from then on a killed run
    /// keeps them.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        let start = Instant::now();
        self.journal.flush()?;
        self.busy += start.elapsed();
        Ok(())
    }

    /// Sorts the cells by key, writes the compacted files atomically, then empties the
    /// journal (a crash in between leaves cells in both, which opening de-duplicates).
    pub fn compact(&mut self) -> anyhow::Result<()> {
        let start = Instant::now();
        // Keys are unique within a store, so an unstable sort gives the one order.
        self.rows.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        cells_file::write(&self.dir, &self.rows)?;
        self.journal.clear()?;
        self.busy += start.elapsed();
        Ok(())
    }

    /// Moves the cells that `keep` rejects out of the tables into `dir/stale/cells.log` (a
    /// journal: nothing is thrown away, and no summary counts them), compacting at once, and
    /// returns them. A results folder then only ever holds the cells of one config.
    pub fn set_aside(
        &mut self,
        keep: impl Fn(&CellRecord) -> bool,
    ) -> anyhow::Result<Vec<CellRecord>> {
        let (kept, gone): (Vec<CellRecord>, Vec<CellRecord>) = std::mem::take(&mut self.rows)
            .into_iter()
            .partition(|r| keep(r));
        self.rows = kept;
        if gone.is_empty() {
            return Ok(gone);
        }
        let stale = self.dir.join(STALE_DIR);
        std::fs::create_dir_all(&stale)
            .with_context(|| format!("cannot create {}", stale.display()))?;
        let (mut journal, _) = Journal::open(&stale)?;
        for r in &gone {
            journal.append(r)?;
        }
        journal.flush()?;
        self.keys = self.rows.iter().map(|r| r.key.clone()).collect();
        self.indexed = self.rows.len();
        self.compact()?;
        Ok(gone)
    }

    /// Time spent in the store so far (opening, appending, compacting).
    pub fn busy(&self) -> Duration {
        self.busy
    }
}

/// The finished cells of a results folder (compacted files and journal), read without taking
/// its lock (for figures, which only read); empty when the folder has none.
pub fn read_cells(dir: &Path) -> anyhow::Result<Vec<CellRecord>> {
    let logged = super::journal::read(&dir.join(super::journal::JOURNAL_FILE))?;
    let (mut rows, _, damage) = with_journal(dir, logged)?;
    if !damage.is_empty() {
        return Err(damage_error(dir, &damage));
    }
    rows.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(rows)
}

/// The compacted cells of `dir`, then the journal's `logged` cells not among them (a cell in
/// both, killed between compaction and truncation, is kept once), the keys of all, and the
/// compacted rows that failed their checks.
fn with_journal(
    dir: &Path,
    logged: Vec<CellRecord>,
) -> anyhow::Result<(
    Vec<CellRecord>,
    HashSet<String>,
    Vec<super::journal::Damage>,
)> {
    let (mut rows, damage) = cells_file::read(dir)?;
    let mut keys: HashSet<String> = HashSet::with_capacity(rows.len());
    // A key twice in the tables is damage too (keys are unique): the first copy is kept.
    rows.retain(|r| keys.insert(r.key.clone()));
    rows.extend(logged.into_iter().filter(|r| keys.insert(r.key.clone())));
    Ok((rows, keys, damage))
}

impl super::engine::Log for Store {
    type Record = CellRecord;

    fn rows(&self) -> &[CellRecord] {
        Store::rows(self)
    }

    fn append(&mut self, record: CellRecord) -> anyhow::Result<()> {
        Store::append(self, record)
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        Store::flush(self)
    }

    /// Cells are keyed: they are stored as they finish.
    fn ordered(&self) -> bool {
        false
    }
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
            key: format!("alg1|1|{trial}|0123456789abcdef"),
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut left: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        left
    }

    #[test]
    fn append_compact_and_reopen_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(dir.path()).unwrap();
        s.append(row(1)).unwrap();
        s.append(row(0)).unwrap();
        assert!(s.contains("alg1|1|1|0123456789abcdef"));
        s.compact().unwrap();
        assert_eq!(s.rows()[0].trial, 0, "sorted by key");
        drop(s);
        let mut s2 = Store::open(dir.path()).unwrap();
        assert_eq!(s2.rows().len(), 2);
        assert!(s2.contains("alg1|1|1|0123456789abcdef"));
        assert_eq!(s2.rows()[0].seed, u64::MAX - 3);
        assert_eq!(s2.rows()[0].detail("noise"), 6.86);
        assert_eq!(s2.rows()[0].wall_ms, 12.5, "wall time from timings.csv");
        assert!(s2.rows()[0].detail("lambda").is_nan());
        let csv = std::fs::read_to_string(dir.path().join("cells.csv")).unwrap();
        assert!(
            !csv.contains("wall_ms"),
            "timings stay out of the cell table"
        );
        assert_eq!(
            names(dir.path()),
            [
                LOCK_FILE,
                "cells.csv",
                "cells.log",
                "cells.parquet",
                "timings.csv"
            ],
            "no temporary files"
        );
        assert_eq!(
            std::fs::metadata(dir.path().join("cells.log"))
                .unwrap()
                .len(),
            0
        );
    }

    /// Cells only in the journal (a killed run) are found and compacted on opening; a cell in
    /// both the journal and the compacted files (killed between the two) is kept once.
    #[test]
    fn a_killed_runs_journal_is_compacted_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(dir.path()).unwrap();
        s.append(row(0)).unwrap();
        s.compact().unwrap();
        s.append(row(1)).unwrap();
        s.append(row(2)).unwrap();
        s.flush().unwrap();
        let journal = std::fs::read(dir.path().join("cells.log")).unwrap();
        drop(s); // as if killed: no compaction of rows 1 and 2
        // Row 0 written to the journal again, as if killed after compacting it, before the
        // truncation.
        let mut j = Journal::open(dir.path()).unwrap().0;
        j.append(&row(0)).unwrap();
        j.flush().unwrap();
        drop(j);
        assert!(!journal.is_empty());
        assert_eq!(
            read_cells(dir.path()).unwrap().len(),
            3,
            "readers see the journal"
        );
        let s = Store::open(dir.path()).unwrap();
        let trials: Vec<u32> = s.rows().iter().map(|r| r.trial).collect();
        assert_eq!(trials, [0, 1, 2]);
        assert_eq!(
            std::fs::metadata(dir.path().join("cells.log"))
                .unwrap()
                .len(),
            0
        );
        assert_eq!(cells_file::read(dir.path()).unwrap().0.len(), 3);
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
