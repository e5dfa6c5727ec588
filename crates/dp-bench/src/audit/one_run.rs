//! The one-run audit (Steinke, Nasr & Jagielski 2023): m canaries, each included in the
//! training data with probability ½, one training run, and a guess per canary from its score;
//! the number of correct guesses bounds ε from below ([`dp_core::audit::one_run`]).
//!
//! **Canaries.** Canary i is a row on a feature column of its own, appended to the data (the
//! base rows are 0 there), at the public value bound of [`super::pair`], label +1, plus the
//! bias feature. No other row and no other canary touches its column, so its score (θ on
//! that column) sees the canary and the noise only, which is what the analysis assumes of
//! "isolated" canaries. Adding zero columns and rows within the public bounds keeps every
//! dataset legal for the mechanism's proof.
//!
//! **White-box** (`audit.canary = "gradient"`): canary i is instead a Dirac gradient canary on
//! a coordinate of its own ([`dp_core::learn::WhiteBox`]), in one run of the production loop,
//! scored by the likelihood ratio of its noisy sums. Where that view is exactly μ-GDP (full
//! batch), the bound is the f-DP test against the Gaussian curve (Mahloujifar et al. 2025,
//! [`dp_core::audit::one_run_fdp`]), fixed before the run; with Poisson batches, the same
//! test against the view's own family, the subsampled Gaussian's curves
//! ([`dp_core::audit::sampled_family`]); elsewhere Steinke et al.'s.
//!
//! **Relation.** Including a canary or not is add/remove-one, so only mechanisms certified
//! under add/remove (DP-SGD, Algorithm 1) can be audited this way; the guesses (k highest
//! "included", k lowest "excluded") are fixed before the run. Every row also carries the f-DP
//! test's ε against the Gaussian family in its GDP-estimate column: a bound where the view is
//! Gaussian, an estimate elsewhere.

use std::time::Instant;

use anyhow::Context as _;

use dp_core::accounting::event::Neighbours;
use dp_core::audit::one_run_ceiling::OneRunStatistic::{self, RandomisedResponse};
use dp_core::audit::one_run_fdp;
use dp_core::features::{Csr, FeatureMatrix};
use dp_core::seed::derive_seed;
use dp_data::Dataset;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::one::{OneRun, Outcome, Probe, calibration_of, curves, prepared, relation_name, rows};
use super::pair::{labelled_rows, public_value_bound};
use crate::experiment::config::{Config, MethodSpec};

/// `x` with `extra` zero columns appended.
fn widen(x: &FeatureMatrix, extra: usize) -> FeatureMatrix {
    let (n, d) = (x.nrows(), x.ncols());
    match x {
        FeatureMatrix::Dense { data, .. } => {
            let mut out = vec![0.0; n * (d + extra)];
            for i in 0..n {
                out[i * (d + extra)..i * (d + extra) + d]
                    .copy_from_slice(&data[i * d..(i + 1) * d]);
            }
            FeatureMatrix::dense(out, n, d + extra)
        }
        FeatureMatrix::Sparse(c) => FeatureMatrix::Sparse(Csr {
            ncols: d + extra,
            ..c.clone()
        }),
    }
}

/// The included canaries: canary i has `value` at column `first + i` and the bias in column
/// `first - 1` when there is one.
fn canaries(
    like: &FeatureMatrix,
    first: usize,
    value: f64,
    bias: Option<f64>,
    which: &[usize],
) -> Dataset {
    let rows: Vec<Vec<(usize, f64)>> = which
        .iter()
        .map(|&i| {
            let mut e: Vec<(usize, f64)> = bias.map(|b| (first - 1, b)).into_iter().collect();
            e.push((first + i, value));
            e
        })
        .collect();
    labelled_rows(like, &rows)
}

