//! `dp-bench privacy gaussian`.

use clap::{Args, ValueEnum};
use dp_core::DpError;
use dp_core::accounting::{
    Accountant, Bracket, Event, PldAccountant, RdpAccountant, Target, calibrate, gaussian,
};
use dp_core::error::{check_delta, check_epsilon, check_positive, ensure};

use super::output::{Answer, calibration_error, conflict, flag_error, pld_error, show};

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

/// k releases of the Gaussian mechanism with noise σ and sensitivity Δ.
fn event(sigma: f64, d: f64, k: u64) -> dp_core::Result<Event> {
    Ok(Event::gaussian(sigma / d)?.self_composed(k))
}

/// `accountant` with the k releases composed.
fn composed<A: Accountant>(mut accountant: A, sigma: f64, d: f64, k: u64) -> dp_core::Result<A> {
    accountant.compose(&event(sigma, d, k)?, 1)?;
    Ok(accountant)
}

// `Exact` is the closed form: k Gaussians with noise σ are one with noise σ/√k.
fn eps_of(sigma: f64, d: f64, k: u64, delta: f64, acc: GaussianAccountant) -> dp_core::Result<f64> {
    match acc {
        GaussianAccountant::Exact => gaussian::epsilon(delta, sigma / (k as f64).sqrt(), d),
        GaussianAccountant::Rdp => composed(RdpAccountant::new(), sigma, d, k)?.epsilon(delta),
        GaussianAccountant::Pld => composed(PldAccountant::new(), sigma, d, k)?.epsilon(delta),
    }
}

fn delta_of(sigma: f64, d: f64, k: u64, eps: f64, acc: GaussianAccountant) -> dp_core::Result<f64> {
    match acc {
        GaussianAccountant::Exact => gaussian::delta(eps, sigma / (k as f64).sqrt(), d),
        GaussianAccountant::Rdp => composed(RdpAccountant::new(), sigma, d, k)?.delta(eps),
        GaussianAccountant::Pld => composed(PldAccountant::new(), sigma, d, k)?.delta(eps),
    }
}

/// Smallest σ meeting (ε, δ) after k releases, by the one shared `calibrate`.
fn sigma_of(eps: f64, delta: f64, d: f64, k: u64, acc: GaussianAccountant) -> dp_core::Result<f64> {
    let exact = gaussian::sigma(eps, delta, d)? * (k as f64).sqrt();
    let target = Target::new(eps, delta)?;
    let bracket = Bracket {
        name: "sigma",
        start: exact,
        lo: 0.0,
        hi: f64::INFINITY,
    };
    let event_of = |s: f64| event(s, d, k);
    match acc {
        GaussianAccountant::Exact => Ok(exact),
        GaussianAccountant::Rdp => calibrate(RdpAccountant::new, event_of, target, bracket),
        GaussianAccountant::Pld => calibrate(PldAccountant::new, event_of, target, bracket),
    }
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
    let inputs = |what: String| format!("{what} with --sensitivity {d} and --compositions {k}");
    match (a.sigma, a.epsilon, a.delta) {
        (Some(sigma), None, Some(delta)) => {
            check_positive("sigma", sigma).map_err(flag_error)?;
            check_delta(delta).map_err(flag_error)?;
            Ok(Answer::one(
                "epsilon",
                eps_of(sigma, d, k, delta, acc)
                    .map_err(|e| pld_error(e, &inputs(format!("--sigma {}", show(sigma)))))?,
                ctx,
            ))
        }
        (Some(sigma), Some(eps), None) => {
            check_positive("sigma", sigma).map_err(flag_error)?;
            check_epsilon(eps).map_err(flag_error)?;
            let delta = delta_of(sigma, d, k, eps, acc)
                .map_err(|e| pld_error(e, &inputs(format!("--sigma {}", show(sigma)))))?;
            Ok(Answer::one("delta", delta, ctx))
        }
        (None, Some(eps), Some(delta)) => {
            check_epsilon(eps).map_err(flag_error)?;
            check_delta(delta).map_err(flag_error)?;
            let sigma = sigma_of(eps, delta, d, k, acc).map_err(|e| match e {
                DpError::Calibration(_) => calibration_error(
                    e,
                    &format!("--epsilon {} (at --delta {})", show(eps), show(delta)),
                ),
                other => pld_error(
                    other,
                    &inputs(format!("the sigma --epsilon {} needs", show(eps))),
                ),
            })?;
            Ok(Answer::one("sigma", sigma, ctx))
        }
        _ => Err(conflict(
            "give exactly two of --sigma, --epsilon, --delta (the third is computed)",
        )),
    }
}
