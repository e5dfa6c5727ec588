//! `kind = "ppsgd"` and `kind = "pscpsgd"`: Wu et al.'s permutation-based SGD with output
//! perturbation, convex and strongly convex (Iyengar et al.'s P-PSGD and P-SCPSGD,
//! `docs/reference/iyengar2019.md` §2.4–2.5). Default grids: the authors' code
//! (`gridsearch.py:315-341`).

use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::iyengar::permutation::{Ppsgd, PpsgdSpec, Pscpsgd, PscpsgdSpec};
use dp_core::learn::{GlmLoss, Mechanism};
use serde::{Deserialize, Serialize};

use super::common::{Common, Grid, GridMethod};
use super::descent;
use super::output_views::{OutputShift, PpsgdOutput};
use super::sgd::clips;
use crate::methods::audited::WhiteBox;
use crate::methods::row_clip::RowClip;
use crate::methods::{Method, MethodEntry, parse_table};

/// The P-PSGD table entry.
pub const PPSGD: MethodEntry = MethodEntry {
    kind: "ppsgd",
    summary: "Iyengar et al. 2019 P-PSGD: permutation SGD with output noise (Wu et al. 2017)",
    parse: parse_ppsgd,
};

/// The P-SCPSGD table entry.
pub const PSCPSGD: MethodEntry = MethodEntry {
    kind: "pscpsgd",
    summary: "Iyengar et al. 2019 P-SCPSGD: strongly convex permutation SGD with output noise",
    parse: parse_pscpsgd,
};

/// P-PSGD's grid keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PpsgdGrid {
    /// λ values: the code's grid has them but its loss ignores them, so each point runs twice
    /// (kept: the best-of-grid report is over the code's 54 points).
    #[serde(default = "ppsgd_lambdas")]
    pub lambda: Vec<f64>,
    /// Constant learning rates η.
    #[serde(default = "ppsgd_lrs")]
    pub lr: Vec<f64>,
    /// Passes over the data.
    #[serde(default = "ppsgd_passes")]
    pub passes: Vec<u64>,
    /// Minibatch size b.
    #[serde(default = "batch")]
    pub batch: usize,
    /// Row clipping bounds L.
    #[serde(default = "clips")]
    pub row_clip: Vec<f64>,
}

/// P-SCPSGD's grid keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PscpsgdGrid {
    /// Regularisation strengths λ (the strong convexity).
    #[serde(default = "ppsgd_lambdas")]
    pub lambda: Vec<f64>,
    /// Passes over the data.
    #[serde(default = "pscpsgd_passes")]
    pub passes: Vec<u64>,
    /// Minibatch size b.
    #[serde(default = "batch")]
    pub batch: usize,
    /// ℓ2 constraint radii C.
    #[serde(default = "pscpsgd_radii")]
    pub radius: Vec<f64>,
    /// Row clipping bounds L.
    #[serde(default = "clips")]
    pub row_clip: Vec<f64>,
}

fn ppsgd_lambdas() -> Vec<f64> {
    vec![1e-4, 1e-3]
}
fn ppsgd_lrs() -> Vec<f64> {
    vec![0.001, 0.01, 0.1]
}
fn ppsgd_passes() -> Vec<u64> {
    vec![5, 10, 100]
}
fn pscpsgd_passes() -> Vec<u64> {
    vec![200]
}
fn pscpsgd_radii() -> Vec<f64> {
    vec![1.0, 10.0, 100.0]
}
fn batch() -> usize {
    50
}

fn parse_ppsgd(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let common = Common::take(&mut table)?;
    let grid: PpsgdGrid = parse_table(table)?;
    super::check_grid("row_clip", &grid.row_clip, |v| v > 0.0)?;
    super::check_grid("lambda", &grid.lambda, |v| v >= 0.0)?;
    super::check_grid("lr", &grid.lr, |v| v > 0.0)?;
    super::check_grid("passes", &grid.passes, |v| v > 0)?;
    super::check_grid("batch", &[grid.batch], |v| v > 0)?;
    Ok(Box::new(GridMethod::checked(common, grid)?))
}

fn parse_pscpsgd(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let common = Common::take(&mut table)?;
    let grid: PscpsgdGrid = parse_table(table)?;
    super::check_grid("row_clip", &grid.row_clip, |v| v > 0.0)?;
    super::check_grid("lambda", &grid.lambda, |v| v > 0.0)?;
    super::check_grid("radius", &grid.radius, |v| v > 0.0)?;
    super::check_grid("passes", &grid.passes, |v| v > 0)?;
    super::check_grid("batch", &[grid.batch], |v| v > 0)?;
    Ok(Box::new(GridMethod::checked(common, grid)?))
}

