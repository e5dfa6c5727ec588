//! UCI Adult built from public facts only (dataset `adult-public`): nothing about the rows is
//! read to decide how a row is encoded, so the encoding costs no privacy and a learner's
//! certificate covers the whole pipeline.
//!
//! - Records of `adult.data` + `adult.test` with a `?` field are dropped (a rule applied to
//!   each record alone).
//! - The 8 categorical columns are one-hot over the values `adult.names` lists (lines 98–110),
//!   in its order ([`SCHEMA`]): 99 indicator columns whatever the rows hold. A value outside
//!   the schema is an error.
//! - The continuous columns are divided by bounds that are facts about the fields, not about
//!   the rows ([`BOUNDS`]), then clipped to [0, 1]: age by 100 (a bound on a human age),
//!   education-num by 16 (the schema's 16 education levels), capital-gain and capital-loss by
//!   99,999 (the census files' five-digit money fields, whose top code is 99,999), hours-per-
//!   week by 168 (the hours of a week). fnlwgt, a survey weight with no public bound and not an
//!   attribute of the person, is left out.
//!
//! The papers' Adult encodings (`adult`, `adult-iyengar`: categories present in the rows and
//! columns divided by their maximum; `adult-neel`: capital-loss by its maximum, 4,356) read
//! the rows; their configs keep them as the papers did.

use dp_core::features::FeatureMatrix;

use super::adult::{Missing, N_FIELDS, label, read_records};
use crate::dataset::Dataset;
use crate::error::{DataError, Result};

/// The categorical columns with the values `adult.names` lists for them, in its order.
pub const SCHEMA: [(usize, &[&str]); 8] = [
    (
        1,
        &[
            "Private",
            "Self-emp-not-inc",
            "Self-emp-inc",
            "Federal-gov",
            "Local-gov",
            "State-gov",
            "Without-pay",
            "Never-worked",
        ],
    ),
    (
        3,
        &[
            "Bachelors",
            "Some-college",
            "11th",
            "HS-grad",
            "Prof-school",
            "Assoc-acdm",
            "Assoc-voc",
            "9th",
            "7th-8th",
            "12th",
            "Masters",
            "1st-4th",
            "10th",
            "Doctorate",
            "5th-6th",
            "Preschool",
        ],
    ),
    (
        5,
        &[
            "Married-civ-spouse",
            "Divorced",
            "Never-married",
            "Separated",
            "Widowed",
            "Married-spouse-absent",
            "Married-AF-spouse",
        ],
    ),
    (
        6,
        &[
            "Tech-support",
            "Craft-repair",
            "Other-service",
            "Sales",
            "Exec-managerial",
            "Prof-specialty",
            "Handlers-cleaners",
            "Machine-op-inspct",
            "Adm-clerical",
            "Farming-fishing",
            "Transport-moving",
            "Priv-house-serv",
            "Protective-serv",
            "Armed-Forces",
        ],
    ),
    (
        7,
        &[
            "Wife",
            "Own-child",
            "Husband",
            "Not-in-family",
            "Other-relative",
            "Unmarried",
        ],
    ),
    (
        8,
        &[
            "White",
            "Asian-Pac-Islander",
            "Amer-Indian-Eskimo",
            "Other",
            "Black",
        ],
    ),
    (9, &["Female", "Male"]),
    (
        13,
        &[
            "United-States",
            "Cambodia",
            "England",
            "Puerto-Rico",
            "Canada",
            "Germany",
            "Outlying-US(Guam-USVI-etc)",
            "India",
            "Japan",
            "Greece",
            "South",
            "China",
            "Cuba",
            "Iran",
            "Honduras",
            "Philippines",
            "Italy",
            "Poland",
            "Jamaica",
            "Vietnam",
            "Mexico",
            "Portugal",
            "Ireland",
            "France",
            "Dominican-Republic",
            "Laos",
            "Ecuador",
            "Taiwan",
            "Haiti",
            "Columbia",
            "Hungary",
            "Guatemala",
            "Nicaragua",
            "Scotland",
            "Thailand",
            "Yugoslavia",
            "El-Salvador",
            "Trinadad&Tobago",
            "Peru",
            "Hong",
            "Holand-Netherlands",
        ],
    ),
];

/// The continuous columns kept and the public bound each is divided by: age, education-num,
/// capital-gain, capital-loss, hours-per-week.
pub const BOUNDS: [(usize, f64); 5] = [
    (0, 100.0),
    (4, 16.0),
    (10, 99_999.0),
    (11, 99_999.0),
    (12, 168.0),
];

