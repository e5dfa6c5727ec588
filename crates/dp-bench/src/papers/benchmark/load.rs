//! Finds the benchmark's runs under a results folder and reads each, from its checksummed
//! cells, into entries labelled by learner: a learner is a method kind with its calibration and tuning (from
//! [`crate::methods::Method::protocol`]), never a method's name, so that one learner is the
//! same row on every dataset whatever its configs call it.

use dp_core::accounting::Neighbours;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::cell_stats::{MIN_TRIALS, mean_t95};
use crate::experiment::config::MethodSpec;
use crate::experiment::grid::expand;
use crate::experiment::record::{EPSILON_ADD_REMOVE, PURE_DP};
use crate::experiment::store::CellRecord;
use crate::experiment::summary;
use crate::experiment::verified;

/// The `paper` value of the configs whose runs the leaderboard reads.
pub const PAPER: &str = "benchmark";

/// What an entry is on the leaderboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Honestly tuned, or with nothing to tune (one run at the full budget), certified under
    /// the leaderboard's relation ([`place_on_axis`]): ranked.
    Ranked,
    /// As [`Role::Ranked`] but certified under another relation: its ε is not on the
    /// ranking axis, so it is drawn and listed, never ranked.
    OffAxis,
    /// Best of a grid whose tuning is not paid for: drawn for reference, never ranked.
    Dishonest,
    /// A learner whose audit measured more privacy loss than its declared events certify
    /// ([`super::audits`]): what it declares is false, so it is drawn, never ranked.
    Refuted,
    /// A learner that claims privacy but that nothing here certifies at any ε (RSPM's stated
    /// ε): drawn for reference beside the others, never ranked.
    Refused,
    /// A non-private reference: a horizontal line, never ranked.
    Reference,
}

/// One (method, ε) of one run.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The learner label (kind, calibration, tuning), the same on every dataset.
    pub learner: String,
    /// The learner without its tuning: a dishonest entry's honest counterpart has this too.
    pub base: String,
    /// What an audit of it speaks for ([`crate::experiment::method::identity`]).
    pub identity: String,
    /// Its audits, when the results folder holds any ([`super::audits::attach`]).
    pub audit: Option<super::audits::AuditSummary>,
    /// Ranked, dishonest or reference.
    pub role: Role,
    /// The neighbouring relation its certified ε is for (`add/remove`, `replace-one`; empty
    /// when it has none, as a non-private reference): the run's `relation` key, else the
    /// method's own.
    pub relation: &'static str,
    /// The relation of the ranking axis, once [`place_on_axis`] has set it.
    pub axis: &'static str,
    /// The largest add/remove ε over the trials of an add/remove method certified under
    /// replace-one by group privacy (the other relation's ε, beside the ranked one).
    pub epsilon_add_remove: Option<f64>,
    /// Every trial's event is pure ε-DP (δ plays no part), as the run recorded it.
    pub pure: bool,
    /// Target ε.
    pub epsilon: f64,
    /// Mean test accuracy (percent), from the summary recomputed from the cells.
    pub mean: f64,
    /// Half-width of the 95 % Student-t interval of the mean (NaN under two trials).
    pub ci95: f64,
    /// Trials aggregated.
    pub trials: usize,
    /// Largest certified ε over the trials, from the summary recomputed from the cells.
    pub epsilon_certified: f64,
    /// What each trial released (as the summary aggregates them), for Welch's test.
    pub accuracies: Vec<f64>,
    /// Wall time of each cell (ms).
    pub wall_ms: Vec<f64>,
}

impl Entry {
    /// Ranked with fewer than [`MIN_TRIALS`] trials: marked † in the tables.
    pub fn few_trials(&self) -> bool {
        self.role == Role::Ranked && self.unranked_reason().is_none() && self.trials < MIN_TRIALS
    }

    /// Why an honest entry is not on the ranking axis (its relation), if it is not.
    pub fn off_axis_reason(&self) -> Option<String> {
        let axis = self.axis;
        (self.role == Role::OffAxis).then(|| match self.relation {
            "" => format!("no neighbouring relation declared: not on the {axis} ranking axis"),
            r => format!("{r} ε: not on the {axis} ranking axis"),
        })
    }

    /// The kind of guarantee, as the tables spell it: "pure ε" where every trial's event
    /// is pure ε-DP, else "(ε, δ)" at the run's δ.
    pub fn guarantee(&self) -> &'static str {
        match self.role {
            Role::Reference => "none (non-private)",
            Role::Refused => "stated, not certified",
            Role::Refuted => "declared, refuted by audit",
            Role::Ranked | Role::OffAxis | Role::Dishonest if self.pure => "pure ε",
            Role::Ranked | Role::OffAxis | Role::Dishonest => "(ε, δ)",
        }
    }

    /// Why the entry is not a result at its target ε, if it is not: no accuracy (a failed or
    /// over-budget external learner) or a certified ε above the target.
    pub fn unranked_reason(&self) -> Option<String> {
        if !self.mean.is_finite() {
            Some("no accuracy (a trial failed or went over budget)".into())
        } else if self.epsilon_certified > self.epsilon * (1.0 + 1e-9) {
            Some(format!(
                "certified ε {} exceeds the target",
                crate::figures::csv::format_number(self.epsilon_certified)
            ))
        } else {
            None
        }
    }
}

