//! `kind = "alg1"`: Redberg et al.'s Algorithm 1. Calibrate (σ, λ) for the cell's ε, solve,
//! release, score.

use dp_core::accounting::event::Neighbours;
use dp_core::error::ensure;
use dp_core::learn::{Alg1, Alg1Spec, Mechanism};
use serde::{Deserialize, Serialize};

use super::audited::{Audited, Fixed, Steps, WhiteBox};
use super::{
    CellOutcome, Context, LossKind, Method, MethodEntry, Protocol, param_error, parse_table,
    public_row_norm_bound, test_accuracy,
};
use crate::experiment::grid::Cell;

/// The table entry.
pub const ENTRY: MethodEntry = MethodEntry {
    kind: "alg1",
    summary: "Redberg et al. 2023 Algorithm 1: approximate minima perturbation with clipping",
    parse,
};

/// `[methods.NAME]` keys of Algorithm 1.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Alg1Config {
    /// Gradient-norm threshold τ.
    #[serde(default = "default_tau")]
    pub tau: f64,
    /// Output-perturbation noise σ_out.
    #[serde(default = "default_sigma_out")]
    pub sigma_out: f64,
    /// σ = noise_factor · σ_G.
    #[serde(default = "default_noise_factor")]
    pub noise_factor: f64,
    /// Per-example gradient clipping norm C.
    #[serde(default = "default_clip")]
    pub clip: f64,
    /// Loss.
    #[serde(default)]
    pub loss: LossKind,
}

fn default_tau() -> f64 {
    0.01
}
fn default_sigma_out() -> f64 {
    0.15
}
fn default_noise_factor() -> f64 {
    1.3
}
fn default_clip() -> f64 {
    std::f64::consts::SQRT_2
}

impl Alg1Config {
    /// The mechanism's settings for a dataset whose rows have ℓ2 norm at most `row_bound`.
    fn spec(&self, row_bound: f64) -> Alg1Spec {
        let loss = self.loss.glm();
        Alg1Spec {
            loss,
            clip: self.clip,
            tau: self.tau,
            sigma_out: self.sigma_out,
            beta: loss.max_second_deriv() * row_bound * row_bound,
        }
    }
}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    let c: Alg1Config = parse_table(table)?;
    c.spec(1.0).check().map_err(param_error)?;
    // A release needs a positive threshold and output noise, and σ < σ_G can never be
    // private (Lemma 3.4).
    ensure(c.tau > 0.0, "tau", c.tau, "must be > 0 and finite").map_err(param_error)?;
    ensure(
        c.sigma_out > 0.0,
        "sigma_out",
        c.sigma_out,
        "must be > 0 and finite",
    )
    .map_err(param_error)?;
    ensure(
        c.noise_factor >= 1.0 && c.noise_factor.is_finite(),
        "noise_factor",
        c.noise_factor,
        "must be >= 1",
    )
    .map_err(param_error)?;
    Ok(Box::new(c))
}

/// What an Algorithm 1 cell records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Alg1Details {
    /// Objective-perturbation noise σ.
    pub noise: f64,
    /// Regulariser λ.
    pub lambda: f64,
    /// Trainings run (one: no tuning).
    pub runs: u32,
    /// L-BFGS iterations.
    pub iterations: usize,
}

impl Method for Alg1Config {
    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some("certified"),
            tuning: None,
            relation: Some(dp_core::accounting::Neighbours::AddRemove),
        }
    }

    fn kind(&self) -> &'static str {
        ENTRY.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    /// One preconditioned L-BFGS solve: some 20 passes over the data.
    fn cost(&self) -> f64 {
        20.0
    }

    /// One release. The optimiser needs no tuning budget: the guarantee holds for any solver
    /// that reaches ‖∇J‖ ≤ τ, so one L-BFGS run stands for the paper's free grid.
    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let mech = self.calibrated(ctx, cell.epsilon)?;
        let (theta, report) = mech.fit(&ctx.train, cell.seed)?;
        let details = Alg1Details {
            noise: mech.sigma(),
            lambda: mech.lambda(),
            runs: 1,
            iterations: report.iterations,
        };
        Ok(CellOutcome::new(
            test_accuracy(ctx, &theta),
            mech.event(),
            &details,
        ))
    }

    fn check_target(&self, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<()> {
        self.calibrated(ctx, epsilon).map(drop)
    }

    /// Add/remove-one: the objective-perturbation and Gaussian-output bounds are for adding
    /// or removing a row (Redberg et al. §3).
    fn mechanism<'c>(&'c self, ctx: &Context<'c>, epsilon: f64) -> anyhow::Result<Audited<'c>> {
        let mech = self.calibrated(ctx, epsilon)?;
        // Only the Huber loss's linear zone gives the canary a gradient that θ does not move.
        let huber = matches!(mech.spec().loss, dp_core::learn::GlmLoss::Huber { .. });
        Ok(Audited {
            event: mech.event(),
            label: format!("sigma={};lambda={}", mech.sigma(), mech.lambda()),
            release: Box::new(Fixed(mech.clone())),
            clip: None,
            neighbours: Neighbours::AddRemove,
            certificate: Neighbours::AddRemove,
            white_box: huber.then(|| Box::new(Steps(mech)) as Box<dyn WhiteBox>),
        })
    }
}

impl Alg1Config {
    /// The mechanism of a cell at `epsilon`: (σ, λ) calibrated for (ε, the config's δ).
    fn calibrated(&self, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<Alg1> {
        let spec = self.spec(public_row_norm_bound(&ctx.cfg.dataset)?);
        let target = ctx.target(epsilon, Some(Neighbours::AddRemove))?;
        Ok(spec.calibrate(self.noise_factor, target, &ctx.rdp)?)
    }
}
