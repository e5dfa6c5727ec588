//! `dp-bench audit CONFIG`: measured lower bounds on ε beside the certified ε.
//!
//! An audit config is a grid config with an `[audit]` table. For every method and target ε
//! the method's one mechanism ([`crate::methods::Method::mechanism`], calibrated as its cells
//! calibrate it) runs `trials` times on each of two neighbouring datasets ([`pair`]); the
//! threshold test (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021) turns the two score
//! samples into a lower bound on ε with Clopper–Pearson confidence, the threshold chosen on
//! the first half of the runs and the bound computed on the second ([`dp_core::audit`]).
//!
//! The lower bounds of one config hold together with probability `audit.confidence`
//! (Bonferroni: each at 1 − (1 − confidence)/K over its K audits). A bound above the claimed
//! (target) ε refutes the claim by experiment; a bound above the **certified** ε means a bug
//! in a learner or an accountant, and the command fails.

pub mod one;
pub mod one_run;
pub mod pair;
pub mod runs;
pub mod sharded;
pub mod table;
pub mod white_box;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;

use crate::experiment::audit_settings::{AuditTest, Canary};
use crate::experiment::config::{Config, MethodSpec};
use crate::experiment::provenance::Provenance;
use crate::experiment::runner::progress_bar;
use crate::files::{lock_dir, write_text_atomic};
pub use one::Outcome;
use runs::{Done, Step};
pub use sharded::{merge, run_shard};

/// Version of how an audit draws, scores and bounds its runs (part of every fingerprint): 6
/// since white-box views with Poisson batches are tested against their own family (5:
/// one-run rows carry a ceiling from the certificate's curve; 4: ceilings join each PLD's
/// curve with its privacy profile, an uncertified OPDisc solve carries no guarantee).
const SCHEME: u32 = 6;

pub use dp_core::audit::threshold::SELECTION_GAMMA;

/// The longest file name (bytes) the usual file systems take (`NAME_MAX` of ext4, APFS,
/// NTFS): an audit's files are named after its method and ε.
const MAX_FILE_NAME: usize = 255;

/// Most entries of the dense feature matrix a one-run audit builds (rows × (features +
/// canaries)): it is copied a few times while the data are prepared, 400 MB per copy.
pub const MAX_ONE_RUN_ENTRIES: u64 = 50_000_000;

/// What `dp-bench audit` did.
#[derive(Debug)]
pub struct AuditRun {
    /// Every (method, ε) outcome, in config order.
    pub outcomes: Vec<Outcome>,
    /// The results folder.
    pub dir: PathBuf,
    /// Audits run now and reused from an earlier run.
    pub ran: usize,
    /// Audits whose stored outcome matched and was reused.
    pub reused: usize,
    /// Wall time.
    pub seconds: f64,
}

/// Everything an outcome depends on, hashed. `gammas` are the bound's γ and the γ the
/// threshold was chosen at.
fn fingerprint(
    cfg: &Config,
    spec: &MethodSpec,
    name: &str,
    epsilon: f64,
    (gamma, selection_gamma): (f64, f64),
) -> String {
    let mut what = serde_json::json!({
        "scheme": SCHEME,
        "method": name,
        "kind": spec.kind,
        "params": spec.method.params(),
        "epsilon": epsilon.to_bits(),
        "trials": cfg.trials,
        "seed": cfg.seed,
        "delta": cfg.delta.to_bits(),
        "dataset": cfg.dataset,
        "gamma": gamma.to_bits(),
        "canary": cfg.audit.as_ref().map(|a| a.canary),
        "base": cfg.audit.as_ref().map(|a| a.base),
        "test": cfg.audit.as_ref().map(|a| (a.test, a.canaries, a.guesses)),
    });
    // Scheme 1 chose thresholds at the bound's own γ: where the two agree (the default
    // confidence) an outcome stored before is still the right one and keeps its fingerprint.
    let threshold = cfg
        .audit
        .as_ref()
        .is_some_and(|a| a.test == AuditTest::Threshold);
    if threshold && selection_gamma != gamma {
        what["selection_gamma"] = selection_gamma.to_bits().into();
    }
    format!(
        "{:016x}",
        dp_core::seed::derive_seed(&[what.to_string().as_bytes()])
    )
}

