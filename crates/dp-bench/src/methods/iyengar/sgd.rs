//! `kind = "psgd"`: private minibatch SGD (Bassily et al. 2014; Iyengar et al.'s P-SGD,
//! `docs/reference/iyengar2019.md` §2.3). Default grid: the authors' code
//! (`gridsearch.py:304-314`), 324 points of which 189 are live.

use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::Mechanism;
use dp_core::learn::iyengar::Calibration;
use dp_core::learn::iyengar::sgd::{Psgd, PsgdSpec};
use serde::{Deserialize, Serialize};

use super::common::{Common, Grid, GridMethod};
use super::with_replacement_view::WithReplacementSteps;
use crate::methods::audited::{Steps, WhiteBox};
use crate::methods::row_clip::RowClip;
use crate::methods::{Method, MethodEntry, parse_table};

/// The table entry.
pub const PSGD: MethodEntry = MethodEntry {
    kind: "psgd",
    summary: "Iyengar et al. 2019 P-SGD: private minibatch SGD (Bassily et al.), paper or certified noise",
    parse,
};

/// P-SGD's grid keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PsgdGrid {
    /// Regularisation strengths λ.
    #[serde(default = "lambdas")]
    pub lambda: Vec<f64>,
    /// Learning rates η.
    #[serde(default = "lrs")]
    pub lr: Vec<f64>,
    /// Numbers of steps T.
    #[serde(default = "steps")]
    pub steps: Vec<u64>,
    /// Minibatch size k.
    #[serde(default = "batch")]
    pub batch: usize,
    /// ℓ2 constraint radii C; 0 means unconstrained (the code's `None`).
    #[serde(default = "radii")]
    pub radius: Vec<f64>,
    /// Row clipping bounds L.
    #[serde(default = "clips")]
    pub row_clip: Vec<f64>,
}

fn lambdas() -> Vec<f64> {
    vec![1e-4, 1e-3, 0.0]
}
fn lrs() -> Vec<f64> {
    vec![0.1, 1.0, 10.0]
}
fn steps() -> Vec<u64> {
    vec![100, 500, 1000]
}
fn batch() -> usize {
    50
}
fn radii() -> Vec<f64> {
    vec![0.0, 1.0, 10.0, 100.0]
}
/// The code's row clipping grid for every algorithm but Frank–Wolfe.
pub fn clips() -> Vec<f64> {
    vec![0.1, 1.0, 10.0]
}

fn parse(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let common = Common::take(&mut table)?;
    let grid: PsgdGrid = parse_table(table)?;
    super::check_grid("row_clip", &grid.row_clip, |v| v > 0.0)?;
    super::check_grid("lambda", &grid.lambda, |v| v >= 0.0)?;
    super::check_grid("lr", &grid.lr, |v| v > 0.0)?;
    super::check_grid("radius", &grid.radius, |v| v >= 0.0)?;
    super::check_grid("steps", &grid.steps, |v| v > 0)?;
    if grid.batch == 0 {
        return Err("batch` = 0 must be >= 1".into());
    }
    Ok(Box::new(GridMethod::checked(common, grid)?))
}

impl PsgdGrid {
    fn spec(&self, common: &Common, p: &PsgdSpec) -> PsgdSpec {
        PsgdSpec {
            loss: common.loss.glm(),
            ..*p
        }
    }
}

impl Grid for PsgdGrid {
    type Point = PsgdSpec;
    type Mech = Psgd;

    /// Poisson sampling (certified): add/remove; batches drawn with replacement (paper):
    /// replace-one.
    fn certificate(&self, calibration: Calibration) -> dp_core::accounting::event::Neighbours {
        match calibration {
            Calibration::Paper => dp_core::accounting::event::Neighbours::ReplaceOne,
            Calibration::Certified => dp_core::accounting::event::Neighbours::AddRemove,
        }
    }

    fn kind(&self) -> &'static str {
        PSGD.kind
    }

    fn points(&self, _n: usize, _epsilon: f64) -> Vec<PsgdSpec> {
        let mut out = Vec::new();
        // The code's loop order (dict_product over sorted keys) does not matter for the
        // results; this order is fixed so that point indices are stable.
        for &lipschitz in &self.row_clip {
            for &radius in &self.radius {
                for &lambda in &self.lambda {
                    for &lr in &self.lr {
                        for &steps in &self.steps {
                            out.push(PsgdSpec {
                                loss: dp_core::learn::GlmLoss::Logistic,
                                lipschitz,
                                lambda,
                                lr,
                                steps,
                                batch: self.batch,
                                radius: (radius > 0.0).then_some(radius),
                            });
                        }
                    }
                }
            }
        }
        out
    }

    fn clip(&self, p: &PsgdSpec) -> RowClip {
        RowClip::L2(p.lipschitz)
    }

    /// Both modes release every step's noisy sum: certified P-SGD's Poisson-subsampled (its
    /// event), paper mode's on a batch drawn with replacement, whose canary's multiplicity is
    /// hidden ([`WithReplacementSteps`]).
    fn white_box(mech: &Psgd) -> Option<Box<dyn WhiteBox>> {
        if !mech.spec().is_live() {
            return None;
        }
        match mech.calibration() {
            Calibration::Certified => Some(Box::new(Steps(mech.clone()))),
            Calibration::Paper => WithReplacementSteps::new(mech.clone())
                .ok()
                .map(|v| Box::new(v) as Box<dyn WhiteBox>),
        }
    }

    fn live(&self, p: &PsgdSpec) -> bool {
        p.is_live()
    }

    fn label(&self, p: &PsgdSpec) -> String {
        format!(
            "L={};C={};lambda={};lr={};T={};k={}",
            p.lipschitz,
            p.radius.map_or("none".to_string(), |c| c.to_string()),
            p.lambda,
            p.lr,
            p.steps,
            p.batch
        )
    }

    fn build(
        &self,
        common: &Common,
        p: &PsgdSpec,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Psgd> {
        self.spec(common, p)
            .build(common.calibration, n, target, rdp)
    }

    fn noise(report: &<Psgd as Mechanism>::Report) -> f64 {
        report.noise
    }
}
