//! Your own learner beside the built-in ones: output perturbation of the regularised logistic
//! regression minimiser (Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 1), written outside
//! dp-bench and run in a grid beside Redberg et al.'s Algorithm 1 on Synthetic-L.
//!
//! `cargo run --release -p dp-bench --example output_perturbation [-- RESULTS_DIR]`
//!
//! Two pieces: a [`Mechanism`] (what runs, and its privacy as an [`Event`]) and a [`Method`]
//! (how a grid cell calibrates, fits and scores it), registered with one line.
//!
//! Privacy (add/remove-one neighbours): θ* = argmin Σᵢ ℓ(xᵢᵀθ; yᵢ) + (λ/2)‖θ‖² moves by at
//! most L/λ when one L-Lipschitz term is added or removed (λ-strong convexity). The solver
//! stops at ‖∇J(θ̃)‖ ≤ τ, so ‖θ̃ − θ*‖ ≤ τ/λ on each side and the released θ̃ + N(0, σ²I) has
//! ℓ2 sensitivity Δ = (L + 2τ)/λ: the event `Gaussian { noise_multiplier: σ/Δ }`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dp_bench::experiment::config::Config;
use dp_bench::experiment::grid::Cell;
use dp_bench::experiment::runner;
use dp_bench::methods::{
    CellOutcome, Context, Method, MethodEntry, Registry, parse_table, public_row_norm_bound,
    test_accuracy,
};
use dp_core::accounting::{Bracket, Event, Target, calibrate};
use dp_core::error::{check_positive, ensure};
use dp_core::learn::lbfgs::{LbfgsOptions, lbfgs};
use dp_core::learn::objective::PerturbedObjective;
use dp_core::learn::{GlmData, GlmLoss, Mechanism};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

/// The mechanism: regularised logistic regression, solved to ‖∇J‖ ≤ τ, plus Gaussian noise.
struct OutputPerturbation {
    lambda: f64,
    tau: f64,
    lipschitz: f64,
    sigma: f64,
}

impl OutputPerturbation {
    /// Checks the parameters once, here, so that every constructed value has a valid event.
    fn new(lambda: f64, tau: f64, lipschitz: f64, sigma: f64) -> dp_core::Result<Self> {
        check_positive("lambda", lambda)?;
        check_positive("tau", tau)?;
        check_positive("lipschitz", lipschitz)?;
        ensure(sigma > 0.0, "sigma", sigma, "must be > 0")?;
        Ok(Self {
            lambda,
            tau,
            lipschitz,
            sigma,
        })
    }

    fn sensitivity(&self) -> f64 {
        (self.lipschitz + 2.0 * self.tau) / self.lambda
    }
}

impl Mechanism for OutputPerturbation {
    type Report = usize; // L-BFGS iterations

    fn name(&self) -> &'static str {
        "output_perturbation"
    }

    fn event(&self) -> Event {
        Event::Gaussian {
            noise_multiplier: self.sigma / self.sensitivity(),
        }
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, usize)> {
        let d = data.d();
        let mut obj = PerturbedObjective::new(
            data,
            GlmLoss::Logistic,
            f64::INFINITY, // no clipping: the logistic loss is 1-Lipschitz in the margin
            self.lambda,
            vec![0.0; d],
        );
        let report = lbfgs(&mut obj, &vec![0.0; d], self.tau, &LbfgsOptions::default());
        if !(report.converged() && report.grad_norm <= self.tau) {
            return Err(dp_core::DpError::NoConvergence(
                "L-BFGS did not reach tau; nothing released".into(),
            ));
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let theta = report
            .x
            .iter()
            .map(|t| t + self.sigma * rng.sample::<f64, _>(StandardNormal))
            .collect();
        Ok((theta, report.iterations))
    }
}

/// `[methods.NAME] kind = "output_perturbation"`: the keys of its table.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct OutputPerturbationConfig {
    /// Regularisation λ of the sum objective.
    #[serde(default = "default_lambda")]
    lambda: f64,
    /// Gradient-norm threshold τ.
    #[serde(default = "default_tau")]
    tau: f64,
}

fn default_lambda() -> f64 {
    10.0
}
fn default_tau() -> f64 {
    1e-3
}

impl Method for OutputPerturbationConfig {
    fn kind(&self) -> &'static str {
        ENTRY.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        // L = sup|ℓ'| · (public bound on ‖x‖), never read off the rows.
        let lipschitz = public_row_norm_bound(&ctx.cfg.dataset)?;
        let target = Target::new(cell.epsilon, ctx.cfg.delta)?;
        let with_sigma = |s: f64| OutputPerturbation::new(self.lambda, self.tau, lipschitz, s);
        // Calibrate with the accountant that certifies the cell, so accounted ε ≤ target.
        let bracket = Bracket {
            name: "sigma",
            start: 1.0,
            lo: 0.0,
            hi: f64::INFINITY,
        };
        let sigma = calibrate(
            || ctx.rdp.fresh(),
            |s| Ok(with_sigma(s)?.event()),
            target,
            bracket,
        )?;
        let mech = with_sigma(sigma)?;
        let (theta, iterations) = mech.fit(&ctx.train, cell.seed)?;
        Ok(CellOutcome {
            accuracy: test_accuracy(ctx, &theta),
            event: mech.event(),
            details: serde_json::json!({ "noise": sigma, "iterations": iterations }),
        })
    }
}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    let c: OutputPerturbationConfig = parse_table(table)?;
    OutputPerturbation::new(c.lambda, c.tau, 1.0, 1.0).map_err(dp_bench::methods::param_error)?;
    Ok(Box::new(c))
}

const ENTRY: MethodEntry = MethodEntry {
    kind: "output_perturbation",
    summary: "Chaudhuri et al. 2011 output perturbation (example)",
    parse,
};

const CONFIG: &str = r#"
experiment = "own learner: output perturbation vs Algorithm 1"
seed = 1
trials = 3
epsilons = [0.1, 1.0, 8.0]
delta = 1e-5

[dataset]
name = "synthetic-l"

[methods.alg1]
kind = "alg1"

[methods.output_perturbation]
kind = "output_perturbation"
lambda = 10.0
"#;

fn main() -> anyhow::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("results/examples/output-perturbation"));
    // The one registration line: the built-in methods plus ours, for this process (so that
    // `dp_bench::cli::main_with`'s merge and report would know it too).
    Registry::builtin()
        .with(&ENTRY)
        .install()
        .map_err(anyhow::Error::msg)?;
    let cfg = Config::parse(CONFIG, Path::new("output_perturbation.toml"))?;
    let report = runner::run(&cfg, &dir, false)?;
    let summary = std::fs::read_to_string(report.dir.join("summary.md"))
        .with_context(|| format!("no summary in {}", dir.display()))?;
    println!(
        "{} cells in {:.1} s\n{summary}",
        report.total, report.seconds
    );
    Ok(())
}
