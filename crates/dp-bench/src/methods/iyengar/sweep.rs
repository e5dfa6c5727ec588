//! What a dishonest Iyengar cell stores in `details`, as a type: every grid point's accuracy,
//! certified ε and noise, written with serde and read back the same way by the summary
//! (which picks the point with the best mean over trials), never by string keys.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::experiment::record::CellRecord;

/// One dishonest cell's sweep over the grid (`details` of the cell). Numbers that JSON cannot
/// hold (∞, NaN) are `None` (`null`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// Training rows.
    pub n_train: usize,
    /// Grid points.
    pub points: usize,
    /// Test accuracy (%) of each point.
    pub acc: Vec<Option<f64>>,
    /// ε certified for each point's release (`None`: no guarantee, or refused).
    pub eps: Vec<Option<f64>>,
    /// Each point's noise (σ or z).
    pub noise: Vec<Option<f64>>,
    /// Points whose calibration was refused, by index, with the reason (they release θ = 0).
    pub refused: BTreeMap<String, String>,
    /// With validation rows: each point's validation accuracy (%), which the choice of the
    /// best point reads instead of `acc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<Vec<Option<f64>>>,
}

/// `x` if JSON can hold it.
pub fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Sweep {
    /// The cell's `details`.
    pub fn to_details(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    /// Reads a cell's sweep back; an error names the cell.
    pub fn of(cell: &CellRecord) -> anyhow::Result<Sweep> {
        serde_json::from_value(cell.method_details()).map_err(|e| {
            anyhow::anyhow!(
                "cell {} has no valid grid sweep in `details` ({e}); re-run it",
                cell.key
            )
        })
    }

    /// The scores the choice of a point reads: validation accuracies when there are
    /// validation rows, the test accuracies under the papers' protocol.
    pub fn selection_scores(&self) -> &[Option<f64>] {
        self.valid.as_deref().unwrap_or(&self.acc)
    }

    /// The ε certified for point `i`'s release: its own, 0 for a refused point (θ = 0 is
    /// data-independent), ∞ when it has none.
    pub fn epsilon(&self, i: usize) -> f64 {
        match self.eps.get(i).copied().flatten() {
            Some(e) => e,
            None if self.refused.contains_key(&i.to_string()) => 0.0,
            None => f64::INFINITY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_writes_what_the_untyped_json_did() {
        let s = Sweep {
            n_train: 10,
            points: 3,
            acc: vec![Some(80.5), None, Some(50.0)],
            eps: vec![Some(0.9), None, None],
            noise: vec![Some(2.0), None, None],
            refused: [("2".to_string(), "too small".to_string())].into(),
            valid: None,
        };
        let v = s.to_details();
        let old = serde_json::json!({
            "n_train": 10,
            "points": 3,
            "acc": [80.5, f64::NAN, 50.0],
            "eps": [0.9, null, null],
            "noise": [2.0, null, null],
            "refused": {"2": "too small"},
        });
        assert_eq!(v.to_string(), old.to_string());
        let back: Sweep = serde_json::from_value(v).unwrap();
        assert_eq!(back, s);
        assert_eq!(
            (s.epsilon(0), s.epsilon(1), s.epsilon(2)),
            (0.9, f64::INFINITY, 0.0)
        );
    }
}
