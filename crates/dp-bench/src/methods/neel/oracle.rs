//! What the MIP methods share: the oracle keys of a config (time limit, what to release on a
//! timeout), the training rows aggregated for the MIP, and how an oracle answer becomes a
//! cell's release.

use dp_mip::{Answer, OracleOptions, Rows, Status};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::methods::{CellOutcome, Context, test_accuracy};

/// What a cell releases when the oracle does not certify its answer.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum OnTimeout {
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
    /// Wall-clock limit of one solve, seconds.
    #[serde(default = "default_time_limit")]
    pub time_limit: f64,
    /// What an uncertified solve releases.
    #[serde(default)]
    pub on_timeout: OnTimeout,
    /// A positive record needs ⟨w, x⟩ ≥ margin (MIPs cannot state > 0; the loss stays 0/1).
    #[serde(default = "default_margin")]
    pub margin: f64,
}

fn default_time_limit() -> f64 {
    60.0
}
fn default_margin() -> f64 {
    1e-3
}

/// The keys [`OracleKeys`] owns, moved out of a method table before the method's own parse.
const KEYS: &[&str] = &["time_limit", "on_timeout", "margin"];

impl OracleKeys {
    /// Moves the oracle keys out of `table` and checks them.
    pub fn take(table: &mut toml::Table) -> Result<OracleKeys, String> {
        let mut mine = toml::Table::new();
        for k in KEYS {
            if let Some(v) = table.remove(*k) {
                mine.insert((*k).to_string(), v);
            }
        }
        let k: OracleKeys = crate::methods::parse_table(mine)?;
        if !(k.time_limit > 0.0 && k.time_limit.is_finite()) {
            return Err(format!(
                "time_limit` = {} must be > 0 seconds",
                k.time_limit
            ));
        }
        if !(k.margin > 0.0 && k.margin < 1.0) {
            return Err(format!("margin` = {} must be in (0, 1)", k.margin));
        }
        Ok(k)
    }

    /// HiGHS settings: one thread, a fixed seed, this limit.
    pub fn options(&self) -> OracleOptions {
        OracleOptions {
            time_limit: self.time_limit,
            seed: 0,
            margin: self.margin,
        }
    }
}

/// The training rows, identical feature vectors merged (exact: same objective in w).
pub fn training_rows(ctx: &Context<'_>) -> Rows {
    let x = ctx.train.x();
    let (n, d) = (x.nrows(), x.ncols());
    let mut dense = vec![0.0; n * d];
    for (i, row) in dense.chunks_exact_mut(d).enumerate() {
        x.row(i).axpy(1.0, row);
    }
    Rows::aggregate(&dense, d, ctx.train.y())
}

/// `k` independent N(0, σ²) draws from the cell's seed.
pub fn gaussian_noise(sigma: f64, k: usize, seed: u64) -> anyhow::Result<Vec<f64>> {
    let normal = Normal::new(0.0, sigma)?;
    let mut rng = StdRng::seed_from_u64(seed);
    Ok((0..k).map(|_| normal.sample(&mut rng)).collect())
}

/// The cell's release from an oracle answer: the argmin when certified (ε = `epsilon`);
/// otherwise nothing or the incumbent, with ε = ∞ either way (the guarantee needs the exact
/// argmin, and whether a solve finishes depends on the data).
pub fn release(
    ctx: &Context<'_>,
    keys: &OracleKeys,
    answer: &Answer,
    rows: &Rows,
    epsilon: f64,
    mut details: serde_json::Value,
) -> CellOutcome {
    let certified = answer.certified();
    let released = certified || keys.on_timeout == OnTimeout::Incumbent;
    let w: Vec<f64> = if released {
        answer.w.iter().map(|&v| f64::from(v)).collect()
    } else {
        vec![0.0; rows.d]
    };
    let (reason, gap) = match &answer.status {
        Status::Certified => (None, 0.0),
        Status::Uncertified { reason, gap } => (Some(reason.clone()), *gap),
    };
    let incumbent: Vec<f64> = answer.w.iter().map(|&v| f64::from(v)).collect();
    if let Some(obj) = details.as_object_mut() {
        obj.extend([
            // What releasing the incumbent regardless would have scored (no guarantee).
            (
                "incumbent_accuracy".into(),
                json!(test_accuracy(ctx, &incumbent)),
            ),
            ("certified".into(), json!(certified)),
            ("released".into(), json!(released)),
            (
                "status".into(),
                json!(reason.unwrap_or_else(|| "optimal".into())),
            ),
            ("gap".into(), json!(gap)),
            ("solve_seconds".into(), json!(answer.seconds)),
            ("objective".into(), json!(answer.objective)),
            ("unique_rows".into(), json!(rows.len())),
            ("w".into(), json!(answer.w)),
            (
                "norm_sq".into(),
                json!(answer.w.iter().map(|&v| i64::from(v * v)).sum::<i64>()),
            ),
        ]);
    }
    CellOutcome {
        accuracy: test_accuracy(ctx, &w),
        epsilon_accounted: if certified { epsilon } else { f64::INFINITY },
        details,
    }
}
