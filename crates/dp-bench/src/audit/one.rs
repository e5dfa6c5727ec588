//! One audit: a method's mechanism at one target ε, run `trials` times on each dataset of a
//! [`Pair`], scored, and turned into a lower bound on ε by the threshold test.

use std::ops::Range;
use std::time::Instant;

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::audit::threshold::{Statistic, ThresholdAudit};
use dp_core::learn::GlmData;
use serde::{Deserialize, Serialize};

use super::pair::Pair;
use super::runs::{self, Done, Runs, Step};
use crate::experiment::config::{Config, MethodSpec};
use crate::methods::audited::Audited;
use crate::methods::row_clip::RowClip;
use crate::methods::{Context, Prepared};

/// What one audit measured (stored as `audits/NAME@EPS.json`, read back for the table).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// The method's name in the config.
    pub method: String,
    /// Its kind.
    pub kind: String,
    /// `paper` or `certified` (the method's `calibration` key; certified for methods without).
    pub calibration: String,
    /// The hyperparameters in words.
    pub label: String,
    /// What the audit speaks for ([`crate::experiment::method::identity`]): the leaderboard
    /// shows it beside every entry of that learner. Empty in outcomes stored before it was
    /// recorded, which no leaderboard entry matches.
    #[serde(default)]
    pub learner: String,
    /// `add_remove` or `replace_one`.
    pub neighbours: String,
    /// The relation of the certificate compared against: the event's own, or
    /// `add_remove, group of two` when a replace-one pair meets an add/remove certificate.
    pub certificate: String,
    /// What the auditor sees: `black-box` (the final model; a data canary) or `white-box`
    /// (every step's noisy sum; a gradient canary). Black-box in outcomes stored before it
    /// was recorded.
    #[serde(default = "black_box")]
    pub threat_model: String,
    /// The statistic of `epsilon_lower`: `threshold` (Clopper–Pearson, the threshold chosen on
    /// half the runs), `planned_threshold` (the same at a threshold planned from the view's
    /// known law, on all runs), `gdp` (the GDP
    /// estimate, only where the trade-off is exactly Gaussian), `fdp` (a threshold test's
    /// counts against the subsampled Gaussian's curves, where the view is one), `one_run`
    /// (Steinke et al.) or
    /// `one_run_fdp` (the one-run f-DP test against the view's own family: the Gaussian
    /// curves where each canary's view is exactly Gaussian, the Poisson-subsampled
    /// Gaussian's where it is that).
    #[serde(default = "threshold")]
    pub statistic: String,
    /// The ε the calibration was asked for (the claim).
    pub epsilon_target: f64,
    /// The ε this project's accountants certify for what ran (the largest over the runs);
    /// ∞ (stored as `null`, which JSON has instead) when nothing is certified.
    #[serde(with = "infinite_as_null")]
    pub epsilon_certified: f64,
    /// The measured lower bound on ε at δ.
    pub epsilon_lower: f64,
    /// δ of the bound and the certificate.
    pub delta: f64,
    /// Confidence of this bound alone (after the config's Bonferroni split).
    pub confidence: f64,
    /// Runs on each dataset (half choose the threshold, half give the bound).
    pub runs_per_side: u64,
    /// The threshold test the first halves chose, with its counts on the second halves.
    pub test: Option<Test>,
    /// The one-run audit's guesses, when the audit was one.
    pub one_run: Option<OneRun>,
    /// Nasr et al. 2023's Gaussian-DP estimate from the same counts (for a one-run audit,
    /// Mahloujifar et al.'s f-DP test against the Gaussian curve on the same guesses): a lower
    /// bound only if the mechanism's trade-off curve is Gaussian (Gaussian noise on a
    /// fixed-sensitivity release); shown beside the bound, never used for a verdict. `None`
    /// in one-run outcomes stored before it was recorded.
    pub epsilon_gdp: Option<f64>,
    /// The ceiling of the threshold test ([`dp_core::audit::ceiling`]): the largest bound it
    /// could reach on the evaluation runs at this confidence if it were the likelihood-ratio
    /// test of the certificate's own trade-off curve (the event's PLD joined with the
    /// certified (ε, δ)); for a one-run audit, its own statistic at the expected right
    /// guesses ([`dp_core::audit::one_run_ceiling`]). `None` where nothing is certified and
    /// in outcomes stored before it was recorded.
    #[serde(default)]
    pub epsilon_ceiling: Option<f64>,
    /// Runs that released nothing (scored 0), on D and on D′.
    pub failures: [u64; 2],
    /// The canary's feature.
    pub feature: usize,
    /// Wall time of the runs, seconds (a measurement, not part of the result).
    pub seconds: f64,
    /// Hash of everything the result depends on: a stored outcome is reused only when it
    /// matches.
    pub fingerprint: String,
}

