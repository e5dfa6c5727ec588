//! What the MIP methods share: the oracle keys of a config (the solver's node budget, its
//! wall-clock safety net, what to release when a solve is not certified), the training rows
//! aggregated for the MIP, and how an oracle answer becomes a cell's release.

use dp_core::accounting::event::Event;
use dp_mip::{Answer, OracleOptions, Rows, Status};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

use crate::methods::{CellOutcome, Context, test_accuracy};

/// What a cell releases when the oracle does not certify its answer within the node budget.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum OnUncertified {
    /// Nothing: the cell is scored as w = 0 (every record predicted −1: 50% on balanced data).
    #[default]
    Refuse,
    /// The incumbent, flagged as carrying no privacy guarantee (ε = ∞).
    Incumbent,
}

/// Oracle keys every MIP method takes.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OracleKeys {
    /// Branch-and-bound nodes one solve may use: the deterministic budget that decides which
    /// solves certify, the same on every machine.
    #[serde(default = "default_node_limit")]
    pub node_limit: u64,
    /// Wall-clock safety net of one solve, seconds: reaching it fails the cell (its outcome
    /// would depend on the machine), it never refuses a release.
    #[serde(default = "default_wall_cap")]
    pub wall_cap: f64,
    /// What an uncertified solve releases (`on_timeout` in configs written before the node
    /// budget).
    #[serde(default, alias = "on_timeout")]
    pub on_uncertified: OnUncertified,
    /// A positive record needs ⟨w, x⟩ ≥ margin (MIPs cannot state > 0; the loss stays 0/1).
    #[serde(default = "default_margin")]
    pub margin: f64,
}

/// The node budget of a config that names none: the n = 1,000 config's, which certifies at
/// least as many solves as its earlier 10 s wall-clock limit did on an idle machine.
pub const DEFAULT_NODE_LIMIT: u64 = 5000;

/// Nodes per pass over the data in [`crate::methods::Method::cost`]'s units: at n = 1,000 a
/// thousand nodes take about 6 s of one core, and a second is about 50 passes elsewhere.
const NODES_PER_PASS: f64 = 3.0;

fn default_node_limit() -> u64 {
    DEFAULT_NODE_LIMIT
}
fn default_wall_cap() -> f64 {
    3600.0
}
fn default_margin() -> f64 {
    1e-3
}

/// The keys [`OracleKeys`] owns, moved out of a method table before the method's own parse.
pub const KEYS: &[&str] = &[
    "node_limit",
    "wall_cap",
    "on_uncertified",
    "on_timeout",
    "margin",
];

impl OracleKeys {
    /// Moves the oracle keys out of `table` and checks them.
    pub fn take(table: &mut toml::Table) -> Result<OracleKeys, String> {
        if table.contains_key("time_limit") {
            // A limit in seconds made which solves certify depend on the machine's load.
            return Err(
                "time_limit` is gone: the budget is `node_limit` (branch-and-bound \
                        nodes, the same on every machine), with `wall_cap` seconds as a \
                        safety net that fails the cell"
                    .into(),
            );
        }
        let mut mine = toml::Table::new();
        for k in KEYS {
            if let Some(v) = table.remove(*k) {
                mine.insert((*k).to_string(), v);
            }
        }
        let k: OracleKeys = crate::methods::parse_table(mine)?;
        if !(1..=i32::MAX as u64).contains(&k.node_limit) {
            return Err(format!(
                "node_limit` = {} must be in 1..={} (HiGHS's mip_max_nodes)",
                k.node_limit,
                i32::MAX
            ));
        }
        if !(k.wall_cap > 0.0 && k.wall_cap.is_finite()) {
            return Err(format!(
                "wall_cap` = {} must be > 0 seconds",
                crate::quoting::number(k.wall_cap)
            ));
        }
        if !(k.margin > 0.0 && k.margin < 1.0) {
            return Err(format!(
                "margin` = {} must be in (0, 1)",
                crate::quoting::number(k.margin)
            ));
        }
        Ok(k)
    }

    /// HiGHS settings: one thread, a fixed seed, this budget and safety net.
    pub fn options(&self) -> OracleOptions {
        OracleOptions {
            node_limit: self.node_limit,
            wall_cap: self.wall_cap,
            seed: 0,
            margin: self.margin,
        }
    }

    /// A solve's worst case in passes over the data, from the budget alone (shards balance
    /// on it, so it must not depend on timings).
    pub fn cost(&self) -> f64 {
        self.node_limit as f64 / NODES_PER_PASS
    }
}

/// The training rows, identical feature vectors merged (exact: same objective in w).
pub fn training_rows(ctx: &Context<'_>) -> Rows {
    rows_of(ctx.train.x(), ctx.train.y())
}

/// `x` and its labels as the MIP's rows, identical feature vectors merged.
pub fn rows_of(x: &dp_core::features::FeatureMatrix, y: &[f64]) -> Rows {
    let (n, d) = (x.nrows(), x.ncols());
    let mut dense = vec![0.0; n * d];
    for (i, row) in dense.chunks_exact_mut(d).enumerate() {
        x.row(i).axpy(1.0, row);
    }
    Rows::aggregate(&dense, d, y)
}

