//! Privacy accountants, mechanisms and DP convex learners.
//!
//! - [`accounting`]: Gaussian, RDP, subsampled Gaussian, objective perturbation, Algorithm 1,
//!   private selection and a PLD accountant.
//! - [`learn`]: GLM losses, L-BFGS, Algorithm 1 and DP-SGD on [`features::FeatureMatrix`].

pub mod accounting;
pub mod bo;
pub mod error;
pub mod fast_exp;
pub mod features;
pub mod learn;
pub mod seed;
pub mod special;

pub use error::{DpError, Result};
