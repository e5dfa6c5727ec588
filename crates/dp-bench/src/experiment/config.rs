//! The TOML experiment config: parsing and validation before any work starts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use dp_core::accounting::Neighbours;
use serde::Deserialize;

use super::audit_settings::AuditSettings;
pub use super::dataset_config::DatasetConfig;
use super::method::{Method, Registry};
use crate::error::UsageError;

/// TOML has no null: drop absent optional values before writing.
fn drop_nulls(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => m
            .into_iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k, drop_nulls(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => other,
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// A config file's text; a file that cannot be read is a usage error naming it (exit 2).
pub fn read_text(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read config file {}: {e}", path.display())).into())
}

/// A TOML parse error of config file `path` with the offending line quoted.
pub fn toml_error(text: &str, path: &Path, e: &toml::de::Error) -> UsageError {
    let loc = e
        .span()
        .map(|s| {
            let line = line_of(text, s.start);
            let src = text.lines().nth(line - 1).unwrap_or("").trim();
            format!(" (line {line}: `{src}`)")
        })
        .unwrap_or_default();
    UsageError(format!("{}{loc}: {}", path.display(), e.message()))
}

/// Target ε a config may ask for. Below 1e-6 the calibrated noise overflows the learners'
/// arithmetic (a subnormal ε such as 1e-320 passed validation and failed mid-run); above 1e6
/// no calibration is meaningful. Every ε the papers use lies far inside.
pub const EPSILON_RANGE: (f64, f64) = (1e-6, 1e6);

/// δ a config may ask for. At δ ≥ ½ a mechanism may publish a record outright half the time:
/// no privacy guarantee. Below 1e-100 no dataset needs it (1/n² of 10⁵⁰ rows), and near the
/// subnormal floor (5e-324 passed validation) the accountants' ln δ loses its precision.
pub const DELTA_RANGE: (f64, f64) = (1e-100, 0.5);

/// Most cells one config may have: every finished cell is held in memory (about 1 KB with its
/// details), so two million cells need about 2 GB, and `trials = 4000000000` is refused
/// instead of growing until the process is killed.
pub const MAX_CELLS: u64 = 2_000_000;

/// Longest method name: names become file names (an audit's `NAME@ε.json`, figure files) and
/// table columns, and a file name has at most 255 bytes; 64 leaves room for what is added.
pub const MAX_NAME_LEN: usize = 64;

/// Method names are row labels in CSV files, columns of Markdown tables and parts of cell keys
/// (`method|ε|trial|…`), so they keep to characters none of those treat specially.
fn check_method_name(name: &str) -> Result<(), String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "_.+-".contains(c);
    if name.len() > MAX_NAME_LEN {
        let short: String = name.chars().take(20).collect();
        return Err(format!(
            "table `methods.{short:?}…`: a method name has at most {MAX_NAME_LEN} characters \
             (this one has {}; names become file names and table columns); shorten it",
            name.len()
        ));
    }
    if !name.is_empty() && name.chars().all(ok) {
        return Ok(());
    }
    let fix: String = name.chars().map(|c| if ok(c) { c } else { '_' }).collect();
    Err(format!(
        "table `methods.{name:?}`: a method name may only hold letters, digits and `_ . + -` \
         (it labels CSV rows and table columns); rename it, e.g. [methods.{:?}]",
        if fix.is_empty() { "m" } else { &fix }
    ))
}

/// The file as written, before the methods are looked up in the method table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    paper: Option<String>,
    /// Only ever "grid" here: `crate::studies::declared` routed the config by it.
    #[serde(default, rename = "study")]
    _study: Option<String>,
    #[serde(default)]
    experiment: Option<String>,
    seed: u64,
    trials: u32,
    epsilons: Vec<f64>,
    delta: DeltaSpec,
    #[serde(default)]
    output_dir: Option<PathBuf>,
    dataset: DatasetConfig,
    methods: BTreeMap<String, toml::Spanned<toml::Table>>,
    #[serde(default)]
    audit: Option<AuditSettings>,
    #[serde(default)]
    relation: Option<Neighbours>,
}

/// `delta` as written: a number, or `"1/n^2"` (Iyengar et al.'s δ = 1/n_train²).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum DeltaSpec {
    Value(f64),
    Rule(String),
}

/// The δ rules a config may name instead of a number.
pub const DELTA_RULES: &[&str] = &["1/n^2"];

