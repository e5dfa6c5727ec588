//! The interface between the engine and its methods: the [`Method`] trait a learner
//! implements, what a cell returns ([`CellOutcome`]) and how trials aggregate ([`Aggregate`]),
//! and the [`Registry`] a config's `kind`s are looked up in. The table of built-in methods
//! lives a layer up, in `crate::methods`, which implements this interface.

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::de::DeserializeOwned;

use super::audited;
use super::config::{DatasetConfig, MethodSpec};
use super::context::Context;
use super::grid::Cell;
use super::record::CellRecord;
use super::summary::mean_ci95;

/// A cargo feature of dp-bench and the method kinds it adds to `crate::methods::METHODS`.
pub struct FeatureKinds {
    /// The feature's name (`--features NAME`).
    pub feature: &'static str,
    /// Whether this build has the feature.
    pub built: bool,
    /// The kinds it adds.
    pub kinds: &'static [&'static str],
    /// What the kinds need that the default build leaves out, for messages.
    pub needs: &'static str,
    /// What building the feature needs beyond a Rust toolchain, and where that is described.
    pub prerequisites: &'static str,
}

impl FeatureKinds {
    /// How to get the kinds: the build command and its prerequisites.
    pub fn rebuild(&self) -> String {
        format!(
            "rebuild with `cargo build --release -p dp-bench --features {}` (needs {})",
            self.feature, self.prerequisites
        )
    }

    /// The one-line refusal of `kind`, configured at `place` (e.g. "table `methods.x` at line
    /// 3"), in a build without the feature.
    pub fn refusal(&self, kind: &str, place: &str) -> String {
        format!(
            "method kind {kind:?} ({place}) needs {}, which this build lacks: {}",
            self.needs,
            self.rebuild()
        )
    }
}

/// One method kind: its name in configs and how to build it from its table.
pub struct MethodEntry {
    /// The `kind = "..."` value.
    pub kind: &'static str,
    /// One line for `dp-bench list`.
    pub summary: &'static str,
    /// Builds the method from its table (without `kind`), checking every value; an error reads
    /// "KEY` …" so that the config can prefix "key `methods.NAME.".
    pub parse: fn(toml::Table) -> Result<Box<dyn Method>, String>,
}

/// A method table: the built-in `crate::methods::METHODS` plus any a program adds (a researcher's own
/// learner, see `examples/output_perturbation.rs`).
#[derive(Clone)]
pub struct Registry {
    entries: Vec<&'static MethodEntry>,
    features: &'static [FeatureKinds],
}

impl Registry {
    /// A table of `entries`; `features` are the kinds this build may lack, so that a config
    /// naming one is told how to rebuild rather than that the kind is unknown.
    pub fn new(entries: &'static [MethodEntry], features: &'static [FeatureKinds]) -> Self {
        Self {
            entries: entries.iter().collect(),
            features,
        }
    }

    /// The feature that would build `kind`, if `kind` is one this build lacks.
    pub fn missing_feature(&self, kind: &str) -> Option<&'static FeatureKinds> {
        self.features
            .iter()
            .find(|f| !f.built && f.kinds.contains(&kind))
    }

    /// Adds a method kind; a kind already present is replaced.
    pub fn with(mut self, entry: &'static MethodEntry) -> Self {
        self.entries.retain(|e| e.kind != entry.kind);
        self.entries.push(entry);
        self
    }

    /// Every entry, in table order.
    pub fn entries(&self) -> impl Iterator<Item = &'static MethodEntry> + '_ {
        self.entries.iter().copied()
    }

    /// Looks a kind up.
    pub fn entry(&self, kind: &str) -> Option<&'static MethodEntry> {
        self.entries.iter().copied().find(|m| m.kind == kind)
    }

    /// The known kinds, comma-separated (for messages).
    pub fn kinds(&self) -> String {
        let k: Vec<&str> = self.entries.iter().map(|m| m.kind).collect();
        k.join(", ")
    }

    /// The kinds that honour `dataset.one_vs_all` ([`Method::one_vs_all`] of each kind with
    /// its defaults; a kind without defaults for every key is left out), comma-separated.
    pub fn one_vs_all_kinds(&self) -> String {
        let k: Vec<&str> = self
            .entries
            .iter()
            .filter(|e| (e.parse)(toml::Table::new()).is_ok_and(|m| m.one_vs_all()))
            .map(|e| e.kind)
            .collect();
        if k.is_empty() {
            "none in this build".into()
        } else {
            k.join(", ")
        }
    }
}

