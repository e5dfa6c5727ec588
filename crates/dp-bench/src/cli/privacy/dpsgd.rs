//! `dp-bench privacy dpsgd`.

use std::str::FromStr;

use clap::{Args, ValueEnum};
use dp_core::accounting::subsampled_gaussian::{calibrate_dpsgd, dpsgd_bracket};
use dp_core::accounting::subsampled_gaussian_wor::integer_orders;
use dp_core::accounting::{
    Accountant, Bracket, Conversion, Event, PldAccountant, RdpAccountant, Selection, Target,
    calibrate, epsilon_of,
};
use dp_core::error::{check_delta, check_positive, check_sampling_rate, ensure};

use super::output::{Answer, calibration_error, conflict, flag_error, pld_error, show};
use crate::cli::UsageError;

/// DP-SGD accountant.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum DpsgdAccountant {
    /// Rényi DP (Mironov et al. 2019; --conversion picks the conversion to (ε, δ)).
    Rdp,
    /// FFT privacy-loss-distribution accountant (tighter; no private-selection support).
    Pld,
}

/// How each step's batch is drawn.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Sampling {
    /// Each record independently with probability q (add/remove neighbours).
    Poisson,
    /// A lot of exactly m = q·n records drawn uniformly without replacement, afresh each step
    /// (replace-one neighbours; z is σ over the replace-one sensitivity). DPareto's accounting:
    /// Wang, Balle & Kasiviswanathan 2019 on the integer orders 2..=1000. RDP accountant only.
    WithoutReplacement,
}

/// RDP → (ε, δ) conversion (RDP accountant).
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum ConversionArg {
    /// Balle et al. 2020 / Canonne et al. 2020 (tighter).
    Improved,
    /// Mironov 2017, ε = min_α RDP(α) + ln(1/δ)/(α − 1) (autodp, DPareto).
    Classic,
}

impl From<ConversionArg> for Conversion {
    fn from(c: ConversionArg) -> Self {
        match c {
            ConversionArg::Improved => Conversion::Improved,
            ConversionArg::Classic => Conversion::Classic,
        }
    }
}

/// A sampling rate written as a decimal (`0.001`) or as a fraction `m/n` (`32/30956`).
#[derive(Clone, Copy, Debug)]
pub struct Rate(pub f64);

