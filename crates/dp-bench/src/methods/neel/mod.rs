//! Neel, Roth, Vietri & Wu (2019)'s mechanisms as method kinds: `opdisc` (objective
//! perturbation over a discrete grid), `rspm` (report-separator-perturbed-min), `opsamp`
//! (averaged follow-the-perturbed-leader with output noise, "theory only"), and the two
//! non-private reference lines `zero_one_erm` and `logreg_erm`. The exact oracles are MILPs
//! on HiGHS (`dp-mip`); see `docs/reference/neel2019.md`.
//!
//! HiGHS is C++ built by cmake with bindgen (libclang), so the kinds on it are compiled only
//! with the `mip` feature; `crate::methods::FEATURE_KINDS` names them for builds without it.
//! `opsamp` and `logreg_erm` use L-BFGS and are always built.

mod opsamp;
mod reference;

pub use opsamp::OPSAMP;
pub use reference::LOGREG_ERM;

#[cfg(feature = "mip")]
mod opdisc;
#[cfg(feature = "mip")]
mod oracle;
#[cfg(feature = "mip")]
mod rspm;
#[cfg(feature = "mip")]
mod zero_one;

#[cfg(feature = "mip")]
pub use {opdisc::OPDISC, rspm::RSPM, zero_one::ZERO_ONE_ERM};

#[cfg(all(test, feature = "mip"))]
mod tests;
