//! The append-only journal of finished cells (`cells.log`): one JSON object per line, written
//! with one `write` call per cell, so finishing a cell costs O(1) whatever the run's size.
//!
//! A process killed (even by `kill -9`) between cells loses nothing: the bytes are in the
//! kernel's page cache once `write` returns. One killed in the middle of a line leaves a torn
//! last line, which is not valid JSON (every record is one object, so a prefix never closes
//! it); opening drops it and cuts the file back to the last whole line. A bad line anywhere
//! else is damage: every line carries a checksum ([`super::checksum`]) and is checked against
//! its key and ranges ([`validate`]), so an edit that keeps the JSON valid is caught too. A
//! damaged line is reported with its line number and set aside in `damaged.log`; only its cell
//! is re-run, every other cell is kept. A power cut may lose the lines written since the last
//! compaction, which a rerun recomputes (cells are deterministic).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use super::checksum::{self, Opened};
use super::record::CellRecord;
use crate::files::open_append;

/// File name of the journal in a results folder.
pub const JOURNAL_FILE: &str = "cells.log";
/// Where damaged lines and rows of a results folder are set aside, with where they were found.
pub const DAMAGED_FILE: &str = "damaged.log";

/// One damaged journal line or table row: where it was, why it was refused, what it held.
#[derive(Clone, Debug)]
pub struct Damage {
    /// File and line (or row).
    pub location: String,
    /// What is wrong with it.
    pub reason: String,
    /// The bytes found there (lossy UTF-8).
    pub content: String,
}

/// Reports damaged records on stderr and sets them aside in `dir/damaged.log` (appended):
/// their cells are re-run, every other cell is kept.
pub fn set_aside_damage(dir: &Path, damage: &[Damage]) -> anyhow::Result<()> {
    if damage.is_empty() {
        return Ok(());
    }
    let path = dir.join(DAMAGED_FILE);
    for d in damage {
        errln!(
            "warning: {} is damaged ({}); that cell will be re-run, the others are kept \
             (the damaged record is kept in {})",
            d.location,
            d.reason,
            path.display()
        );
    }
    record_damage(&path, damage)
}

/// [`set_aside_damage`] for a sequential checkpoint (a study's `points.jsonl`): `damage` is
/// its first damaged line and every line after it, and the `kept` points before it stay. One
/// warning says so; the study goes on from point `kept`.
pub fn set_aside_sequential_damage(
    dir: &Path,
    damage: &[Damage],
    kept: usize,
) -> anyhow::Result<()> {
    let Some(first) = damage.first() else {
        return Ok(());
    };
    let path = dir.join(DAMAGED_FILE);
    let later = match damage.len() - 1 {
        0 => String::new(),
        1 => " and the 1 line after it".to_string(),
        n => format!(" and the {n} lines after it"),
    };
    errln!(
        "warning: {} is damaged ({}); a study's points are sequential, so the {kept} \
         point{} before it {} kept, and it{later} {} set aside in {}; the study goes on \
         from point {kept}",
        first.location,
        first.reason,
        if kept == 1 { "" } else { "s" },
        if kept == 1 { "is" } else { "are" },
        if damage.len() == 1 { "is" } else { "are" },
        path.display()
    );
    record_damage(&path, damage)
}

