//! Privacy accounting.
pub mod pld;

pub mod alg1;
pub mod calibrate;
pub mod gaussian;
pub mod half_normal;
pub mod objpert;
pub mod private_selection;
mod quadrature;
pub mod rdp_curve;
pub mod subsampled_gaussian;

pub use rdp_curve::{RdpCurve, default_orders};
