//! `study = "illustrative"`: one of Avent et al.'s two-parameter problems, its exact front
//! and what DPareto's surrogates make of it (see [`crate::papers::avent2020::toy`]).

use std::path::Path;

use super::{Planned, Request, StudyKind};
use crate::error::UsageError;
use crate::papers::avent2020::toy::run as toy;

/// The illustrative problems.
pub const KIND: StudyKind = StudyKind {
    name: "illustrative",
    summary: "an illustrative problem of Avent et al. (exact front, GP surrogates, DPareto)",
    shardable: false,
    run,
    plan,
};

fn run(req: &Request) -> anyhow::Result<()> {
    let cfg = toy::IllustrativeConfig::parse(req.text, req.path)?;
    let dir = req
        .out
        .clone()
        .unwrap_or_else(|| toy::default_dir(req.path, &cfg));
    let seconds = toy::run(&cfg, req.text, &dir)?;
    errln!(
        "{}: {} in {seconds:.1} s; results in {}",
        req.path.display(),
        if seconds == 0.0 {
            "already complete"
        } else {
            "computed"
        },
        dir.display()
    );
    out!("{}", std::fs::read_to_string(dir.join("summary.csv"))?)?;
    Ok(())
}

fn plan(path: &Path, _out: Option<&Path>) -> anyhow::Result<Planned> {
    Err(UsageError(format!(
        "{}: illustrative configs run in seconds to minutes; run them directly",
        path.display()
    ))
    .into())
}