fn black_box() -> String {
    "black-box".into()
}

fn threshold() -> String {
    "threshold".into()
}

/// JSON has no ∞: a certified ε of ∞ (no guarantee) is written as `null` and read back as ∞.
pub(super) mod infinite_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
    }
}

/// The threshold test of an audit ("s > threshold means D′") and its error counts on the
/// evaluation halves.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Test {
    /// The threshold on θ at the canary's feature.
    pub threshold: f64,
    /// Runs on D guessed D′.
    pub false_positives: u64,
    /// Runs on D evaluated.
    pub negatives: u64,
    /// Runs on D′ guessed D.
    pub false_negatives: u64,
    /// Runs on D′ evaluated.
    pub positives: u64,
}

impl From<&ThresholdAudit> for Test {
    fn from(t: &ThresholdAudit) -> Self {
        Test {
            threshold: t.threshold,
            false_positives: t.counts.false_positives,
            negatives: t.counts.negatives,
            false_negatives: t.counts.false_negatives,
            positives: t.counts.positives,
        }
    }
}

/// What a one-run audit guessed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OneRun {
    /// Canaries m.
    pub canaries: u64,
    /// Guesses r (half "included", half "excluded").
    pub guesses: u64,
    /// Correct guesses v.
    pub correct: u64,
}

/// A dataset of the pair prepared as a grid prepares its training split.
pub(super) fn prepared(cfg: &Config, d: &dp_data::Dataset) -> anyhow::Result<Prepared> {
    // δ was resolved for the base rows; D′ may hold one row more. An audit runs one mechanism
    // and makes no choice, so no validation rows: carving them from D and D′ separately would
    // reshuffle the carve and break the pair's neighbourhood.
    let mut cfg = Config {
        delta_rule: None,
        ..cfg.clone()
    };
    cfg.dataset.validation_fraction = 0.0;
    let split = dp_data::Split {
        train: d.clone(),
        test: d.clone(),
    };
    Prepared::from_split(&cfg, split)
}

/// A relation as configs and tables spell it.
pub(super) fn relation_name(n: Neighbours) -> &'static str {
    match n {
        Neighbours::AddRemove => "add_remove",
        Neighbours::ReplaceOne => "replace_one",
    }
}

/// What an audit needs to know of a mechanism before it builds its datasets.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    /// The relation of the pair ([`Audited::neighbours`]).
    pub neighbours: Neighbours,
    /// The relation of the certificate ([`Audited::certificate`]).
    pub certificate: Neighbours,
    /// The method's row clipping ([`Audited::clip`]).
    pub clip: Option<RowClip>,
}

