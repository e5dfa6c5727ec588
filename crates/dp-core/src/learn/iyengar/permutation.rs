//! The permutation-based "bolt-on" mechanisms of Iyengar et al. (Wu et al. 2017): P-PSGD
//! (paper Algorithm 3, `psgd.py::private_convex_psgd`) and P-SCPSGD (Algorithm 4,
//! `psgd.py::private_strongly_convex_psgd`); `docs/reference/iyengar2019.md` §2.4–2.5.
//!
//! Both run non-private minibatch SGD over one random permutation fixed for all passes and
//! release the last iterate plus Gaussian noise scaled to its replace-one ℓ2 sensitivity Δ₂.
//! Δ₂ rests on the gradient step being non-expansive (η ≤ 2/β) or contractive (strongly convex,
//! η ≤ 2/(β + λ)) for the *true* smoothness β = sup ℓ''·L², and on every minibatch holding at
//! least b rows (a replaced row moves one step by 2Lη/|B|). The authors' code uses β = L² (5×
//! too small for the Huber loss) and a short last batch (Adult: 26 rows), so in paper mode
//! the event is recomputed from what ran; certified mode uses the true β and minibatches of
//! b or b + 1 rows.
//!
//! The events are Gaussian events for **replace-one** neighbours (Wu et al.'s analysis): the
//! Gaussian's privacy profile depends on σ/Δ₂ only, so ε holds for that relation.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde::Serialize;

use super::calibration::Calibration;
use super::paper_noise;
use super::step::{
    add_gaussian, batch_bounds, batch_shape, check_row_bound, check_rows, gaussian_multiplier,
    loss_gradient, project_l2, serialize_loss, uniform_start,
};
use crate::accounting::calibrate::Target;
use crate::accounting::event::Event;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::error::{DpError, Result, check_positive, ensure};
use crate::features::FeatureMatrix;
use crate::learn::data::GlmData;
use crate::learn::loss::{GlmLoss, beta, lipschitz};
use crate::learn::mechanism::{Mechanism, OutputPerturbation};
use crate::seed::derive_seed;

/// The chosen settings of P-PSGD (one point of `gridsearch.py:315-329`; the grid's λ is
/// ignored by the code and absent here).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PpsgdSpec {
    /// Per-example loss (unregularised).
    #[serde(serialize_with = "serialize_loss")]
    pub loss: GlmLoss,
    /// L: the public ℓ2 bound on every row.
    pub lipschitz: f64,
    /// Constant step η.
    pub lr: f64,
    /// Passes k over the permutation.
    pub passes: u64,
    /// Minibatch size b.
    pub batch: usize,
}

/// The chosen settings of P-SCPSGD (one point of `gridsearch.py:330-341`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PscpsgdSpec {
    /// Per-example loss, regularised by (λ/2)‖θ‖².
    #[serde(serialize_with = "serialize_loss")]
    pub loss: GlmLoss,
    /// L: the public ℓ2 bound on every row.
    pub lipschitz: f64,
    /// Strong convexity λ > 0.
    pub lambda: f64,
    /// Radius C of the ℓ2 constraint (and of the uniform start).
    pub radius: f64,
    /// Passes over the permutation.
    pub passes: u64,
    /// Minibatch size b.
    pub batch: usize,
}

fn check_common(loss: GlmLoss, lipschitz: f64, passes: u64, batch: usize, n: usize) -> Result<()> {
    loss.validate()?;
    check_positive("lipschitz", lipschitz)?;
    ensure(passes > 0, "passes", passes as f64, "must be > 0")?;
    ensure(batch > 0, "batch", batch as f64, "must be > 0")?;
    ensure(n > 0, "n", n as f64, "must be > 0")
}

/// The Gaussian event of output noise σ on a release of sensitivity Δ (∞ Δ: not private).
fn output_event(noise: f64, sensitivity: f64) -> Result<Event> {
    if sensitivity.is_finite() {
        Event::gaussian(noise / sensitivity)
    } else {
        Ok(Event::NonPrivate)
    }
}

impl PpsgdSpec {
    /// Checks every field; errors name the parameter.
    pub fn check(&self) -> Result<()> {
        check_common(self.loss, self.lipschitz, self.passes, self.batch, 1)?;
        check_positive("lr", self.lr)
    }

