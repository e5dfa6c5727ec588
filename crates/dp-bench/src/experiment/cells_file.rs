//! The compacted cell tables of a results folder: `cells.parquet` and `cells.csv` (the same
//! columns, rows sorted by key, so a rerun, a resumed run and a merge of shards write the same
//! bytes), and `timings.csv` (each cell's wall time, which differs from run to run and so is
//! kept out of the cell tables).
//!
//! The Parquet file carries a per-row checksum column, `sum` ([`super::checksum`] over the
//! row's contents): a flipped bit in a value is found on reading and only that row's cell is
//! re-run. The CSV, a copy for people and other tools, is never read back and leaves it out.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use anyhow::Context;
use polars::prelude::*;

use super::checksum;
use super::journal::{Damage, contents_json, validate};
use super::record::CellRecord;
use super::store::{write_atomic, write_text_atomic};

/// Compacted cells.
pub const PARQUET_FILE: &str = "cells.parquet";
/// The same, as text.
pub const CSV_FILE: &str = "cells.csv";
/// Wall time per cell key.
pub const TIMINGS_FILE: &str = "timings.csv";

/// Writes the three files atomically, `rows` already in key order, each on its own thread.
pub fn write(dir: &Path, rows: &[CellRecord]) -> anyhow::Result<()> {
    let df = to_frame(rows)?;
    let parquet = |mut df: DataFrame| {
        write_atomic(&dir.join(PARQUET_FILE), |f| {
            ParquetWriter::new(f).finish(&mut df)?;
            Ok(())
        })
    };
    let csv = |mut df: DataFrame| {
        write_atomic(&dir.join(CSV_FILE), |f| {
            CsvWriter::new(f).include_header(true).finish(&mut df)?;
            Ok(())
        })
    };
    let timings = || {
        let mut text = String::from("key,wall_ms\n");
        for r in rows {
            let key = crate::quoting::field(&r.key);
            text.push_str(&format!("{key},{}\n", r.wall_ms));
        }
        write_text_atomic(&dir.join(TIMINGS_FILE), &text)
    };
    let sums = Column::new(
        "sum".into(),
        rows.iter()
            .map(|r| checksum::sum(&contents_json(r)))
            .collect::<Vec<_>>(),
    );
    let mut with_sums = df.clone();
    with_sums.with_column(sums)?;
    std::thread::scope(|s| {
        let a = s.spawn(move || parquet(with_sums));
        let b = s.spawn(move || csv(df));
        let c = timings();
        let join = |h: std::thread::ScopedJoinHandle<'_, anyhow::Result<()>>| {
            h.join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("a results writer panicked")))
        };
        join(a).and(join(b)).and(c)
    })
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
            col!("key", |r| r.key.clone()),
            col!("details", |r| r.details.to_string()),
        ],
    )?)
}

/// The compacted cells of `dir` (none without `cells.parquet`), with their wall times from
/// `timings.csv` (NaN where missing), and the rows that failed their checksum or range checks.
/// Files of earlier layouts (a `wall_ms` column in the Parquet file itself; no checksums,
/// checked by ranges only) read too.
pub fn read(dir: &Path) -> anyhow::Result<(Vec<CellRecord>, Vec<Damage>)> {
    let path = dir.join(PARQUET_FILE);
    if !path.exists() {
        return Ok((Vec::new(), Vec::new()));
    }
    let (mut rows, damage) = read_parquet(&path)?;
    let timings = read_timings(&dir.join(TIMINGS_FILE))?;
    for r in &mut rows {
        if let Some(&ms) = timings.get(&r.key) {
            r.wall_ms = ms;
        }
    }
    Ok((rows, damage))
}

fn read_timings(path: &Path) -> anyhow::Result<HashMap<String, f64>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    // Wall times are informative only: an unreadable file means none, not a failed run.
    let records = crate::quoting::records(&text).unwrap_or_default();
    Ok(records
        .into_iter()
        .skip(1)
        .filter_map(|r| match <[String; 2]>::try_from(r) {
            Ok([key, ms]) => Some((key, ms.parse().ok()?)),
            Err(_) => None,
        })
        .collect())
}

