//! `kind = "svt"`: the sparse vector technique of Avent et al.'s illustrative problem
//! ([`dp_core::learn::avent::svt`]), for `dp-bench audit` only. It releases a ⊤/⊥ vector, not
//! a model, so it has no cell: a grid naming it is refused before anything runs.
//!
//! **The audit** (`audit.canary = "queries"`). The auditor chooses every query's answer on D
//! (`d`) and on D′ (`d_prime`), 0 or 1 each, so that every answer moves by at most 1 (the
//! sensitivity SVT's proof assumes, under any neighbouring relation). Each run releases the
//! ⊤/⊥ vector, which is everything the mechanism outputs (the black-box view), scored by its
//! exact likelihood ratio from [`SvtPair`]'s table: the most powerful test, whose own curve is
//! the ceiling.
//!
//! **Calibration.** For a target ε and cutoff C the noise level is b = (1 + k)(1 + k²)/ε with
//! k = (2C)^{1/3} (`paper`: the closed form as published, P §2.2), or b = (1 + k)(1 +
//! 2⌈C⌉/k)/ε (`certified`: [`Svt::epsilon`], which pays for the ⌈C⌉ positives a run
//! releases). The two agree for an integer C.

use dp_core::accounting::Event;
use dp_core::accounting::event::Neighbours;
use dp_core::audit::ceiling::Tradeoff;
use dp_core::learn::GlmData;
use dp_core::learn::avent::svt::Svt;
use dp_core::learn::avent::svt_pair::{MAX_QUERIES, SvtPair};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

use super::audited::{Audited, Release, WhiteBox};
use super::{CellOutcome, Context, Method, MethodEntry, parse_table};
use crate::experiment::audit_settings::Canary;
use crate::experiment::grid::Cell;

/// The table entry.
pub const SVT: MethodEntry = MethodEntry {
    kind: "svt",
    summary: "sparse vector technique (Avent et al.), audit only: the released vector on the \
              auditor's answers",
    parse,
};

/// How the noise level is set from the target ε.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SvtCalibration {
    /// The published closed form, which pays for C positives.
    Paper,
    /// [`Svt::epsilon`], which pays for the ⌈C⌉ a run releases.
    Certified,
}

/// `svt`'s keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SvtConfig {
    /// `paper` or `certified` (module docs).
    pub calibration: SvtCalibration,
    /// The cutoff C ≥ 1: a run stops after ⌈C⌉ positives.
    pub cutoff: f64,
    /// Every query's answer on D, one `0` or `1` per query.
    pub d: String,
    /// Every query's answer on D′, as long as `d`.
    pub d_prime: String,
}

fn answers(key: &str, text: &str) -> Result<Vec<bool>, String> {
    if text.is_empty() || text.len() > MAX_QUERIES {
        return Err(format!(
            "{key}` = {text:?} must hold 1 to {MAX_QUERIES} answers, one `0` or `1` per query"
        ));
    }
    text.chars()
        .map(|c| match c {
            '0' => Ok(false),
            '1' => Ok(true),
            other => Err(format!(
                "{key}` = {text:?} holds {other:?}: each answer is `0` or `1`"
            )),
        })
        .collect()
}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    let cfg: SvtConfig = parse_table(table)?;
    let (d, d_prime) = (answers("d", &cfg.d)?, answers("d_prime", &cfg.d_prime)?);
    if d.len() != d_prime.len() {
        return Err(format!(
            "d_prime` has {} answers and `d` {}: one per query on each side",
            d_prime.len(),
            d.len()
        ));
    }
    // The table's size is known now: refuse a cutoff whose outputs would not fit (the table
    // itself is built per target, by the audit).
    let svt = Svt::new(1.0, cfg.cutoff).map_err(|e| format!("cutoff` = {}: {e}", cfg.cutoff))?;
    SvtPair::check_size(&svt, d.len(), d_prime.len()).map_err(|e| format!("d`: {e}"))?;
    Ok(Box::new(cfg))
}

