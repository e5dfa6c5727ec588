//! P-FW, private Frank–Wolfe on the ℓ1 ball (Iyengar et al. 2019, Algorithm 5, after
//! Talwar, Thakurta & Zhang), as `private_frank_wolfe` runs it (`docs/reference/iyengar2019.md`
//! §2.6) and with the fix of §2.8 item 5.
//!
//! θ₀ = 0; step i = 0 … T−1: g = mean loss gradient at θ, every vertex s ∈ {±C₁eⱼ} scored
//! ⟨s, g⟩ + Lap(b) (= ±C₁gⱼ + noise, so O(d)), s* = the lowest score (report-noisy-max),
//! θ ← (1 − μᵢ)θ + μᵢs*, μᵢ = 1/(i + 1). Paper mode takes g on 1,000 rows drawn with
//! replacement (even when n < 1,000) and the code's scale b = LC₁√(8T ln(1/δ))/(nε); certified
//! mode takes the full gradient and the smallest b the RDP accountant certifies.
//!
//! Privacy: with ‖x‖∞ ≤ L and |ℓ'| ≤ 1, each score ⟨s, ∇ℓᵢ⟩ is within C₁L, so a score of the
//! full mean gradient changes by at most Δ = 2LC₁/n between neighbours; report-noisy-max with
//! Lap(b) is then (2Δ/b)-DP per step, and the event is T pure-DP steps,
//! `SelfComposed(EpsilonDelta{2Δ/b, 0}, T)`. Δ is the replace-one sensitivity (the paper's
//! relation); it also bounds the add/remove change of the mean, whose denominator moves by one.
//!
//! Paper mode's mean is over m = 1,000 draws with replacement: replacing one *copy* moves a
//! score by 2LC₁/m = Δ·n/m, so a step is (2Δn/(mb))-DP per copy, and a row drawn k times costs
//! k copies. The event says so, `SampledWithReplacement{n, m, EpsilonDelta{2Δn/(mb), 0}}` per
//! step, and the accountants take its amplified bound (`accounting::with_replacement`,
//! `docs/derivations.md` §9). The authors account it as the full-gradient step 2Δ/b, which
//! under-reports, the more so the larger ε: a row drawn twice is not covered by it.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::calibration::Calibration;
use super::paper_noise;
use super::step::{check_rows, serialize_loss};
use crate::accounting::calibrate::{Bracket, Target, calibrate};
use crate::accounting::event::Event;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::error::{Result, check_positive, ensure};
use crate::features::Row;
use crate::features::gather_dot;
use crate::learn::data::GlmData;
use crate::learn::laplace::laplace;
use crate::learn::loss::GlmLoss;
use crate::learn::mechanism::Mechanism;

/// Rows per step in the code (`frank_wolfe.py:31`), drawn with replacement.
pub const PAPER_MINIBATCH: usize = 1000;

/// P-FW's chosen settings (a grid point of §2.6).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PfwSpec {
    /// Per-example loss.
    #[serde(serialize_with = "serialize_loss")]
    pub loss: GlmLoss,
    /// L: public bound on |xᵢⱼ| (the code's ℓ∞ clipping).
    pub linf: f64,
    /// C₁: radius of the ℓ1 ball.
    pub l1_radius: f64,
    /// T: steps.
    pub steps: u64,
}

impl PfwSpec {
    /// Checks every field.
    pub fn check(&self) -> Result<()> {
        self.loss.validate()?;
        check_positive("linf", self.linf)?;
        check_positive("l1_radius", self.l1_radius)?;
        ensure(self.steps > 0, "steps", self.steps as f64, "must be > 0")
    }

    /// P-FW for `n` training rows at `target`: the code's Laplace scale
    /// ([`paper_noise::pfw_laplace_scale`]) or, certified, the smallest scale whose event
    /// `accountant` certifies (an error if none does).
    pub fn build(
        &self,
        calibration: Calibration,
        n: usize,
        target: Target,
        accountant: &RdpAccountant,
    ) -> Result<Pfw> {
        self.check()?;
        let target = Target::new(target.epsilon(), target.delta())?;
        ensure(n > 0, "n", n as f64, "must be > 0")?;
        let (l, c1, t) = (self.linf, self.l1_radius, self.steps);
        let paper = paper_noise::pfw_laplace_scale(l, c1, t, n, target.epsilon(), target.delta())?;
        let mut pfw = Pfw {
            spec: *self,
            calibration,
            n,
            target,
            scale: paper,
        };
        if calibration == Calibration::Certified {
            let bracket = Bracket {
                name: "P-FW Laplace scale",
                // The paper's √32 form: twice the code's.
                start: 2.0 * paper,
                lo: 0.0,
                hi: f64::INFINITY,
            };
            let event_of = |scale: f64| Ok(pfw.event_at(scale));
            pfw.scale = calibrate(|| accountant.fresh(), event_of, target, bracket)?;
        }
        Ok(pfw)
    }
}