/// Refuses `dataset.one_vs_all = true` when a configured method would ignore it: such a
/// method trains on the binary labels of one class and its results look like a multi-class
/// answer. The message names the key, each such method and the kinds that support the key.
pub fn check_one_vs_all(
    dataset: &DatasetConfig,
    methods: &BTreeMap<String, MethodSpec>,
    registry: &Registry,
) -> Result<(), String> {
    if !dataset.one_vs_all {
        return Ok(());
    }
    let ignoring: Vec<String> = methods
        .iter()
        .filter(|(_, m)| !m.method.one_vs_all())
        .map(|(name, m)| format!("`methods.{name}` (kind {:?})", m.kind))
        .collect();
    if ignoring.is_empty() {
        return Ok(());
    }
    Err(format!(
        "key `dataset.one_vs_all` = true is not supported by {}, which would train on one \
         class's labels only; remove the key or those methods (kinds that train one problem \
         per class: {})",
        ignoring.join(", "),
        registry.one_vs_all_kinds()
    ))
}

/// Refuses a config whose `relation` a method cannot be certified under: replace-one DP says
/// nothing about adding or removing a record (a mechanism may release n), so no bound takes a
/// replace-one method to add/remove. The message names each such method.
pub fn check_relation(
    relation: Option<dp_core::accounting::Neighbours>,
    methods: &BTreeMap<String, MethodSpec>,
) -> Result<(), String> {
    use dp_core::accounting::Neighbours::{AddRemove, ReplaceOne};
    if relation != Some(AddRemove) {
        return Ok(());
    }
    let refused: Vec<String> = methods
        .iter()
        .filter(|(_, m)| m.method.protocol().relation == Some(ReplaceOne))
        .map(|(name, m)| format!("`methods.{name}` (kind {:?})", m.kind))
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    Err(format!(
        "key `relation` = \"add_remove\" cannot be met by {}, whose guarantee is for \
         replace-one neighbours (it says nothing about adding or removing a record); use \
         `relation = \"replace_one\"` (add/remove methods are then certified by group privacy) \
         or remove the key or those methods",
        refused.join(", ")
    ))
}

/// What one cell of a method produced: what it released and the privacy event of the
/// computation that released it. The runner certifies the event ([`Context::certify`]), adds
/// the cell's identity and wall time, and refuses a cell of a certified calibration whose ε
/// exceeds its target: a method never states its own ε.
#[derive(Clone, Debug, PartialEq)]
pub struct CellOutcome {
    /// Test accuracy (percent) of the released model; NaN for a cell that released nothing
    /// it may be scored on (a failed or over-budget outside learner).
    pub accuracy: f64,
    /// The privacy event of everything the cell ran on the training data (the tuned
    /// procedure for honest tuning, the released run for dishonest tuning, `NonPrivate` for
    /// a reference or a release whose guarantee is only stated, `NoOp` for none).
    pub event: dp_core::accounting::Event,
    /// Everything specific to the method (noise, λ, chosen learning rate, per-candidate
    /// scores, …), stored as JSON in the `details` column.
    pub details: serde_json::Value,
}

impl CellOutcome {
    /// An outcome with the method's own typed `details` (a struct deriving `Serialize`, read
    /// back with `Deserialize`; JSON has no ∞ or NaN, which become `null`).
    pub fn new<D: serde::Serialize>(
        accuracy: f64,
        event: dp_core::accounting::Event,
        details: &D,
    ) -> CellOutcome {
        CellOutcome {
            accuracy,
            event,
            details: serde_json::to_value(details).expect("details are plain structs"),
        }
    }
}

/// The details of a method that has none to give: `{}`.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct NoDetails {}

/// How a (method, ε) group of trials is summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    /// One accuracy per trial.
    pub accuracies: Vec<f64>,
    /// A hyperparameter chosen across trials (dishonest tuning), if any.
    pub chosen: Option<f64>,
    /// The chosen configuration in words (`L=1;lr=0.1`), for grids of several hyperparameters.
    pub label: Option<String>,
    /// ε the accountant certifies for what the summary reports (the largest over its trials),
    /// if the method knows it per configuration; `None` falls back to the cells' values.
    pub epsilon_certified: Option<f64>,
}