/// Builds every (method, ε) mechanism of `cfg` on the base rows without running any, so that
/// a config that cannot be audited (by the one-run audit when `one_run`, which needs
/// add/remove certificates) fails before work starts. Returns each audit's [`Probe`], methods
/// then ε in config order.
pub fn check_all(
    cfg: &Config,
    base: &dp_data::Dataset,
    one_run: bool,
) -> anyhow::Result<Vec<Probe>> {
    anyhow::ensure!(
        one_run || base.len() >= 2,
        "an audit needs at least 2 base rows, the dataset has {}; raise `dataset.subsample`",
        base.len()
    );
    let p = prepared(cfg, base)?;
    let ctx = p.context()?;
    use crate::experiment::audit_settings::Canary;
    let canary = cfg.audit.as_ref().map_or(Canary::RareFeature, |a| a.canary);
    let white_box = canary != Canary::RareFeature;
    let mut probes = Vec::new();
    for (name, spec) in &cfg.methods {
        for &epsilon in &cfg.epsilons {
            let at = |e: anyhow::Error| e.context(format!("`methods.{name}` at ε = {epsilon}"));
            let a = spec.method.mechanism(&ctx, epsilon).map_err(at)?;
            // A view that answers to its own canary (SVT's queries) is all there is to audit.
            let own = a.white_box.as_ref().map(|v| v.canary());
            if let Some(view_canary) =
                own.filter(|&c| (white_box && c != canary) || (!white_box && c == Canary::Queries))
            {
                return Err(at(anyhow::anyhow!(
                    "key `audit.canary` = {:?}, and `methods.{name}` is audited with \
                     `audit.canary = {:?}`: use that in a config of its own",
                    canary.key(),
                    view_canary.key()
                )));
            }
            if white_box && a.white_box.is_none() {
                return Err(at(anyhow::anyhow!(
                    "`audit.canary = {:?}` audits a view of its own (\"gradient\", white-box: \
                     DP-SGD's and P-SGD's noisy steps; with loss = \"huber\", \
                     Algorithm 1's and AMP's minimiser before its output noise; P-FW's \
                     vertices; P-PSGD's and certified P-SCPSGD's last iterates; \"queries\": \
                     SVT's released vector), and `methods.{name}` is audited by its final model \
                     only: audit it with `canary = \"rare_feature\"` in a config of its own",
                    canary.key()
                )));
            }
            let canaries = cfg.audit.as_ref().map_or(0, |s| s.canaries);
            if let Some(view) = a.white_box.as_ref().filter(|_| white_box && one_run)
                && (view.max_canaries() as u64) < canaries
            {
                return Err(at(anyhow::anyhow!(
                    "key `audit.canary` = \"gradient\" with `audit.test = \"one_run\"` puts \
                     `audit.canaries` = {canaries} gradient canaries in one run, and the \
                     white-box view of `methods.{name}` carries {} per run: use \
                     `audit.test = \"threshold\"`",
                    view.max_canaries()
                )));
            }
            if let Some(view) = a.white_box.as_ref().filter(|_| white_box && one_run) {
                // Every step's sum at every canary's coordinate is kept until the run ends.
                let kept = (view.steps() as u64).saturating_mul(canaries);
                let most = super::MAX_ONE_RUN_ENTRIES;
                if kept > most {
                    return Err(at(anyhow::anyhow!(
                        "key `audit.canaries` = {canaries}: a white-box one-run audit keeps \
                         every step's noisy sum at every canary's coordinate, and {} steps × \
                         {canaries} canaries is {kept}, over the {most} one audit may (see \
                         docs/limits.md); use at most {} canaries or fewer steps",
                        view.steps(),
                        most / (view.steps() as u64).max(1)
                    )));
                }
            }
            // A gradient canary's gradient is in the sum or not, whatever rows the mechanism's
            // black-box pair would swap: white-box, only the certificate's relation matters.
            let pair_ok = white_box || a.neighbours == Neighbours::AddRemove;
            if one_run && !(pair_ok && a.certificate == Neighbours::AddRemove) {
                return Err(at(anyhow::anyhow!(
                    "a one-run audit includes or leaves out each canary (add/remove-one), but \
                     `methods.{name}` is audited on {} pairs with a certificate for {} \
                     neighbours: use `audit.test = \"threshold\"`",
                    relation_name(a.neighbours),
                    relation_name(a.certificate)
                )));
            }
            // What building the canary row needs is known now: refuse it before any run.
            if !white_box {
                super::pair::public_value_bound(&cfg.dataset, a.clip).map_err(at)?;
            }
            probes.push(Probe {
                neighbours: a.neighbours,
                certificate: a.certificate,
                clip: a.clip,
            });
        }
    }
    Ok(probes)
}

/// The `calibration` key of a method (`paper` or `certified`); certified for methods without.
pub(super) fn calibration_of(spec: &MethodSpec) -> String {
    spec.method
        .params()
        .get("calibration")
        .and_then(|c| c.as_str())
        .unwrap_or("certified")
        .to_string()
}