/// The one-run audit of `spec` (named `name`) at `epsilon` on `base` rows.
#[allow(clippy::too_many_arguments)]
pub fn audit(
    cfg: &Config,
    base: &Dataset,
    name: &str,
    spec: &MethodSpec,
    epsilon: f64,
    gamma: f64,
    fingerprint: String,
    probe: Probe,
    (m, k): (u64, u64),
) -> anyhow::Result<Outcome> {
    let at = |e: anyhow::Error| e.context(format!("audit of `methods.{name}` at ε = {epsilon}"));
    let white_box = cfg
        .audit
        .as_ref()
        .map(|a| a.canary)
        .is_some_and(|c| c != crate::experiment::audit_settings::Canary::RareFeature);
    if white_box {
        return audit_white_box(cfg, base, name, spec, epsilon, gamma, fingerprint, (m, k));
    }
    // check_all refused mechanisms that are not add/remove before anything ran.
    let clip = probe.clip;
    let value = public_value_bound(&cfg.dataset, clip)?;
    let d = base.x.ncols();
    let seed = |what: &[u8]| seed(cfg, name, epsilon, what);
    let included = inclusion(cfg, name, epsilon, m);
    let which: Vec<usize> = (0..m as usize).filter(|&i| included[i]).collect();
    let wide = Dataset {
        x: widen(&base.x, m as usize),
        classes: None,
        ..base.clone()
    };
    let data = wide
        .clone()
        .concat(canaries(&wide.x, d, value, cfg.dataset.bias, &which), "D")?;
    let p = prepared(cfg, &data)?;
    let ctx = p.context()?;
    let audited = spec.method.mechanism(&ctx, epsilon).map_err(at)?;
    let (_keep, rows) = rows(&ctx, &audited)?;
    let start = Instant::now();
    // The run's own event where it changed the mechanism's (an uncertified solve, a retry).
    let (scores, failed, ran) = match audited.release.release(&rows, seed(b"one-run training")) {
        Ok((theta, event)) => (theta[d..d + m as usize].to_vec(), 0, Some(event)),
        // A machine-dependent run is no outcome at all: the audit stops.
        Err(e @ dp_core::DpError::Irreproducible(_)) => return Err(at(e.into())),
        Err(_) => (vec![0.0; m as usize], 1, None),
    };
    let seconds = start.elapsed().as_secs_f64();
    let (r, v) = dp_core::audit::one_run::guesses(&scores, &included, k as usize, k as usize)?;
    let lower = RandomisedResponse.bound(m, r, v, cfg.delta, gamma)?;
    // An estimate only (the view's trade-off is not Gaussian): it cannot fail the row.
    let fdp = one_run_fdp::epsilon_lower_bound(m, r, v, cfg.delta, gamma).ok();
    // The certificate's own curve; where the run's event differs, the larger certificate's.
    let mut certified = ctx.certify(&audited.event)?;
    let mut event = &audited.event;
    if let Some(e) = ran.as_ref().filter(|e| **e != audited.event) {
        let own = ctx.certify(e)?;
        if own > certified {
            (certified, event) = (own, e);
        }
    }
    let ceiling = one_run_ceiling_of(event, certified, RandomisedResponse, m, k, cfg, gamma)?;
    Ok(Outcome {
        method: name.to_string(),
        kind: spec.kind.to_string(),
        calibration: calibration_of(spec),
        label: audited.label.clone(),
        learner: crate::experiment::method::identity(spec.method.as_ref()),
        neighbours: relation_name(Neighbours::AddRemove).into(),
        certificate: relation_name(Neighbours::AddRemove).into(),
        threat_model: "black-box".into(),
        statistic: "one_run".into(),
        epsilon_target: epsilon,
        epsilon_certified: certified,
        epsilon_lower: lower,
        delta: cfg.delta,
        confidence: 1.0 - gamma,
        runs_per_side: 1,
        test: None,
        one_run: Some(OneRun {
            canaries: m,
            guesses: r,
            correct: v,
        }),
        epsilon_gdp: fdp,
        epsilon_ceiling: ceiling,
        failures: [failed, 0],
        feature: d,
        seconds,
        fingerprint,
    })
}

/// The ceiling of a one-run audit of `event`, certified at `certified` under add/remove, with
/// `m` canaries and `k` guesses each way ([`dp_core::audit::one_run_ceiling`]); `None`
/// without a certificate.
fn one_run_ceiling_of(
    event: &dp_core::accounting::event::Event,
    certified: f64,
    statistic: OneRunStatistic,
    m: u64,
    k: u64,
    cfg: &Config,
    gamma: f64,
) -> anyhow::Result<Option<f64>> {
    let Some(curves) = curves(event, certified, false, cfg.delta)? else {
        return Ok(None);
    };
    Ok(Some(dp_core::audit::one_run_ceiling::one_run_ceiling(
        &curves,
        statistic,
        m,
        (k, k),
        cfg.delta,
        gamma,
    )?))
}

