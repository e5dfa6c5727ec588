//! `kind = "amp"` and `kind = "amp_hf"`: approximate minima perturbation and its
//! hyperparameter-free variant (Iyengar et al.'s Algorithm 1, `docs/reference/iyengar2019.md`
//! §2.1–2.2). AMP's default grid: the code's (`gridsearch.py:278-290`), 48 points; H-F AMP has
//! one point per ε (L = 1, f = 0.01, f₁ from the paper's fit, γ = 1/n²).

use dp_core::accounting::event::Event;
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::iyengar::amp::{Amp, AmpSpec};
use dp_core::learn::{GlmLoss, Mechanism};
use serde::{Deserialize, Serialize};

use super::common::{Common, Grid, GridMethod};
use super::sgd::clips;
use crate::methods::audited::{Steps, WhiteBox};
use crate::methods::row_clip::RowClip;
use crate::methods::{Method, MethodEntry, parse_table};

/// The AMP table entry.
pub const AMP: MethodEntry = MethodEntry {
    kind: "amp",
    summary: "Iyengar et al. 2019 AMP: approximate minima perturbation over the code's grid",
    parse: parse_amp,
};

/// The H-F AMP table entry.
pub const AMP_HF: MethodEntry = MethodEntry {
    kind: "amp_hf",
    summary: "Iyengar et al. 2019 hyperparameter-free AMP (L = 1, f = 0.01, fitted f1)",
    parse: parse_amp_hf,
};

/// γ as configured: a number, or `"1/n^2"` (the code's γ for the averaged objective).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Gamma {
    /// A fixed value.
    Value(f64),
    /// `"1/n^2"`.
    Rule(String),
}

impl Gamma {
    fn value(&self, n: usize) -> f64 {
        match self {
            Gamma::Value(v) => *v,
            Gamma::Rule(_) => 1.0 / (n as f64 * n as f64),
        }
    }

    fn check(&self) -> Result<(), String> {
        match self {
            Gamma::Value(v) if *v > 0.0 && v.is_finite() => Ok(()),
            Gamma::Rule(r) if r == "1/n^2" => Ok(()),
            Gamma::Value(v) => Err(format!(
                "gamma` = {} must be > 0",
                crate::quoting::number(*v)
            )),
            Gamma::Rule(r) => Err(format!("gamma` = {r:?} must be a number or \"1/n^2\"")),
        }
    }
}

fn one_over_n_squared() -> Gamma {
    Gamma::Rule("1/n^2".into())
}

/// AMP's grid keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AmpGrid {
    /// f₁: the share of ε₁ spent on the linear noise term.
    #[serde(default = "eps_fracs")]
    pub eps_frac: Vec<f64>,
    /// f: the share of ε spent on the output noise.
    #[serde(default = "eps_out_fracs")]
    pub eps_out_frac: Vec<f64>,
    /// Row clipping bounds L.
    #[serde(default = "clips")]
    pub row_clip: Vec<f64>,
    /// Gradient-norm target of the averaged objective.
    #[serde(default = "one_over_n_squared")]
    pub gamma: Gamma,
}

/// H-F AMP has no grid: only γ may be changed.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AmpHfGrid {
    /// Gradient-norm target of the averaged objective.
    #[serde(default = "one_over_n_squared")]
    pub gamma: Gamma,
}

fn eps_fracs() -> Vec<f64> {
    vec![0.9, 0.95, 0.98, 0.99]
}
fn eps_out_fracs() -> Vec<f64> {
    vec![0.001, 0.01, 0.1, 0.5]
}

fn parse_amp(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let common = Common::take(&mut table)?;
    let grid: AmpGrid = parse_table(table)?;
    let unit = |v: f64| v > 0.0 && v < 1.0;
    super::check_grid("eps_frac", &grid.eps_frac, unit)?;
    super::check_grid("eps_out_frac", &grid.eps_out_frac, unit)?;
    super::check_grid("row_clip", &grid.row_clip, |v| v > 0.0)?;
    grid.gamma.check()?;
    Ok(Box::new(GridMethod::checked(common, AmpFamily(grid))?))
}