/// The rows the mechanism trains on: the context's, clipped as the method clips.
pub(super) fn rows<'c>(
    ctx: &Context<'c>,
    audited: &Audited<'_>,
) -> anyhow::Result<(
    Option<std::sync::Arc<crate::methods::row_clip::ClippedData<'c>>>,
    GlmData<'c>,
)> {
    Ok(match audited.clip {
        Some(c) => {
            let clipped = ctx.clips.get(c)?;
            let train = clipped.train.clone();
            (Some(clipped), train)
        }
        None => (None, ctx.train.clone()),
    })
}

pub use dp_core::audit::threshold::threshold_test;

/// The curves an audit of `event` certified at `certified` may read for its ceiling, `None`
/// without a certificate. A replace-one pair against an add/remove certificate (`group`) is
/// bounded by the group-of-two (ε, δ) alone: the event's PLD is an add/remove one.
pub(super) fn curves(
    event: &Event,
    certified: f64,
    group: bool,
    delta: f64,
) -> anyhow::Result<Option<Vec<dp_core::audit::ceiling::Tradeoff>>> {
    if !certified.is_finite() {
        return Ok(None);
    }
    // Pure steps enter through randomised response, their dominating pair (the optimal
    // composition, far below the RDP certificate of a long run of them). Events the PLD
    // accountant does not take (approximate-DP releases, sampling without replacement) keep
    // the certificate's (ε, δ) curve alone: a higher, still valid ceiling.
    let pld = if group {
        None
    } else {
        dp_core::accounting::PldAccountant::new()
            .with_pure_dp()
            .pld(event)
            .ok()
            .flatten()
    };
    Ok(Some(dp_core::audit::ceiling::certificate_curves(
        pld.as_ref(),
        certified,
        delta,
    )?))
}

/// The threshold test's ceiling for an audit of `event` certified at `certified` over the
/// runs of `counts` ([`Outcome::epsilon_ceiling`]; `group` as in [`curves`]).
pub(super) fn ceiling(
    event: &Event,
    certified: f64,
    group: bool,
    counts: dp_core::audit::Counts,
    delta: f64,
    gamma: f64,
) -> anyhow::Result<Option<f64>> {
    use dp_core::audit::ceiling::{Statistic, ceiling_of};
    let Some(curves) = curves(event, certified, group, delta)? else {
        return Ok(None);
    };
    Ok(Some(ceiling_of(
        &curves,
        Statistic::Threshold,
        counts.negatives,
        counts.positives,
        delta,
        gamma,
    )?))
}

/// One run's score, whether its release failed, and its event where the run changed it.
type Scored = (f64, bool, Option<Event>);

