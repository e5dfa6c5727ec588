//! Dense rows with class labels: the MLP trainer's view of MNIST-like data.

use crate::error::{DpError, Result, ensure};

/// `n` rows of `d` features, row-major, each with a class label `0..`.
#[derive(Clone, Copy, Debug)]
pub struct DenseData<'a> {
    x: &'a [f64],
    y: &'a [u8],
    d: usize,
}

impl<'a> DenseData<'a> {
    /// Borrows `x` (`y.len()` rows of `d` values, row-major) and the labels `y`.
    pub fn new(x: &'a [f64], d: usize, y: &'a [u8]) -> Result<Self> {
        ensure(d >= 1, "features", d as f64, "must be >= 1")?;
        ensure(!y.is_empty(), "rows", 0.0, "must be >= 1")?;
        if x.len() != y.len() * d {
            return Err(DpError::Invalid(format!(
                "{} values cannot be {} rows of {d} features",
                x.len(),
                y.len()
            )));
        }
        Ok(DenseData { x, y, d })
    }

    /// Rows.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Features per row.
    pub fn d(&self) -> usize {
        self.d
    }

    /// All features, row-major.
    pub fn x(&self) -> &'a [f64] {
        self.x
    }

    /// Labels.
    pub fn y(&self) -> &'a [u8] {
        self.y
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &'a [f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// The largest label.
    pub fn max_label(&self) -> u8 {
        self.y.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let data = DenseData::new(&x, 3, &[1, 4]).unwrap();
        assert_eq!((data.n(), data.d(), data.max_label()), (2, 3, 4));
        assert_eq!(data.row(1), &[4.0, 5.0, 6.0]);
        assert!(DenseData::new(&x, 4, &[1, 4]).is_err());
        assert!(DenseData::new(&x, 0, &[]).is_err());
        assert!(DenseData::new(&[], 3, &[]).is_err());
    }
}
