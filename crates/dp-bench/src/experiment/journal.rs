//! The append-only journal of finished cells (`cells.log`): one JSON object per line, written
//! with one `write` call per cell, so finishing a cell costs O(1) whatever the run's size.
//!
//! A process killed (even by `kill -9`) between cells loses nothing: the bytes are in the
//! kernel's page cache once `write` returns. One killed in the middle of a line leaves a torn
//! last line, which is not valid JSON (every record is one object, so a prefix never closes
//! it); opening drops it and cuts the file back to the last whole line. A bad line anywhere
//! else is corruption, reported with its line number. A power cut may lose the lines written
//! since the last compaction, which a rerun recomputes (cells are deterministic).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use super::record::CellRecord;

/// File name of the journal in a results folder.
pub const JOURNAL_FILE: &str = "cells.log";

/// An open journal, appending.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Whole lines not yet written: [`Journal::flush`] writes them with one call.
    pending: Vec<u8>,
}

impl Journal {
    /// Opens (creating) `dir/cells.log` and returns it with the records it already holds.
    pub fn open(dir: &Path) -> anyhow::Result<(Journal, Vec<CellRecord>)> {
        let path = dir.join(JOURNAL_FILE);
        let (records, whole_bytes) = scan(&path)?;
        if let Some(len) = whole_bytes {
            // A torn last line: the writer was killed mid-write.
            OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(len))
                .with_context(|| format!("cannot cut the torn line of {}", path.display()))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        Ok((
            Journal {
                path,
                file,
                pending: Vec::with_capacity(1 << 16),
            },
            records,
        ))
    }

    /// Appends one record as one line, held until [`Journal::flush`] (the runner flushes at
    /// most every 20 ms, so a burst of cells costs one write).
    pub fn append(&mut self, row: &CellRecord) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.pending, &line(row))?;
        self.pending.push(b'\n');
        Ok(())
    }

    /// Writes the held lines with one `write` call; from then on a kill loses none of them.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.file
            .write_all(&self.pending)
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        self.pending.clear();
        Ok(())
    }

    /// Empties the journal (held lines too) once its records are safely compacted elsewhere.
    pub fn clear(&mut self) -> anyhow::Result<()> {
        self.pending.clear();
        self.file
            .set_len(0)
            .with_context(|| format!("cannot truncate {}", self.path.display()))
    }
}

impl Drop for Journal {
    /// Writes what is held (best effort: an error here has nowhere to go, and the cells it
    /// would lose are recomputed on resume).
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// The records of the journal at `path` (none if it does not exist), without a torn last line;
/// read only.
pub fn read(path: &Path) -> anyhow::Result<Vec<CellRecord>> {
    Ok(scan(path)?.0)
}

/// The whole records, and the length of the whole lines when a torn line follows them.
fn scan(path: &Path) -> anyhow::Result<(Vec<CellRecord>, Option<u64>)> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), None)),
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
    };
    let mut reader = BufReader::new(file);
    let (mut records, mut good_bytes, mut buf, mut lineno) = (Vec::new(), 0u64, Vec::new(), 0);
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        let whole = buf.last() == Some(&b'\n');
        let parsed = serde_json::from_slice::<Value>(&buf)
            .map_err(|e| e.to_string())
            .and_then(|v| from_json(&v));
        match (whole, parsed) {
            (true, Ok(r)) => {
                records.push(r);
                good_bytes += n as u64;
            }
            (false, _) => return Ok((records, Some(good_bytes))),
            (true, Err(e)) => anyhow::bail!(
                "{} line {lineno} is not a cell record ({e}); the journal is corrupt: move the \
                 results folder away to start over",
                path.display()
            ),
        }
    }
    Ok((records, None))
}

/// An `f64` as JSON: a number, or a string for ±∞ and NaN, which JSON numbers cannot hold
/// (ε = ∞ is common).
struct Num(f64);

impl serde::Serialize for Num {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if x.is_finite() {
            s.serialize_f64(x)
        } else if x.is_nan() {
            s.serialize_str("nan")
        } else if x > 0.0 {
            s.serialize_str("inf")
        } else {
            s.serialize_str("-inf")
        }
    }
}

/// One journal line, borrowed from the record (no allocation per cell beyond the line).
#[derive(serde::Serialize)]
struct Line<'a> {
    key: &'a str,
    method: &'a str,
    kind: &'a str,
    epsilon: Num,
    delta: Num,
    trial: u32,
    seed: u64,
    accuracy: Num,
    epsilon_accounted: Num,
    wall_ms: Num,
    details: &'a Value,
}

