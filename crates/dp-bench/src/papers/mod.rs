//! The paper table: each reproduced paper is a folder here (its figures and tables) plus
//! `configs/<id>/` (its experiment grids), registered with one `pub mod` line and one
//! [`PAPERS`] entry. A config names its paper with `paper = "<id>"`, checked against this
//! table; `dp-bench figures <id>` and `dp-bench figures --all` render them.

pub mod audit;
pub mod avent2020;
pub mod benchmark;
pub mod iyengar2019;
pub mod neel2019;
pub mod redberg2023;

use std::path::Path;

use crate::figures::Outcome;

/// Every paper this build can reproduce.
pub static PAPERS: &[PaperSpec] = &[
    redberg2023::SPEC,
    iyengar2019::SPEC,
    avent2020::SPEC,
    neel2019::SPEC,
    audit::SPEC,
    benchmark::SPEC,
];

/// One reproduced paper.
pub struct PaperSpec {
    /// Short id: config key `paper`, folder names under `configs/` and `results/`.
    pub id: &'static str,
    /// Authors, year and subject.
    pub title: &'static str,
    /// Config stems under `configs/<id>/` whose results the figures read.
    pub configs: &'static [&'static str],
    /// Writes the figures and tables into the first folder, reading experiment results from
    /// `<second folder>/<config stem>/`.
    pub figures: fn(&Path, &Path) -> anyhow::Result<Vec<Outcome>>,
}

/// Looks a paper up by id.
pub fn paper(id: &str) -> Option<&'static PaperSpec> {
    PAPERS.iter().find(|p| p.id == id)
}
