//! `dp-bench privacy gaussian`.

use clap::{Args, ValueEnum};
use dp_core::accounting::calibrate::calibrate_decreasing;
use dp_core::accounting::gaussian;
use dp_core::accounting::pld::{Pld, PldConfig};
use dp_core::accounting::{RdpCurve, default_orders};
use dp_core::error::{check_delta, check_epsilon, check_positive, ensure};

use super::output::{Answer, conflict, flag_error};

/// Which accountant composes k Gaussians.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum GaussianAccountant {
    /// Exact: k Gaussians with noise σ equal one with noise σ/√k (analytic Gaussian).
    Exact,
    /// FFT privacy-loss-distribution accountant.
    Pld,
    /// Rényi DP with the improved conversion.
    Rdp,
}

/// Give two of --sigma, --epsilon, --delta; the third is the answer.
#[derive(Args)]
pub struct GaussianArgs {
    /// Noise standard deviation σ.
    #[arg(allow_negative_numbers = true, long)]
    sigma: Option<f64>,
    /// ℓ2 sensitivity Δ.
    #[arg(allow_negative_numbers = true, long, default_value_t = 1.0)]
    sensitivity: f64,
    /// Target ε.
    #[arg(allow_negative_numbers = true, long)]
    epsilon: Option<f64>,
    /// Target δ, in (0, 1).
    #[arg(allow_negative_numbers = true, long)]
    delta: Option<f64>,
    /// Number of composed releases k.
    #[arg(allow_negative_numbers = true, long, default_value_t = 1)]
    compositions: u64,
    /// Accountant for the composition.
    #[arg(allow_negative_numbers = true, long, value_enum, default_value_t = GaussianAccountant::Exact)]
    accountant: GaussianAccountant,
}

fn eps_of(sigma: f64, d: f64, k: u64, delta: f64, acc: GaussianAccountant) -> dp_core::Result<f64> {
    match acc {
        GaussianAccountant::Exact => gaussian::epsilon(delta, sigma / (k as f64).sqrt(), d),
        GaussianAccountant::Pld => Pld::gaussian(sigma, d, &PldConfig::default())?
            .self_compose(k)?
            .epsilon(delta),
        GaussianAccountant::Rdp => Ok(curve(sigma, d, k)?.epsilon(delta)?.0),
    }
}

fn curve(sigma: f64, d: f64, k: u64) -> dp_core::Result<RdpCurve> {
    Ok(gaussian::rdp_curve(sigma, d, &default_orders())?.scaled(k))
}

/// Computes the missing one of (σ, ε, δ).
pub fn run(a: GaussianArgs) -> anyhow::Result<Answer> {
    check_positive("sensitivity", a.sensitivity).map_err(flag_error)?;
    ensure(
        a.compositions >= 1,
        "compositions",
        a.compositions as f64,
        "must be >= 1",
    )
    .map_err(flag_error)?;
    let (d, k, acc) = (a.sensitivity, a.compositions, a.accountant);
    let ctx = format!("Gaussian, sensitivity {d}, {k} composition(s), {acc:?} accountant");
    match (a.sigma, a.epsilon, a.delta) {
        (Some(sigma), None, Some(delta)) => {
            check_positive("sigma", sigma).map_err(flag_error)?;
            check_delta(delta).map_err(flag_error)?;
            Ok(Answer::one(
                "epsilon",
                eps_of(sigma, d, k, delta, acc).map_err(flag_error)?,
                ctx,
            ))
        }
        (Some(sigma), Some(eps), None) => {
            check_positive("sigma", sigma).map_err(flag_error)?;
            check_epsilon(eps).map_err(flag_error)?;
            let delta = match acc {
                GaussianAccountant::Exact => gaussian::delta(eps, sigma / (k as f64).sqrt(), d),
                GaussianAccountant::Pld => Pld::gaussian(sigma, d, &PldConfig::default())?
                    .self_compose(k)?
                    .delta(eps),
                GaussianAccountant::Rdp => curve(sigma, d, k)?.delta(eps),
            }
            .map_err(flag_error)?;
            Ok(Answer::one("delta", delta, ctx))
        }
        (None, Some(eps), Some(delta)) => {
            check_epsilon(eps).map_err(flag_error)?;
            check_delta(delta).map_err(flag_error)?;
            let sigma = match acc {
                GaussianAccountant::Exact => gaussian::sigma(eps, delta, d)? * (k as f64).sqrt(),
                _ => {
                    let start = gaussian::sigma(eps, delta, d)? * (k as f64).sqrt();
                    calibrate_decreasing(
                        |s| eps_of(s, d, k, delta, acc),
                        eps,
                        start,
                        0.0,
                        f64::INFINITY,
                    )?
                }
            };
            Ok(Answer::one("sigma", sigma, ctx))
        }
        _ => Err(conflict(
            "give exactly two of --sigma, --epsilon, --delta (the third is computed)",
        )),
    }
}
