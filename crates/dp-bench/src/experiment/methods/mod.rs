//! The methods a config can run, and what every cell shares: the loaded dataset.

mod alg1;
mod dpsgd;

use std::time::Instant;

use anyhow::Context as _;
use dp_core::learn::{GlmData, GlmLoss};

use super::config::{Config, DatasetConfig, LossKind, MethodConfig};
use super::grid::Cell;
use super::store::CellResult;

/// The dataset of a config, loaded and split once for all cells.
pub struct Prepared {
    cfg: Config,
    split: dp_data::Split,
}

/// What a cell reads: the config, the training data prepared for the learners, the test set.
pub struct Context<'a> {
    /// The experiment config.
    pub cfg: &'a Config,
    /// Training rows with cached norms.
    pub train: GlmData<'a>,
    /// Held-out rows.
    pub test: &'a dp_data::Dataset,
}

impl Prepared {
    /// Loads and splits the config's dataset.
    pub fn new(cfg: &Config) -> anyhow::Result<Prepared> {
        let d = &cfg.dataset;
        let split = dp_data::load(&d.name, &d.preprocess())
            .with_context(|| format!("cannot load dataset {:?}", d.name))?;
        Ok(Prepared {
            cfg: cfg.clone(),
            split,
        })
    }

    /// Borrows the prepared data for the cells.
    pub fn context(&self) -> anyhow::Result<Context<'_>> {
        let train = GlmData::new(&self.split.train.x, &self.split.train.y)
            .context("training data are not a valid binary GLM problem")?;
        Ok(Context {
            cfg: &self.cfg,
            train,
            test: &self.split.test,
        })
    }

    /// Dataset label for figure titles, e.g. `adult (n_train = 36177, d = 105)`.
    pub fn dataset_label(&self) -> String {
        format!(
            "{} (n_train = {}, n_test = {}, d = {})",
            self.cfg.dataset.name,
            self.split.train.len(),
            self.split.test.len(),
            self.split.train.x.ncols()
        )
    }
}

impl LossKind {
    /// The dp-core loss.
    pub fn glm(self) -> GlmLoss {
        match self {
            LossKind::Logistic => GlmLoss::Logistic,
            LossKind::Huber => GlmLoss::huber(),
        }
    }
}

/// Public bound on ‖x‖ implied by the preprocessing (never read off the data: β and the
/// clipping-free Lipschitz bound must not depend on the private rows).
pub fn public_row_norm_bound(d: &DatasetConfig) -> anyhow::Result<f64> {
    let core = match (d.normalize_rows, d.clip_row_norm) {
        (true, Some(c)) => c.min(1.0),
        (true, None) => 1.0,
        (false, Some(c)) => c,
        (false, None) => anyhow::bail!(
            "Algorithm 1 needs a public bound on the row norms: set `dataset.normalize_rows = true` \
             or `dataset.clip_row_norm`"
        ),
    };
    let bias = d.bias.unwrap_or(0.0);
    Ok((core * core + bias * bias).sqrt())
}

/// Test accuracy in percent.
pub fn test_accuracy(ctx: &Context<'_>, theta: &[f64]) -> f64 {
    100.0 * dp_core::learn::accuracy(&ctx.test.x, &ctx.test.y, theta)
}

/// Runs one cell and times it.
pub fn run_cell(ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellResult> {
    let start = Instant::now();
    let method = ctx
        .cfg
        .methods
        .get(&cell.method)
        .expect("cells come from the config");
    let mut row = match method {
        MethodConfig::Alg1(a) => alg1::run(ctx, a, cell)?,
        MethodConfig::Dpsgd(s) => dpsgd::run(ctx, s, cell)?,
    };
    row.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(row)
}

/// A result row with the cell's identity filled in.
pub fn base_row(ctx: &Context<'_>, cell: &Cell) -> CellResult {
    CellResult {
        method: cell.method.clone(),
        epsilon: cell.epsilon,
        delta: ctx.cfg.delta,
        trial: cell.trial,
        seed: cell.seed,
        accuracy: f64::NAN,
        noise: f64::NAN,
        lambda: f64::NAN,
        runs: 0,
        best_lr: f64::NAN,
        lr_accuracies: "[]".into(),
        iterations: 0,
        epsilon_accounted: f64::NAN,
        wall_ms: 0.0,
        key: cell.key(),
    }
}