fn get_num(v: &Value, key: &str) -> Result<f64, String> {
    match v.get(key) {
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| format!("`{key}` out of range")),
        Some(Value::String(s)) if s == "inf" => Ok(f64::INFINITY),
        Some(Value::String(s)) if s == "-inf" => Ok(f64::NEG_INFINITY),
        Some(Value::String(s)) if s == "nan" => Ok(f64::NAN),
        _ => Err(format!("no number `{key}`")),
    }
}

fn line(r: &CellRecord) -> Line<'_> {
    Line {
        key: &r.key,
        method: &r.method,
        kind: &r.kind,
        epsilon: Num(r.epsilon),
        delta: Num(r.delta),
        trial: r.trial,
        seed: r.seed,
        accuracy: Num(r.accuracy),
        epsilon_accounted: Num(r.epsilon_accounted),
        wall_ms: Num(r.wall_ms),
        details: &r.details,
    }
}

fn from_json(v: &Value) -> Result<CellRecord, String> {
    let text = |key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("no text `{key}`"))
    };
    let int = |key: &str| {
        v.get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("no integer `{key}`"))
    };
    Ok(CellRecord {
        key: text("key")?,
        method: text("method")?,
        kind: text("kind")?,
        epsilon: get_num(v, "epsilon")?,
        delta: get_num(v, "delta")?,
        trial: u32::try_from(int("trial")?).map_err(|e| e.to_string())?,
        seed: int("seed")?,
        accuracy: get_num(v, "accuracy")?,
        epsilon_accounted: get_num(v, "epsilon_accounted")?,
        wall_ms: get_num(v, "wall_ms")?,
        details: v.get("details").cloned().unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(trial: u32) -> CellRecord {
        CellRecord {
            method: "m".into(),
            kind: "dpsgd".into(),
            epsilon: 0.1 + f64::from(trial) * 1e-17,
            delta: 1e-5,
            trial,
            seed: u64::MAX - u64::from(trial),
            accuracy: 1.0 / 3.0,
            epsilon_accounted: f64::INFINITY,
            wall_ms: f64::NAN,
            key: format!("m|0.1|{trial}|ab"),
            details: json!({"noise": 2.0f64.sqrt(), "w": [1, -2]}),
        }
    }

    fn same(a: &CellRecord, b: &CellRecord) -> bool {
        a.key == b.key
            && a.epsilon.to_bits() == b.epsilon.to_bits()
            && a.seed == b.seed
            && a.accuracy.to_bits() == b.accuracy.to_bits()
            && a.epsilon_accounted == b.epsilon_accounted
            && a.wall_ms.is_nan() == b.wall_ms.is_nan()
            && a.details == b.details
    }

    #[test]
    fn records_round_trip_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, old) = Journal::open(dir.path()).unwrap();
        assert!(old.is_empty());
        for t in 0..3 {
            j.append(&row(t)).unwrap();
        }
        j.flush().unwrap();
        drop(j);
        let (_, back) = Journal::open(dir.path()).unwrap();
        assert_eq!(back.len(), 3);
        for (t, r) in back.iter().enumerate() {
            assert!(same(r, &row(t as u32)), "{r:?}");
        }
    }

    /// A writer killed mid-line leaves a torn tail: it is dropped and cut from the file, and
    /// appending goes on after the last whole line.
    #[test]
    fn a_torn_last_line_is_dropped_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(dir.path()).unwrap();
        j.append(&row(0)).unwrap();
        j.append(&row(1)).unwrap();
        j.flush().unwrap();
        drop(j);
        let path = dir.path().join(JOURNAL_FILE);
        let full = std::fs::read(&path).unwrap();
        let first_end = full.iter().position(|&b| b == b'\n').unwrap() + 1;
        // Every cut inside the second line, including the one just before its newline.
        for cut in first_end + 1..full.len() {
            std::fs::write(&path, &full[..cut]).unwrap();
            let (mut j, back) = Journal::open(dir.path()).unwrap();
            assert_eq!(back.len(), 1, "cut at {cut}");
            assert_eq!(std::fs::metadata(&path).unwrap().len(), first_end as u64);
            j.append(&row(2)).unwrap();
            j.flush().unwrap();
            drop(j);
            let keys: Vec<String> = read(&path).unwrap().into_iter().map(|r| r.key).collect();
            assert_eq!(keys, [row(0).key, row(2).key]);
        }
    }

    #[test]
    fn a_bad_line_in_the_middle_is_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        std::fs::write(&path, "{\"key\": 1}\n{}\n").unwrap();
        let err = format!("{:#}", Journal::open(dir.path()).err().unwrap());
        assert!(err.contains("line 1") && err.contains("corrupt"), "{err}");
    }
}