/// Moves stored outcomes that are not audits of `cfg` (a method or ε since removed from the
/// config) to `audits/stale/`, so that `dp-bench figures audit`, which reads every outcome of
/// the folder, never shows an audit the config no longer has.
fn set_aside_stale(audits_dir: &Path, cfg: &Config) -> anyhow::Result<()> {
    let current: Vec<String> = cfg
        .methods
        .keys()
        .flat_map(|m| cfg.epsilons.iter().map(move |e| format!("{m}@{e}.json")))
        .collect();
    let stale_dir = audits_dir.join(crate::experiment::store::STALE_DIR);
    for entry in std::fs::read_dir(audits_dir)
        .with_context(|| format!("cannot read {}", audits_dir.display()))?
    {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|x| x == "json") && !current.iter().any(|c| c == name) {
            std::fs::create_dir_all(&stale_dir)
                .with_context(|| format!("cannot create {}", stale_dir.display()))?;
            std::fs::rename(&path, stale_dir.join(name))
                .with_context(|| format!("cannot move {} aside", path.display()))?;
            errln!(
                "note: {} is not an audit of this config; moved to {}",
                path.display(),
                stale_dir.display()
            );
        }
    }
    Ok(())
}

/// `DIR/NAME.csv`: every run's score, `side` 0 for D and 1 for D′.
fn write_scores(dir: &Path, name: &str, scores: &[Vec<f64>; 2]) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut text = String::from("side,run,score\n");
    for (side, s) in scores.iter().enumerate() {
        for (i, v) in s.iter().enumerate() {
            writeln!(text, "{side},{i},{v:e}")?;
        }
    }
    write_text_atomic(&dir.join(format!("{name}.csv")), &text)
}

/// Refuses a config whose audit files (`audits/NAME@ε.json`, `scores/NAME@ε.csv`) would have
/// a name longer than file systems take, before anything runs: such an audit used to run
/// every run and then fail to write its outcome.
fn check_file_names<'a>(
    names: impl IntoIterator<Item = &'a String>,
    epsilons: &[f64],
) -> Result<(), String> {
    for name in names {
        for &epsilon in epsilons {
            let file = format!("{name}@{epsilon}.json");
            if file.len() > MAX_FILE_NAME {
                let head: String = name.chars().take(24).collect();
                return Err(format!(
                    "table `methods.{head}…` (a name of {} bytes): its audit file {head}…@{epsilon}.json \
                     would be {} bytes, over the file-system limit of {MAX_FILE_NAME}; \
                     shorten the method name",
                    name.len(),
                    file.len()
                ));
            }
        }
    }
    Ok(())
}

/// Refuses a one-run audit whose widened dense matrix would exceed [`MAX_ONE_RUN_ENTRIES`]
/// (sparse data only gain columns, which cost nothing per row).
fn check_one_run_size(base: &dp_data::Dataset, canaries: u64) -> Result<(), String> {
    if !matches!(base.x, dp_core::features::FeatureMatrix::Dense { .. }) {
        return Ok(());
    }
    let (n, d) = (base.x.nrows() as u64, base.x.ncols() as u64);
    let entries = n.saturating_mul(d.saturating_add(canaries));
    if entries > MAX_ONE_RUN_ENTRIES {
        let most = (MAX_ONE_RUN_ENTRIES / n.max(1)).saturating_sub(d);
        return Err(format!(
            "key `audit.canaries` = {canaries}: a one-run audit adds a column per canary, and \
             {n} dense rows of {d} features + {canaries} canaries hold {entries} entries, over \
             the {MAX_ONE_RUN_ENTRIES} one audit may (see docs/limits.md); use at most {most} canaries"
        ));
    }
    Ok(())
}

/// A stored outcome, if it is whole and made for `fingerprint`.
fn stored(path: &Path, fingerprint: &str) -> Option<Outcome> {
    let text = std::fs::read_to_string(path).ok()?;
    let o: Outcome = serde_json::from_str(&text).ok()?;
    let sane = o.fingerprint == fingerprint
        && o.epsilon_lower.is_finite()
        && o.epsilon_lower >= 0.0
        && o.epsilon_certified >= 0.0;
    sane.then_some(o)
}

/// Runs (or resumes) every audit of `cfg` into `dir`.
pub fn run(cfg: &Config, dir: &Path, show: bool) -> anyhow::Result<AuditRun> {
    whole(cfg, Plan::new(cfg)?, dir, show, None)
}

/// The audits of a config as one process runs them, after their checks: the base rows, each
/// audit's [`one::Probe`], the γ of each bound.
struct Plan<'a> {
    settings: &'a crate::experiment::audit_settings::AuditSettings,
    base: dp_data::Dataset,
    probes: Vec<one::Probe>,
    gammas: (f64, f64),
}