    /// P-PSGD on `n` rows. Certified mode refuses η > 2/β (β = sup ℓ''·L²), where one step can
    /// expand distances and no sensitivity bound holds, naming `lr`.
    pub fn build(
        &self,
        calibration: Calibration,
        n: usize,
        target: Target,
        accountant: &RdpAccountant,
    ) -> Result<Ppsgd> {
        self.check()?;
        check_common(self.loss, self.lipschitz, self.passes, self.batch, n)?;
        let target = Target::new(target.epsilon(), target.delta())?;
        let beta_true = beta(self.loss, self.lipschitz);
        let expansive = self.lr > 2.0 / beta_true;
        let balanced = calibration == Calibration::Certified;
        let (_, smallest) = batch_shape(n, self.batch, balanced);
        // k passes, each moving the replaced row's step by at most 2Lη/|B|.
        let grad_bound = lipschitz(self.loss, self.lipschitz);
        let true_sensitivity = if expansive {
            f64::INFINITY
        } else {
            2.0 * self.passes as f64 * grad_bound * self.lr / smallest as f64
        };
        let noise = match calibration {
            Calibration::Paper => {
                paper_noise::ppsgd(
                    self.passes,
                    self.lipschitz,
                    self.lr,
                    self.batch,
                    target.epsilon(),
                    target.delta(),
                )?
                .sigma
            }
            Calibration::Certified => {
                ensure(
                    !expansive,
                    "lr",
                    self.lr,
                    "must be <= 2/beta, beta = f''max * lipschitz^2 (non-expansive steps)",
                )?;
                gaussian_multiplier(target, accountant)? * true_sensitivity
            }
        };
        Ok(Ppsgd {
            spec: *self,
            calibration,
            n,
            noise,
            sensitivity: true_sensitivity,
            event: output_event(noise, true_sensitivity)?,
        })
    }
}

impl PscpsgdSpec {
    /// Checks every field; errors name the parameter.
    pub fn check(&self) -> Result<()> {
        check_common(self.loss, self.lipschitz, self.passes, self.batch, 1)?;
        check_positive("lambda", self.lambda)?;
        check_positive("radius", self.radius)
    }

    /// P-SCPSGD on `n` rows. Certified mode steps with min(1/β, 1/(λt)) for the true
    /// β = sup ℓ''·L² + λ, so the contraction behind Δ₂ = 2L_reg/(λn) holds.
    pub fn build(
        &self,
        calibration: Calibration,
        n: usize,
        target: Target,
        accountant: &RdpAccountant,
    ) -> Result<Pscpsgd> {
        self.check()?;
        check_common(self.loss, self.lipschitz, self.passes, self.batch, n)?;
        let target = Target::new(target.epsilon(), target.delta())?;
        let lambda = self.lambda;
        let beta_true = beta(self.loss, self.lipschitz) + lambda;
        let smoothness = match calibration {
            Calibration::Paper => paper_noise::pscpsgd_smoothness(self.lipschitz, lambda),
            Calibration::Certified => beta_true,
        };
        // Largest step (t = 1). Δ₂ needs each step to contract by 1 − ηλ, i.e.
        // η ≤ 2/(β + λ); the code's 1/(L² + λ) breaks it for the Huber loss (β = 5L² + λ). Between
        // 2/(β + λ) and 2/β steps still do not expand but the bound below does not apply; that
        // range needs λ ≥ 3L² and is off the authors' grid, so it is treated as not private.
        let first_step = (1.0 / smoothness).min(1.0 / lambda);
        let contracts = first_step <= 2.0 / (beta_true + lambda);
        let balanced = calibration == Calibration::Certified;
        let (count, smallest) = batch_shape(n, self.batch, balanced);
        // Wu et al.: the replaced row's contributions 2L_reg·η_t/|B| shrink by Π(1 − η_sλ) to at
        // most 2L_reg/(λ|B|T) each with T = passes·count steps, one per pass:
        // Δ₂ = 2L_reg/(λ·|B|min·count) (= 2L_reg/(λn) for equal batches).
        let l_reg = lipschitz(self.loss, self.lipschitz) + lambda * self.radius;
        let true_sensitivity = if contracts {
            2.0 * l_reg / (lambda * (smallest * count) as f64)
        } else {
            f64::INFINITY
        };
        let noise = match calibration {
            Calibration::Paper => {
                paper_noise::pscpsgd(
                    lambda,
                    self.radius,
                    self.lipschitz,
                    n,
                    target.epsilon(),
                    target.delta(),
                )?
                .sigma
            }
            Calibration::Certified => {
                debug_assert!(contracts);
                gaussian_multiplier(target, accountant)? * true_sensitivity
            }
        };
        Ok(Pscpsgd {
            spec: *self,
            calibration,
            n,
            smoothness,
            noise,
            sensitivity: true_sensitivity,
            event: output_event(noise, true_sensitivity)?,
        })
    }
}