impl DeltaSpec {
    /// δ for the config's dataset. The training-set size comes from the registry's known row
    /// count and the split fraction (no loading); [`crate::methods::Prepared::new`] checks it
    /// against the loaded data.
    fn resolve(&self, d: &DatasetConfig) -> Result<(f64, Option<String>), String> {
        match self {
            DeltaSpec::Value(v) => Ok((*v, None)),
            DeltaSpec::Rule(r) if r == "1/n^2" => {
                let id: dp_data::DatasetId = d.name.parse().map_err(|_| {
                    format!("key `dataset.name` = {:?} is not a known dataset", d.name)
                })?;
                let all = d
                    .preprocess()
                    .train_rows(dp_data::load::expected_shape(id).0);
                let n = d.subsample.unwrap_or(all) as f64;
                Ok((1.0 / (n * n), Some(r.clone())))
            }
            DeltaSpec::Rule(r) => Err(format!(
                "key `delta` = {r:?} must be a number in (0, 1) or one of: {}",
                DELTA_RULES.join(", ")
            )),
        }
    }
}

/// One `[methods.NAME]` table: its kind and the method built from it.
#[derive(Clone, Debug)]
pub struct MethodSpec {
    /// The `kind` value, as found in [`crate::methods::METHODS`].
    pub kind: &'static str,
    /// The parsed, checked method.
    pub method: Arc<dyn Method>,
}

/// A whole experiment: dataset, privacy targets, trials and methods.
#[derive(Clone, Debug)]
pub struct Config {
    /// The paper this config reproduces (an id of [`crate::papers::PAPERS`]), if any; results
    /// then default to `results/<paper>/<config stem>`.
    pub paper: Option<String>,
    /// Free-form experiment name used in figure titles (defaults to the paper id or `experiment`).
    pub experiment: String,
    /// Master seed; every cell's seed derives from it and the cell key.
    pub seed: u64,
    /// Independent repetitions per (method, ε).
    pub trials: u32,
    /// Target ε values.
    pub epsilons: Vec<f64>,
    /// Target δ for every ε.
    pub delta: f64,
    /// The rule δ came from (`"1/n^2"`), if it was not given as a number.
    pub delta_rule: Option<String>,
    /// Where results go (default `results/[<paper>/]<config file stem>`); `--out` overrides it.
    pub output_dir: Option<PathBuf>,
    /// Dataset and preprocessing.
    pub dataset: DatasetConfig,
    /// Methods by name (the name is what the summary reports).
    pub methods: BTreeMap<String, MethodSpec>,
    /// `[audit]`: the config is an audit of its methods (`dp-bench audit`), not a grid.
    pub audit: Option<AuditSettings>,
    /// The neighbouring relation every method is calibrated and certified under (`relation =
    /// "replace_one"`: add/remove methods by group privacy); `None` leaves each method at its
    /// own relation, as the papers ran them.
    pub relation: Option<Neighbours>,
}

impl Config {
    /// Parses and validates config text with a method table (`Config::parse` uses the
    /// built-in one); `path` is only used in messages.
    pub fn parse_with(text: &str, path: &Path, registry: &Registry) -> anyhow::Result<Config> {
        let kinds = || registry.kinds();
        let raw: RawConfig = toml::from_str(text).map_err(|e| toml_error(text, path, &e))?;
        let fail = |m: String| UsageError(format!("{}: {m}", path.display()));
        let mut methods = BTreeMap::new();
        for (name, spanned) in raw.methods {
            let line = line_of(text, spanned.span().start);
            check_method_name(&name).map_err(|m| fail(format!("{m} (line {line})")))?;
            let at = |m: String| fail(format!("{m} (table `methods.{name}` at line {line})"));
            let mut table = spanned.into_inner();
            let kind = match table.remove("kind") {
                Some(toml::Value::String(k)) => k,
                Some(other) => {
                    return Err(at(format!(
                        "key `methods.{name}.kind` = {other} must be a string"
                    ))
                    .into());
                }
                None => {
                    return Err(at(format!(
                        "table `methods.{name}` needs a `kind` ({})",
                        kinds()
                    ))
                    .into());
                }
            };
            let Some(entry) = registry.entry(&kind) else {
                // A kind of a cargo feature this build lacks: say how to rebuild, not "unknown".
                if let Some(f) = registry.missing_feature(&kind) {
                    let place = format!("table `methods.{name}` at line {line}");
                    return Err(fail(f.refusal(&kind, &place)).into());
                }
                return Err(at(format!(
                    "key `methods.{name}.kind` = {kind:?} is not a known method kind; use one of: {}",
                    kinds()
                ))
                .into());
            };
            let method = (entry.parse)(table).map_err(|e| {
                // A method's own range errors start with the key (`KEY` = VALUE …`); serde's
                // (`unknown field `epoch`, expected …`) are sentences about the table.
                let names_key = e
                    .split_once('`')
                    .is_some_and(|(k, _)| !k.is_empty() && !k.contains(char::is_whitespace));
                if names_key {
                    at(format!("key `methods.{name}.{e}"))
                } else {
                    fail(format!("methods.{name}: {e} (line {line})"))
                }
            })?;
            methods.insert(
                name,
                MethodSpec {
                    kind: entry.kind,
                    method: Arc::from(method),
                },
            );
        }
        let (delta, delta_rule) = raw.delta.resolve(&raw.dataset).map_err(fail)?;
        let cfg = Config {
            experiment: raw
                .experiment
                .or_else(|| raw.paper.clone())
                .unwrap_or_else(|| "experiment".into()),
            paper: raw.paper,
            seed: raw.seed,
            trials: raw.trials,
            epsilons: raw.epsilons,
            delta,
            delta_rule,
            output_dir: raw.output_dir,
            dataset: raw.dataset,
            methods,
            audit: raw.audit,
            relation: raw.relation,
        };
        cfg.validate().map_err(fail)?;
        super::method::check_one_vs_all(&cfg.dataset, &cfg.methods, registry).map_err(fail)?;
        super::method::check_relation(cfg.relation, &cfg.methods).map_err(fail)?;
        Ok(cfg)
    }