impl<'a> Plan<'a> {
    /// Checks everything that can be checked before a run (names, sizes, every mechanism).
    fn new(cfg: &'a Config) -> anyhow::Result<Plan<'a>> {
        let settings = cfg.audit.as_ref().with_context(
            || "the config has no [audit] table: it is a grid, run it with `dp-bench run`",
        )?;
        check_file_names(cfg.methods.keys(), &cfg.epsilons).map_err(crate::error::UsageError)?;
        let base = pair::base_rows(&cfg.dataset, settings.base)?;
        // Every mechanism is built before anything is written: a config that cannot be
        // audited leaves no folder behind.
        let one_run = settings.test == AuditTest::OneRun;
        // Gradient canaries live in the view, not in the rows: only data canaries widen them.
        if one_run && settings.canary == Canary::RareFeature {
            check_one_run_size(&base, settings.canaries).map_err(crate::error::UsageError)?;
        }
        let probes = one::check_all(cfg, &base, one_run)
            .map_err(|e| crate::error::UsageError(format!("{e:#}")))?;
        let count = cfg.methods.len() * cfg.epsilons.len();
        let gamma = (1.0 - settings.confidence) / count as f64;
        Ok(Plan {
            settings,
            base,
            probes,
            gammas: (gamma, SELECTION_GAMMA),
        })
    }

    /// Every (method, ε) audit with its probe and fingerprint, in config order.
    fn audits(
        &self,
        cfg: &'a Config,
    ) -> impl Iterator<Item = (&'a String, &'a MethodSpec, f64, one::Probe, String)> + '_ {
        cfg.methods
            .iter()
            .flat_map(|(name, spec)| cfg.epsilons.iter().map(move |&e| (name, spec, e)))
            .zip(&self.probes)
            .map(move |((name, spec, e), &probe)| {
                let fp = fingerprint(cfg, spec, name, e, self.gammas);
                (name, spec, e, probe, fp)
            })
    }

    /// One threshold or white-box audit's `step`.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        cfg: &Config,
        name: &str,
        spec: &MethodSpec,
        epsilon: f64,
        probe: one::Probe,
        fp: String,
        step: Step,
        bar: &indicatif::ProgressBar,
    ) -> anyhow::Result<Done> {
        let (base, gammas) = (&self.base, self.gammas);
        if self.settings.canary != Canary::RareFeature {
            white_box::audit(cfg, base, name, spec, epsilon, gammas, fp, step, bar)
        } else {
            one::audit(cfg, base, name, spec, epsilon, gammas, fp, probe, step, bar)
        }
    }
}

