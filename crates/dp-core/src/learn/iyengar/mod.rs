//! Iyengar et al. 2019, *Towards Practical Differentially Private Convex Optimization*: the
//! algorithms as the authors' released code runs them (`calibration = "paper"`), and, beside
//! each, what this project certifies (`calibration = "certified"`). `docs/reference/iyengar2019.md`
//! §2 is followed for what the code does (file:line into the authors' repository) and §2.8 for
//! where it is not private.
//!
//! Every mechanism here takes training rows already clipped to the public bound `L` of its spec
//! (ℓ2 for all but Frank–Wolfe, ℓ∞ for Frank–Wolfe) and checks that bound before it runs, because
//! every sensitivity below is derived from it.

pub mod amp;
pub mod calibration;
pub mod frank_wolfe;
pub mod paper_noise;
pub mod permutation;
pub mod sgd;
pub mod step;

pub use amp::{Amp, AmpParams, AmpReport, AmpSpec};
pub use calibration::Calibration;
pub use frank_wolfe::{Pfw, PfwReport, PfwSpec};
pub use permutation::{Ppsgd, PpsgdReport, PpsgdSpec, Pscpsgd, PscpsgdReport, PscpsgdSpec};
pub use sgd::{Psgd, PsgdReport, PsgdSpec};