/// The seed of `what` in the one-run audit of `name` at `epsilon`.
fn seed(cfg: &Config, name: &str, epsilon: f64, what: &[u8]) -> u64 {
    derive_seed(&[
        &cfg.seed.to_le_bytes(),
        name.as_bytes(),
        &epsilon.to_bits().to_le_bytes(),
        what,
    ])
}

/// Which of the m canaries are in (S_i = +1), each with probability ½.
fn inclusion(cfg: &Config, name: &str, epsilon: f64, m: u64) -> Vec<bool> {
    let mut rng = StdRng::seed_from_u64(seed(cfg, name, epsilon, b"one-run canaries"));
    (0..m).map(|_| rng.random::<bool>()).collect()
}

/// The white-box one-run audit of `spec`: m gradient canaries in one run of the production
/// loop on `base` (module docs).
#[allow(clippy::too_many_arguments)]
fn audit_white_box(
    cfg: &Config,
    base: &Dataset,
    name: &str,
    spec: &MethodSpec,
    epsilon: f64,
    gamma: f64,
    fingerprint: String,
    (m, k): (u64, u64),
) -> anyhow::Result<Outcome> {
    let at = |e: anyhow::Error| e.context(format!("audit of `methods.{name}` at ε = {epsilon}"));
    let p = prepared(cfg, base)?;
    let ctx = p.context()?;
    let audited = spec.method.mechanism(&ctx, epsilon).map_err(at)?;
    // check_all refused methods without a view that carries m canaries.
    let view = audited
        .white_box
        .as_ref()
        .with_context(|| format!("`methods.{name}` has no white-box view"))?;
    let (_keep, rows) = rows(&ctx, &audited)?;
    let included = inclusion(cfg, name, epsilon, m);
    let start = Instant::now();
    let scores = view
        .scores_one_run(
            &rows,
            seed(cfg, name, epsilon, b"one-run training"),
            &included,
        )
        .map_err(|e| at(e.into()))?;
    let seconds = start.elapsed().as_secs_f64();
    let (r, v) = dp_core::audit::one_run::guesses(&scores, &included, k as usize, k as usize)?;
    let fdp = one_run_fdp::epsilon_lower_bound(m, r, v, cfg.delta, gamma);
    let certified = ctx.certify(&view.event())?;
    let (statistic, lower, ceiling, fdp) = match (view.gaussian_mu(), view.sampled_family()) {
        (Some(mu), _) => {
            let top = one_run_fdp::gaussian_ceiling(mu, m, (k, k), cfg.delta, gamma)?;
            let fdp = fdp?;
            ("one_run_fdp", fdp, Some(top), Some(fdp))
        }
        // The view's own family: the f-DP test against it is a bound; against the Gaussian
        // family, an estimate beside it.
        (None, Some(family)) => {
            let statistic = OneRunStatistic::SampledFdp(family);
            (
                "one_run_fdp",
                statistic.bound(m, r, v, cfg.delta, gamma)?,
                one_run_ceiling_of(&view.event(), certified, statistic, m, k, cfg, gamma)?,
                fdp.ok(),
            )
        }
        // Neither: the f-DP number is an estimate, which cannot fail the row.
        (None, None) => (
            "one_run",
            RandomisedResponse.bound(m, r, v, cfg.delta, gamma)?,
            one_run_ceiling_of(
                &view.event(),
                certified,
                RandomisedResponse,
                m,
                k,
                cfg,
                gamma,
            )?,
            fdp.ok(),
        ),
    };
    Ok(Outcome {
        method: name.to_string(),
        kind: spec.kind.to_string(),
        calibration: calibration_of(spec),
        label: audited.label.clone(),
        learner: crate::experiment::method::identity(spec.method.as_ref()),
        neighbours: relation_name(Neighbours::AddRemove).into(),
        certificate: relation_name(audited.certificate).into(),
        threat_model: "white-box".into(),
        statistic: statistic.into(),
        epsilon_target: epsilon,
        epsilon_certified: certified,
        epsilon_lower: lower,
        delta: cfg.delta,
        confidence: 1.0 - gamma,
        runs_per_side: 1,
        test: None,
        one_run: Some(OneRun {
            canaries: m,
            guesses: r,
            correct: v,
        }),
        epsilon_gdp: fdp,
        epsilon_ceiling: ceiling,
        failures: [0, 0],
        feature: rows.d(),
        seconds,
        fingerprint,
    })
}
