//! Algorithm 1 cells: calibrate (σ, λ) for the cell's ε, solve, release, score.

use dp_core::accounting::alg1::Alg1Privacy;
use dp_core::learn::{Alg1Params, alg1};
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::{Context, base_row, public_row_norm_bound, test_accuracy};
use crate::experiment::config::Alg1Config;
use crate::experiment::grid::Cell;
use crate::experiment::store::CellResult;

/// One release of Algorithm 1. The optimiser needs no tuning budget: the guarantee holds for
/// any solver that reaches ‖∇J‖ ≤ τ, so one L-BFGS run stands for the paper's free grid.
pub fn run(ctx: &Context<'_>, a: &Alg1Config, cell: &Cell) -> anyhow::Result<CellResult> {
    let loss = a.loss.glm();
    let bound = public_row_norm_bound(&ctx.cfg.dataset)?;
    let beta = loss.max_second_deriv() * bound * bound;
    let privacy = Alg1Privacy::calibrate(
        cell.epsilon,
        ctx.cfg.delta,
        a.noise_factor,
        beta,
        a.clip,
        a.tau,
        a.sigma_out,
    )?;
    let params = Alg1Params {
        loss,
        sigma: privacy.sigma,
        lambda: privacy.lambda,
        sigma_out: a.sigma_out,
        tau: a.tau,
        clip: a.clip,
    };
    let mut rng = StdRng::seed_from_u64(cell.seed);
    let out = alg1(&ctx.train, &params, &mut rng)?;
    let mut row = base_row(ctx, cell);
    row.accuracy = test_accuracy(ctx, &out.theta);
    row.noise = privacy.sigma;
    row.lambda = privacy.lambda;
    row.runs = 1;
    row.iterations = out.iterations as u64;
    row.epsilon_accounted = privacy.epsilon(ctx.cfg.delta)?;
    Ok(row)
}
