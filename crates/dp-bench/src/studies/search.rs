//! Avent et al.'s privacy–utility searches (`study = "dpareto" | "random" | "grid-search"`):
//! points in hyperparameter space, each scored for ε and error, checkpointed one by one.
//! DPareto is sequential (each point depends on the ones before), so searches run whole.

use std::path::Path;

use super::{Planned, Request, StudyKind};
use crate::pareto::{StudyConfig, search};

/// Bayesian optimisation of the Pareto front (HV-PoI).
pub const DPARETO: StudyKind = StudyKind {
    name: "dpareto",
    summary: "DPareto: random seed points, then Bayesian optimisation of the privacy-utility front",
    shardable: false,
    run,
    plan,
};

/// Independent random draws of hyperparameters.
pub const RANDOM: StudyKind = StudyKind {
    name: "random",
    summary: "random search over the hyperparameter box (Avent et al.'s baseline)",
    shardable: false,
    run,
    plan,
};

/// A full linear grid over the hyperparameter box.
pub const GRID_SEARCH: StudyKind = StudyKind {
    name: "grid-search",
    summary: "a size^5 grid over the hyperparameter box (Avent et al.'s baseline)",
    shardable: false,
    run,
    plan,
};

fn run(req: &Request) -> anyhow::Result<()> {
    let cfg = StudyConfig::parse(req.text, req.path)?;
    let dir = req
        .out
        .clone()
        .unwrap_or_else(|| cfg.default_out_dir(req.path));
    let report = search::run(&cfg, &dir, !req.quiet)?;
    errln!(
        "{}: {} points ({} evaluated now) in {:.1} s; results in {}",
        req.path.display(),
        report.total,
        report.ran,
        report.seconds,
        report.dir.display()
    );
    let hv = std::fs::read_to_string(report.dir.join("hv.csv"))?;
    if let Some(last) = hv.lines().last() {
        outln!("hypervolume w.r.t. (10, 1) after (points, HV): {last}")?;
    }
    Ok(())
}

fn plan(path: &Path, out: Option<&Path>) -> anyhow::Result<Planned> {
    let cfg = StudyConfig::load(path)?;
    Ok(Planned {
        out: out.map_or_else(|| cfg.default_out_dir(path), Path::to_path_buf),
        from_key: cfg.output_dir.is_some(),
    })
}
