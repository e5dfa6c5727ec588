//! `dp-bench privacy objpert`.

use clap::{Args, ValueEnum};
use dp_core::DpError;
use dp_core::accounting::objpert::ObjPert;
use dp_core::accounting::pld::{Pld, PldConfig};
use dp_core::accounting::{default_orders, gaussian};
use dp_core::error::{check_delta, check_epsilon, ensure};

use super::output::{Answer, conflict, flag_error, show};
use crate::cli::UsageError;

/// Which (ε, δ) bound of objective perturbation.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Bound {
    /// RDP (Redberg et al. Thm 3.2) with the improved conversion; k releases compose by RDP.
    Rdp,
    /// Kifer et al. 2012 (Thm 2.8), the classic baseline; single release only.
    Kifer,
    /// Privacy profile (Thm 3.1); k releases compose with the PLD accountant.
    Profile,
    /// Gaussian lower bound (Lemma 3.4): no valid bound can be smaller.
    Lower,
}

/// Give --delta (answer ε) or --epsilon (answer δ).
#[derive(Args)]
pub struct ObjpertArgs {
    /// Noise σ of the linear perturbation.
    #[arg(allow_negative_numbers = true, long)]
    sigma: f64,
    /// Regularisation λ (must exceed β).
    #[arg(allow_negative_numbers = true, long)]
    lambda: f64,
    /// Per-example Hessian bound β.
    #[arg(allow_negative_numbers = true, long)]
    beta: f64,
    /// Per-example gradient-norm bound L.
    #[arg(allow_negative_numbers = true, long)]
    lipschitz: f64,
    /// Which bound.
    #[arg(allow_negative_numbers = true, long, value_enum)]
    bound: Bound,
    /// Target δ: the answer is ε.
    #[arg(allow_negative_numbers = true, long)]
    delta: Option<f64>,
    /// Target ε: the answer is δ.
    #[arg(allow_negative_numbers = true, long)]
    epsilon: Option<f64>,
    /// Number of composed releases k.
    #[arg(allow_negative_numbers = true, long, default_value_t = 1)]
    compositions: u64,
}

/// Computes ε or δ by the chosen bound.
pub fn run(a: ObjpertArgs) -> anyhow::Result<Answer> {
    let op = ObjPert::new(a.sigma, a.lambda, a.beta, a.lipschitz).map_err(flag_error)?;
    let k = a.compositions;
    ensure(k >= 1, "compositions", k as f64, "must be >= 1").map_err(flag_error)?;
    if a.bound == Bound::Kifer && k > 1 {
        return Err(UsageError(
            "--bound kifer supports only --compositions 1; use rdp or profile".into(),
        )
        .into());
    }
    let ctx = format!(
        "objective perturbation, {:?} bound, {k} release(s)",
        a.bound
    );
    let pld = || -> anyhow::Result<Pld> {
        Pld::objpert(
            a.sigma,
            a.lambda,
            a.beta,
            a.lipschitz,
            &PldConfig::default(),
        )
        .and_then(|p| p.self_compose(k))
        .map_err(|e| match e {
            // The grid is fixed and no flag sets it: name the flags that overflowed it.
            DpError::OutOfRange {
                name: "grid-step" | "fft-length",
                ..
            } => UsageError(format!(
                "--bound profile composes --compositions {k} on the PLD accountant's grid (step \
                 1e-4, at most 2^24 points), which cannot hold the privacy loss of --sigma {} \
                 with --lipschitz {}: use --bound rdp, or more noise",
                show(a.sigma),
                show(a.lipschitz)
            ))
            .into(),
            other => flag_error(other),
        })
    };
    let kf = k as f64;
    match (a.delta, a.epsilon) {
        (Some(delta), None) => {
            check_delta(delta).map_err(flag_error)?;
            let eps = match a.bound {
                Bound::Rdp => op.rdp_curve(&default_orders())?.scaled(k).epsilon(delta)?.0,
                Bound::Kifer => op.kifer_epsilon(delta)?,
                Bound::Profile if k == 1 => op.profile_epsilon(delta)?,
                Bound::Profile => pld()?.epsilon(delta)?,
                // k Gaussians with noise σ compose exactly to one with noise σ/√k.
                Bound::Lower => gaussian::epsilon(delta, a.sigma / kf.sqrt(), a.lipschitz)?,
            };
            Ok(Answer::one("epsilon", eps, ctx))
        }
        (None, Some(eps)) => {
            check_epsilon(eps).map_err(flag_error)?;
            let delta = match a.bound {
                Bound::Rdp => op.rdp_curve(&default_orders())?.scaled(k).delta(eps)?,
                Bound::Kifer => op.kifer_delta(eps)?,
                Bound::Profile if k == 1 => op.profile_delta(eps)?,
                Bound::Profile => pld()?.delta(eps)?,
                Bound::Lower => gaussian::delta(eps, a.sigma / kf.sqrt(), a.lipschitz)?,
            };
            Ok(Answer::one("delta", delta, ctx))
        }
        _ => Err(conflict(
            "give exactly one of --delta (answer: epsilon) or --epsilon (answer: delta)",
        )),
    }
}