/// One run folder: one dataset.
#[derive(Clone, Debug)]
pub struct Run {
    /// Folder name under the results folder (the config's stem).
    pub stem: String,
    /// The registry dataset it trains on.
    pub dataset: String,
    /// Its target ε values, increasing.
    pub epsilons: Vec<f64>,
    /// Its δ.
    pub delta: f64,
    /// A binary task (its config does not set `dataset.one_vs_all = true`).
    pub binary: bool,
    /// Its config's `relation` key: the relation every method was certified under.
    pub relation: Option<Neighbours>,
    /// Every (method, ε) of its summary (recomputed from the cells).
    pub entries: Vec<Entry>,
}

/// What encoding `dataset`'s records reads of the other records, if anything
/// ([`dp_data::Encoding`]): the dataset is then not end-to-end private.
pub fn reads_rows(dataset: &str) -> Option<&'static str> {
    let id: dp_data::DatasetId = dataset.parse().ok()?;
    match id.spec().encoding {
        dp_data::Encoding::Public => None,
        dp_data::Encoding::ReadsRows(why) => Some(why),
    }
}

impl Run {
    /// `stem (dataset)`, marked ‡ when the dataset's encoding reads the rows.
    pub fn label(&self) -> String {
        let mark = if reads_rows(&self.dataset).is_some() {
            " ‡"
        } else {
            ""
        };
        format!("{} ({}){mark}", self.stem, self.dataset)
    }
}

/// Every folder directly under `results` that holds a `summary.csv` (a finished run: its
/// values are not read, [`load`] recomputes them from the cells) and a `config.toml` with
/// `paper = "benchmark"`, in name order.
pub fn discover(results: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let Ok(list) = std::fs::read_dir(results) else {
        return Ok(Vec::new());
    };
    let mut dirs: Vec<PathBuf> = list
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|d| d.join("summary.csv").is_file() && d.join("config.toml").is_file())
        .collect();
    dirs.sort();
    let mut ours = Vec::new();
    for d in dirs {
        // The `paper` key alone decides; a config of another paper is not parsed further.
        let path = d.join("config.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let table: toml::Table = match toml::from_str(&text) {
            Ok(t) => t,
            Err(_) => continue,
        };
        if table.get("paper").and_then(|p| p.as_str()) == Some(PAPER) {
            ours.push(d);
        }
    }
    Ok(ours)
}

/// A relation as the tables spell it.
fn relation_name(r: Option<Neighbours>) -> &'static str {
    match r {
        Some(Neighbours::AddRemove) => "add/remove",
        Some(Neighbours::ReplaceOne) => "replace-one",
        None => "",
    }
}

/// The learner label and base of a method, and its role.
fn learner(spec: &MethodSpec, rows: &[&summary::SummaryRow]) -> (String, String, Role) {
    let protocol = spec.method.protocol();
    let mut base = spec.method.display_name();
    if spec.method.non_private() {
        return (format!("{base} (non-private)"), base, Role::Reference);
    }
    if let Some(cal) = protocol.calibration {
        base = format!("{base} ({cal})");
    }
    // A private learner whose every cell certifies ∞ is not a non-private level: its accuracy
    // moves with ε, and its claim is what is refused.
    if matches!(protocol.tuning, None | Some("fixed"))
        && !rows.is_empty()
        && rows.iter().all(|r| r.epsilon_certified == f64::INFINITY)
    {
        return (format!("{base} (ε not certified)"), base, Role::Refused);
    }
    // Whether its relation is the ranking axis is decided over every run ([`place_on_axis`]).
    let ranked = Role::Ranked;
    match protocol.tuning {
        Some("dishonest") => (
            format!("{base}, best of grid (tuning not paid)"),
            base,
            Role::Dishonest,
        ),
        // A learner that can also run tuned over a prior: its fixed-defaults run is another
        // learner, not the same curve.
        Some("fixed") => {
            let base = format!("{base}, fixed");
            (base.clone(), base, ranked)
        }
        Some(t) => (format!("{base}, {t}"), base, ranked),
        None => (base.clone(), base, ranked),
    }
}