impl SvtConfig {
    /// The mechanism at target `epsilon`.
    fn svt(&self, epsilon: f64) -> anyhow::Result<Svt> {
        anyhow::ensure!(
            epsilon > 0.0 && epsilon.is_finite(),
            "SVT needs a positive, finite target ε, got {epsilon}"
        );
        let k = (2.0 * self.cutoff).cbrt();
        let per_epsilon = match self.calibration {
            SvtCalibration::Paper => (1.0 + k) * (1.0 + k * k),
            SvtCalibration::Certified => (1.0 + k) * (1.0 + 2.0 * self.cutoff.ceil() / k),
        };
        Ok(Svt::new(per_epsilon / epsilon, self.cutoff)?)
    }

    fn bits(&self) -> (Vec<bool>, Vec<bool>) {
        let parse = |s: &str| s.chars().map(|c| c == '1').collect();
        (parse(&self.d), parse(&self.d_prime))
    }
}

impl Method for SvtConfig {
    fn kind(&self) -> &'static str {
        SVT.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    fn check_target(&self, _ctx: &Context<'_>, _epsilon: f64) -> anyhow::Result<()> {
        anyhow::bail!(
            "kind \"svt\" releases a ⊤/⊥ vector, not a model, and has no cell: audit it with \
             `dp-bench audit` and `audit.canary = \"queries\"` (configs/audit/avent2020-svt.toml)"
        )
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        self.check_target(ctx, cell.epsilon)?;
        unreachable!("check_target refuses every cell")
    }

    fn mechanism<'c>(&'c self, _ctx: &Context<'c>, epsilon: f64) -> anyhow::Result<Audited<'c>> {
        let svt = self.svt(epsilon)?;
        let (d, d_prime) = self.bits();
        let pair = SvtPair::new(svt, &d, &d_prime)?;
        let (b1, b2) = svt.scales();
        Ok(Audited {
            release: Box::new(NoModel),
            event: Event::epsilon_delta(svt.epsilon(), 0.0)?,
            clip: None,
            neighbours: Neighbours::AddRemove,
            certificate: Neighbours::AddRemove,
            label: format!("b={:.4};C={}", b1 + b2, self.cutoff),
            white_box: Some(Box::new(SvtView { pair, d, d_prime })),
        })
    }
}

/// SVT's release on data rows, which it has none of: the audit's rare-feature canary cannot
/// reach it.
struct NoModel;

impl Release for NoModel {
    fn release(&self, _: &GlmData<'_>, _: u64) -> dp_core::Result<(Vec<f64>, Event)> {
        Err(dp_core::DpError::Invalid(
            "SVT releases a ⊤/⊥ vector on the auditor's answers, not a model: audit it with \
             `audit.canary = \"queries\"`"
                .into(),
        ))
    }
}

/// The auditor's view: the released vector on D or D′, scored by its exact log-likelihood
/// ratio ln P_D′(o)/P_D(o).
struct SvtView {
    pair: SvtPair,
    d: Vec<bool>,
    d_prime: Vec<bool>,
}

impl WhiteBox for SvtView {
    fn score(&self, _data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64> {
        let answers = if canary { &self.d_prime } else { &self.d };
        let released = self
            .pair
            .svt()
            .run(answers, &mut StdRng::seed_from_u64(seed));
        let i = self.pair.index_of(&released).ok_or_else(|| {
            dp_core::DpError::Invalid(format!("SVT released {released:?}, not in its table"))
        })?;
        let o = self.pair.outputs()[i];
        Ok(o.ln_q - o.ln_p)
    }

    fn max_canaries(&self) -> usize {
        1
    }

    fn steps(&self) -> usize {
        1
    }

    fn gaussian_mu(&self) -> Option<f64> {
        None
    }

    fn event(&self) -> Event {
        Event::EpsilonDelta {
            epsilon: self.pair.svt().epsilon(),
            delta: 0.0,
        }
    }

    fn exact_curve(&self) -> Option<Tradeoff> {
        let masses: Vec<(f64, f64)> = self
            .pair
            .outputs()
            .iter()
            .map(|o| (o.ln_p, o.ln_q))
            .collect();
        Some(Tradeoff::from_log_masses(&masses))
    }

    fn canary(&self) -> Canary {
        Canary::Queries
    }
}