/// P-PSGD with its noise fixed: build it with [`PpsgdSpec::build`].
#[derive(Clone, Debug, PartialEq)]
pub struct Ppsgd {
    spec: PpsgdSpec,
    calibration: Calibration,
    n: usize,
    noise: f64,
    sensitivity: f64,
    event: Event,
}

/// P-SCPSGD with its noise fixed: build it with [`PscpsgdSpec::build`].
#[derive(Clone, Debug, PartialEq)]
pub struct Pscpsgd {
    spec: PscpsgdSpec,
    calibration: Calibration,
    n: usize,
    smoothness: f64,
    noise: f64,
    sensitivity: f64,
    event: Event,
}

/// What one P-PSGD run used (all public).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PpsgdReport {
    /// Which noise formulas ran.
    pub calibration: Calibration,
    /// Std σ of the Gaussian added to the output.
    pub noise: f64,
    /// Replace-one Δ₂ of what ran under the true smoothness (`null`: steps may expand).
    pub sensitivity: Option<f64>,
    /// Minibatch steps taken.
    pub steps: u64,
}

/// What one P-SCPSGD run used (all public).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PscpsgdReport {
    /// Which noise formulas ran.
    pub calibration: Calibration,
    /// Std σ of the Gaussian added to the output (before the final projection).
    pub noise: f64,
    /// Replace-one Δ₂ of what ran under the true smoothness (`null`: no contraction bound).
    pub sensitivity: Option<f64>,
    /// β of the step rule η_t = min(1/β, 1/(λt)).
    pub smoothness: f64,
    /// Minibatch steps taken.
    pub steps: u64,
}

impl Ppsgd {
    /// The settings.
    pub fn spec(&self) -> &PpsgdSpec {
        &self.spec
    }

    /// Std σ of the output noise.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// Replace-one Δ₂ under the true smoothness (∞ when a step may expand).
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }
}

impl Pscpsgd {
    /// The settings.
    pub fn spec(&self) -> &PscpsgdSpec {
        &self.spec
    }

    /// Std σ of the output noise.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// Replace-one Δ₂ under the true smoothness (∞ when the contraction argument fails).
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// β of the step rule.
    pub fn smoothness(&self) -> f64 {
        self.smoothness
    }
}

/// One permutation of the rows fixed for all passes, each minibatch's indices sorted (the mean
/// does not depend on their order; sorted rows are read in memory order).
fn permuted_batches(rng: &mut StdRng, n: usize, bounds: &[usize]) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    perm.shuffle(rng);
    for w in bounds.windows(2) {
        perm[w[0]..w[1]].sort_unstable();
    }
    perm
}

/// The rows copied in pass order, and the identity order over the copy. Every pass then
/// streams `X` front to back instead of visiting rows ~n/2 apart (on Adult the scattered
/// reads were most of the run time). Each batch keeps its rows in the same order, so the
/// iterates are bit-identical to reading through `perm`.
fn in_pass_order(data: &GlmData<'_>, perm: &[usize]) -> (FeatureMatrix, Vec<f64>, Vec<usize>) {
    let y = data.y();
    (
        data.x().select_rows(perm),
        perm.iter().map(|&i| y[i]).collect(),
        (0..perm.len()).collect(),
    )
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Minibatch steps of one descent: passes × minibatches per pass (from the public n).
fn steps(n: usize, batch: usize, calibration: Calibration, passes: u64) -> u64 {
    let (batches, _) = batch_shape(n, batch, calibration == Calibration::Certified);
    passes * batches as u64
}

/// What the passes of a descent run: the loss, the minibatch size, whether minibatches are
/// balanced ([`batch_bounds`]) and the number of passes.
struct Schedule {
    loss: GlmLoss,
    batch: usize,
    balanced: bool,
    passes: u64,
}

impl Schedule {
    /// The schedule of a descent in `calibration`: balanced minibatches when certified.
    fn of(loss: GlmLoss, batch: usize, calibration: Calibration, passes: u64) -> Self {
        Schedule {
            loss,
            batch,
            balanced: calibration == Calibration::Certified,
            passes,
        }
    }
}

/// A white-box auditor's canary example: its row and its gradient, the same at every θ (a
/// linear loss), added to its minibatch's sum wherever the row falls.
type Canary<'a> = (usize, &'a [f64]);

