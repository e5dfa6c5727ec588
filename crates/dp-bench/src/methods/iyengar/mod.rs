//! Iyengar et al. 2019's algorithms as method kinds (`amp`, `amp_hf`, `psgd`, `ppsgd`,
//! `pscpsgd`, `pfw`, `np`). Each kind is a [`Grid`] of hyperparameter points (the authors'
//! code grids by default, `docs/reference/iyengar2019.md` §2.1–2.6) run by one shared
//! [`GridMethod`]: every point of the grid in every trial with the best mean test accuracy
//! reported (`tuning = "dishonest"`, the paper's protocol), or Papernot–Steinke private
//! selection over points drawn i.i.d. from the grid (`tuning = "honest"`).
//!
//! The clipping bound L is a hyperparameter: each point trains on rows clipped to its own L
//! ([`super::row_clip`]) and is scored on test rows clipped alike.

mod amp;
mod audit;
mod common;
mod descent;
mod frank_wolfe;
mod honest;
mod nonprivate;
mod output_views;
mod permutation;
mod scored;
mod sgd;
mod sweep;
mod with_replacement_view;

pub use amp::{AMP, AMP_HF};
pub use frank_wolfe::PFW;
pub use nonprivate::NP;
pub use permutation::{PPSGD, PSCPSGD};
pub use sgd::PSGD;

/// Checks that a grid list is non-empty and every value passes `ok`; the error names the key.
fn check_grid<T: Copy + std::fmt::Display>(
    key: &str,
    values: &[T],
    ok: impl Fn(T) -> bool,
) -> Result<(), String> {
    if values.is_empty() {
        return Err(format!("{key}` must list at least one value"));
    }
    match values.iter().find(|&&v| !ok(v)) {
        Some(bad) => Err(format!("{key}` has the out-of-range value {bad}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod one_vs_all_tests;
#[cfg(test)]
mod tests;