fn parse_amp_hf(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let common = Common::take(&mut table)?;
    let grid: AmpHfGrid = parse_table(table)?;
    grid.gamma.check()?;
    Ok(Box::new(GridMethod::checked(common, AmpFamily(grid))?))
}

/// What differs between AMP and H-F AMP: the kind and the points of a cell.
pub trait AmpPoints: Send + Sync + std::fmt::Debug + Serialize + 'static {
    /// The method kind.
    fn kind(&self) -> &'static str;
    /// The cell's points for `n` rows at `epsilon`.
    fn points(&self, n: usize, epsilon: f64) -> Vec<AmpSpec>;
}

/// AMP or H-F AMP as a [`Grid`]: everything but the points is shared.
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct AmpFamily<P>(pub P);

impl AmpPoints for AmpGrid {
    fn kind(&self) -> &'static str {
        AMP.kind
    }

    fn points(&self, n: usize, _epsilon: f64) -> Vec<AmpSpec> {
        let gamma = self.gamma.value(n);
        let mut out = Vec::new();
        for &lipschitz in &self.row_clip {
            for &eps_frac in &self.eps_frac {
                for &eps_out_frac in &self.eps_out_frac {
                    out.push(AmpSpec {
                        loss: GlmLoss::Logistic,
                        lipschitz,
                        eps_frac,
                        eps_out_frac,
                        gamma,
                    });
                }
            }
        }
        out
    }
}

impl AmpPoints for AmpHfGrid {
    fn kind(&self) -> &'static str {
        AMP_HF.kind
    }

    fn points(&self, n: usize, epsilon: f64) -> Vec<AmpSpec> {
        // ε comes from a validated config, so the fit is defined.
        let mut p = AmpSpec::hyperparameter_free(GlmLoss::Logistic, epsilon, n)
            .expect("H-F AMP is defined for every valid epsilon");
        p.gamma = self.gamma.value(n);
        vec![p]
    }
}

impl<P: AmpPoints> Grid for AmpFamily<P> {
    type Point = AmpSpec;
    type Mech = Amp;

    /// Objective perturbation: add/remove.
    fn certificate(
        &self,
        _calibration: dp_core::learn::iyengar::Calibration,
    ) -> dp_core::accounting::event::Neighbours {
        dp_core::accounting::event::Neighbours::AddRemove
    }

    fn kind(&self) -> &'static str {
        self.0.kind()
    }

    fn points(&self, n: usize, epsilon: f64) -> Vec<AmpSpec> {
        self.0.points(n, epsilon)
    }

    fn clip(&self, p: &AmpSpec) -> RowClip {
        RowClip::L2(p.lipschitz)
    }

    fn label(&self, p: &AmpSpec) -> String {
        format!(
            "L={};eps_frac={};eps_out_frac={};gamma={:e}",
            p.lipschitz, p.eps_frac, p.eps_out_frac, p.gamma
        )
    }

    fn build(
        &self,
        common: &Common,
        p: &AmpSpec,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Amp> {
        let spec = AmpSpec {
            loss: common.loss.glm(),
            ..*p
        };
        spec.build(common.calibration, n, target, rdp)
    }

    fn noise(report: &<Amp as Mechanism>::Report) -> f64 {
        report.noise
    }

    /// AMP's minimiser before the output noise, with a Dirac canary
    /// (`dp_core::learn::NoisySteps for Amp`), for the Huber loss, whose linear zone gives the
    /// canary a constant gradient. In paper mode, the first attempt's exact minimiser,
    /// unconditionally: its retries, which choose Λ from the data, are not seen.
    fn white_box(mech: &Amp) -> Option<Box<dyn WhiteBox>> {
        let huber = matches!(mech.spec().loss, GlmLoss::Huber { .. });
        huber.then(|| Box::new(Steps(mech.clone())) as Box<dyn WhiteBox>)
    }

    fn ran(_mech: &Amp, report: &<Amp as Mechanism>::Report) -> Event {
        report.event.clone()
    }
}