/// Minibatch SGD over one permutation of the rows drawn from `rng` and fixed for all passes.
/// After each minibatch's mean loss gradient at θ is in `grad`, `step(θ, grad)` moves θ. The
/// rows are copied once in pass order (see [`in_pass_order`]). A `canary` draws nothing, so a
/// run with one takes the same permutation as without.
fn permutation_passes(
    data: &GlmData<'_>,
    schedule: Schedule,
    canary: Option<Canary<'_>>,
    rng: &mut StdRng,
    theta: &mut [f64],
    mut step: impl FnMut(&mut [f64], &[f64]),
) -> Result<()> {
    let Schedule {
        loss,
        batch,
        balanced,
        passes,
    } = schedule;
    let bounds = batch_bounds(data.n(), batch, balanced);
    let perm = permuted_batches(rng, data.n(), &bounds);
    // Each batch's rows are sorted, so the canary's batch is found by bisection.
    let canary = match canary {
        None => None,
        Some((row, g)) => {
            let batch = bounds
                .windows(2)
                .position(|w| perm[w[0]..w[1]].binary_search(&row).is_ok())
                .ok_or_else(|| {
                    DpError::Invalid(format!("the canary row {row} is not among the rows"))
                })?;
            Some((batch, g))
        }
    };
    let (x, y, order) = in_pass_order(data, &perm);
    let data = GlmData::from_owned(x, &y)?;
    let mut grad = vec![0.0; data.d()];
    for _ in 0..passes {
        for (b, w) in bounds.windows(2).enumerate() {
            let rows = &order[w[0]..w[1]];
            let scale = 1.0 / rows.len() as f64;
            loss_gradient(&data, loss, theta, rows, scale, &mut grad);
            if let Some((_, g)) = canary.filter(|&(at, _)| at == b) {
                grad.iter_mut().zip(g).for_each(|(gj, c)| *gj += scale * c);
            }
            step(theta, &grad);
        }
    }
    Ok(())
}

/// One descent from `seed`: the generator draws the start (`start`, given the width) and then
/// the permutation, and [`permutation_passes`] runs the steps; the iterate it ends at.
fn seeded_passes(
    data: &GlmData<'_>,
    schedule: Schedule,
    seed: u64,
    canary: Option<Canary<'_>>,
    start: impl FnOnce(&mut StdRng, usize) -> Vec<f64>,
    step: impl FnMut(&mut [f64], &[f64]),
) -> Result<Vec<f64>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut theta = start(&mut rng, data.d());
    permutation_passes(data, schedule, canary, &mut rng, &mut theta, step)?;
    Ok(theta)
}

/// The seed of the output noise of a [`Mechanism::fit`] with `seed` (the descent uses `seed`).
fn noise_seed(seed: u64) -> u64 {
    derive_seed(&[b"output noise", &seed.to_le_bytes()])
}

impl OutputPerturbation for Ppsgd {
    /// The non-private part of [`Mechanism::fit`]: SGD over one permutation drawn from `seed`.
    /// Only the output noise depends on the privacy target, so a sweep over ε can run one
    /// descent per trial and [`OutputPerturbation::release`] it at every ε.
    fn descend(&self, data: &GlmData<'_>, seed: u64) -> Result<Vec<f64>> {
        self.descend_with(data, seed, None)
    }

    /// Releases a [`OutputPerturbation::descend`] result: the output noise drawn from `seed`.
    fn release(&self, mut theta: Vec<f64>, seed: u64) -> (Vec<f64>, PpsgdReport) {
        let mut rng = StdRng::seed_from_u64(seed);
        add_gaussian(&mut rng, self.noise, &mut theta);
        let report = PpsgdReport {
            calibration: self.calibration,
            noise: self.noise,
            sensitivity: finite(self.sensitivity),
            steps: steps(self.n, self.spec.batch, self.calibration, self.spec.passes),
        };
        (theta, report)
    }
}

impl Mechanism for Ppsgd {
    type Report = PpsgdReport;

