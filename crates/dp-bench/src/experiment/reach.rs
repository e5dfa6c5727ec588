//! Every (method, ε) of a grid calibrated before any cell runs ([`Method::check_target`]): a
//! target out of a method's reach (Algorithm 1 below about 4e-4 at δ = 1e-5, a learner that
//! needs a public row bound the config does not give) is a usage error at validation that
//! names the smallest ε the method reaches, not a failure hours into a run, and nothing in
//! the results folder is touched first.

use rayon::prelude::*;

use super::config::{Config, EPSILON_RANGE};
use super::context::Context;
use super::method::Method;
use crate::error::UsageError;
use crate::quoting::number;

/// Calibrates every (method, ε) of `cfg` on `ctx`; the first failure (in config order) as a
/// [`UsageError`] naming the method, the ε, the cause and, where one exists, the smallest ε
/// the method reaches.
pub fn check_targets(cfg: &Config, ctx: &Context<'_>) -> anyhow::Result<()> {
    let pairs: Vec<(&str, &dyn Method, f64)> = cfg
        .methods
        .iter()
        .flat_map(|(name, spec)| {
            cfg.epsilons
                .iter()
                .map(move |&e| (name.as_str(), spec.method.as_ref(), e))
        })
        .collect();
    let errors: Vec<Option<anyhow::Error>> = pairs
        .par_iter()
        .map(|&(_, method, eps)| method.check_target(ctx, eps).err())
        .collect();
    let Some(((name, method, eps), e)) = pairs
        .into_iter()
        .zip(errors)
        .find_map(|(pair, e)| e.map(|e| (pair, e)))
    else {
        return Ok(());
    };
    // Only the failure reported gets its floor: each probe is a calibration.
    let floor = match smallest_reachable(method, ctx, eps) {
        Some(f) => format!(
            "; the smallest ε it reaches at δ = {} is about {}: remove the smaller values \
             from `epsilons` (or give the method another table)",
            number(cfg.delta),
            number(f)
        ),
        None => String::new(),
    };
    Err(UsageError(format!(
        "methods.{name} at ε = {}: {e:#}{floor}",
        number(eps)
    ))
    .into())
}

/// The smallest ε ≥ `failed` at which `method` calibrates, to two significant digits rounded
/// up (so that asking for it works), or `None` when no ε up to the config limit does (the
/// failure is not about ε). Each probe is one calibration: a few dozen on an error path.
fn smallest_reachable(method: &dyn Method, ctx: &Context<'_>, failed: f64) -> Option<f64> {
    let ok = |e: f64| method.check_target(ctx, e).is_ok();
    let (mut lo, mut hi) = (failed, failed);
    loop {
        if hi >= EPSILON_RANGE.1 {
            return None;
        }
        hi = (hi * 10.0).min(EPSILON_RANGE.1);
        if ok(hi) {
            break;
        }
        lo = hi;
    }
    // Bisection in log ε: eight halvings of a decade leave a factor of 10^(1/256) < 1.01.
    for _ in 0..8 {
        let mid = (lo * hi).sqrt();
        if ok(mid) { hi = mid } else { lo = mid }
    }
    let rounded = round_up_2(hi);
    Some(if ok(rounded) { rounded } else { hi })
}

/// `x` rounded up to two significant digits, as the double nearest to its decimal spelling
/// (so that it prints as `5.2e-4`, not `0.0005200000000000001`).
fn round_up_2(x: f64) -> f64 {
    let exp = x.log10().floor() as i32 - 1;
    let digits = (x / 10f64.powi(exp)).ceil();
    format!("{digits}e{exp}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::round_up_2;

    #[test]
    fn rounding_is_upwards_to_two_digits() {
        assert_eq!(round_up_2(4.01e-4), 4.1e-4);
        assert_eq!(round_up_2(5.173e-4), 5.2e-4);
        assert_eq!(round_up_2(0.123), 0.13);
        assert_eq!(round_up_2(12.0), 12.0);
        assert_eq!(round_up_2(9.91), 10.0);
    }
}
