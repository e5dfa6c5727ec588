//! UCI Adult: `adult.data` + `adult.test` → 45,222 × 104 dense, label `>50K` → +1.
//!
//! Follows Iyengar et al.'s `datasets/preprocess/adult.py` (train and test stacked, records with
//! a `?` dropped, the 8 categorical columns one-hot in sorted category order, then the 6
//! continuous columns divided by their maximum over the rows kept). Their script also drops
//! the last real record of each file (`list[:-2]` meant to remove blank lines) and so has
//! 45,220 rows: [`Records::IyengarScript`] does the same (dataset `adult-iyengar`, whose
//! seed-10000019 shuffle then matches theirs row for row); [`Records::Complete`] keeps every
//! complete record (dataset `adult`).

use std::io::Cursor;

use dp_core::features::FeatureMatrix;
use polars::prelude::*;

use super::onehot::OneHot;
use crate::dataset::Dataset;
use crate::error::{DataError, Result};

/// Number of comma-separated fields (14 attributes + income).
pub const N_FIELDS: usize = 15;
/// Continuous columns: age, fnlwgt, education-num, capital-gain, capital-loss, hours-per-week.
pub const CONTINUOUS: [usize; 6] = [0, 2, 4, 10, 11, 12];
/// Categorical columns: workclass, education, marital-status, occupation, relationship, race,
/// sex, native-country.
pub const CATEGORICAL: [usize; 8] = [1, 3, 5, 6, 7, 8, 9, 13];

/// Which records [`read_records`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// Records with a `?` field are dropped (Iyengar et al.).
    Drop,
    /// Records with a `?` field are kept, `?` as a value (Neel et al. use columns that never
    /// have one, and their record count needs these records).
    Keep,
}

/// Records of one Adult file, whitespace-trimmed (polars' CSV reader, all columns read as
/// strings). `skip_first_line` drops `adult.test`'s `|1x3 Cross validator` line.
pub fn read_records(
    bytes: &[u8],
    file: &str,
    skip_first_line: bool,
    missing: Missing,
) -> Result<Vec<Vec<String>>> {
    let schema: Schema = (0..N_FIELDS)
        .map(|i| Field::new(format!("c{i}").into(), DataType::String))
        .collect();
    let df = CsvReadOptions::default()
        .with_has_header(false)
        .with_skip_rows(usize::from(skip_first_line))
        .with_schema(Some(Arc::new(schema)))
        .map_parse_options(|o| o.with_separator(b',').with_quote_char(None))
        .into_reader_with_file_handle(Cursor::new(bytes))
        .finish()
        .map_err(|e| DataError::parse(file, format!("CSV: {e}")))?;
    let columns = df
        .columns()
        .iter()
        .map(|c| c.str().map(|s| s.iter().collect::<Vec<Option<&str>>>()))
        .collect::<PolarsResult<Vec<_>>>()
        .map_err(|e| DataError::parse(file, format!("CSV: {e}")))?;
    let mut records = Vec::with_capacity(df.height());
    'rows: for i in 0..df.height() {
        let mut rec = Vec::with_capacity(N_FIELDS);
        for col in &columns {
            match col[i].map(str::trim) {
                // Blank trailing lines come back as all-null / empty records.
                None | Some("") => continue 'rows,
                Some("?") if missing == Missing::Drop => continue 'rows,
                Some(v) => rec.push(v.to_string()),
            }
        }
        records.push(rec);
    }
    Ok(records)
}

/// Which records are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Records {
    /// Every complete record (45,222).
    Complete,
    /// As Iyengar et al.'s script: also the last record of each file (45,220). Both files'
    /// last records are complete, so dropping them before or after the `?` filter agrees.
    IyengarScript,
}

/// `+1` for `>50K` (with or without `adult.test`'s trailing `.`), `−1` for `<=50K`.
pub(crate) fn label(v: &str, file: &str) -> Result<f64> {
    match v.strip_suffix('.').unwrap_or(v) {
        ">50K" => Ok(1.0),
        "<=50K" => Ok(-1.0),
        other => Err(DataError::parse(
            file,
            format!("unknown income label `{other}`"),
        )),
    }
}