impl FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| format!("{s:?} is not a decimal or a fraction m/n"))
        };
        match s.split_once('/') {
            Some((m, n)) => {
                let (m, n) = (num(m)?, num(n)?);
                if n == 0.0 {
                    return Err(format!("{s:?} divides by zero"));
                }
                Ok(Rate(m / n))
            }
            None => Ok(Rate(num(s)?)),
        }
    }
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
    /// Sampling rate q in (0, 1], as a decimal or a fraction m/n (e.g. 32/30956).
    #[arg(allow_negative_numbers = true, long = "sampling-rate")]
    sampling_rate: Rate,
    /// How batches are drawn.
    #[arg(long, value_enum, default_value_t = Sampling::Poisson)]
    sampling: Sampling,
    /// RDP → (ε, δ) conversion (RDP accountant only).
    #[arg(long, value_enum, default_value_t = ConversionArg::Improved)]
    conversion: ConversionArg,
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
/// Gaussian(z)}, T}` (`SampledWithoutReplacement` with `--sampling without-replacement`;
/// wrapped in `RepeatAndSelect` with --tuning) on the chosen accountant.
pub fn run(a: DpsgdArgs) -> anyhow::Result<Answer> {
    let q = a.sampling_rate.0;
    check_sampling_rate(q).map_err(flag_error)?;
    ensure(a.steps >= 1, "steps", a.steps as f64, "must be >= 1").map_err(flag_error)?;
    check_delta(a.delta).map_err(flag_error)?;
    if a.accountant == DpsgdAccountant::Pld {
        if a.sampling == Sampling::WithoutReplacement {
            return Err(conflict(
                "--sampling without-replacement needs --accountant rdp (the PLD accountant has \
                 no bound for it)",
            ));
        }
        if a.conversion != ConversionArg::Improved {
            return Err(conflict(
                "--conversion applies to the RDP accountant only (drop it or use --accountant rdp)",
            ));
        }
    }
    let tuned = a.tuning.as_ref().map(|t| t.0);
    let ctx = format!(
        "DP-SGD, q = {}, {:?} sampling, {} steps, {:?} accountant{}{}",
        show(q),
        a.sampling,
        a.steps,
        a.accountant,
        match a.accountant {
            DpsgdAccountant::Rdp => format!(", {:?} conversion", a.conversion),
            DpsgdAccountant::Pld => String::new(),
        },
        tuned
            .map(|s| format!(", private selection {s:?}"))
            .unwrap_or_default()
    );
    let event_of = |z: f64| -> dp_core::Result<Event> {
        let e = match a.sampling {
            Sampling::Poisson => Event::dpsgd(q, z, a.steps)?,
            Sampling::WithoutReplacement => Event::dpsgd_without_replacement(q, z, a.steps)?,
        };
        Ok(match tuned {
            Some(sel) => e.repeat_and_select(sel),
            None => e,
        })
    };
    // DPareto minimises over the integer orders up to 1000, where its bound is defined.
    let rdp = match a.sampling {
        Sampling::Poisson => RdpAccountant::new(),
        Sampling::WithoutReplacement => RdpAccountant::with_orders(&integer_orders())?,
    }
    .with_conversion(a.conversion.into());
    let pld = PldAccountant::new();
    // What the accountant cannot bound is its own answer, not a rule of this command.
    let supported = |e: dp_core::DpError| match e {
        dp_core::DpError::Unsupported { .. } => {
            anyhow::Error::from(UsageError(format!("--tuning: {e}")))
        }
        other => flag_error(other),
    };
    let steps = a.steps;
    match (a.noise_multiplier, a.epsilon) {
        (Some(z), None) => {
            check_positive("noise-multiplier", z).map_err(flag_error)?;
            let event = event_of(z).map_err(flag_error)?;
            let eps = match a.accountant {
                DpsgdAccountant::Rdp => epsilon_of(rdp, &event, a.delta).map_err(supported)?,
                DpsgdAccountant::Pld => epsilon_of(pld, &event, a.delta).map_err(|e| {
                    pld_error(
                        e,
                        &format!("--noise-multiplier {} with --steps {steps}", show(z)),
                    )
                })?,
            };
            Ok(Answer::one("epsilon", eps, ctx))
        }
        (None, Some(eps)) => {
            let target = Target::new(eps, a.delta).map_err(flag_error)?;
            let bracket = dpsgd_bracket(q, steps, target).map_err(flag_error)?;
            let given = format!("--epsilon {} (at --delta {})", show(eps), show(a.delta));
            if a.accountant == DpsgdAccountant::Pld {
                pld.supports(&event_of(bracket.start)?).map_err(supported)?;
            }
            // The RDP answer, and for PLD (never looser than RDP) the start of its search.
            let z = calibrate_dpsgd(|| rdp.fresh(), event_of, target, q, steps).map_err(
                |e| match e {
                    dp_core::DpError::Unsupported { .. } => supported(e),
                    other => calibration_error(other, &given),
                },
            )?;
            let z = match a.accountant {
                DpsgdAccountant::Rdp => z,
                DpsgdAccountant::Pld => {
                    let bracket = Bracket {
                        start: z,
                        ..bracket
                    };
                    calibrate(|| pld.fresh(), event_of, target, bracket).map_err(|e| {
                        pld_error(
                            e,
                            &format!("noise multipliers near {z:.3e} with --steps {steps}"),
                        )
                    })?
                }
            };
            Ok(Answer::one("noise_multiplier", z, ctx))
        }
        _ => Err(conflict(
            "give exactly one of --noise-multiplier (answer: epsilon) or --epsilon (answer: noise_multiplier)",
        )),
    }
}
