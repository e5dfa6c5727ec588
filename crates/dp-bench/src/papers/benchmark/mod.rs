//! The leaderboard (`dp-bench figures benchmark`): every learner of the `paper = "benchmark"`
//! runs under one honest protocol, ranked per (dataset, ε) and over datasets with Demšar's
//! tests (`docs/benchmark.md`).

pub mod distributions;
pub mod stats;
