//! Identical feature rows merged into one with counts of each label: the 0/1 objective is the
//! same function of w, so the argmin (and the privacy) is unchanged, and the MIP shrinks from
//! one indicator per record to one per distinct row (15,682 → ≈ 2,640 on Adult).

use std::collections::HashMap;

/// Distinct rows with their label counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// Feature dimension.
    pub d: usize,
    /// Distinct rows, row-major.
    pub x: Vec<f64>,
    /// Records with y = +1 per row.
    pub pos: Vec<u32>,
    /// Records with y = −1 per row.
    pub neg: Vec<u32>,
}

impl Rows {
    /// Merges `n` row-major rows of `x` (dimension `d`) with labels `y ∈ {−1, +1}`, keeping the
    /// first occurrence's order.
    pub fn aggregate(x: &[f64], d: usize, y: &[f64]) -> Rows {
        assert_eq!(x.len(), y.len() * d, "x must hold y.len() rows of d values");
        let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut out = Rows {
            d,
            x: Vec::new(),
            pos: Vec::new(),
            neg: Vec::new(),
        };
        for (row, &label) in x.chunks_exact(d).zip(y) {
            // −0.0 and 0.0 are the same feature value.
            let key: Vec<u64> = row.iter().map(|v| (v + 0.0).to_bits()).collect();
            let u = *index.entry(key).or_insert_with(|| {
                out.x.extend_from_slice(row);
                out.pos.push(0);
                out.neg.push(0);
                out.pos.len() - 1
            });
            if label > 0.0 {
                out.pos[u] += 1;
            } else {
                out.neg[u] += 1;
            }
        }
        out
    }

    /// Number of distinct rows.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Row `u`.
    pub fn row(&self, u: usize) -> &[f64] {
        &self.x[u * self.d..(u + 1) * self.d]
    }

    /// The margin 0/1 loss summed over records: a positive record errs when
    /// `⟨w, x⟩ < margin`, a negative one when `⟨w, x⟩ > 0` (`docs/reference/neel2019.md` §1.4).
    pub fn loss(&self, w: &[f64], margin: f64) -> f64 {
        (0..self.len())
            .map(|u| {
                let s: f64 = self.row(u).iter().zip(w).map(|(a, b)| a * b).sum();
                let mut l = 0.0;
                if s < margin {
                    l += f64::from(self.pos[u]);
                }
                if s > 0.0 {
                    l += f64::from(self.neg[u]);
                }
                l
            })
            .sum()
    }
}