    fn name(&self) -> &'static str {
        "ppsgd"
    }

    /// Gaussian output perturbation, z = σ/Δ₂ with Δ₂ = 2kLη/|B|min (replace-one neighbours);
    /// [`Event::NonPrivate`] when η > 2/β for the true β.
    fn event(&self) -> Event {
        self.event.clone()
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, PpsgdReport)> {
        let theta = self.descend(data, seed)?;
        Ok(self.release(theta, noise_seed(seed)))
    }
}

impl OutputPerturbation for Pscpsgd {
    /// The non-private part of [`Mechanism::fit`]: projected SGD from the uniform start and
    /// over the permutation drawn from `seed` (shared across ε like
    /// [`OutputPerturbation::descend`]).
    fn descend(&self, data: &GlmData<'_>, seed: u64) -> Result<Vec<f64>> {
        self.descend_with(data, seed, None)
    }

    /// Releases a [`OutputPerturbation::descend`] result: output noise drawn from `seed`, then the
    /// projection onto the ℓ2 ball.
    fn release(&self, mut theta: Vec<f64>, seed: u64) -> (Vec<f64>, PscpsgdReport) {
        self.add_output_noise(&mut theta, seed);
        project_l2(&mut theta, self.spec.radius);
        let report = PscpsgdReport {
            calibration: self.calibration,
            noise: self.noise,
            sensitivity: finite(self.sensitivity),
            smoothness: self.smoothness,
            steps: steps(self.n, self.spec.batch, self.calibration, self.spec.passes),
        };
        (theta, report)
    }
}

impl Ppsgd {
    /// [`OutputPerturbation::descend`], with a white-box auditor's `canary` when given.
    fn descend_with(
        &self,
        data: &GlmData<'_>,
        seed: u64,
        canary: Option<Canary<'_>>,
    ) -> Result<Vec<f64>> {
        let s = &self.spec;
        check_rows(data, self.n)?;
        check_row_bound(data, s.lipschitz)?;
        let schedule = Schedule::of(s.loss, s.batch, self.calibration, s.passes);
        let start = |_: &mut StdRng, d: usize| vec![0.0; d];
        seeded_passes(data, schedule, seed, canary, start, |theta, grad| {
            theta.iter_mut().zip(grad).for_each(|(t, g)| *t -= s.lr * g);
        })
    }
}

impl Pscpsgd {
    /// [`OutputPerturbation::descend`], with a white-box auditor's `canary` when given.
    fn descend_with(
        &self,
        data: &GlmData<'_>,
        seed: u64,
        canary: Option<Canary<'_>>,
    ) -> Result<Vec<f64>> {
        let s = &self.spec;
        check_rows(data, self.n)?;
        check_row_bound(data, s.lipschitz)?;
        let (inv_beta, lambda) = (1.0 / self.smoothness, s.lambda);
        let schedule = Schedule::of(s.loss, s.batch, self.calibration, s.passes);
        let start = |rng: &mut StdRng, d: usize| uniform_start(rng, d, s.radius);
        let mut t = 0u64;
        seeded_passes(data, schedule, seed, canary, start, |theta, grad| {
            t += 1;
            let eta = inv_beta.min(1.0 / (lambda * t as f64));
            for (th, g) in theta.iter_mut().zip(grad) {
                *th -= eta * (g + lambda * *th);
            }
            project_l2(theta, s.radius);
        })
    }

    /// The release's Gaussian, drawn from `seed` (before the final projection).
    fn add_output_noise(&self, theta: &mut [f64], seed: u64) {
        add_gaussian(&mut StdRng::seed_from_u64(seed), self.noise, theta);
    }
}

impl Mechanism for Pscpsgd {
    type Report = PscpsgdReport;

    fn name(&self) -> &'static str {
        "pscpsgd"
    }

    /// Gaussian output perturbation, z = σ/Δ₂ with Δ₂ = 2L_reg/(λ|B|min·m) for m minibatches
    /// (replace-one neighbours); [`Event::NonPrivate`] when the largest step exceeds
    /// 2/(β + λ) for the true β (the paper's steps with the Huber loss).
    fn event(&self) -> Event {
        self.event.clone()
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, PscpsgdReport)> {
        let theta = self.descend(data, seed)?;
        Ok(self.release(theta, noise_seed(seed)))
    }
}

#[cfg(test)]
#[path = "permutation_tests.rs"]
mod tests;

#[path = "permutation_white_box.rs"]
mod white_box;