impl Aggregate {
    /// The released accuracy of every trial.
    pub fn per_trial(cells: &[&CellRecord]) -> Aggregate {
        Aggregate {
            accuracies: cells.iter().map(|c| c.accuracy).collect(),
            chosen: None,
            label: None,
            epsilon_certified: None,
        }
    }

    /// The candidate with the best mean score over trials, from each cell's
    /// `details.scores = [[candidate, score], …]` (the paper's "best mean test accuracy" of
    /// dishonest tuning); candidates missing from some trial are ignored. With validation
    /// rows the scores are validation accuracies and each trial's reported accuracy is the
    /// chosen candidate's from `details.test_scores`. Falls back to [`Aggregate::per_trial`]
    /// when no candidate ran in every trial.
    pub fn best_mean_over_candidates(cells: &[&CellRecord]) -> Aggregate {
        let mut by_value: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
        for c in cells {
            for (v, s) in scores(c, "scores") {
                by_value.entry(v.to_bits()).or_default().push(s);
            }
        }
        let best = by_value
            .iter()
            .filter(|(_, v)| v.len() == cells.len())
            .max_by(|a, b| mean_ci95(a.1).0.total_cmp(&mean_ci95(b.1).0));
        let Some((v, accs)) = best else {
            return Aggregate::per_trial(cells);
        };
        let tested = cells.iter().all(|c| c.details.get("test_scores").is_some());
        let accuracies = if tested {
            // The chosen candidate's test accuracy in each trial (its first run there).
            cells
                .iter()
                .map(|c| {
                    scores(c, "test_scores")
                        .into_iter()
                        .find(|(w, _)| w.to_bits() == *v)
                        .map_or(f64::NAN, |(_, a)| a)
                })
                .collect()
        } else {
            accs.clone()
        };
        Aggregate {
            accuracies,
            chosen: Some(f64::from_bits(*v)),
            label: None,
            epsilon_certified: None,
        }
    }
}

/// `details.<key>` of a cell (`scores`, `test_scores`) as (candidate, value) pairs.
pub fn scores(c: &CellRecord, key: &str) -> Vec<(f64, f64)> {
    c.details
        .get(key)
        .and_then(|s| serde_json::from_value::<Vec<(f64, f64)>>(s.clone()).ok())
        .unwrap_or_default()
}

/// How a method was run, in words for tables and figures (`None`: not applicable, e.g. a
/// non-private reference has no calibration).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Protocol {
    /// Noise calibration: `paper` (as the paper's code computes it) or `certified`.
    pub calibration: Option<&'static str>,
    /// Hyperparameter tuning: `dishonest` (best of grid, cost ignored), `honest`, or `fixed`
    /// (a learner that can be tuned, run with fixed hyperparameters).
    pub tuning: Option<&'static str>,
    /// The neighbouring relation its certified ε is for: equal ε under replace-one and
    /// add/remove are not equal guarantees (replace-one is one removal and one addition).
    pub relation: Option<dp_core::accounting::Neighbours>,
}

/// What an audit of a method speaks for, and what the leaderboard matches audits with: its
/// name in tables, its calibration and every command it runs. An outside learner is its
/// command line, whatever hyperparameters or tuning a config gives it: an audit tests what
/// the program declares, not one setting of it.
pub fn identity(m: &dyn Method) -> String {
    let mut s = m.display_name();
    if let Some(cal) = m.protocol().calibration {
        s.push_str(&format!(" ({cal})"));
    }
    for argv in m.commands() {
        s.push(' ');
        s.push_str(&serde_json::Value::from(argv).to_string());
    }
    s
}

/// A method of the grid.
pub trait Method: Send + Sync + Debug {
    /// The `kind` of its table.
    fn kind(&self) -> &'static str;

    /// Its parameters with defaults filled in (config copy and resume fingerprint).
    fn params(&self) -> serde_json::Value;

    /// Calibrates to the cell's target, builds the mechanism, fits it and scores the release.
    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome>;

    /// Calibrates for target `epsilon` (at the config's δ, on `ctx`'s data) exactly as
    /// [`Method::run`] would, without training: an error when the target is out of the
    /// method's reach. The runner calls it once per (method, ε) before any cell runs or any
    /// stored cell is moved, so that a config fails at validation, not after hours. The
    /// default (nothing to calibrate, or nothing knowable before a run) accepts.
    fn check_target(&self, _ctx: &Context<'_>, _epsilon: f64) -> anyhow::Result<()> {
        Ok(())
    }

