//! `kind = "opdisc"`: Neel et al.'s Algorithm 1 (OPDisc) on the 0/1 loss over the integer grid
//! `W = {w ∈ {−B..B}^d : ‖w‖² ≤ D²}` (τ = 1, so G = 1): draw η ~ N(0, σ²)^{d+1}, release the
//! exact `argmin_W L(D, w) − ⟨η, π(w)⟩` with `π(w) = (w, √(D² − ‖w‖²))/D`.
//!
//! `calibration`: `paper` (Alg. 1's σ), `authors-code` (the released code's σ/2, not private
//! by the paper's own Lemma 3) or `chi` (the χ-bound that closes the proof's gap,
//! `docs/reference/neel2019.md` §1.5). Whatever chose σ, a cell whose solve the solver certified
//! records as accounted the ε the χ-bound certifies for it, so the paper's and the authors'
//! calibrations show their true cost.

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::accounting::neel::{NeelCalibration, opdisc_certified_epsilon, opdisc_sigma};
use dp_core::learn::GlmData;
use dp_mip::{OracleOptions, Status};
use serde::{Deserialize, Serialize};

use super::oracle::{
    GridDetails, Guarantee, OnUncertified, OracleKeys, gaussian_noise, release, released_w,
    rows_of, training_rows,
};
use crate::experiment::grid::Cell;
use crate::methods::audited::{Audited, Release};
use crate::methods::{CellOutcome, Context, Method, MethodEntry, Protocol, parse_table};

/// The table entry.
pub const OPDISC: MethodEntry = MethodEntry {
    kind: "opdisc",
    summary: "Neel et al. 2019 OPDisc: objective perturbation on the 0/1 loss over an integer grid, exact MIP oracle",
    parse,
};

/// OPDisc's own keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Own {
    /// Coordinate bound B of the grid {−B..B}^d (default ⌊√d⌋, the paper's 4 at d = 23).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bound: Option<i32>,
    /// D² of the ball ‖w‖² ≤ D² (default d).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    radius_sq: Option<i64>,
    /// Noise calibration.
    #[serde(default)]
    calibration: NeelCalibration,
}

/// OPDisc's keys.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OpdiscConfig {
    #[serde(flatten)]
    own: Own,
    #[serde(flatten)]
    oracle: OracleKeys,
}

fn parse(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let oracle = OracleKeys::take(&mut table)?;
    let own: Own = parse_table(table)?;
    if let Some(b) = own.bound.filter(|&b| !(1..=64).contains(&b)) {
        return Err(format!("bound` = {b} must be in 1..=64"));
    }
    if let Some(r) = own.radius_sq.filter(|&r| r < 1) {
        return Err(format!("radius_sq` = {r} must be >= 1"));
    }
    Ok(Box::new(OpdiscConfig { own, oracle }))
}

impl OpdiscConfig {
    /// (B, D²) for dimension d.
    /// The Gaussian perturbation's σ on the integer grid of dimension `d` at (ε, δ); τ = 1
    /// (integer grid) and the 0/1 loss: G = 1/τ = 1.
    fn sigma(&self, d: usize, epsilon: f64, delta: f64) -> anyhow::Result<f64> {
        let (_, radius_sq) = self.grid(d);
        Ok(opdisc_sigma(
            self.own.calibration,
            1.0,
            radius_sq as f64,
            1.0,
            d,
            epsilon,
            delta,
        )?)
    }

    fn grid(&self, d: usize) -> (i32, i64) {
        let radius_sq = self.own.radius_sq.unwrap_or(d as i64);
        let bound = self
            .own
            .bound
            .unwrap_or(((d as f64).sqrt().floor() as i32).max(1));
        (bound, radius_sq)
    }
}

