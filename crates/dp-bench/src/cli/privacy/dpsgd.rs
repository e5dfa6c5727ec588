//! `dp-bench privacy dpsgd`.

use std::str::FromStr;

use clap::{Args, ValueEnum};
use dp_core::accounting::calibrate::calibrate_decreasing;
use dp_core::accounting::default_orders;
use dp_core::accounting::pld::dpsgd_epsilon_pld;
use dp_core::accounting::private_selection::{Selection, calibrate_noise_multiplier_tuned};
use dp_core::accounting::subsampled_gaussian::{calibrate_noise_multiplier, dpsgd_curve};
use dp_core::error::{check_delta, check_epsilon, check_positive, ensure};

use super::output::{Answer, conflict, flag_error};
use crate::cli::UsageError;

/// DP-SGD accountant.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum DpsgdAccountant {
    /// Rényi DP (Mironov et al. 2019) with the improved conversion.
    Rdp,
    /// FFT privacy-loss-distribution accountant (tighter; no private-selection support).
    Pld,
}

/// A random number of tuning runs for Papernot–Steinke private selection.
#[derive(Clone, Debug)]
pub struct TuningSpec(pub Selection);

impl FromStr for TuningSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let num = |t: &str, what: &str| {
            t.parse::<f64>().map_err(|_| {
                format!("{what} {t:?} is not a number (expected poisson:MEAN or tnb:SHAPE:MEAN)")
            })
        };
        let sel = match parts.as_slice() {
            ["poisson", mean] => Selection::poisson(num(mean, "MEAN")?),
            ["tnb", shape, mean] => {
                Selection::from_shape_mean(num(shape, "SHAPE")?, num(mean, "MEAN")?)
            }
            _ => return Err(format!("{s:?} is not poisson:MEAN or tnb:SHAPE:MEAN")),
        };
        sel.map(TuningSpec).map_err(|e| e.to_string())
    }
}

/// Give --noise-multiplier (answer ε) or --epsilon (answer: the noise multiplier).
#[derive(Args)]
pub struct DpsgdArgs {
    /// Poisson sampling rate q, in (0, 1].
    #[arg(allow_negative_numbers = true, long = "sampling-rate")]
    sampling_rate: f64,
    /// Noise multiplier z (noise std = z · clipping norm).
    #[arg(allow_negative_numbers = true, long = "noise-multiplier")]
    noise_multiplier: Option<f64>,
    /// Target ε (calibration mode).
    #[arg(allow_negative_numbers = true, long)]
    epsilon: Option<f64>,
    /// Number of steps T.
    #[arg(allow_negative_numbers = true, long)]
    steps: u64,
    /// Target δ, in (0, 1).
    #[arg(allow_negative_numbers = true, long)]
    delta: f64,
    /// Accountant.
    #[arg(allow_negative_numbers = true, long, value_enum, default_value_t = DpsgdAccountant::Rdp)]
    accountant: DpsgdAccountant,
    /// Add the cost of private selection: `poisson:MEAN` or `tnb:SHAPE:MEAN` (shape 0
    /// logarithmic, 1 geometric). RDP accountant only.
    #[arg(allow_negative_numbers = true, long)]
    tuning: Option<TuningSpec>,
}

/// Computes ε or calibrates the noise multiplier.
pub fn run(a: DpsgdArgs) -> anyhow::Result<Answer> {
    let q = a.sampling_rate;
    ensure(q > 0.0 && q <= 1.0, "sampling-rate", q, "must be in (0, 1]").map_err(flag_error)?;
    ensure(a.steps >= 1, "steps", a.steps as f64, "must be >= 1").map_err(flag_error)?;
    check_delta(a.delta).map_err(flag_error)?;
    if a.tuning.is_some() && a.accountant == DpsgdAccountant::Pld {
        return Err(UsageError(
            "--tuning needs --accountant rdp (private selection bounds are RDP bounds)".into(),
        )
        .into());
    }
    let orders = default_orders();
    let tuned = a.tuning.as_ref().map(|t| &t.0);
    let ctx = format!(
        "DP-SGD, q = {q}, {} steps, {:?} accountant{}",
        a.steps,
        a.accountant,
        tuned
            .map(|s| format!(", private selection {s:?}"))
            .unwrap_or_default()
    );
    let epsilon_of = |z: f64| -> dp_core::Result<f64> {
        match (a.accountant, tuned) {
            (DpsgdAccountant::Pld, _) => dpsgd_epsilon_pld(q, z, a.steps, a.delta),
            (DpsgdAccountant::Rdp, None) => {
                Ok(dpsgd_curve(q, z, a.steps, &orders)?.epsilon(a.delta)?.0)
            }
            (DpsgdAccountant::Rdp, Some(sel)) => Ok(sel
                .apply(&dpsgd_curve(q, z, a.steps, &orders)?)?
                .epsilon(a.delta)?
                .0),
        }
    };
    match (a.noise_multiplier, a.epsilon) {
        (Some(z), None) => {
            check_positive("noise-multiplier", z).map_err(flag_error)?;
            Ok(Answer::one(
                "epsilon",
                epsilon_of(z).map_err(flag_error)?,
                ctx,
            ))
        }
        (None, Some(eps)) => {
            check_epsilon(eps).map_err(flag_error)?;
            let z = match (a.accountant, tuned) {
                (DpsgdAccountant::Rdp, None) => {
                    calibrate_noise_multiplier(q, a.steps, eps, a.delta, &orders)?
                }
                (DpsgdAccountant::Rdp, Some(sel)) => {
                    calibrate_noise_multiplier_tuned(q, a.steps, eps, a.delta, sel, &orders)?
                }
                (DpsgdAccountant::Pld, _) => {
                    let start = calibrate_noise_multiplier(q, a.steps, eps, a.delta, &orders)?;
                    calibrate_decreasing(epsilon_of, eps, start, 0.0, f64::INFINITY)?
                }
            };
            Ok(Answer::one("noise_multiplier", z, ctx))
        }
        _ => Err(conflict(
            "give exactly one of --noise-multiplier (answer: epsilon) or --epsilon (answer: noise_multiplier)",
        )),
    }
}
