//! DP-SGD cells with dishonest or honest (Papernot–Steinke) learning-rate tuning.

use dp_core::accounting::default_orders;
use dp_core::accounting::private_selection::{
    Selection, calibrate_noise_multiplier_tuned, poisson_mean_for_tail,
};
use dp_core::accounting::subsampled_gaussian::{calibrate_noise_multiplier, dpsgd_curve};
use dp_core::learn::{DpSgdParams, Optimizer, dpsgd};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, Poisson};

use super::{Context, base_row, test_accuracy};
use crate::experiment::config::{DpsgdConfig, OptimizerKind, Tuning};
use crate::experiment::grid::{Cell, derive_seed};
use crate::experiment::store::CellResult;

/// `count` learning rates log-spaced over [lo, hi] (one point: lo).
pub fn log_grid(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    match count {
        0 => Vec::new(),
        1 => vec![lo],
        _ => (0..count)
            .map(|i| {
                let t = i as f64 / (count - 1) as f64;
                (lo.ln() + t * (hi.ln() - lo.ln())).exp()
            })
            .collect(),
    }
}

/// One cell: calibrate z, train once per candidate learning rate, keep every score.
pub fn run(ctx: &Context<'_>, s: &DpsgdConfig, cell: &Cell) -> anyhow::Result<CellResult> {
    let n = ctx.train.n();
    let batch = s.batch_size as usize;
    let q = (batch as f64 / n as f64).min(1.0);
    let steps = s.epochs as usize * n.div_ceil(batch);
    let (eps, delta) = (cell.epsilon, ctx.cfg.delta);
    let orders = default_orders();
    let mut rng = StdRng::seed_from_u64(cell.seed);

    let (z, lrs, eps_accounted) = match s.tuning {
        Tuning::Dishonest => {
            let z = calibrate_noise_multiplier(q, steps as u64, eps, delta, &orders)?;
            let e = dpsgd_curve(q, z, steps as u64, &orders)?.epsilon(delta)?.0;
            (z, log_grid(s.lr_min, s.lr_max, s.grid_size as usize), e)
        }
        Tuning::Honest => {
            let mu = poisson_mean_for_tail(u64::from(s.grid_size), s.tail_prob)?;
            let sel = Selection::poisson(mu)?;
            let z = calibrate_noise_multiplier_tuned(q, steps as u64, eps, delta, &sel, &orders)?;
            let e = sel
                .apply(&dpsgd_curve(q, z, steps as u64, &orders)?)?
                .epsilon(delta)?
                .0;
            // K is part of the mechanism's randomness: drawn from the cell's own stream.
            let k = Poisson::new(mu)?.sample(&mut rng) as usize;
            (z, log_grid(s.lr_min, s.lr_max, k), e)
        }
    };

    let mut scores = Vec::with_capacity(lrs.len());
    for (i, &lr) in lrs.iter().enumerate() {
        let optimizer = match s.optimizer {
            OptimizerKind::Adam => Optimizer::adam(lr),
            OptimizerKind::Sgd => Optimizer::sgd(lr),
        };
        let params = DpSgdParams {
            loss: s.loss.glm(),
            clip: s.clip,
            noise_multiplier: z,
            sampling_rate: q,
            steps,
            optimizer,
            l2: 0.0,
        };
        // Each candidate gets its own stream, so a run does not depend on how many ran before.
        let mut run_rng = StdRng::seed_from_u64(derive_seed(&[
            &cell.seed.to_le_bytes(),
            &(i as u64).to_le_bytes(),
            &lr.to_bits().to_le_bytes(),
        ]));
        let out = dpsgd(&ctx.train, &params, &mut run_rng)?;
        scores.push((lr, test_accuracy(ctx, &out.theta)));
    }

    let mut row = base_row(ctx, cell);
    row.noise = z;
    row.runs = lrs.len() as u32;
    row.iterations = steps as u64;
    row.epsilon_accounted = eps_accounted;
    row.lr_accuracies = serde_json::to_string(&scores)?;
    match scores.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        Some(&(lr, acc)) => {
            row.best_lr = lr;
            row.accuracy = acc;
        }
        // K = 0: private selection releases nothing; the model stays at θ₀ = 0.
        None => row.accuracy = test_accuracy(ctx, &vec![0.0; ctx.train.d()]),
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_grid_spans_the_range() {
        let g = log_grid(1e-8, 1e-1, 10);
        assert_eq!(g.len(), 10);
        assert!((g[0] - 1e-8).abs() < 1e-20 && (g[9] - 1e-1).abs() < 1e-14);
        assert!((g[1] / g[0] - g[9] / g[8]).abs() < 1e-9, "constant ratio");
        assert!(log_grid(1e-8, 1e-1, 0).is_empty());
    }
}