/// P-FW with its noise fixed: build with [`PfwSpec::build`].
#[derive(Clone, Debug, PartialEq)]
pub struct Pfw {
    spec: PfwSpec,
    calibration: Calibration,
    n: usize,
    target: Target,
    scale: f64,
}

/// Diagnostics of one P-FW run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PfwReport {
    /// b: scale of the Laplace noise on every score.
    pub noise: f64,
    /// ε of one report-noisy-max step on the full gradient, 2Δ/b ([`Pfw::step_epsilon`]).
    pub step_epsilon: f64,
    /// Rows per step (`None`: the full gradient).
    pub minibatch: Option<usize>,
    /// T.
    pub steps: u64,
    /// ‖θ‖₁ of the release (≤ C₁).
    pub l1_norm: f64,
}

impl Pfw {
    /// The chosen settings.
    pub fn spec(&self) -> &PfwSpec {
        &self.spec
    }

    /// Paper or certified.
    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    /// The target the noise was set for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// b.
    pub fn laplace_scale(&self) -> f64 {
        self.scale
    }

    /// Δ = 2LC₁/n: replace-one sensitivity of each score of the full mean gradient.
    pub fn sensitivity(&self) -> f64 {
        2.0 * self.spec.linf * self.spec.l1_radius * self.spec.loss.max_abs_deriv() / self.n as f64
    }

    /// ε of one step on the full gradient at scale b, 2Δ/b: what the authors account per step
    /// in paper mode too, where the event pays more (module docs).
    pub fn step_epsilon(&self) -> f64 {
        2.0 * self.sensitivity() / self.scale
    }

    /// Rows per step: 1,000 with replacement (paper) or all (certified).
    pub fn minibatch(&self) -> Option<usize> {
        match self.calibration {
            Calibration::Paper => Some(PAPER_MINIBATCH),
            Calibration::Certified => None,
        }
    }

    fn event_at(&self, scale: f64) -> Event {
        let step = match self.minibatch() {
            None => Event::EpsilonDelta {
                epsilon: 2.0 * self.sensitivity() / scale,
                delta: 0.0,
            },
            Some(m) => Event::SampledWithReplacement {
                population: self.n as u64,
                draws: m as u64,
                event: Box::new(Event::EpsilonDelta {
                    epsilon: 2.0 * self.sensitivity() * self.n as f64 / m as f64 / scale,
                    delta: 0.0,
                }),
            },
        };
        step.self_composed(self.spec.steps)
    }

    fn check_data(&self, data: &GlmData<'_>) -> Result<()> {
        check_rows(data, self.n)?;
        let x = data.x();
        let mut max = 0.0f64;
        for i in 0..x.nrows() {
            let values = match x.row(i) {
                Row::Dense(v) => v,
                Row::Sparse(_, v) => v,
            };
            max = values.iter().fold(max, |m, v| m.max(v.abs()));
        }
        ensure(
            max <= self.spec.linf,
            "max-abs-feature",
            max,
            "must be <= linf (clamp the features to [-L, L] first)",
        )
    }

    /// The run, calling `visit` on every iterate θ₁ … θ_T with the sign of the vertex it
    /// stepped to. `extra` is a white-box auditor's gradient canary ([`Pfw::white_box_signs`]):
    /// the gradient of row 0, which sits at the origin in the auditor's data, added wherever
    /// that row counts: every step on the full gradient, every draw of it in a minibatch.
    fn run(
        &self,
        data: &GlmData<'_>,
        seed: u64,
        extra: Option<&[f64]>,
        mut visit: impl FnMut(&[f64], f64),
    ) -> Result<Vec<f64>> {
        self.check_data(data)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut theta = vec![0.0; data.d()];
        match self.minibatch() {
            Some(m) => self.run_minibatch(data, m, extra, &mut rng, &mut theta, &mut visit),
            None => self.run_full(data, extra, &mut rng, &mut theta, &mut visit),
        }
        Ok(theta)
    }

