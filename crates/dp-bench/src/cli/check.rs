//! `dp-bench check CONFIG`: the config validated as `run` validates it before any work, and
//! what it would run, without running, calibrating or writing anything. For a grid: its
//! cells, its results folder and every outside program with where it was found.

use std::path::PathBuf;

use clap::Args;

use crate::experiment::config::Config;
use crate::experiment::grid::expand;
use crate::experiment::runner::default_out_dir;
use crate::studies::commands;

/// Arguments of `dp-bench check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Experiment config (TOML).
    config: PathBuf,
}

/// Prints what the config runs; exit 2 when it is invalid or a program cannot be found.
pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    let path = &args.config;
    let text = crate::studies::read(path)?;
    let kind = crate::studies::declared(&text, path)?;
    if kind.name != "grid" {
        // Only grid configs name methods, and so outside learners.
        outln!(
            "{}: a {} study; it runs no outside program",
            path.display(),
            kind.name
        )?;
        return Ok(());
    }
    let cfg = Config::parse(&text, path)?;
    let what = if cfg.audit.is_some() {
        "an audit of"
    } else {
        "a grid of"
    };
    outln!(
        "{}: {what} {} method(s) at {} ε × {} trial(s): {} cells; results in {}",
        path.display(),
        cfg.methods.len(),
        cfg.epsilons.len(),
        cfg.trials,
        expand(&cfg).len(),
        default_out_dir(path, &cfg).display()
    )?;
    if let Some(r) = cfg.relation {
        outln!(
            "every method certified under {} neighbours (add/remove methods by group privacy)",
            dp_core::accounting::event_json::relation_name(r)
        )?;
    }
    let list = commands::of(&cfg);
    if list.is_empty() {
        outln!("outside programs: none")?;
        return Ok(());
    }
    outln!(
        "outside programs (run as given, never through a shell; a config that names one is code):"
    )?;
    for c in &list {
        let at = c
            .program
            .as_ref()
            .map_or("NOT FOUND".to_string(), |p| p.display().to_string());
        outln!(
            "  methods.{}: {}   [{}]",
            c.method,
            commands::shown(&c.argv),
            at
        )?;
    }
    // The same refusal a run would give.
    commands::check_found(&list, path)
}