    /// Trials of one (method, ε) to one summary value; most methods average what each trial
    /// released.
    /// An error when a stored cell cannot be read back as the method's outcome.
    fn aggregate(&self, cells: &[&CellRecord]) -> anyhow::Result<Aggregate> {
        Ok(Aggregate::per_trial(cells))
    }

    /// Whether the method honours `dataset.one_vs_all = true`: one binary problem per class of
    /// [`Context::classes`] and an argmax prediction. The default is no, so that a method which
    /// never reads the classes is refused such a config ([`check_one_vs_all`]) rather than
    /// silently trained on one class's labels.
    fn one_vs_all(&self) -> bool {
        false
    }

    /// The programs it runs, each an argv (an outside learner's worker): shown before a run
    /// starts and by `dp-bench check`. Built-in methods run none.
    fn commands(&self) -> Vec<Vec<String>> {
        Vec::new()
    }

    /// Its calibration and tuning, for tables that label rows by them rather than by name.
    fn protocol(&self) -> Protocol {
        Protocol::default()
    }

    /// Whether the method is a deterministic, non-private reference line (a non-private
    /// optimum): it then runs once, at the config's first ε and trial 0, whatever the grid.
    fn reference(&self) -> bool {
        false
    }

    /// Whether the method makes no privacy claim at all (a non-private baseline, run at every
    /// ε like the others, or a [`Method::reference`]): tables draw it as a level, never rank it.
    fn non_private(&self) -> bool {
        self.reference()
    }

    /// How tables name the learner: its kind, or more where one kind holds many learners (an
    /// outside learner adds its program's name).
    fn display_name(&self) -> String {
        self.kind().to_string()
    }

    /// A static estimate of one cell's cost relative to other methods (about the number of
    /// passes over the data it makes), used only to balance shards: it must depend on the
    /// config alone, never on timings. The default is one pass.
    fn cost(&self) -> f64 {
        1.0
    }

    /// Version of how the method draws its randomness, bumped when the same config starts to
    /// give different results, so that a resumed run never mixes cells of two versions (0,
    /// the default, leaves the cell fingerprints as they were).
    fn scheme(&self) -> u32 {
        0
    }

    /// The one mechanism a cell at `epsilon` runs on `ctx.train`, calibrated as
    /// [`Method::run`] calibrates it: what `dp-bench audit` runs many times. Methods that are
    /// not one mechanism (non-private references, procedures tuned over several runs) say why
    /// not.
    fn mechanism<'c>(
        &'c self,
        _ctx: &Context<'c>,
        _epsilon: f64,
    ) -> anyhow::Result<audited::Audited<'c>> {
        anyhow::bail!(
            "kind {:?} is not one mechanism that an audit can run: it is a reference, or a \
             procedure over several runs (docs/audit.md lists the kinds that are one mechanism \
             and the settings that make them so)",
            self.kind()
        )
    }
}

/// Deserialises a method's table into its config struct (`deny_unknown_fields` there makes
/// misspelt keys errors that name the key).
pub fn parse_table<T: DeserializeOwned>(table: toml::Table) -> Result<T, String> {
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| e.message().trim().to_string())
}

/// Checks a tuned learner's `grid_size` (honest tuning's P\[K > grid_size\] reference, or the
/// number of grid points of a dishonest one) against 1 ..= [`MAX_TUNING_RUNS`].
///
/// [`MAX_TUNING_RUNS`]: dp_core::accounting::private_selection::MAX_TUNING_RUNS
pub fn check_grid_size(v: u64) -> Result<(), String> {
    use dp_core::accounting::private_selection::MAX_TUNING_RUNS;
    if (1..=MAX_TUNING_RUNS).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "grid_size` = {v} must be in 1..={MAX_TUNING_RUNS}: every one of about grid_size \
             runs is a whole training in one cell (docs/limits.md)"
        ))
    }
}

/// A dp-core range error as "KEY` = VALUE ALLOWED", with the parameter named as in configs
/// (`sigma-out` → `sigma_out`).
pub fn param_error(e: dp_core::DpError) -> String {
    match e {
        dp_core::DpError::OutOfRange {
            name,
            value,
            allowed,
        } => format!("{}` = {value} {allowed}", name.replace('-', "_")),
        other => format!("…`: {other}"),
    }
}
