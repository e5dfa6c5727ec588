//! Privacy–utility studies (Avent et al. 2020, DPareto): each evaluated point is a set of
//! DP-SGD hyperparameters with its ε (an output, from the privacy oracle) and its error
//! (1 − mean test accuracy over R trainings). Studies: `dpareto` (multi-objective BO with
//! HV-PoI), `random` (the paper's hand-tuned distributions) and `grid`. Run with
//! `dp-bench run configs/avent2020/<name>.toml`, like grid configs; a config is a study when
//! it has a top-level `study` key.

pub mod config;
pub mod dpareto;
pub mod oracle;
pub mod output;
pub mod points;
pub mod privacy;
pub mod search;
pub mod space;

pub use config::StudyConfig;