/// Appends the damaged records to `path` (`damaged.log`), with where each was found.
fn record_damage(path: &Path, damage: &[Damage]) -> anyhow::Result<()> {
    let mut text = String::new();
    for d in damage {
        text.push_str(&format!(
            "{}: {}\n{}\n",
            d.location,
            d.reason,
            d.content.trim_end()
        ));
    }
    open_append(path)?
        .write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// A clear error for read-only readers (figures, reports), which must not silently drop a
/// cell: the damage, and how to have it re-run.
pub fn damage_error(dir: &Path, damage: &[Damage]) -> anyhow::Error {
    let first = &damage[0];
    anyhow::anyhow!(
        "{} is damaged ({}){}; run the config again into {} to re-run only the damaged cells \
         (the rest are kept)",
        first.location,
        first.reason,
        if damage.len() > 1 {
            format!(", and {} more record(s)", damage.len() - 1)
        } else {
            String::new()
        },
        dir.display()
    )
}

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
        let Scan {
            records,
            torn_at: whole_bytes,
            damage,
            good_lines,
        } = scan(&path)?;
        if !damage.is_empty() {
            set_aside_damage(dir, &damage)?;
            // Keep only the whole good lines, so the damage is reported once.
            super::store::write_atomic(&path, |f| Ok(f.write_all(&good_lines)?))?;
        } else if let Some(len) = whole_bytes {
            // A torn last line: the writer was killed mid-write.
            open_append(&path)?
                .set_len(len)
                .with_context(|| format!("cannot cut the torn line of {}", path.display()))?;
        }
        let file = open_append(&path)?;
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
        let body = serde_json::to_vec(&line(row))?;
        self.pending.extend_from_slice(&checksum::seal(&body));
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
/// read only. A damaged line is an error naming it (a reader must not silently drop a cell).
pub fn read(path: &Path) -> anyhow::Result<Vec<CellRecord>> {
    let scan = scan(path)?;
    if !scan.damage.is_empty() {
        return Err(damage_error(
            path.parent().unwrap_or(Path::new(".")),
            &scan.damage,
        ));
    }
    Ok(scan.records)
}

/// What a journal holds.
struct Scan {
    /// The good records.
    records: Vec<CellRecord>,
    /// The length of the whole lines when a torn line follows them.
    torn_at: Option<u64>,
    /// Damaged whole lines.
    damage: Vec<Damage>,
    /// The bytes of the good whole lines (to rewrite the journal without the damage).
    good_lines: Vec<u8>,
}

fn scan(path: &Path) -> anyhow::Result<Scan> {
    let mut out = Scan {
        records: Vec::new(),
        torn_at: None,
        damage: Vec::new(),
        good_lines: Vec::new(),
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
    };
    let mut reader = BufReader::new(file);
    let (mut whole_bytes, mut buf, mut lineno) = (0u64, Vec::new(), 0);
    // Lines written since checksums exist are sealed; once one is, an unsealed line is damage
    // (a flipped byte in `"sum"` must not pass as an old line).
    let mut sealed_seen = false;
    let mut unsealed: Vec<(usize, Vec<u8>, CellRecord)> = Vec::new();
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        if buf.last() != Some(&b'\n') {
            out.torn_at = Some(whole_bytes);
            break;
        }
        whole_bytes += n as u64;
        let parsed = checksum::open(&buf).and_then(|opened| {
            let (body, sealed) = match &opened {
                Opened::Sealed(b) => (b.as_slice(), true),
                Opened::Unsealed(b) => (*b, false),
            };
            let v = serde_json::from_slice::<Value>(body).map_err(|e| e.to_string())?;
            let r = from_json(&v).and_then(|r| validate(&r).map(|()| r))?;
            Ok((r, sealed))
        });
        match parsed {
            Ok((r, true)) => {
                sealed_seen = true;
                out.good_lines.extend_from_slice(&buf);
                out.records.push(r);
            }
            Ok((r, false)) => unsealed.push((lineno, buf.clone(), r)),
            Err(reason) => out.damage.push(Damage {
                location: format!("{} line {lineno}", path.display()),
                reason,
                content: String::from_utf8_lossy(&buf).into_owned(),
            }),
        }
    }
    for (lineno, bytes, r) in unsealed {
        if sealed_seen {
            out.damage.push(Damage {
                location: format!("{} line {lineno}", path.display()),
                reason: "no checksum among checksummed lines".into(),
                content: String::from_utf8_lossy(&bytes).into_owned(),
            });
        } else {
            out.good_lines.extend_from_slice(&bytes);
            out.records.push(r);
        }
    }
    Ok(out)
}

/// Checks that a record's key names its own fields and that every value is in its range; the
/// error says which.
pub fn validate(r: &CellRecord) -> Result<(), String> {
    let prefix = format!("{}|{}|{}|", r.method, r.epsilon, r.trial);
    let fp = r.key.strip_prefix(&prefix).ok_or_else(|| {
        format!(
            "key {:?} does not match its fields (method {:?}, ε {}, trial {})",
            r.key, r.method, r.epsilon, r.trial
        )
    })?;
    if fp.len() != 16 || !fp.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("key {:?} has no 16-digit fingerprint", r.key));
    }
    if r.method.is_empty() || r.kind.is_empty() {
        return Err("empty method or kind".into());
    }
    if !(r.epsilon > 0.0 && r.epsilon.is_finite()) {
        return Err(format!(
            "ε = {} is not > 0 and finite",
            crate::quoting::number(r.epsilon)
        ));
    }
    if !(r.delta > 0.0 && r.delta < 1.0) {
        return Err(format!(
            "δ = {} is not in (0, 1)",
            crate::quoting::number(r.delta)
        ));
    }
    // NaN accuracy is allowed (it poisons a mean visibly); a number must be a percentage.
    if !(r.accuracy.is_nan() || (0.0..=100.0).contains(&r.accuracy)) {
        return Err(format!(
            "accuracy = {} is not in [0, 100]",
            crate::quoting::number(r.accuracy)
        ));
    }
    if r.epsilon_accounted < 0.0 {
        return Err(format!(
            "epsilon_accounted = {} is negative",
            r.epsilon_accounted
        ));
    }
    if !(r.details.is_object() || r.details.is_null()) {
        return Err("details is not a JSON object".into());
    }
    Ok(())
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