/// Columns: the schema's indicators, then the bounded continuous columns.
pub fn width() -> usize {
    SCHEMA.iter().map(|(_, v)| v.len()).sum::<usize>() + BOUNDS.len()
}

/// Builds the dataset from the two files' bytes.
pub fn parse(adult_data: &[u8], adult_test: &[u8]) -> Result<Dataset> {
    let mut records = read_records(adult_data, "adult.data", false, Missing::Drop)?;
    records.append(&mut read_records(
        adult_test,
        "adult.test",
        true,
        Missing::Drop,
    )?);
    let d = width();
    let mut x = vec![0.0; records.len() * d];
    let mut y = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let row = &mut x[i * d..(i + 1) * d];
        let mut at = 0;
        for (col, values) in SCHEMA {
            let v = r[col].as_str();
            let k = values.iter().position(|s| *s == v).ok_or_else(|| {
                DataError::parse(
                    "adult",
                    format!("column {col}: `{v}` is not a value adult.names lists"),
                )
            })?;
            row[at + k] = 1.0;
            at += values.len();
        }
        for (j, (col, bound)) in BOUNDS.iter().enumerate() {
            let v: f64 = r[*col]
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    DataError::parse(
                        "adult",
                        format!("column {col}: `{}` is not a number", r[*col]),
                    )
                })?;
            row[at + j] = (v / bound).clamp(0.0, 1.0);
        }
        y.push(label(&r[N_FIELDS - 1], "adult")?);
    }
    let n = y.len();
    Ok(Dataset {
        name: "adult-public".into(),
        x: FeatureMatrix::dense(x, n, d),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n\
95, Private, 83311, Masters, 14, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, Peru, >50K\n\
38, ?, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K\n";
    const TEST: &str = "|1x3 Cross validator\n\
25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Female, 0, 0, 40, United-States, <=50K.\n";

    fn row(d: &Dataset, i: usize) -> Vec<f64> {
        let mut out = vec![0.0; d.x.ncols()];
        d.x.row(i).axpy(1.0, &mut out);
        out
    }

    #[test]
    fn the_encoding_reads_no_row_to_encode_another() {
        let all = parse(DATA.as_bytes(), TEST.as_bytes()).unwrap();
        assert_eq!((all.len(), all.x.ncols()), (3, 104));
        assert_eq!(all.y, vec![-1.0, 1.0, -1.0]);
        let r0 = row(&all, 0);
        assert_eq!(
            r0[5], 1.0,
            "State-gov is the sixth workclass of adult.names"
        );
        assert_eq!(r0[..99].iter().sum::<f64>(), 8.0);
        let c = &r0[99..];
        assert_eq!(
            c,
            &[0.39, 13.0 / 16.0, 2174.0 / 99_999.0, 0.0, 40.0 / 168.0]
        );
        assert_eq!(row(&all, 1)[99], 0.95);
        // Without the other rows, a row is encoded the same: no statistic of the rows enters.
        let first = DATA.lines().next().unwrap().to_string() + "\n";
        let alone = parse(first.as_bytes(), TEST.as_bytes()).unwrap();
        assert_eq!(row(&alone, 0), r0);
    }

    #[test]
    fn a_value_outside_the_schema_is_an_error() {
        let bad = DATA.replace("Peru", "Atlantis");
        let e = parse(bad.as_bytes(), TEST.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("Atlantis"), "{e}");
    }

    #[test]
    fn the_schema_is_what_adult_names_lists() {
        // The mirror's adult.names, where a mirror is set (CI sets it).
        let Ok(root) = std::env::var("DPBENCH_DATA_MIRROR") else {
            return;
        };
        let Ok(text) =
            std::fs::read_to_string(std::path::Path::new(&root).join("adult/adult.names"))
        else {
            return;
        };
        // The attribute list starts at `age: continuous.`; before it is free text.
        let listed: Vec<Vec<String>> = text
            .lines()
            .skip_while(|l| !l.starts_with("age:"))
            .filter_map(|l| l.split_once(": "))
            .map(|(_, v)| v.trim_end_matches('.').trim())
            .filter(|v| *v != "continuous")
            .map(|v| v.split(", ").map(str::to_string).collect())
            .collect();
        let ours: Vec<Vec<String>> = SCHEMA
            .iter()
            .map(|(_, v)| v.iter().map(|s| s.to_string()).collect())
            .collect();
        assert_eq!(listed, ours);
    }
}