/// Runs the audit of `spec` (named `name`) at `epsilon` on `base` rows, or the `step` of it
/// asked for; `gammas` are the bound's γ and the γ at which the threshold is chosen
/// ([`threshold_test`]).
#[allow(clippy::too_many_arguments)]
pub fn audit(
    cfg: &Config,
    base: &dp_data::Dataset,
    name: &str,
    spec: &MethodSpec,
    epsilon: f64,
    (gamma, selection_gamma): (f64, f64),
    fingerprint: String,
    probe: Probe,
    step: Step,
    progress: &indicatif::ProgressBar,
) -> anyhow::Result<Done> {
    let at = |e: anyhow::Error| e.context(format!("audit of `methods.{name}` at ε = {epsilon}"));
    // The relation comes from the mechanism (probed on the base rows); the mechanism audited
    // is built on D itself (same n as the base rows under either relation).
    let pair = Pair::new(base, &cfg.dataset, probe.neighbours, probe.clip)?;
    let (pd, pp) = (prepared(cfg, &pair.d)?, prepared(cfg, &pair.d_prime)?);
    let (ctx_d, ctx_p) = (pd.context()?, pp.context()?);
    let audited = spec.method.mechanism(&ctx_d, epsilon).map_err(at)?;
    let (_keep_d, data_d) = rows(&ctx_d, &audited)?;
    let (_keep_p, data_p) = rows(&ctx_p, &audited)?;
    let group = audited.neighbours == Neighbours::ReplaceOne
        && audited.certificate == Neighbours::AddRemove;
    let certify = |e: &Event| {
        if group {
            ctx_d.certify_group_of_two(e)
        } else {
            ctx_d.certify(e)
        }
    };
    let draw = |range: Range<u64>| -> anyhow::Result<Runs> {
        let start = Instant::now();
        let side = |which: u8, data: &GlmData<'_>| -> anyhow::Result<Vec<Scored>> {
            let (seed, eps) = (cfg.seed.to_le_bytes(), epsilon.to_bits().to_le_bytes());
            let key: [&[u8]; 4] = [&seed, name.as_bytes(), &eps, &[which]];
            runs::each(range.clone(), &key, progress, |seed| {
                match audited.release.release(data, seed) {
                    Ok((theta, event)) => {
                        let other = (event != audited.event).then_some(event);
                        Ok((theta[pair.feature], false, other))
                    }
                    // A machine-dependent run is no outcome at all: the audit stops.
                    Err(e @ dp_core::DpError::Irreproducible(_)) => Err(e),
                    // Releasing nothing is an output too: scored, never dropped.
                    Err(_) => Ok((0.0, true, None)),
                }
            })
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| at(e.into()))
        };
        let (on_d, on_p) = (side(0, &data_d)?, side(1, &data_p)?);
        let seconds = start.elapsed().as_secs_f64();
        let mut certified = certify(&audited.event)?;
        let mut seen = Vec::new();
        for e in on_d.iter().chain(&on_p).filter_map(|r| r.2.as_ref()) {
            if !seen.contains(e) {
                certified = certified.max(certify(e)?);
                seen.push(e.clone());
            }
        }
        let scores = |v: &[Scored]| v.iter().map(|r| r.0).collect();
        let fails = |v: &[Scored]| v.iter().filter(|r| r.1).count() as u64;
        Ok(Runs {
            fingerprint: fingerprint.clone(),
            first: range.start,
            scores: [scores(&on_d), scores(&on_p)],
            failures: [fails(&on_d), fails(&on_p)],
            certified,
            seconds,
        })
    };
    let runs = match step {
        Step::Whole => draw(0..u64::from(cfg.trials))?,
        Step::Block(range) => return Ok(Done::Part(draw(range)?)),
        Step::Merged(runs) => runs,
    };
    let [scores_d, scores_p] = runs.scores;
    let test = threshold_test(
        &scores_d,
        &scores_p,
        Statistic::Threshold,
        cfg.delta,
        (gamma, selection_gamma),
    )?;
    let epsilon_gdp = dp_core::audit::gdp::epsilon_lower_bound(test.counts, cfg.delta, gamma)?;
    let epsilon_ceiling = ceiling(
        &audited.event,
        runs.certified,
        group,
        test.counts,
        cfg.delta,
        gamma,
    )?;
    let outcome = Outcome {
        method: name.to_string(),
        kind: spec.kind.to_string(),
        calibration: calibration_of(spec),
        label: audited.label.clone(),
        learner: crate::experiment::method::identity(spec.method.as_ref()),
        neighbours: relation_name(audited.neighbours).into(),
        certificate: if group {
            "add_remove, group of two".into()
        } else {
            relation_name(audited.certificate).into()
        },
        threat_model: black_box(),
        statistic: threshold(),
        epsilon_target: epsilon,
        epsilon_certified: runs.certified,
        epsilon_lower: test.epsilon_lb,
        delta: cfg.delta,
        confidence: 1.0 - gamma,
        runs_per_side: scores_d.len() as u64,
        test: Some(Test::from(&test)),
        one_run: None,
        epsilon_gdp: Some(epsilon_gdp),
        epsilon_ceiling,
        failures: runs.failures,
        feature: pair.feature,
        seconds: runs.seconds,
        fingerprint,
    };
    Ok(Done::Outcome(Box::new(outcome), [scores_d, scores_p]))
}

#[cfg(test)]
#[path = "one_tests.rs"]
mod tests;