/// The members of a journal line (a line with any other member is damaged).
const FIELDS: [&str; 11] = [
    "key",
    "method",
    "kind",
    "epsilon",
    "delta",
    "trial",
    "seed",
    "accuracy",
    "epsilon_accounted",
    "wall_ms",
    "details",
];

fn from_json(v: &Value) -> Result<CellRecord, String> {
    let obj = v.as_object().ok_or("not a JSON object")?;
    if let Some(k) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("unknown member {k:?}"));
    }
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
        details: v.get("details").cloned().ok_or("no `details`")?,
    })
}

/// The canonical JSON of a record's contents, wall time left out (it is a measurement, kept
/// in `timings.csv`): what the compacted tables' per-row checksum covers.
pub fn contents_json(r: &CellRecord) -> Vec<u8> {
    let mut l = line(r);
    l.wall_ms = Num(f64::NAN);
    serde_json::to_vec(&l).expect("a record serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(trial: u32) -> CellRecord {
        let epsilon = 0.1 + f64::from(trial) * 1e-17;
        CellRecord {
            method: "m".into(),
            kind: "dpsgd".into(),
            epsilon,
            delta: 1e-5,
            trial,
            seed: u64::MAX - u64::from(trial),
            accuracy: 1.0 / 3.0,
            epsilon_accounted: f64::INFINITY,
            wall_ms: f64::NAN,
            key: format!("m|{epsilon}|{trial}|0123456789abcdef"),
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

    /// Damaged lines anywhere (garbage, a valid-JSON edit, a key that does not match its
    /// fields, an out-of-range value) are set aside one by one; the good lines stay, readers
    /// get an error naming the line.
    #[test]
    fn damaged_lines_are_set_aside_and_only_they() {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(dir.path()).unwrap();
        for t in 0..6 {
            j.append(&row(t)).unwrap();
        }
        j.flush().unwrap();
        drop(j);
        let path = dir.path().join(JOURNAL_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[1] = "garbage".into();
        lines[2] = lines[2].replace("0.3333333333333333", "0.9333333333333333");
        lines[4] = lines[4].replace("\"sum\"", "\"sun\"");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let err = format!("{:#}", read(&path).unwrap_err());
        assert!(err.contains("line 2") && err.contains("re-run"), "{err}");
        let (_, back) = Journal::open(dir.path()).unwrap();
        let trials: Vec<u32> = back.iter().map(|r| r.trial).collect();
        assert_eq!(trials, [0, 3, 5]);
        let damaged = std::fs::read_to_string(dir.path().join(DAMAGED_FILE)).unwrap();
        assert!(damaged.contains("line 3: checksum mismatch"), "{damaged}");
        assert!(damaged.contains("line 5: unknown member"), "{damaged}");
        // Reported once: the journal now holds only the good lines.
        assert_eq!(read(&path).unwrap().len(), 3);
    }

    #[test]
    fn records_that_contradict_their_key_or_ranges_are_refused() {
        let r = row(1);
        validate(&r).unwrap();
        let mut short = r.clone();
        short.key = format!("m|{}|1|ab", r.epsilon);
        assert!(validate(&short).unwrap_err().contains("16-digit"));
        let bad = |f: &dyn Fn(&mut CellRecord)| {
            let mut b = r.clone();
            f(&mut b);
            validate(&b).unwrap_err()
        };
        assert!(bad(&|b| b.trial = 2).contains("does not match"));
        assert!(bad(&|b| b.method = "n".into()).contains("does not match"));
        assert!(bad(&|b| b.accuracy = 1.95e185).contains("[0, 100]"));
        assert!(bad(&|b| b.accuracy = -1.0).contains("[0, 100]"));
        assert!(bad(&|b| b.delta = 1.0).contains("δ"));
        assert!(bad(&|b| b.epsilon_accounted = -0.5).contains("negative"));
    }
}