/// Builds the dataset from the two files' bytes.
pub fn parse(adult_data: &[u8], adult_test: &[u8], keep: Records) -> Result<Dataset> {
    let mut records = read_records(adult_data, "adult.data", false, Missing::Drop)?;
    let mut test = read_records(adult_test, "adult.test", true, Missing::Drop)?;
    if keep == Records::IyengarScript {
        records.pop();
        test.pop();
    }
    records.append(&mut test);
    let cats: Vec<Vec<&str>> = records
        .iter()
        .map(|r| CATEGORICAL.iter().map(|&c| r[c].as_str()).collect())
        .collect();
    let onehot = OneHot::fit(&cats, CATEGORICAL.len());

    let mut cont = vec![[0.0f64; 6]; records.len()];
    for (row, r) in cont.iter_mut().zip(&records) {
        for (v, &c) in row.iter_mut().zip(&CONTINUOUS) {
            *v = r[c]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    DataError::parse("adult", format!("column {c}: `{}` is not a number", r[c]))
                })?;
        }
    }
    let mut max = [0.0f64; 6];
    for row in &cont {
        for (m, v) in max.iter_mut().zip(row) {
            *m = m.max(*v);
        }
    }

    let width = onehot.width();
    let d = width + CONTINUOUS.len();
    let mut x = vec![0.0; records.len() * d];
    let mut y = Vec::with_capacity(records.len());
    for (i, (r, c)) in records.iter().zip(&cats).enumerate() {
        let row = &mut x[i * d..(i + 1) * d];
        for (k, v) in c.iter().enumerate() {
            row[onehot.column(k, v).expect("category was fitted")] = 1.0;
        }
        for (j, (&v, &m)) in cont[i].iter().zip(&max).enumerate() {
            row[width + j] = if m > 0.0 { v / m } else { v };
        }
        y.push(label(&r[N_FIELDS - 1], "adult")?);
    }
    let n = y.len();
    Ok(Dataset {
        name: match keep {
            Records::Complete => "adult",
            Records::IyengarScript => "adult-iyengar",
        }
        .into(),
        x: FeatureMatrix::dense(x, n, d),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n\
50, Self-emp, 83311, Masters, 14, Married, Exec, Husband, White, Male, 0, 0, 13, United-States, >50K\n\
38, ?, 215646, HS-grad, 9, Divorced, Handlers, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K\n\
\n";
    const TEST: &str = "|1x3 Cross validator\n\
25, Private, 226802, 11th, 7, Never-married, Machine, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.\n\
44, Private, 160323, Masters, 10, Married, Exec, Husband, Black, Female, 7688, 0, 40, Peru, >50K.\n\
\n";

    #[test]
    fn small_files() {
        let d = parse(DATA.as_bytes(), TEST.as_bytes(), Records::Complete).unwrap();
        // The record with `?` is dropped; the header line and blank lines are skipped.
        assert_eq!(d.y, vec![-1.0, 1.0, -1.0, 1.0]);
        // Categories: workclass {Private, Self-emp, State-gov}, education {11th, Bachelors,
        // Masters}, marital {Married, Never-married}, occupation {Adm-clerical, Exec, Machine},
        // relationship {Husband, Not-in-family, Own-child}, race {Black, White},
        // sex {Female, Male}, country {Peru, United-States}: 20 columns + 6 continuous.
        assert_eq!(d.x.ncols(), 26);
        let row = |i: usize| {
            let mut out = vec![0.0; 26];
            d.x.row(i).axpy(1.0, &mut out);
            out
        };
        let r0 = row(0);
        assert_eq!(r0[2], 1.0, "State-gov is the third workclass");
        assert_eq!(
            r0[..20].iter().sum::<f64>(),
            8.0,
            "one indicator per categorical column"
        );
        // Continuous: age / 50, fnlwgt / 226802, edu-num / 14, gain / 7688, loss 0, hours / 40.
        assert!((r0[20] - 39.0 / 50.0).abs() < 1e-15);
        assert!((r0[21] - 77516.0 / 226802.0).abs() < 1e-15);
        assert!((r0[22] - 13.0 / 14.0).abs() < 1e-15);
        assert!((r0[23] - 2174.0 / 7688.0).abs() < 1e-15);
        assert_eq!(r0[24], 0.0);
        assert_eq!(r0[25], 1.0);
        let r3 = row(3);
        assert_eq!(r3[18], 1.0, "Peru sorts before United-States");
        assert_eq!(r3[16], 1.0, "Female sorts before Male");
    }

    #[test]
    fn iyengar_script_drops_the_last_record_of_each_file() {
        let d = parse(DATA.as_bytes(), TEST.as_bytes(), Records::IyengarScript).unwrap();
        // adult.data keeps its first record (its last complete one is dropped; the `?` one
        // never counted), adult.test keeps its first.
        assert_eq!(d.y, vec![-1.0, -1.0]);
        assert_eq!(d.name, "adult-iyengar");
        // Fewer records, so fewer categories and different maxima: 8 single categories
        // except sex/race/… collapse; continuous columns over the kept rows only.
        let mut r1 = vec![0.0; d.x.ncols()];
        d.x.row(1).axpy(1.0, &mut r1);
        let w = d.x.ncols() - 6;
        assert_eq!(r1[w], 25.0 / 39.0, "age over the max of the kept rows");
    }

    #[test]
    fn bad_label_is_an_error() {
        let bad = DATA.replace(">50K", "maybe");
        assert!(parse(bad.as_bytes(), TEST.as_bytes(), Records::Complete).is_err());
    }
}
