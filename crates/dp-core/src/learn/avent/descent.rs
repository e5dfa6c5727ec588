//! The step loop shared by DPareto's trainers: lot, clipped sum, noisy mean, update, and the
//! authors' stop on the first non-finite value.

use rand::rngs::StdRng;

use super::hyper::Hyper;
use super::lots::LotSampler;
use super::noise::add_mean_noise;
use crate::learn::optimizer::{Optimizer, OptimizerState};

/// The offset in the authors' clipping factor `min(1, L/(‖g‖ + 1e-8))`
/// (`dp_optimizer.py:110-114`).
pub(crate) const CLIP_OFFSET: f64 = 1e-8;

/// The factor that clips a per-example gradient of norm `norm` to `clip`.
#[inline]
pub(crate) fn clip_factor(norm: f64, clip: f64) -> f64 {
    (clip / (norm + CLIP_OFFSET)).min(1.0)
}

/// Runs the `hyper.steps(n)` steps of DP-SGD / DP-Adam on `theta` and returns how many were
/// taken. Each step draws a lot of `hyper.lot` distinct indices of `0..n`, then
/// `clipped_sum(theta, lot, grad)` overwrites `grad` with the sum of the lot's clipped
/// per-example gradients and returns whether every loss (or score) was finite; then come the
/// noise and the update. The loop stops before updating on a non-finite loss and after
/// updating on a non-finite parameter, as `dp_feedforward_net.py:108-119` does; the caller still
/// charges every step.
pub(crate) fn descend(
    n: usize,
    opt: Optimizer,
    hyper: &Hyper,
    theta: &mut [f64],
    rng: &mut StdRng,
    mut clipped_sum: impl FnMut(&[f64], &[u32], &mut [f64]) -> bool,
) -> u64 {
    let steps = hyper.steps(n);
    let mut state = OptimizerState::new(opt, theta.len());
    let mut grad = vec![0.0; theta.len()];
    let mut steps_run = 0;
    let mut lots = LotSampler::new(n, hyper.lot);
    while steps_run < steps {
        let lot = lots.draw(rng);
        if !clipped_sum(theta, lot, &mut grad) {
            break;
        }
        add_mean_noise(
            &mut grad,
            hyper.lot,
            hyper.noise_multiplier,
            hyper.clip,
            rng,
        );
        state.step(theta, &grad);
        steps_run += 1;
        if !theta.iter().all(|t| t.is_finite()) {
            break;
        }
    }
    steps_run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_factor_is_the_authors_rule() {
        assert_eq!(clip_factor(0.5, 1.0), 1.0);
        assert_eq!(clip_factor(4.0, 2.0), 2.0 / (4.0 + 1e-8));
        // A zero gradient is not clipped, an infinite one is zeroed.
        assert_eq!(clip_factor(0.0, 1.0), 1.0);
        assert_eq!(clip_factor(f64::INFINITY, 1.0), 0.0);
    }
}
