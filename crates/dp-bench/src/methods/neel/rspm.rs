//! `kind = "rspm"`: report-separator-perturbed-min (Neel et al.'s Alg. 3, from Neel, Roth &
//! Wu 2018) over `{−1, 0, 1}^d` with the m = 2d coordinate separators
//! `e_{j+}(w) = 1[w_j = 1]`, `e_{j−}(w) = 1[w_j = −1]`, each weighted by its own N(0, σ²) draw,
//! σ = 7√(m ln(1/δ))/ε, and the exact MIP oracle.
//!
//! NRW18's theorem is not in this repository's sources, so unlike OPDisc's there is no
//! accountant for its σ (`docs/reference/neel2019.md` §1.5: if its shift is 4 per coordinate,
//! the χ-robust σ would be ≈ 1.45× larger). A cell whose solve the solver certified records the
//! target as `epsilon_stated` (as stated by NRW18, not accounted) and `epsilon_accounted` = ∞.

use dp_core::accounting::neel::rspm_sigma;
use serde::{Deserialize, Serialize};

use super::oracle::{Guarantee, KEYS, OracleKeys, gaussian_noise, release, training_rows};
use crate::experiment::grid::Cell;
use crate::methods::{CellOutcome, Context, Method, MethodEntry, Protocol};

/// The table entry.
pub const RSPM: MethodEntry = MethodEntry {
    kind: "rspm",
    summary: "Neel et al. 2019 RSPM: 0/1 loss over {-1,0,1}^d plus 2d Gaussian-weighted separators, exact MIP oracle",
    parse,
};

/// RSPM's keys (the oracle's only).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct RspmConfig {
    #[serde(flatten)]
    oracle: OracleKeys,
}

fn parse(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let oracle = OracleKeys::take(&mut table)?;
    if let Some(k) = table.keys().next() {
        return Err(format!(
            "{k}` is not a key of rspm (known: {})",
            KEYS.join(", ")
        ));
    }
    Ok(Box::new(RspmConfig { oracle }))
}

impl Method for RspmConfig {
    /// NRW18's σ, as stated.
    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some("paper"),
            tuning: None,
            // Neel et al.'s neighbours replace one record.
            relation: Some(dp_core::accounting::Neighbours::ReplaceOne),
        }
    }

    fn kind(&self) -> &'static str {
        RSPM.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    /// A MIP solve may use its whole node budget.
    fn cost(&self) -> f64 {
        self.oracle.cost()
    }

    /// σ at ε depends only on the number of separators (2d) and δ.
    fn check_target(&self, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<()> {
        rspm_sigma(2 * training_rows(ctx).d, epsilon, ctx.cfg.delta)?;
        Ok(())
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let rows = training_rows(ctx);
        let m = 2 * rows.d;
        let sigma = rspm_sigma(m, cell.epsilon, ctx.cfg.delta)?;
        let eta = gaussian_noise(sigma, m, cell.seed)?;
        let answer = dp_mip::rspm(&rows, &eta, &self.oracle.options());
        let details = RspmDetails {
            noise: sigma,
            separators: m,
            calibration: "paper",
        };
        let guarantee = Guarantee::Stated(cell.epsilon);
        release(ctx, &self.oracle, &answer, &rows, guarantee, &details)
    }
}

/// What an RSPM cell records (beside the oracle's details).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RspmDetails {
    /// Noise σ (NRW18's calibration).
    pub noise: f64,
    /// Separators m = 2d.
    pub separators: usize,
    /// Always `paper`.
    pub calibration: &'static str,
}
