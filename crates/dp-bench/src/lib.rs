//! dpbench's experiment engine as a library: the method table ([`methods::METHODS`]), the
//! paper table ([`papers::PAPERS`]), the study table ([`studies::STUDIES`]), the parallel
//! runner ([`experiment`]), the privacy calculator and dataset CLI ([`cli`]), and plotting
//! ([`plot`]).
//!
//! A researcher's own learner implements [`methods::Method`] (usually around a
//! [`dp_core::learn::Mechanism`]) and runs beside the built-in ones; see
//! `examples/output_perturbation.rs`.

// First, so that its macros (`outln!`, `errln!`) are in scope in every module below.
#[macro_use]
pub mod console;
pub mod audit;
pub mod cli;
pub mod cluster;
pub mod error;
pub mod experiment;
pub mod figures;
pub mod files;
pub mod methods;
pub mod papers;
pub mod pareto;
pub mod plot;
pub mod quoting;
pub mod report;
pub mod studies;
