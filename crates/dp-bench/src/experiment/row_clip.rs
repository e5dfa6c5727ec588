//! Per-cell row clipping (Iyengar et al.'s "sample clipping", `common/clipping.py:29-67`): the
//! clipping bound L is a tuned hyperparameter, so each grid point trains on its own clipped copy
//! of the rows. Copies are made once per (norm, bound) and shared by every cell of a run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Context as _;
use dp_core::features::FeatureMatrix;
use dp_core::learn::GlmData;

/// Which norm a grid point clips rows to, and the bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowClip {
    /// x ← x·min(1, L/‖x‖₂) (every algorithm but Frank–Wolfe).
    L2(f64),
    /// Every coordinate clamped to [−L, L] (Frank–Wolfe, whose analysis needs ‖x‖∞ ≤ L).
    Linf(f64),
}

impl RowClip {
    fn key(self) -> (u8, u64) {
        match self {
            RowClip::L2(l) => (2, l.to_bits()),
            RowClip::Linf(l) => (0, l.to_bits()),
        }
    }

    /// Clips every row of a copy of `x`.
    pub fn apply(self, x: &FeatureMatrix) -> FeatureMatrix {
        let mut out = x.clone();
        match self {
            RowClip::L2(l) => out.map_rows_mut(|_, row| {
                let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
                if norm > l {
                    // Scale by L/‖x‖ then cap: rounding must never leave a row above the
                    // bound the privacy analysis assumes.
                    let s = l / norm;
                    row.iter_mut().for_each(|v| *v *= s);
                    let after = row.iter().map(|v| v * v).sum::<f64>().sqrt();
                    if after > l {
                        let s2 = l / after * (1.0 - 1e-15);
                        row.iter_mut().for_each(|v| *v *= s2);
                    }
                }
            }),
            RowClip::Linf(l) => out.map_rows_mut(|_, row| {
                row.iter_mut().for_each(|v| *v = v.clamp(-l, l));
            }),
        }
        out
    }
}

/// Training rows (with their norms) and test rows clipped alike.
pub struct ClippedData<'a> {
    /// The clipped training rows, prepared for the learners.
    pub train: GlmData<'a>,
    /// One-vs-all: the same rows labelled for each class (empty for binary data).
    pub classes: Vec<GlmData<'a>>,
    /// The clipped test rows (ℓ2 clipping only rescales them, which leaves sign predictions
    /// unchanged; ℓ∞ clipping changes them, as in the authors' code).
    pub test_x: FeatureMatrix,
    /// The clipped validation rows, when the config has them.
    pub valid_x: Option<FeatureMatrix>,
}

type Slot<'a> = Arc<OnceLock<Arc<ClippedData<'a>>>>;

/// Clipped copies built on first use, one per (norm, bound), shared across threads.
pub struct ClipCache<'a> {
    train_x: &'a FeatureMatrix,
    train_y: &'a [f64],
    class_y: &'a [Vec<f64>],
    test_x: &'a FeatureMatrix,
    valid_x: Option<&'a FeatureMatrix>,
    slots: Mutex<HashMap<(u8, u64), Slot<'a>>>,
}

impl<'a> ClipCache<'a> {
    /// A cache over the unclipped rows.
    pub fn new(train_x: &'a FeatureMatrix, train_y: &'a [f64], test_x: &'a FeatureMatrix) -> Self {
        Self::one_vs_all(train_x, train_y, &[], test_x)
    }

    /// [`ClipCache::new`] that also labels every clipped copy for each class (`class_y[k]` is
    /// class k against the rest).
    pub fn one_vs_all(
        train_x: &'a FeatureMatrix,
        train_y: &'a [f64],
        class_y: &'a [Vec<f64>],
        test_x: &'a FeatureMatrix,
    ) -> Self {
        Self {
            train_x,
            train_y,
            class_y,
            test_x,
            valid_x: None,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// The same cache, clipping the validation rows `x` too.
    pub fn with_validation(self, x: Option<&'a FeatureMatrix>) -> Self {
        Self { valid_x: x, ..self }
    }

    /// The rows clipped by `clip` (built once; concurrent callers wait for the first).
    pub fn get(&self, clip: RowClip) -> anyhow::Result<Arc<ClippedData<'a>>> {
        let slot = {
            let mut map = self.slots.lock().expect("clip cache lock");
            map.entry(clip.key()).or_default().clone()
        };
        if let Some(d) = slot.get() {
            return Ok(d.clone());
        }
        let train = GlmData::from_owned(clip.apply(self.train_x), self.train_y)
            .context("clipped training rows are not a valid GLM problem")?;
        let classes = self
            .class_y
            .iter()
            .map(|y| train.relabel(y))
            .collect::<Result<_, _>>()
            .context("one-vs-all labels do not fit the clipped rows")?;
        let data = Arc::new(ClippedData {
            train,
            classes,
            test_x: clip.apply(self.test_x),
            valid_x: self.valid_x.map(|x| clip.apply(x)),
        });
        Ok(slot.get_or_init(|| data).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l2_clipping_caps_norms_and_keeps_short_rows() {
        let x = FeatureMatrix::dense(vec![3.0, 4.0, 0.1, 0.2], 2, 2);
        let c = RowClip::L2(1.0).apply(&x);
        let norms = c.row_norms();
        assert!(norms[0] <= 1.0 && norms[0] > 1.0 - 1e-12, "{norms:?}");
        assert_eq!(c.row(1).dot(&[1.0, 0.0]), 0.1, "a short row is untouched");
    }

    #[test]
    fn linf_clipping_clamps_both_sides() {
        let x = FeatureMatrix::dense(vec![3.0, -4.0, 0.1, -0.2], 2, 2);
        let c = RowClip::Linf(0.15).apply(&x);
        assert_eq!(c.row(0).dot(&[1.0, 0.0]), 0.15);
        assert_eq!(c.row(0).dot(&[0.0, 1.0]), -0.15);
        assert_eq!(c.row(1).dot(&[0.0, 1.0]), -0.15);
        assert_eq!(c.row(1).dot(&[1.0, 0.0]), 0.1);
    }

    #[test]
    fn the_cache_builds_each_clip_once() {
        let x = FeatureMatrix::dense(vec![3.0, 4.0, 0.1, 0.2], 2, 2);
        let y = [1.0, -1.0];
        let cache = ClipCache::new(&x, &y, &x);
        let a = cache.get(RowClip::L2(1.0)).unwrap();
        let b = cache.get(RowClip::L2(1.0)).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = cache.get(RowClip::Linf(1.0)).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(a.train.max_row_norm() <= 1.0);
    }
}
