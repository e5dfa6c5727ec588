//! TOML-defined experiment grids: config, cells, methods, the parallel runner, results.

pub mod config;
pub mod grid;
pub mod methods;
pub mod report;
pub mod runner;
pub mod store;
pub mod summary;