    /// The config with every default filled in, as TOML (the copy saved beside the results).
    pub fn to_toml(&self) -> anyhow::Result<String> {
        let methods: serde_json::Map<String, serde_json::Value> = self
            .methods
            .iter()
            .map(|(name, m)| {
                let mut p = m.method.params();
                if let Some(obj) = p.as_object_mut() {
                    obj.insert("kind".into(), m.kind.into());
                }
                (name.clone(), p)
            })
            .collect();
        let mut v = serde_json::json!({
            "experiment": self.experiment,
            "seed": self.seed,
            "trials": self.trials,
            "epsilons": self.epsilons,
            "delta": self.delta,
            "dataset": self.dataset,
            "methods": methods,
        });
        if let Some(r) = &self.delta_rule {
            v["delta"] = r.clone().into();
        }
        if let Some(p) = &self.paper {
            v["paper"] = p.clone().into();
        }
        if let Some(r) = self.relation {
            v["relation"] = serde_json::to_value(r)?;
        }
        if let Some(d) = &self.output_dir {
            v["output_dir"] = d.display().to_string().into();
        }
        if let Some(a) = &self.audit {
            v["audit"] = serde_json::to_value(a)?;
        }
        Ok(toml::to_string_pretty(&drop_nulls(v))?)
    }

    /// Range checks serde cannot express; the message names the key and the allowed range.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(a) = &self.audit {
            a.validate(self.trials)?;
        }
        if self.trials == 0 {
            return Err("key `trials` must be >= 1".into());
        }
        if self.epsilons.is_empty() {
            return Err("key `epsilons` must list at least one value".into());
        }
        for (i, &e) in self.epsilons.iter().enumerate() {
            if !(EPSILON_RANGE.0..=EPSILON_RANGE.1).contains(&e) {
                return Err(format!(
                    "key `epsilons[{i}]` = {} must be in [{:e}, {:e}] (the range the \
                     calibrations are tested on; see docs/limits.md)",
                    crate::quoting::number(e),
                    EPSILON_RANGE.0,
                    EPSILON_RANGE.1
                ));
            }
            if let Some(j) = self.epsilons[..i].iter().position(|&f| f == e) {
                return Err(format!(
                    "key `epsilons` lists {} twice (entries {j} and {i}): each ε would run and \
                     count twice; remove one",
                    crate::quoting::number(e)
                ));
            }
        }
        let cells = self.methods.len() as u128 * self.epsilons.len() as u128 * self.trials as u128;
        if cells > MAX_CELLS as u128 {
            return Err(format!(
                "the grid has {cells} cells ({} methods × {} ε × {} trials), more than the {MAX_CELLS} \
                 one run holds in memory; lower `trials` or split the config (see docs/limits.md)",
                self.methods.len(),
                self.epsilons.len(),
                self.trials
            ));
        }
        if !(DELTA_RANGE.0..=DELTA_RANGE.1).contains(&self.delta) {
            return Err(format!(
                "key `delta` = {} must be in [{:e}, {}] (see docs/limits.md){}",
                crate::quoting::number(self.delta),
                DELTA_RANGE.0,
                DELTA_RANGE.1,
                self.delta_rule
                    .as_ref()
                    .map_or(String::new(), |r| format!(" (from the rule {r:?})"))
            ));
        }
        let d = &self.dataset;
        d.check()?;
        let known: Vec<&str> = dp_data::list().iter().map(|d| d.name()).collect();
        if !known.contains(&d.name.as_str()) {
            return Err(format!(
                "key `dataset.name` = {:?} is not a known dataset; use one of: {}",
                d.name,
                known.join(", ")
            ));
        }
        d.preprocess()
            .validate()
            .map_err(|e| format!("table `dataset`: {e}"))?;
        if self.methods.is_empty() {
            return Err("table `methods` must define at least one method".into());
        }
        if let Some(d) = &self.output_dir {
            crate::files::check_results_path(d).map_err(|e| format!("key `output_dir`: {e}"))?;
        }
        // `paper` is checked against the paper table by the study dispatcher
        // (`crate::studies::declared`), the layer that knows the papers.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
