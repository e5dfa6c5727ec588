//! Long-format CSV tables: one observation per row, comma separation.
//!
//! Text fields are identifiers and parameter labels (`sigma=5;beta=1;lambda=20`) and stay bare;
//! one holding a comma, quote or line break is quoted as RFC 4180 says ([`field`]), and
//! [`Table::read`] reads both back. Numbers use the shortest representation that round-trips.

use std::path::Path;

use anyhow::{Context, bail};

use crate::files::write_text_atomic;

/// One field of a row.
#[derive(Clone, Debug)]
pub enum Field {
    /// An identifier or label.
    Text(String),
    /// A number, written so that it parses back to the same `f64`.
    Num(f64),
}

impl From<&str> for Field {
    fn from(s: &str) -> Self {
        Field::Text(s.to_string())
    }
}

impl From<String> for Field {
    fn from(s: String) -> Self {
        Field::Text(s)
    }
}

impl From<f64> for Field {
    fn from(v: f64) -> Self {
        Field::Num(v)
    }
}

impl From<u64> for Field {
    fn from(v: u64) -> Self {
        Field::Num(v as f64)
    }
}

/// Shortest round-trip text of a number; exponent notation outside [1e-4, 1e6).
pub fn format_number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e6).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

pub use crate::quoting::{field, records};

/// A long-format table being built.
#[derive(Clone, Debug)]
pub struct LongCsv {
    columns: Vec<String>,
    text: String,
}

impl LongCsv {
    /// An empty table with these column names.
    pub fn new(columns: &[&str]) -> Self {
        LongCsv {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            text: format!("{}\n", columns.join(",")),
        }
    }

    /// Appends one row (as many fields as columns).
    pub fn push(&mut self, fields: Vec<Field>) -> anyhow::Result<()> {
        if fields.len() != self.columns.len() {
            bail!(
                "a row of {} fields for the {} columns {}",
                fields.len(),
                self.columns.len(),
                self.columns.join(",")
            );
        }
        let mut cells = Vec::with_capacity(fields.len());
        for f in fields {
            cells.push(match f {
                Field::Num(v) => format_number(v),
                Field::Text(s) => field(&s).into_owned(),
            });
        }
        self.text.push_str(&cells.join(","));
        self.text.push('\n');
        Ok(())
    }

    /// Writes the table atomically.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        write_text_atomic(path, &self.text)
    }
}

/// A CSV file read back: header and string cells.
#[derive(Clone, Debug)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows of cells, each as long as `columns`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads a comma-separated file with a header line ([`records`]).
    pub fn read(path: &Path) -> anyhow::Result<Table> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Table::parse(&text, &path.display().to_string())
    }

    /// Parses CSV `text` as [`Table::read`] does; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> anyhow::Result<Table> {
        let mut records = records(text)
            .map_err(|e| anyhow::anyhow!("{origin}: {e}"))?
            .into_iter();
        let columns = records
            .next()
            .with_context(|| format!("{origin} is empty"))?;
        let mut rows = Vec::new();
        for (i, row) in records.enumerate() {
            if row.len() != columns.len() {
                bail!(
                    "{origin} record {}: {} fields, expected {}",
                    i + 2,
                    row.len(),
                    columns.len()
                );
            }
            rows.push(row);
        }
        Ok(Table { columns, rows })
    }

    /// Index of a column.
    pub fn column(&self, name: &str) -> anyhow::Result<usize> {
        self.columns
            .iter()
            .position(|c| c == name)
            .with_context(|| format!("no column {name:?} in {:?}", self.columns))
    }

    /// The text of `name` in row `i`.
    pub fn text(&self, i: usize, name: &str) -> anyhow::Result<&str> {
        Ok(&self.rows[i][self.column(name)?])
    }

    /// The number in column `name` of row `i`.
    pub fn num(&self, i: usize, name: &str) -> anyhow::Result<f64> {
        let s = self.text(i, name)?;
        s.parse()
            .with_context(|| format!("column {name:?}, row {}: {s:?} is not a number", i + 1))
    }
}

#[cfg(test)]
impl Table {
    /// Exchanges the labels `a` and `b` in a text column: a tampered copy that a claim check
    /// must reject.
    pub fn swapped(&self, column: &str, a: &str, b: &str) -> Table {
        let c = self.column(column).unwrap();
        let mut t = self.clone();
        for row in &mut t.rows {
            if row[c] == a {
                row[c] = b.to_string();
            } else if row[c] == b {
                row[c] = a.to_string();
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_fields_are_quoted_only_when_they_need_it_and_read_back() {
        let odd = [
            "alg1,99.9",
            "say \"hi\"",
            "two\nlines",
            "cr\r",
            " edge ",
            "a|b",
            "",
            "\"",
        ];
        for s in ["alg1", "sigma=5;beta=1", "DP-SGD (honest)", "a|b"] {
            assert_eq!(field(s), s, "plain fields keep their bytes");
        }
        assert_eq!(field("alg1,99.9"), "\"alg1,99.9\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        let dir = tempfile::tempdir().unwrap();
        let mut t = LongCsv::new(&["method", "x"]);
        for (i, s) in odd.iter().enumerate() {
            t.push(vec![(*s).into(), (i as u64).into()]).unwrap();
        }
        let path = dir.path().join("t.csv");
        t.write(&path).unwrap();
        let back = Table::read(&path).unwrap();
        assert_eq!(back.rows.len(), odd.len());
        for (i, s) in odd.iter().enumerate() {
            assert_eq!(back.text(i, "method").unwrap(), *s);
            assert_eq!(back.num(i, "x").unwrap(), i as f64);
        }
        // polars' quoting (cells.csv) reads the same way; unclosed quotes are errors.
        let polars = "a,details\n1,\"{\"\"k\"\":[1,2]}\"\r\n\n 2 , x \n";
        let r = records(polars).unwrap();
        assert_eq!(r, [["a", "details"], ["1", "{\"k\":[1,2]}"], ["2", "x"]]);
        assert!(records("a\n\"open,1\n").unwrap_err().contains("not closed"));
        assert!(
            records("\"a\"b,1\n")
                .unwrap_err()
                .contains("after a closing quote")
        );
    }

    #[test]
    fn figures_csv_round_trips_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = LongCsv::new(&["panel", "x", "y"]);
        let values = [0.0, 1e-300, 3.25e-7, 0.1, 1.0 / 3.0, 12345.678, 2.5e9];
        for &v in &values {
            t.push(vec!["sigma=5;beta=1".into(), v.into(), (-v).into()])
                .unwrap();
        }
        assert!(t.push(vec![1.0.into()]).is_err());
        let path = dir.path().join("t.csv");
        t.write(&path).unwrap();
        let back = Table::read(&path).unwrap();
        assert_eq!(back.columns, ["panel", "x", "y"]);
        assert_eq!(back.rows.len(), values.len());
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(back.num(i, "x").unwrap(), v);
            assert_eq!(back.num(i, "y").unwrap(), -v);
            assert_eq!(back.text(i, "panel").unwrap(), "sigma=5;beta=1");
        }
        assert!(back.column("z").is_err());
    }
}