impl Method for OpdiscConfig {
    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some(match self.own.calibration {
                NeelCalibration::Paper => "paper",
                NeelCalibration::AuthorsCode => "authors-code",
                NeelCalibration::Chi => "chi",
            }),
            tuning: None,
            // Neel et al.'s neighbours replace one record.
            relation: Some(dp_core::accounting::Neighbours::ReplaceOne),
        }
    }

    fn kind(&self) -> &'static str {
        OPDISC.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    /// A MIP solve may use its whole node budget.
    fn cost(&self) -> f64 {
        self.oracle.cost()
    }

    /// σ at ε depends only on the grid (d) and δ: a target no σ reaches fails here.
    fn check_target(&self, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<()> {
        self.sigma(training_rows(ctx).d, epsilon, ctx.cfg.delta)
            .map(drop)
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let rows = training_rows(ctx);
        let d = rows.d;
        let (bound, radius_sq) = self.grid(d);
        let delta = ctx.cfg.delta;
        let d_sq = radius_sq as f64;
        let sigma = self.sigma(d, cell.epsilon, delta)?;
        let eta = gaussian_noise(sigma, d + 1, cell.seed)?;
        let answer = dp_mip::opdisc(&rows, bound, radius_sq, &eta, &self.oracle.options());
        let certified_eps = opdisc_certified_epsilon(sigma, 1.0, d_sq, 1.0, d, delta);
        let details = OpdiscDetails {
            noise: sigma,
            calibration: self.own.calibration,
            grid: GridDetails { bound, radius_sq },
            epsilon_chi: certified_eps,
        };
        // The χ-bound's ε at this σ and the cell's δ; ∞ (no bound found) is no guarantee.
        let event = if certified_eps.is_finite() {
            Event::epsilon_delta(certified_eps, delta)?
        } else {
            Event::NonPrivate
        };
        let guarantee = Guarantee::Accounted(event);
        release(ctx, &self.oracle, &answer, &rows, guarantee, &details)
    }

    /// One solve on the exact MIP oracle, as a cell runs it; replace-one, Neel et al.'s
    /// relation. Its event is the χ-bound's (ε, δ) at the σ the calibration chose (∞: no
    /// guarantee), whatever the calibration claimed.
    fn mechanism<'c>(&'c self, ctx: &Context<'c>, epsilon: f64) -> anyhow::Result<Audited<'c>> {
        let d = ctx.train.x().ncols();
        let (bound, radius_sq) = self.grid(d);
        let delta = ctx.cfg.delta;
        let sigma = self.sigma(d, epsilon, delta)?;
        let chi = opdisc_certified_epsilon(sigma, 1.0, radius_sq as f64, 1.0, d, delta);
        let event = if chi.is_finite() {
            Event::epsilon_delta(chi, delta)?
        } else {
            Event::NonPrivate
        };
        Ok(Audited {
            release: Box::new(Solve {
                bound,
                radius_sq,
                sigma,
                options: self.oracle.options(),
                on_uncertified: self.oracle.on_uncertified,
                event: event.clone(),
            }),
            event,
            clip: None,
            neighbours: Neighbours::ReplaceOne,
            certificate: Neighbours::ReplaceOne,
            label: format!("sigma={sigma};B={bound};D2={radius_sq}"),
            white_box: None,
        })
    }
}

/// One OPDisc release for `dp-bench audit`: η from the run's seed, the exact argmin.
struct Solve {
    bound: i32,
    radius_sq: i64,
    sigma: f64,
    options: OracleOptions,
    on_uncertified: OnUncertified,
    event: Event,
}

impl Release for Solve {
    /// A solve the node budget does not certify releases what a cell releases (w = 0, or the
    /// incumbent with `on_uncertified = "incumbent"`) and, as a cell, no guarantee: whether a
    /// solve certifies depends on the data, so the audit's certified ε becomes ∞. One cut
    /// short by the wall-clock cap is an error that stops the audit, its outcome being the
    /// machine's.
    fn release(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, Event)> {
        use dp_core::DpError;
        let rows = rows_of(data.x(), data.y());
        let eta = gaussian_noise(self.sigma, rows.d + 1, seed)
            .map_err(|e| DpError::Invalid(format!("{e:#}")))?;
        let answer = dp_mip::opdisc(&rows, self.bound, self.radius_sq, &eta, &self.options);
        if let Status::WallCapReached { reason } = &answer.status {
            return Err(DpError::Irreproducible(format!(
                "an OPDisc solve reached its wall-clock cap ({reason}); raise wall_cap or \
                 lower node_limit"
            )));
        }
        let w =
            released_w(&answer, rows.d, self.on_uncertified).unwrap_or_else(|| vec![0.0; rows.d]);
        let event = if answer.certified() {
            self.event.clone()
        } else {
            Event::NonPrivate
        };
        Ok((w, event))
    }
}

/// What an OPDisc cell records (beside the oracle's details).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OpdiscDetails {
    /// Noise σ.
    pub noise: f64,
    /// Its calibration.
    pub calibration: NeelCalibration,
    /// The grid.
    #[serde(flatten)]
    pub grid: GridDetails,
    /// The χ-bound's ε at σ and the cell's δ.
    pub epsilon_chi: f64,
}