/// Runs a decoder that may panic on damaged input (polars-parquet `expect`s some Thrift
/// fields of the file's metadata, e.g. "thrift bool field" on garbage bytes), turning the panic
/// into an error instead of taking the process down. The panic hook is silenced meanwhile so
/// that the damage is reported once, by the caller's error; this runs before any worker
/// thread starts, at store open.
fn decode_guarded<T>(decode: impl FnOnce() -> T) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode));
    std::panic::set_hook(hook);
    out.map_err(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the Parquet decoder panicked".into());
        format!("its metadata cannot be decoded: {what}")
    })
}

fn read_parquet(path: &Path) -> anyhow::Result<(Vec<CellRecord>, Vec<Damage>)> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let unreadable = |e: &dyn std::fmt::Display| {
        anyhow::anyhow!(
            "{} is damaged or not a results file of this version ({e}); delete it to re-run \
             the cells it held (cells.csv beside it is a readable copy of them; the journal's \
             cells are kept)",
            path.display()
        )
    };
    let df = decode_guarded(|| ParquetReader::new(file).finish())
        .map_err(|why| unreadable(&why))?
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
    let eps_acc = f("epsilon_accounted")?;
    let wall = if df.column("wall_ms").is_ok() {
        f("wall_ms")?
    } else {
        vec![f64::NAN; n]
    };
    let trial: Vec<Option<u32>> = df
        .column("trial")
        .map_err(|e| unreadable(&e))?
        .u32()
        .map_err(|e| unreadable(&e))?
        .iter()
        .collect();
    let seed: Vec<Option<u64>> = df
        .column("seed")
        .map_err(|e| unreadable(&e))?
        .u64()
        .map_err(|e| unreadable(&e))?
        .iter()
        .collect();
    let sums = if df.column("sum").is_ok() {
        Some(s("sum")?)
    } else {
        None
    };
    let (mut rows, mut damage) = (Vec::with_capacity(n), Vec::new());
    for i in 0..n {
        let row = (|| -> Result<CellRecord, String> {
            let r = CellRecord {
                method: method[i].clone(),
                kind: kind[i].clone(),
                epsilon: epsilon[i],
                delta: delta[i],
                trial: trial[i].ok_or("no trial")?,
                seed: seed[i].ok_or("no seed")?,
                accuracy: accuracy[i],
                epsilon_accounted: eps_acc[i],
                wall_ms: wall[i],
                key: key[i].clone(),
                details: serde_json::from_str(&details[i]).map_err(|e| e.to_string())?,
            };
            validate(&r)?;
            if let Some(sums) = &sums {
                let want = checksum::sum(&contents_json(&r));
                if sums[i] != want {
                    return Err(format!(
                        "checksum mismatch (stored {}, contents hash to {want})",
                        sums[i]
                    ));
                }
            }
            Ok(r)
        })();
        match row {
            Ok(r) => rows.push(r),
            Err(reason) => damage.push(Damage {
                location: format!("{} row {}", path.display(), i + 1),
                reason,
                content: format!("key {:?}", key[i]),
            }),
        }
    }
    Ok((rows, damage))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// polars-parquet panics on some garbage metadata ("thrift bool field", found by the
    /// fault-injection suite): the panic becomes an error naming the file, not a crash.
    #[test]
    fn a_decoder_panic_is_an_error_naming_the_file() {
        let out: Result<(), String> = decode_guarded(|| panic!("thrift bool field"));
        assert_eq!(
            out,
            Err("its metadata cannot be decoded: thrift bool field".into())
        );
        assert_eq!(decode_guarded(|| 7), Ok(7));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PARQUET_FILE);
        // A Parquet footer magic around garbage metadata.
        let mut bytes = b"PAR1".to_vec();
        bytes.extend([13, 75, 32, 127, 220, 168, 220, 186, 39, 0, 0, 0, 0]);
        bytes.extend(9u32.to_le_bytes());
        bytes.extend(b"PAR1");
        std::fs::write(&path, &bytes).unwrap();
        let e = read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("cells.parquet is damaged"), "{e}");
    }
}
