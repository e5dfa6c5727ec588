//! Privacy accounting: [`Event`]s describe what a mechanism did, an [`Accountant`] (RDP or PLD)
//! composes them and answers ε(δ) or δ(ε), and [`calibrate()`] finds the noise that meets a
//! [`Target`]. The per-mechanism math lives in its own module (`gaussian`,
//! `subsampled_gaussian`, `subsampled_gaussian_wor`, `with_replacement`, `objpert`, `neel`,
//! `private_selection`, `pld`); [`HonestTuning`] is the one calibration for honest
//! hyperparameter tuning.
pub mod pld;

pub mod accountant;
pub mod calibrate;
pub mod certifier;
pub mod declaration;
pub mod event;
pub mod event_json;
#[cfg(test)]
mod event_json_tests;
mod forward_differences;
pub mod gaussian;
pub mod half_normal;
pub mod honest_tuning;
pub mod neel;
pub mod objpert;
pub mod pld_accountant;
pub mod private_selection;
pub(crate) mod quadrature;
pub mod rdp_accountant;
pub mod rdp_curve;
pub mod relation;
pub mod subsampled_gaussian;
pub mod subsampled_gaussian_wor;
pub mod with_replacement;
pub mod with_replacement_gaussian;

pub use accountant::{Accountant, epsilon_of};
pub use calibrate::{Bracket, Target, calibrate};
pub use certifier::Certifier;
pub use event::{Event, Neighbours};
pub use honest_tuning::HonestTuning;
pub use objpert::ObjPert;
pub use pld_accountant::PldAccountant;
pub use private_selection::Selection;
pub use rdp_accountant::RdpAccountant;
pub use rdp_curve::{Conversion, RdpCurve, default_orders};
pub use relation::add_remove_target_for_replace_one;
