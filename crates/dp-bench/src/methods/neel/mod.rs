//! Neel, Roth, Vietri & Wu (2019)'s mechanisms as method kinds: `opdisc` (objective
//! perturbation over a discrete grid), `rspm` (report-separator-perturbed-min), `opsamp`
//! (averaged follow-the-perturbed-leader with output noise, "theory only"), and the two
//! non-private reference lines `zero_one_erm` and `logreg_erm`. The exact oracles are MILPs
//! on HiGHS (`dp-mip`); see `docs/reference/neel2019.md`.

mod opdisc;
mod opsamp;
mod oracle;
mod reference;
mod rspm;

pub use opdisc::OPDISC;
pub use opsamp::OPSAMP;
pub use reference::{LOGREG_ERM, ZERO_ONE_ERM};
pub use rspm::RSPM;

#[cfg(test)]
mod tests;