/// `k` independent N(0, σ²) draws from the cell's seed.
pub fn gaussian_noise(sigma: f64, k: usize, seed: u64) -> anyhow::Result<Vec<f64>> {
    let normal = Normal::new(0.0, sigma)?;
    let mut rng = StdRng::seed_from_u64(seed);
    Ok((0..k).map(|_| normal.sample(&mut rng)).collect())
}

/// The privacy guarantee of a release whose argmin the solver proved exact (an answer it did
/// not prove carries none: the guarantees need the exact argmin).
#[derive(Clone, Debug, PartialEq)]
pub enum Guarantee {
    /// The event of what ran (OPDisc: the χ-bound's (ε, δ) at the σ drawn and the cell's δ),
    /// which the runner certifies ([`Context::certify`]) into the cell's `epsilon_accounted`.
    Accounted(Event),
    /// ε a paper states for its calibration and no accountant here checks (RSPM: NRW18's σ).
    /// It goes to the `epsilon_stated` detail and `epsilon_accounted` is ∞, rather than into
    /// `epsilon_accounted` under a caveat: that column is every paper's `epsilon_certified` in
    /// summaries, figures and reports, which must never show an ε nothing here accounted.
    Stated(f64),
    /// No guarantee (a non-private reference line).
    None,
}

/// The w a solve releases: its argmin when the solver proved it optimal, its incumbent when
/// it did not and `on_uncertified` asks for it; `None` otherwise (a release of 0), and always
/// when the solve found no w of `d` entries. Cells and audits release the same.
pub fn released_w(answer: &Answer, d: usize, on_uncertified: OnUncertified) -> Option<Vec<f64>> {
    let found = answer.w.len() == d;
    (found && (answer.certified() || on_uncertified == OnUncertified::Incumbent))
        .then(|| answer.w.iter().map(|&v| f64::from(v)).collect())
}

/// The cell's release from an oracle answer: the argmin when the solver proves it optimal
/// (`solver_certified`), with `guarantee`; otherwise nothing or the incumbent, with ε = ∞
/// either way (the guarantee needs the exact argmin, and whether a solve certifies depends on
/// the data). An answer cut short by the wall-clock cap is an error: its outcome would depend
/// on the machine.
pub fn release(
    ctx: &Context<'_>,
    keys: &OracleKeys,
    answer: &Answer,
    rows: &Rows,
    guarantee: Guarantee,
    details: &impl Serialize,
) -> anyhow::Result<CellOutcome> {
    if let Status::WallCapReached { reason } = &answer.status {
        anyhow::bail!(
            "not reproducible: wall-clock cap reached (wall_cap = {} s; {reason}, {} nodes of \
             node_limit = {}); raise wall_cap or lower node_limit",
            keys.wall_cap,
            answer.nodes,
            keys.node_limit
        );
    }
    let solver_certified = answer.certified();
    let released = released_w(answer, rows.d, keys.on_uncertified);
    let w = released.clone().unwrap_or_else(|| vec![0.0; rows.d]);
    let released = released.is_some();
    let (reason, gap) = match &answer.status {
        Status::Uncertified { reason, gap } => (Some(reason.clone()), *gap),
        _ => (None, 0.0),
    };
    let incumbent: Vec<f64> = if answer.w.len() == rows.d {
        answer.w.iter().map(|&v| f64::from(v)).collect()
    } else {
        vec![0.0; rows.d]
    };
    // Only deterministic values: these land in cells.csv, which must be the same bytes on
    // every machine (the solve's wall time is the cell's, in timings.csv).
    let details = OracleDetails {
        own: details,
        incumbent_accuracy: test_accuracy(ctx, &incumbent),
        solver_certified,
        released,
        status: reason.unwrap_or_else(|| "optimal".into()),
        gap,
        nodes: answer.nodes,
        lp_iterations: answer.lp_iterations,
        objective: answer.objective,
        unique_rows: rows.len(),
        w: &answer.w,
        norm_sq: answer.w.iter().map(|&v| i64::from(v * v)).sum(),
        epsilon_stated: match (solver_certified, &guarantee) {
            (true, Guarantee::Stated(eps)) => Some(*eps),
            _ => None,
        },
    };
    // One place certifies every cell: the event of what was released, NonPrivate when the
    // solver did not prove the argmin the guarantee needs.
    let event = match guarantee {
        Guarantee::Accounted(event) if solver_certified => event,
        _ => Event::NonPrivate,
    };
    Ok(CellOutcome::new(test_accuracy(ctx, &w), event, &details))
}

/// What every oracle cell records beside its method's own `D`.
#[derive(Serialize)]
struct OracleDetails<'a, D: Serialize> {
    #[serde(flatten)]
    own: &'a D,
    /// What releasing the incumbent regardless would have scored (no guarantee).
    incumbent_accuracy: f64,
    /// The solver proved optimality: a precondition of any guarantee, not one itself.
    solver_certified: bool,
    released: bool,
    status: String,
    gap: f64,
    nodes: i64,
    lp_iterations: i64,
    objective: f64,
    unique_rows: usize,
    w: &'a [i32],
    norm_sq: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    epsilon_stated: Option<f64>,
}

/// The integer grid of a discrete-oracle cell.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GridDetails {
    /// Coordinate bound B.
    pub bound: i32,
    /// Squared ℓ2 radius of the grid.
    pub radius_sq: i64,
}
