//! Which noise formulas a mechanism of Iyengar et al. uses.

use serde::{Deserialize, Serialize};

/// How an Iyengar et al. mechanism sets its noise.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Calibration {
    /// The authors' code's formulas and quirks, exactly (reproduces the published numbers; not
    /// always private at the stated ε: the certified ε of what ran is reported beside it).
    #[default]
    Paper,
    /// Each privacy bug fixed and the noise calibrated by this project's accountant, so the
    /// certified ε never exceeds the target.
    Certified,
}
