//! The kinds of study a config declares with its top-level `study` key, one file each, and
//! the one dispatcher that reads the key ([`declared`]). A study proposes what to run and
//! writes its results folder; every kind runs through the same command (`dp-bench run`),
//! takes the same results-folder, resume, lock and shard rules, and writes `provenance.json`.
//!
//! A new kind of study is one file here with a `pub const KIND: StudyKind` and one line in
//! [`STUDIES`].

pub mod commands;
mod grid;
mod illustrative;
mod search;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::UsageError;
use crate::experiment::config::toml_error;
use crate::experiment::shard::Shard;

pub use grid::{report_audit, run_audit};

/// Every study kind, in listing order; the first is the default of a config without `study`.
pub static STUDIES: &[StudyKind] = &[
    grid::KIND,
    search::DPARETO,
    search::RANDOM,
    search::GRID_SEARCH,
    illustrative::KIND,
];

/// One kind of study: its `study` value and how it runs.
pub struct StudyKind {
    /// The value of the config's `study` key.
    pub name: &'static str,
    /// One line for `dp-bench list`.
    pub summary: &'static str,
    /// Whether `--shard I/N` splits its work; a sequential study runs whole in shard 0.
    pub shardable: bool,
    /// Validates the config and runs (or resumes) it.
    pub run: fn(&Request) -> anyhow::Result<()>,
    /// Validates the config and says where its results go, for `dp-bench slurm`; an error
    /// for a kind that is not worth a cluster job.
    pub plan: fn(&Path, Option<&Path>) -> anyhow::Result<Planned>,
}

/// What `dp-bench run` asks of a study.
pub struct Request<'a> {
    /// The config file.
    pub path: &'a Path,
    /// Its text (read once, so the kind validates what was dispatched).
    pub text: &'a str,
    /// `--out`, overriding the config's results folder.
    pub out: Option<PathBuf>,
    /// No progress bar.
    pub quiet: bool,
    /// This invocation's shard, if any (only for a [`StudyKind::shardable`] kind).
    pub shard: Option<Shard>,
    /// `--no-external`: refuse a config that runs outside programs.
    pub no_external: bool,
}

/// Where a config's results go, as `dp-bench slurm` needs to know before any task runs.
pub struct Planned {
    /// The results folder.
    pub out: PathBuf,
    /// Whether the folder came from the config's `output_dir` key.
    pub from_key: bool,
}

/// The top-level keys every study kind shares, read before the kind's own parser.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    study: Option<toml::Value>,
    #[serde(default)]
    paper: Option<toml::Value>,
}

/// The kind a config declares (`study = "..."`; the grid when absent), after checking that
/// its `paper`, if any, is in the paper table. Nothing is guessed from other keys.
pub fn declared(text: &str, path: &Path) -> anyhow::Result<&'static StudyKind> {
    let fail = |m: String| anyhow::Error::from(UsageError(format!("{}: {m}", path.display())));
    let head: Head = toml::from_str(text).map_err(|e| toml_error(text, path, &e))?;
    if let Some(p) = head.paper {
        let known = p
            .as_str()
            .is_some_and(|p| crate::papers::paper(p).is_some());
        if !known {
            let ids: Vec<&str> = crate::papers::PAPERS.iter().map(|p| p.id).collect();
            return Err(fail(format!(
                "key `paper` = {} is not a paper of this project; use one of {}, or remove the \
                 key (then results go under results/)",
                shown(&p),
                ids.join(", ")
            )));
        }
    }
    let Some(study) = head.study else {
        return Ok(&STUDIES[0]);
    };
    let names: Vec<String> = STUDIES.iter().map(|s| format!("{:?}", s.name)).collect();
    let found = study
        .as_str()
        .and_then(|s| STUDIES.iter().find(|k| k.name == s));
    found.ok_or_else(|| {
        fail(format!(
            "key `study` = {} is not a kind of study; use one of {} (see `dp-bench list`)",
            shown(&study),
            names.join(", ")
        ))
    })
}

/// A config value on one line for a message: a string quoted and escaped as Rust does (TOML
/// would print a string holding a newline as a multi-line literal), anything else as TOML.
fn shown(v: &toml::Value) -> String {
    match v.as_str() {
        Some(s) => format!("{s:?}"),
        None => v.to_string().replace('\n', "\\n"),
    }
}

/// Reads a config and runs the study it declares.
pub fn run(
    path: &Path,
    out: Option<PathBuf>,
    quiet: bool,
    shard: Option<Shard>,
    no_external: bool,
) -> anyhow::Result<()> {
    let text = read(path)?;
    let kind = declared(&text, path)?;
    if !kind.shardable && idle_shard(path, &format!("a {} study", kind.name), shard) {
        return Ok(());
    }
    let shard = shard.filter(|_| kind.shardable);
    (kind.run)(&Request {
        path,
        text: &text,
        out,
        quiet,
        shard,
        no_external,
    })
}

/// Whether `shard` is one that a study run whole (in shard 0) leaves with nothing to do; says
/// so on stderr. `what` names the study ("an audit").
fn idle_shard(path: &Path, what: &str, shard: Option<Shard>) -> bool {
    let Some(s) = shard.filter(|s| s.index != 0) else {
        return false;
    };
    errln!(
        "{}: {what} runs whole, in shard 0; shard {} of {} has nothing to do",
        path.display(),
        s.index,
        s.count
    );
    true
}

pub use crate::experiment::config::read_text as read;

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Result<&'static str, String> {
        declared(text, Path::new("c.toml"))
            .map(|k| k.name)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_study_key_alone_decides_the_kind() {
        assert_eq!(kind("seed = 1").unwrap(), "grid");
        assert_eq!(kind("study = \"grid\"\n[model]\nkind = 1").unwrap(), "grid");
        assert_eq!(kind("study = \"dpareto\"").unwrap(), "dpareto");
        assert_eq!(kind("study = \"grid-search\"").unwrap(), "grid-search");
        // A key another kind uses does not change the kind.
        assert_eq!(kind("illustrative = \"svt\"").unwrap(), "grid");
        assert_eq!(kind("study = \"illustrative\"").unwrap(), "illustrative");
    }

    #[test]
    fn unknown_kinds_and_papers_are_refused_with_the_valid_names() {
        let e = kind("study = \"bayes\"").unwrap_err();
        assert!(
            e.contains("c.toml: key `study` = \"bayes\"") && e.contains("\"dpareto\""),
            "{e}"
        );
        let e = kind("study = 3").unwrap_err();
        assert!(e.contains("key `study` = 3"), "{e}");
        let e = kind("paper = \"nope\"").unwrap_err();
        assert!(
            e.contains("key `paper` = \"nope\"") && e.contains("avent2020"),
            "{e}"
        );
        // A hostile value is quoted in the message, never echoed raw (one line, escaped).
        let e = kind("study = \"g\\nrid<script>\"").unwrap_err();
        assert!(
            !e.contains('\n') && e.contains(r#""g\nrid<script>""#),
            "{e}"
        );
        let e = kind("study = [").unwrap_err();
        assert!(e.contains("c.toml (line 1"), "{e}");
    }

    #[test]
    fn every_kind_has_a_distinct_name() {
        let mut names: Vec<&str> = STUDIES.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), STUDIES.len());
    }
}
