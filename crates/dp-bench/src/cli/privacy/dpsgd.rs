//! `dp-bench privacy dpsgd`.

use std::str::FromStr;

use clap::{Args, ValueEnum};
use dp_core::accounting::subsampled_gaussian::dpsgd_bracket;
use dp_core::accounting::{
    Accountant, Bracket, Event, PldAccountant, RdpAccountant, Selection, Target, calibrate,
    epsilon_of,
};
use dp_core::error::{check_delta, check_positive, ensure};

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

/// Computes ε or calibrates the noise multiplier: the event `SelfComposed{PoissonSampled{
/// Gaussian(z)}, T}` (wrapped in `RepeatAndSelect` with --tuning) on the chosen accountant.
pub fn run(a: DpsgdArgs) -> anyhow::Result<Answer> {
    let q = a.sampling_rate;
    ensure(q > 0.0 && q <= 1.0, "sampling-rate", q, "must be in (0, 1]").map_err(flag_error)?;
    ensure(a.steps >= 1, "steps", a.steps as f64, "must be >= 1").map_err(flag_error)?;
    check_delta(a.delta).map_err(flag_error)?;
    let tuned = a.tuning.as_ref().map(|t| t.0);
    let ctx = format!(
        "DP-SGD, q = {q}, {} steps, {:?} accountant{}",
        a.steps,
        a.accountant,
        tuned
            .map(|s| format!(", private selection {s:?}"))
            .unwrap_or_default()
    );
    let event_of = |z: f64| -> dp_core::Result<Event> {
        let e = Event::dpsgd(q, z, a.steps)?;
        Ok(match tuned {
            Some(sel) => e.repeat_and_select(sel),
            None => e,
        })
    };
    let rdp = RdpAccountant::new();
    let pld = PldAccountant::new();
    // What the accountant cannot bound is its own answer, not a rule of this command.
    let supported = |e: dp_core::DpError| match e {
        dp_core::DpError::Unsupported { .. } => {
            anyhow::Error::from(UsageError(format!("--tuning: {e}")))
        }
        other => flag_error(other),
    };
    match (a.noise_multiplier, a.epsilon) {
        (Some(z), None) => {
            check_positive("noise-multiplier", z).map_err(flag_error)?;
            let event = event_of(z).map_err(flag_error)?;
            let eps = match a.accountant {
                DpsgdAccountant::Rdp => epsilon_of(rdp, &event, a.delta),
                DpsgdAccountant::Pld => epsilon_of(pld, &event, a.delta),
            }
            .map_err(supported)?;
            Ok(Answer::one("epsilon", eps, ctx))
        }
        (None, Some(eps)) => {
            let target = Target::new(eps, a.delta).map_err(flag_error)?;
            let bracket = dpsgd_bracket(q, a.steps, target).map_err(flag_error)?;
            let z = match a.accountant {
                DpsgdAccountant::Rdp => calibrate(|| rdp.fresh(), event_of, target, bracket),
                DpsgdAccountant::Pld => {
                    // PLD is never looser than RDP: start from the RDP answer.
                    pld.supports(&event_of(bracket.start)?).map_err(supported)?;
                    let start = calibrate(|| rdp.fresh(), event_of, target, bracket)?;
                    let bracket = Bracket { start, ..bracket };
                    calibrate(|| pld.fresh(), event_of, target, bracket)
                }
            }
            .map_err(supported)?;
            Ok(Answer::one("noise_multiplier", z, ctx))
        }
        _ => Err(conflict(
            "give exactly one of --noise-multiplier (answer: epsilon) or --epsilon (answer: noise_multiplier)",
        )),
    }
}
