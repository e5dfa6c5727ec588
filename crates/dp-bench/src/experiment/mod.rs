//! TOML-defined experiments: the config, studies that propose cells (today's grid is one
//! kind), the parallel runner, the results store and the summaries.

pub mod audit_settings;
pub mod audited;
pub mod cells_file;
pub mod certified;
pub mod checksum;
pub mod config;
pub mod context;
pub mod dataset_config;
pub mod engine;
pub mod git;
pub mod grid;
pub mod journal;
pub mod method;
pub mod once_map;
pub mod provenance;
pub mod reach;
pub mod record;
pub mod report;
pub mod row_clip;
pub mod runner;
pub mod selection;
pub mod shard;
pub mod store;
pub mod study;
pub mod summary;
#[cfg(test)]
pub(crate) mod test_runs;
pub mod verified;