    /// Paper mode: each gradient on `m` rows drawn with replacement, margins from scratch.
    fn run_minibatch(
        &self,
        data: &GlmData<'_>,
        m: usize,
        extra: Option<&[f64]>,
        rng: &mut StdRng,
        theta: &mut [f64],
        visit: &mut impl FnMut(&[f64], f64),
    ) {
        let (x, y, n) = (data.x(), data.y(), data.n());
        let mut g = vec![0.0; data.d()];
        for i in 0..self.spec.steps {
            g.iter_mut().for_each(|v| *v = 0.0);
            for _ in 0..m {
                let r = rng.random_range(0..n);
                if let (0, Some(canary)) = (r, extra) {
                    g.iter_mut().zip(canary).for_each(|(gj, c)| *gj += c);
                    continue;
                }
                let row = x.row(r);
                let dv = self.spec.loss.deriv(row.dot(theta), y[r]);
                if dv != 0.0 {
                    row.axpy(dv, &mut g);
                }
            }
            let (j, sign) = self.noisy_vertex(&g, 1.0 / m as f64, rng);
            step_to_vertex(theta, i, j, sign * self.spec.l1_radius);
            visit(theta, sign);
        }
    }

    /// Certified mode: the full gradient every step. θ moves by a scaling and one coordinate,
    /// so the margins Xθ are updated in O(n + nnz of one column) instead of recomputed, and
    /// the gradient is one gather per column of `Xᵀ`: the step costs one batched derivative
    /// (vectorised exp) plus one pass over the non-zeros.
    fn run_full(
        &self,
        data: &GlmData<'_>,
        extra: Option<&[f64]>,
        rng: &mut StdRng,
        theta: &mut [f64],
        visit: &mut impl FnMut(&[f64], f64),
    ) {
        let (cols, y, n) = (data.columns(), data.y(), data.n());
        let mut margins = vec![0.0; n];
        let mut dv = vec![0.0; n];
        let mut g = vec![0.0; data.d()];
        for i in 0..self.spec.steps {
            self.spec.loss.deriv_into(&margins, y, &mut dv);
            for (j, gj) in g.iter_mut().enumerate() {
                let (s, e) = (cols.indptr[j], cols.indptr[j + 1]);
                *gj = gather_dot::<4>(&cols.indices[s..e], &cols.values[s..e], &dv);
            }
            if let Some(extra) = extra {
                g.iter_mut().zip(extra).for_each(|(gj, e)| *gj += e);
            }
            let (j, sign) = self.noisy_vertex(&g, 1.0 / n as f64, rng);
            let vertex = sign * self.spec.l1_radius;
            let mu = step_to_vertex(theta, i, j, vertex);
            margins.iter_mut().for_each(|m| *m *= 1.0 - mu);
            let (s, e) = (cols.indptr[j], cols.indptr[j + 1]);
            for (&r, &v) in cols.indices[s..e].iter().zip(&cols.values[s..e]) {
                margins[r as usize] += mu * vertex * v;
            }
            visit(theta, sign);
        }
    }

    /// Report-noisy-min over the 2d vertex scores ±C₁·(g·scale)ⱼ + Lap(b). The code scores
    /// +C₁eⱼ for every j, then −C₁eⱼ, and keeps the first minimum; so does this, drawing the
    /// noise in that order.
    fn noisy_vertex(&self, g: &[f64], scale: f64, rng: &mut StdRng) -> (usize, f64) {
        let (c1, b) = (self.spec.l1_radius, self.scale);
        let mut best = (f64::INFINITY, 0, 1.0);
        for sign in [1.0, -1.0] {
            for (j, &gj) in g.iter().enumerate() {
                let score = sign * c1 * (gj * scale) + laplace(rng, b);
                if score < best.0 {
                    best = (score, j, sign);
                }
            }
        }
        (best.1, best.2)
    }
}

/// θ ← (1 − μ)θ + μ·vertex·eⱼ with μ = 1/(i + 1); returns μ.
fn step_to_vertex(theta: &mut [f64], i: u64, j: usize, vertex: f64) -> f64 {
    let mu = 1.0 / (i as f64 + 1.0);
    theta.iter_mut().for_each(|t| *t *= 1.0 - mu);
    theta[j] += mu * vertex;
    mu
}

impl Mechanism for Pfw {
    type Report = PfwReport;

    fn name(&self) -> &'static str {
        "pfw"
    }

    /// T report-noisy-max steps at the scale actually used: ε₀ = 2Δ/b each on the full
    /// gradient; in paper mode each on 1,000 rows drawn with replacement, ε₀·n/1,000 per copy
    /// (module docs).
    fn event(&self) -> Event {
        self.event_at(self.scale)
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, PfwReport)> {
        let theta = self.run(data, seed, None, |_, _| {})?;
        let report = PfwReport {
            noise: self.scale,
            step_epsilon: self.step_epsilon(),
            minibatch: self.minibatch(),
            steps: self.spec.steps,
            l1_norm: theta.iter().map(|v| v.abs()).sum(),
        };
        Ok((theta, report))
    }
}

#[path = "frank_wolfe_white_box.rs"]
mod white_box;

#[cfg(test)]
#[path = "frank_wolfe_tests.rs"]
mod tests;
