//! `kind = "pfw"`: private Frank–Wolfe on the ℓ1 ball (Talwar et al. 2015; Iyengar et al.'s
//! P-FW, `docs/reference/iyengar2019.md` §2.6). Rows are ℓ∞-clipped, train and test alike, as
//! the authors' code does. Default grid: the code's (`gridsearch.py:342-352`), 84 points.

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::iyengar::frank_wolfe::{Pfw, PfwSpec};
use dp_core::learn::{GlmData, GlmLoss, Mechanism};
use dp_core::special::ln_binom;
use serde::{Deserialize, Serialize};

use super::common::{Common, Grid, GridMethod};
use crate::methods::audited::WhiteBox;
use crate::methods::row_clip::RowClip;
use crate::methods::{Method, MethodEntry, parse_table};

/// The table entry.
pub const PFW: MethodEntry = MethodEntry {
    kind: "pfw",
    summary: "Iyengar et al. 2019 P-FW: private Frank-Wolfe on the l1 ball (report-noisy-max)",
    parse,
};

/// P-FW's grid keys.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PfwGrid {
    /// Numbers of iterations T.
    #[serde(default = "steps")]
    pub steps: Vec<u64>,
    /// ℓ1-ball radii C₁.
    #[serde(default = "radii")]
    pub l1_radius: Vec<f64>,
    /// ℓ∞ clipping bounds L of every coordinate.
    #[serde(default = "clips")]
    pub linf_clip: Vec<f64>,
}

fn steps() -> Vec<u64> {
    vec![1000, 500, 100, 50, 20, 10, 5]
}
fn radii() -> Vec<f64> {
    vec![1.0, 10.0, 100.0, 500.0]
}
fn clips() -> Vec<f64> {
    vec![1.0, 0.1, 0.01]
}

fn parse(mut table: toml::Table) -> Result<Box<dyn Method>, String> {
    let common = Common::take(&mut table)?;
    let grid: PfwGrid = parse_table(table)?;
    super::check_grid("steps", &grid.steps, |v| v > 0)?;
    super::check_grid("l1_radius", &grid.l1_radius, |v| v > 0.0)?;
    super::check_grid("linf_clip", &grid.linf_clip, |v| v > 0.0)?;
    Ok(Box::new(GridMethod::checked(common, grid)?))
}

impl Grid for PfwGrid {
    type Point = PfwSpec;
    type Mech = Pfw;

    fn kind(&self) -> &'static str {
        PFW.kind
    }

    fn points(&self, _n: usize, _epsilon: f64) -> Vec<PfwSpec> {
        let mut out = Vec::new();
        for &linf in &self.linf_clip {
            for &l1_radius in &self.l1_radius {
                for &steps in &self.steps {
                    out.push(PfwSpec {
                        loss: GlmLoss::Logistic,
                        linf,
                        l1_radius,
                        steps,
                    });
                }
            }
        }
        out
    }

    fn clip(&self, p: &PfwSpec) -> RowClip {
        RowClip::Linf(p.linf)
    }

    fn label(&self, p: &PfwSpec) -> String {
        format!("Linf={};C1={};T={}", p.linf, p.l1_radius, p.steps)
    }

    fn build(
        &self,
        common: &Common,
        p: &PfwSpec,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Pfw> {
        let spec = PfwSpec {
            loss: common.loss.glm(),
            ..*p
        };
        spec.build(common.calibration, n, target, rdp)
    }

    fn noise(report: &<Pfw as Mechanism>::Report) -> f64 {
        report.noise
    }

    /// Every P-FW step is report-noisy-max, on the full gradient (certified) or on a
    /// minibatch drawn with replacement (paper), and its event covers either.
    fn white_box(mech: &Pfw) -> Option<Box<dyn WhiteBox>> {
        Some(Box::new(VertexSigns(mech.clone())))
    }
}

/// The white-box view of P-FW ([`Pfw::white_box_signs`]): on a dataset the auditor chooses,
/// n − 1 rows at the origin and a canary whose gradient is +L on every feature (D) or −L (D′),
/// a run is scored by how many of its T vertices are on the + side. The pair is replace-one,
/// P-FW's relation; only the data's width is read from the config's rows.
struct VertexSigns(Pfw);

impl WhiteBox for VertexSigns {
    fn score(&self, data: &GlmData<'_>, seed: u64, canary: bool) -> dp_core::Result<f64> {
        let g = self.0.gradient_bound();
        let gradient = vec![if canary { -g } else { g }; data.d()];
        let signs = self.0.white_box_signs(data.d(), seed, &gradient)?;
        Ok(signs.iter().filter(|&&s| s > 0.0).count() as f64)
    }

    /// Every vertex score moves with the canary: one per run.
    fn max_canaries(&self) -> usize {
        1
    }

    fn steps(&self) -> usize {
        self.0.spec().steps as usize
    }

    fn gaussian_mu(&self) -> Option<f64> {
        None
    }

    fn event(&self) -> Event {
        self.0.event()
    }

    /// T-fold randomised response at the view's exact step ε
    /// ([`Pfw::white_box_step_epsilon`]).
    fn exact_view(&self, data: &GlmData<'_>) -> dp_core::Result<Option<Event>> {
        let step = Event::EpsilonDelta {
            epsilon: self.0.white_box_step_epsilon(data.d())?,
            delta: 0.0,
        };
        Ok(Some(step.self_composed(self.0.spec().steps)))
    }

    /// The count of + vertices is Binomial(T, p) on D′ and Binomial(T, 1 − p) on D, p the
    /// chance of the + side at the view's step ε (the steps are independent: on the auditor's
    /// dataset the gradient does not move with θ). Thresholds s − ½ for s = 0, …, T + 1.
    fn planned_candidates(
        &self,
        data: &GlmData<'_>,
    ) -> dp_core::Result<Option<Vec<(f64, f64, f64)>>> {
        let epsilon = self.0.white_box_step_epsilon(data.d())?;
        let p = 1.0 / (1.0 + (-epsilon).exp());
        let steps = self.0.spec().steps as usize;
        let (on_d, on_d_prime) = (binomial(steps, 1.0 - p), binomial(steps, p));
        Ok(Some(
            (0..=steps + 1)
                .map(|s| {
                    let above: f64 = on_d[s..].iter().sum();
                    let below: f64 = on_d_prime[..s].iter().sum();
                    (s as f64 - 0.5, above.min(1.0), below.min(1.0))
                })
                .collect(),
        ))
    }

    fn neighbours(&self) -> Neighbours {
        Neighbours::ReplaceOne
    }
}

/// The Binomial(n, p) probabilities of 0, …, n, from their logarithms (no overflow at any n).
pub(super) fn binomial(n: usize, p: f64) -> Vec<f64> {
    let (ln_p, ln_q) = (p.ln(), (-p).ln_1p());
    (0..=n)
        .map(|k| {
            let (hit, miss) = (k as f64, (n - k) as f64);
            // 0·ln 0 = 0 at p = 0 or 1.
            let term = |count: f64, ln: f64| if count == 0.0 { 0.0 } else { count * ln };
            (ln_binom(n as f64, hit) + term(hit, ln_p) + term(miss, ln_q)).exp()
        })
        .collect()
}