/// Every audit of `plan` into `dir`: its runs made now, or (`merged`) the runs of each audit,
/// in the plan's order, joined from the blocks of that many shards.
fn whole(
    cfg: &Config,
    plan: Plan<'_>,
    dir: &Path,
    show: bool,
    merged: Option<(Vec<runs::Runs>, usize)>,
) -> anyhow::Result<AuditRun> {
    let start = Instant::now();
    let settings = plan.settings;
    let one_run = settings.test == AuditTest::OneRun;
    anyhow::ensure!(
        !(one_run && merged.is_some()),
        "a one-run audit is one training run: it has no shards to merge"
    );
    let shard_count = merged.as_ref().map(|m| m.1);
    let mut merged = merged.map(|m| m.0.into_iter());
    let _lock = lock_dir(dir, "audit")?;
    let audits_dir = dir.join("audits");
    std::fs::create_dir_all(&audits_dir)
        .with_context(|| format!("cannot create {}", audits_dir.display()))?;
    let count = plan.probes.len();
    let runs_now = if merged.is_some() {
        0
    } else {
        cfg.trials as usize
    };
    let bar = progress_bar(count * 2 * runs_now, "runs", show);
    let (mut outcomes, mut ran, mut reused) = (Vec::new(), 0, 0);
    for (name, spec, epsilon, probe, fp) in plan.audits(cfg) {
        let from_shards = merged
            .as_mut()
            .map(|m| m.next().expect("merged runs for every audit"));
        let path = audits_dir.join(format!("{name}@{epsilon}.json"));
        if let Some(o) = stored(&path, &fp) {
            bar.inc((2 * runs_now) as u64);
            outcomes.push(o);
            reused += 1;
            continue;
        }
        let o = if one_run {
            let mk = (settings.canaries, settings.guesses);
            let gamma = plan.gammas.0;
            let o = one_run::audit(cfg, &plan.base, name, spec, epsilon, gamma, fp, probe, mk)?;
            bar.inc(2);
            o
        } else {
            let step = from_shards.map_or(Step::Whole, Step::Merged);
            let Done::Outcome(o, scores) =
                plan.step(cfg, name, spec, epsilon, probe, fp, step, &bar)?
            else {
                unreachable!("a whole or merged audit ends in its outcome")
            };
            if settings.keep_scores {
                write_scores(&dir.join("scores"), &format!("{name}@{epsilon}"), &scores)?;
            }
            *o
        };
        write_text_atomic(&path, &serde_json::to_string_pretty(&o)?)?;
        outcomes.push(o);
        ran += 1;
    }
    bar.finish_and_clear();
    set_aside_stale(&audits_dir, cfg)?;
    table::write(dir, &outcomes)?;
    let seconds = start.elapsed().as_secs_f64();
    let how = shard_count.map_or("audit".to_string(), |n| format!("merge of {n} shards"));
    Provenance::here(&how, seconds, &cfg.dataset.name).write(dir)?;
    Ok(AuditRun {
        outcomes,
        dir: dir.to_path_buf(),
        ran,
        reused,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 300-character method name used to run every run of its audit and then fail with
    /// "File name too long"; it is refused before anything runs, naming the limit.
    #[test]
    fn audit_file_names_never_exceed_the_file_system_limit() {
        let long = "m".repeat(300);
        let e = check_file_names([&long], &[1.0]).unwrap_err();
        assert!(
            !e.contains('\n') && e.contains("255") && e.contains("shorten"),
            "{e}"
        );
        assert!(e.len() < 300, "the message repeats the whole name: {e}");
        // The longest ε a config accepts, in the longest spelling `{}` gives it.
        let eps = 1.2345678901234567e-6;
        let fits = "m".repeat(MAX_FILE_NAME - format!("@{eps}.json").len());
        assert_eq!(check_file_names([&fits], &[eps]), Ok(()));
        assert!(check_file_names([&format!("{fits}m")], &[eps]).is_err());
    }

    /// A one-run audit on wide dense data would copy a matrix of rows × (features +
    /// canaries) several times; past the limit it is refused with the most canaries allowed.
    #[test]
    fn one_run_audit_matrices_are_bounded() {
        let dense = |n: usize, d: usize| dp_data::Dataset {
            name: "t".into(),
            x: dp_core::features::FeatureMatrix::dense(vec![0.0; n * d], n, d),
            y: vec![1.0; n],
            classes: None,
        };
        assert_eq!(check_one_run_size(&dense(1000, 10), 1000), Ok(()));
        let e = check_one_run_size(&dense(1000, 10), 100_000).unwrap_err();
        assert!(
            e.contains("`audit.canaries` = 100000") && e.contains("at most 49990"),
            "{e}"
        );
    }

    /// A mechanism without guarantee is certified ∞, which JSON cannot hold: it must come
    /// back as ∞ (not 0, not an unreadable file), and a damaged or foreign file is not reused.
    #[test]
    fn stored_outcomes_round_trip_infinity_and_reject_damage() {
        let o = Outcome {
            method: "m".into(),
            kind: "ppsgd".into(),
            calibration: "paper".into(),
            label: "L=1".into(),
            learner: "ppsgd (paper)".into(),
            neighbours: "replace_one".into(),
            certificate: "replace_one".into(),
            threat_model: "black-box".into(),
            statistic: "threshold".into(),
            epsilon_target: 1.0,
            epsilon_certified: f64::INFINITY,
            epsilon_lower: 1.5,
            delta: 1e-5,
            confidence: 0.99,
            runs_per_side: 10,
            test: None,
            one_run: None,
            epsilon_gdp: None,
            epsilon_ceiling: None,
            failures: [0, 0],
            feature: 3,
            seconds: 0.1,
            fingerprint: "abc".into(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m@1.json");
        let text = serde_json::to_string_pretty(&o).unwrap();
        assert!(text.contains("\"epsilon_certified\": null"), "{text}");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(stored(&path, "abc"), Some(o.clone()));
        assert_eq!(stored(&path, "other"), None);
        std::fs::write(&path, text.replace("1.5", "-1.5")).unwrap();
        assert_eq!(stored(&path, "abc"), None);
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert_eq!(stored(&path, "abc"), None);
    }
}
