//! `dp-bench privacy alg1`.

use clap::Args;
use dp_core::accounting::{RdpAccountant, Target, epsilon_of};
use dp_core::error::{check_delta, check_positive};
use dp_core::learn::{Alg1Spec, GlmLoss, Mechanism};

use super::output::{Answer, calibration_error, conflict, flag_error, show};

/// With --sigma and --lambda: the answer is ε. With --epsilon instead: the calibrated σ and λ.
#[derive(Args)]
pub struct Alg1Args {
    /// Objective-perturbation noise σ.
    #[arg(allow_negative_numbers = true, long)]
    sigma: Option<f64>,
    /// Regularisation λ (> β).
    #[arg(allow_negative_numbers = true, long)]
    lambda: Option<f64>,
    /// Target ε (calibration mode).
    #[arg(allow_negative_numbers = true, long)]
    epsilon: Option<f64>,
    /// Target δ.
    #[arg(allow_negative_numbers = true, long)]
    delta: f64,
    /// Output-perturbation noise σ_out.
    #[arg(allow_negative_numbers = true, long = "sigma-out")]
    sigma_out: f64,
    /// Gradient-norm threshold τ.
    #[arg(allow_negative_numbers = true, long)]
    tau: f64,
    /// Per-example Hessian bound β.
    #[arg(allow_negative_numbers = true, long)]
    beta: f64,
    /// Per-example gradient clipping norm C.
    #[arg(allow_negative_numbers = true, long)]
    clip: f64,
    /// Calibration: σ = factor · σ_G(ε, δ; Δ = C).
    #[arg(
        allow_negative_numbers = true,
        long = "noise-factor",
        default_value_t = 1.3
    )]
    noise_factor: f64,
}

/// Computes ε (Thm 4.1) or calibrates (σ, λ), through the mechanism's own event.
pub fn run(a: Alg1Args) -> anyhow::Result<Answer> {
    check_delta(a.delta).map_err(flag_error)?;
    let spec = Alg1Spec {
        loss: GlmLoss::Logistic, // the privacy depends on the loss only through β
        clip: a.clip,
        tau: a.tau,
        sigma_out: a.sigma_out,
        beta: a.beta,
    };
    check_positive("sigma-out", a.sigma_out).map_err(flag_error)?;
    match (a.sigma, a.lambda, a.epsilon) {
        (Some(sigma), Some(lambda), None) => {
            check_positive("sigma", sigma).map_err(flag_error)?;
            let m = spec.with_noise(sigma, lambda).map_err(flag_error)?;
            let eps = epsilon_of(RdpAccountant::new(), &m.event(), a.delta).map_err(flag_error)?;
            Ok(Answer::one(
                "epsilon",
                eps,
                "Algorithm 1, RDP (Thm 4.1) with the improved conversion",
            ))
        }
        (None, None, Some(eps)) => {
            let target = Target::new(eps, a.delta).map_err(flag_error)?;
            let m = spec
                .calibrate(a.noise_factor, target, &RdpAccountant::new())
                .map_err(|e| {
                    let given = format!("--epsilon {} (at --delta {})", show(eps), show(a.delta));
                    calibration_error(e, &given)
                })?;
            Ok(Answer {
                values: vec![("sigma", m.sigma()), ("lambda", m.lambda())],
                context: format!(
                    "σ = {} · σ_G, smallest λ > β meeting ({}, {})",
                    show(a.noise_factor),
                    show(eps),
                    show(a.delta)
                ),
            })
        }
        _ => Err(conflict(
            "give --sigma and --lambda (answer: epsilon), or --epsilon instead of both (answer: sigma, lambda)",
        )),
    }
}
