//! UCI Adult as Neel, Roth, Vietri & Wu (2019) use it: `adult.data` only, every one of its
//! 7,841 `>50K` records plus as many `<=50K` records drawn uniformly without replacement
//! (n = 15,682), 7 columns → d = 23 (`docs/reference/neel2019.md` §2.1).
//!
//! - Records with a `?` are kept: the 7 columns never have one, and dropping them would leave
//!   7,508 positives (n = 15,016), not the paper's 7,841.
//! - marital-status, relationship, race and sex one-hot in sorted level order (the authors'
//!   `LabelEncoder` + `OneHotEncoder`, commit `568c03d`: `use_col = [5,7,8,9,10,11,12]`).
//! - capital-gain / 99,999, capital-loss / 4,356, hours-per-week / 99: the column maxima of
//!   `adult.data`, which the balanced subset shares, so constants.
//! - No bias column (each complete one-hot group sums to 1) and no row normalisation.
//!
//! The paper does not say how its negatives were drawn; ours are NumPy's legacy
//! `RandomState(NEEL_SEED).permutation` of the negatives, first 7,841, kept in file order.

use dp_core::features::FeatureMatrix;

use super::adult::{Missing, N_FIELDS, read_records};
use super::onehot::OneHot;
use crate::dataset::Dataset;
use crate::error::{DataError, Result};
use crate::numpy_rng::NumpyLegacyRng;

/// Categorical columns: marital-status, relationship, race, sex.
pub const CATEGORICAL: [usize; 4] = [5, 7, 8, 9];
/// Continuous columns (capital-gain, capital-loss, hours-per-week) and their divisors.
pub const CONTINUOUS: [(usize, f64); 3] = [(10, 99_999.0), (11, 4_356.0), (12, 99.0)];
/// Seed of the draw of the negatives.
pub const NEEL_SEED: u32 = 2019;

/// Builds the balanced dataset from `adult.data`'s bytes.
pub fn parse(adult_data: &[u8]) -> Result<Dataset> {
    let records = read_records(adult_data, "adult.data", false, Missing::Keep)?;
    let income = |r: &Vec<String>| match r[N_FIELDS - 1].as_str() {
        ">50K" => Ok(true),
        "<=50K" => Ok(false),
        other => Err(DataError::parse(
            "adult.data",
            format!("unknown income label `{other}`"),
        )),
    };
    let mut pos = Vec::new();
    let mut neg = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if income(r)? { &mut pos } else { &mut neg }.push(i);
    }
    if neg.len() < pos.len() {
        return Err(DataError::parse(
            "adult.data",
            format!(
                "{} negatives cannot balance {} positives",
                neg.len(),
                pos.len()
            ),
        ));
    }
    let order = NumpyLegacyRng::new(NEEL_SEED).permutation(neg.len());
    let mut keep: Vec<usize> = pos
        .iter()
        .copied()
        .chain(order[..pos.len()].iter().map(|&k| neg[k]))
        .collect();
    keep.sort_unstable();
    let records: Vec<&Vec<String>> = keep.iter().map(|&i| &records[i]).collect();

    let cats: Vec<Vec<&str>> = records
        .iter()
        .map(|r| CATEGORICAL.iter().map(|&c| r[c].as_str()).collect())
        .collect();
    let onehot = OneHot::fit(&cats, CATEGORICAL.len());
    let width = onehot.width();
    let d = width + CONTINUOUS.len();
    let mut x = vec![0.0; records.len() * d];
    let mut y = Vec::with_capacity(records.len());
    for (i, (r, c)) in records.iter().zip(&cats).enumerate() {
        let row = &mut x[i * d..(i + 1) * d];
        for (k, v) in c.iter().enumerate() {
            if *v == "?" {
                return Err(DataError::parse(
                    "adult.data",
                    format!("column {} has a `?`", CATEGORICAL[k]),
                ));
            }
            row[onehot.column(k, v).expect("category was fitted")] = 1.0;
        }
        for (j, &(col, max)) in CONTINUOUS.iter().enumerate() {
            let v = r[col]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && (0.0..=max).contains(v))
                .ok_or_else(|| {
                    DataError::parse(
                        "adult.data",
                        format!("column {col}: `{}` is not a number in [0, {max}]", r[col]),
                    )
                })?;
            row[width + j] = v / max;
        }
        y.push(if income(r)? { 1.0 } else { -1.0 });
    }
    let n = y.len();
    Ok(Dataset {
        name: "adult-neel".into(),
        x: FeatureMatrix::dense(x, n, d),
        y,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every level is held by a positive, so the categories do not depend on which two of
    // the three negatives are drawn.
    const DATA: &str = "39, State-gov, 77516, Bachelors, 13, Married, Adm-clerical, Husband, White, Male, 2174, 0, 40, United-States, <=50K\n\
50, Self-emp, 83311, Masters, 14, Married, Exec, Husband, White, Male, 0, 0, 13, United-States, >50K\n\
38, ?, 215646, HS-grad, 9, Divorced, ?, Not-in-family, Black, Female, 0, 4356, 99, ?, >50K\n\
28, Private, 338409, Bachelors, 13, Divorced, Prof, Not-in-family, Black, Female, 0, 0, 40, Cuba, <=50K\n\
37, Private, 284582, Masters, 14, Married, Exec, Husband, Black, Female, 0, 0, 40, United-States, <=50K\n\
\n";

    #[test]
    fn balances_keeps_missing_and_scales_by_constants() {
        let d = parse(DATA.as_bytes()).unwrap();
        // Both positives (one with `?` in unused columns) and two of the three negatives.
        assert_eq!(d.len(), 4);
        assert_eq!(d.y.iter().filter(|&&v| v > 0.0).count(), 2);
        // marital {Divorced, Married}, relationship {Husband, Not-in-family}, race {Black,
        // White}, sex {Female, Male}: 8 columns + 3 continuous.
        assert_eq!(d.x.ncols(), 11);
        let pos_missing =
            d.y.iter()
                .enumerate()
                .filter(|(_, v)| **v > 0.0)
                .map(|(i, _)| i)
                .nth(1)
                .unwrap();
        let mut row = vec![0.0; 11];
        d.x.row(pos_missing).axpy(1.0, &mut row);
        assert_eq!(
            row,
            vec![1., 0., 0., 1., 1., 0., 1., 0., 0., 1., 1.],
            "Divorced, Not-in-family, Black, Female, gain 0, loss 4356/4356, hours 99/99"
        );
    }

    #[test]
    fn the_draw_of_negatives_is_fixed() {
        let a = parse(DATA.as_bytes()).unwrap();
        let b = parse(DATA.as_bytes()).unwrap();
        assert_eq!(a, b);
    }
}