experiment = "t"
seed = 1
trials = 2
epsilons = [0.5, 1.0]
delta = 1e-5
[dataset]
name = "synthetic-l"
[methods.alg1]
kind = "alg1"
[methods.dpsgd_honest]
kind = "dpsgd"
tuning = "honest"
"#;

    #[test]
    fn parses_a_good_config_with_defaults() {
        let c = Config::parse(GOOD, Path::new("x.toml")).unwrap();
        assert_eq!(c.methods.len(), 2);
        assert_eq!(c.methods["alg1"].kind, "alg1");
        assert_eq!(c.methods["alg1"].method.params()["tau"], 0.01);
        assert!(c.dataset.normalize_rows);
        // The saved copy parses back to the same parameters.
        let again = Config::parse(&c.to_toml().unwrap(), Path::new("copy.toml")).unwrap();
        for (name, m) in &c.methods {
            assert_eq!(again.methods[name].method.params(), m.method.params());
        }
    }

    #[test]
    fn rejects_unknown_keys_naming_them() {
        let bad = GOOD.replace("trials = 2", "trials = 2\ntrails = 3");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.toml") && e.contains("trails"), "{e}");
        let bad = GOOD.replace("kind = \"alg1\"", "kind = \"alg1\"\ntau_x = 1");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tau_x") && e.contains("methods.alg1"), "{e}");
        let bad = GOOD.replace("kind = \"alg1\"", "kind = \"alg2\"");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("alg2") && e.contains("dpsgd"), "{e}");
    }

    #[test]
    fn method_names_keep_to_a_safe_charset_and_unknown_fields_read_cleanly() {
        for bad in ["alg1,99.9", "a|b", "a\\nb", "a b", "\\\"q\\\"", "", "é"] {
            let cfg = GOOD.replace("[methods.alg1]", &format!("[methods.\"{bad}\"]"));
            let e = Config::parse(&cfg, Path::new("x.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("method name") && e.contains("rename it"),
                "{bad}: {e}"
            );
            assert!(e.contains("line 9") && !e.contains('\n'), "{e}");
        }
        let ok = GOOD.replace("[methods.alg1]", "[methods.\"Alg-1.v2+x_y\"]");
        assert!(Config::parse(&ok, Path::new("x.toml")).is_ok());
        let bad = GOOD.replace("tuning = \"honest\"", "tuning = \"honest\"\nepoch = 3");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("x.toml: methods.dpsgd_honest: unknown field `epoch`, expected"),
            "{e}"
        );
    }

    #[test]
    fn method_ranges_are_refused_naming_the_key() {
        for (from, to, key) in [
            (
                "kind = \"alg1\"",
                "kind = \"alg1\"\ntau = 0.0",
                "methods.alg1.tau`",
            ),
            (
                "kind = \"alg1\"",
                "kind = \"alg1\"\nsigma_out = -1.0",
                "methods.alg1.sigma_out`",
            ),
            (
                "kind = \"alg1\"",
                "kind = \"alg1\"\nclip = 0.0",
                "methods.alg1.clip`",
            ),
            (
                "kind = \"alg1\"",
                "kind = \"alg1\"\nnoise_factor = 0.5",
                "methods.alg1.noise_factor`",
            ),
            (
                "tuning = \"honest\"",
                "tuning = \"honest\"\nlr_min = 1.0",
                "methods.dpsgd_honest.lr_min`",
            ),
            (
                "tuning = \"honest\"",
                "tuning = \"honest\"\nclip = -1.0",
                "methods.dpsgd_honest.clip`",
            ),
            (
                "tuning = \"honest\"",
                "tuning = \"honest\"\ntail_prob = 1.0",
                "methods.dpsgd_honest.tail_prob`",
            ),
            (
                "tuning = \"honest\"",
                "tuning = \"honest\"\nepochs = 0",
                "methods.dpsgd_honest.epochs`",
            ),
        ] {
            let bad = GOOD.replace(from, to);
            let e = Config::parse(&bad, Path::new("x.toml"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(key), "{key}: {e}");
        }
    }

    #[test]
    fn rejects_out_of_range_values_naming_the_key() {
        let bad = GOOD.replace("delta = 1e-5", "delta = 1.5");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`delta` = 1.5") && e.contains("[1e-100, 0.5]"),
            "{e}"
        );
        let bad = GOOD.replace("[0.5, 1.0]", "[0.5, -1.0]");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("epsilons[1]"), "{e}");
        let bad = GOOD.replace("synthetic-l", "nope");
        let e = Config::parse(&bad, Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("dataset.name"), "{e}");
    }
}