/// Reads one run folder from its checksummed cells and config copy
/// ([`verified::load`]: a `summary.csv` that differs from them, or a folder without cells, is
/// an error naming it).
pub fn load(dir: &Path) -> anyhow::Result<Run> {
    let verified::VerifiedRun {
        config: cfg,
        cells: all,
        rows,
    } = verified::load(dir)?;
    let current: HashSet<String> = expand(&cfg).iter().map(|c| c.key()).collect();
    let mut cells: BTreeMap<(String, u64), Vec<CellRecord>> = BTreeMap::new();
    for c in all {
        if current.contains(&c.key) {
            cells
                .entry((c.method.clone(), c.epsilon.to_bits()))
                .or_default()
                .push(c);
        }
    }
    let mut learners: Vec<(&String, &MethodSpec, String, String, Role)> = cfg
        .methods
        .iter()
        .map(|(name, spec)| {
            let mine: Vec<&summary::SummaryRow> =
                rows.iter().filter(|r| &r.method == name).collect();
            let (label, base, role) = learner(spec, &mine);
            (name, spec, label, base, role)
        })
        .collect();
    // Two methods of one run with one protocol: only their names tell them apart.
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for l in &learners {
        *count.entry(l.2.clone()).or_default() += 1;
    }
    for (name, _, label, base, _) in &mut learners {
        if count[label.as_str()] > 1 {
            label.push_str(&format!(" [{name}]"));
            base.push_str(&format!(" [{name}]"));
        }
    }
    let mut entries = Vec::new();
    for (name, spec, label, base, role) in learners {
        let mine = rows.iter().filter(|r| &r.method == name);
        for r in mine {
            let group = cells
                .get(&(name.clone(), r.epsilon.to_bits()))
                .map(Vec::as_slice)
                .unwrap_or_default();
            let refs: Vec<&CellRecord> = group.iter().collect();
            let accuracies = if refs.is_empty() {
                Vec::new()
            } else {
                spec.method.aggregate(&refs)?.accuracies
            };
            let has =
                |key: &str| !group.is_empty() && group.iter().all(|c| c.details.get(key).is_some());
            // A null (∞ has no JSON number) reads as NaN: the largest is then ∞.
            let epsilon_add_remove = has(EPSILON_ADD_REMOVE).then(|| {
                group
                    .iter()
                    .map(|c| c.detail(EPSILON_ADD_REMOVE))
                    .fold(
                        0.0,
                        |m: f64, e| if e.is_nan() { f64::INFINITY } else { m.max(e) },
                    )
            });
            let pure = has(PURE_DP)
                && group
                    .iter()
                    .all(|c| c.details[PURE_DP] == serde_json::Value::Bool(true));
            entries.push(Entry {
                learner: label.clone(),
                base: base.clone(),
                identity: crate::experiment::method::identity(spec.method.as_ref()),
                audit: None,
                role,
                relation: relation_name(cfg.relation.or(spec.method.protocol().relation)),
                axis: "",
                epsilon_add_remove,
                pure,
                epsilon: r.epsilon,
                mean: r.mean_accuracy,
                ci95: mean_t95(&accuracies).1,
                trials: r.trials,
                epsilon_certified: r.epsilon_certified,
                accuracies,
                wall_ms: group.iter().map(|c| c.wall_ms).collect(),
            });
        }
    }
    let mut epsilons = cfg.epsilons.clone();
    epsilons.sort_by(f64::total_cmp);
    epsilons.dedup();
    Ok(Run {
        stem: dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        dataset: cfg.dataset.name.clone(),
        epsilons,
        delta: cfg.delta,
        binary: !cfg.dataset.one_vs_all,
        relation: cfg.relation,
        entries,
    })
}

/// The leaderboard's one ranking relation: the `relation` key every run shares (add/remove
/// when none sets it, as runs before the key were ranked), an error naming the runs when
/// they differ. An honest entry certified under another relation becomes [`Role::OffAxis`].
pub fn place_on_axis(runs: &mut [Run]) -> anyhow::Result<Neighbours> {
    let shown = |r: Option<Neighbours>| match r {
        None => "not set: each method's own",
        r => relation_name(r),
    };
    let set: Vec<(&str, Option<Neighbours>)> =
        runs.iter().map(|r| (r.stem.as_str(), r.relation)).collect();
    if let Some(((a, ra), (b, rb))) = set.iter().zip(set.iter().skip(1)).find(|(x, y)| x.1 != y.1) {
        anyhow::bail!(
            "the runs {a} (relation {}) and {b} (relation {}) are certified under different \
             neighbouring relations, so their ε cannot share one ranking axis: give every \
             benchmark config the same `relation` key",
            shown(*ra),
            shown(*rb),
        );
    }
    let axis = set
        .first()
        .and_then(|s| s.1)
        .unwrap_or(Neighbours::AddRemove);
    let name = relation_name(Some(axis));
    for e in runs.iter_mut().flat_map(|r| r.entries.iter_mut()) {
        e.axis = name;
        if e.role == Role::Ranked && e.relation != name {
            e.role = Role::OffAxis;
        }
    }
    Ok(axis)
}