/// A P-PSGD point: the spec and the (unused) λ it came with.
#[derive(Clone, Debug)]
pub struct PpsgdPoint {
    spec: PpsgdSpec,
    lambda: f64,
}

impl Grid for PpsgdGrid {
    type Point = PpsgdPoint;
    type Mech = Ppsgd;

    fn kind(&self) -> &'static str {
        PPSGD.kind
    }

    const DESCENT: Option<descent::Hook<Ppsgd>> = Some(descent::run::<Self>);

    fn points(&self, _n: usize, _epsilon: f64) -> Vec<PpsgdPoint> {
        let mut out = Vec::new();
        for &lipschitz in &self.row_clip {
            for &lambda in &self.lambda {
                for &lr in &self.lr {
                    for &passes in &self.passes {
                        let spec = PpsgdSpec {
                            loss: GlmLoss::Logistic,
                            lipschitz,
                            lr,
                            passes,
                            batch: self.batch,
                        };
                        out.push(PpsgdPoint { spec, lambda });
                    }
                }
            }
        }
        out
    }

    fn clip(&self, p: &PpsgdPoint) -> RowClip {
        RowClip::L2(p.spec.lipschitz)
    }

    fn label(&self, p: &PpsgdPoint) -> String {
        let s = &p.spec;
        format!(
            "L={};lambda={}(unused);lr={};passes={};b={}",
            s.lipschitz, p.lambda, s.lr, s.passes, s.batch
        )
    }

    fn build(
        &self,
        common: &Common,
        p: &PpsgdPoint,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Self::Mech> {
        let spec = PpsgdSpec {
            loss: common.loss.glm(),
            ..p.spec
        };
        spec.build(common.calibration, n, target, rdp)
    }

    fn noise(report: &<Self::Mech as Mechanism>::Report) -> f64 {
        report.noise
    }

    /// P-PSGD's last iterate plus its output noise on the auditor's dataset
    /// ([`PpsgdOutput`]), in either calibration; none where η > 2/β leaves no certificate.
    fn white_box(mech: &Ppsgd) -> Option<Box<dyn WhiteBox>> {
        let view = PpsgdOutput::new(mech.clone()).ok()?;
        Some(Box::new(view) as Box<dyn WhiteBox>)
    }
}

impl Grid for PscpsgdGrid {
    type Point = PscpsgdSpec;
    type Mech = Pscpsgd;

    fn kind(&self) -> &'static str {
        PSCPSGD.kind
    }

    const DESCENT: Option<descent::Hook<Pscpsgd>> = Some(descent::run::<Self>);

    fn points(&self, _n: usize, _epsilon: f64) -> Vec<PscpsgdSpec> {
        let mut out = Vec::new();
        for &lipschitz in &self.row_clip {
            for &radius in &self.radius {
                for &lambda in &self.lambda {
                    for &passes in &self.passes {
                        out.push(PscpsgdSpec {
                            loss: GlmLoss::Logistic,
                            lipschitz,
                            lambda,
                            radius,
                            passes,
                            batch: self.batch,
                        });
                    }
                }
            }
        }
        out
    }

    fn clip(&self, p: &PscpsgdSpec) -> RowClip {
        RowClip::L2(p.lipschitz)
    }

    fn label(&self, p: &PscpsgdSpec) -> String {
        format!(
            "L={};C={};lambda={};passes={};b={}",
            p.lipschitz, p.radius, p.lambda, p.passes, p.batch
        )
    }

    fn build(
        &self,
        common: &Common,
        p: &PscpsgdSpec,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Self::Mech> {
        let spec = PscpsgdSpec {
            loss: common.loss.glm(),
            ..*p
        };
        spec.build(common.calibration, n, target, rdp)
    }

    fn noise(report: &<Self::Mech as Mechanism>::Report) -> f64 {
        report.noise
    }
    /// Certified P-SCPSGD's last iterate plus its output noise on the auditor's dataset
    /// ([`OutputShift`]); paper mode's steps break the contraction its certificate rests on.
    fn white_box(mech: &Pscpsgd) -> Option<Box<dyn WhiteBox>> {
        mech.white_box_shift()
            .is_ok()
            .then(|| Box::new(OutputShift(mech.clone())) as Box<dyn WhiteBox>)
    }
}
