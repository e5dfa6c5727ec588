//! One-hot encoding with categories in sorted (byte-wise) order, as scikit-learn's
//! `LabelEncoder` + `OneHotEncoder` lay them out in Iyengar et al.'s scripts.

use std::collections::BTreeSet;

/// Sorted category lists for several categorical columns; encoded columns are laid out
/// column after column, each block in sorted category order.
#[derive(Clone, Debug, PartialEq)]
pub struct OneHot {
    /// Per column, its categories in sorted order.
    pub categories: Vec<Vec<String>>,
    offsets: Vec<usize>,
}

impl OneHot {
    /// Learns the categories of each column from `rows` (each row holds one value per column).
    pub fn fit<'a, R: AsRef<[&'a str]>>(rows: &[R], n_columns: usize) -> OneHot {
        let mut sets = vec![BTreeSet::new(); n_columns];
        for r in rows {
            for (set, v) in sets.iter_mut().zip(r.as_ref()) {
                set.insert(*v);
            }
        }
        let categories: Vec<Vec<String>> = sets
            .into_iter()
            .map(|s| s.into_iter().map(str::to_string).collect())
            .collect();
        let mut offsets = Vec::with_capacity(n_columns);
        let mut at = 0;
        for c in &categories {
            offsets.push(at);
            at += c.len();
        }
        OneHot {
            categories,
            offsets,
        }
    }

    /// Total number of indicator columns.
    pub fn width(&self) -> usize {
        self.categories.iter().map(Vec::len).sum()
    }

    /// Output column of value `v` in categorical column `col` (None if unseen).
    pub fn column(&self, col: usize, v: &str) -> Option<usize> {
        self.categories[col]
            .binary_search_by(|c| c.as_str().cmp(v))
            .ok()
            .map(|k| self.offsets[col] + k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_blocks() {
        let rows = [
            ["tcp", "http"],
            ["udp", "ftp"],
            ["icmp", "http"],
            ["tcp", "auth"],
        ];
        let oh = OneHot::fit(&rows, 2);
        assert_eq!(oh.categories[0], ["icmp", "tcp", "udp"]);
        assert_eq!(oh.categories[1], ["auth", "ftp", "http"]);
        assert_eq!(oh.width(), 6);
        assert_eq!(oh.column(0, "icmp"), Some(0));
        assert_eq!(oh.column(0, "udp"), Some(2));
        assert_eq!(oh.column(1, "auth"), Some(3));
        assert_eq!(oh.column(1, "http"), Some(5));
        assert_eq!(oh.column(1, "smtp"), None);
    }
}
