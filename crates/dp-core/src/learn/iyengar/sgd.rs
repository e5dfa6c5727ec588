//! P-SGD, Iyengar et al.'s private minibatch SGD (paper Algorithm 2, after Bassily, Smith &
//! Thakurta 2014; `docs/reference/iyengar2019.md` §2.3, `gradient_descent.py:13-62`).
//!
//! `Paper` runs the authors' loop: T steps, each on k indices drawn uniformly *with
//! replacement*, θ ← θ − η(mean ∇(ℓ + (λ/2)‖θ‖²) + N(0, σ²I)), projection onto ‖θ‖₂ ≤ C after
//! every step when C is set, θ₀ ~ U[−C, C]^d (0 without C), σ = 4L_reg√(T ln(1/δ))/(nε) with
//! L_reg = L + λC. That σ is the moments-accountant form outside the range where it is proved,
//! and is not (ε, δ)-DP for ε ≳ 0.3 (§2.8 item 4); its certificate reveals how often the
//! replaced row is drawn ([`Psgd`]'s event). `Certified` samples Poisson batches of rate
//! q = k/n (as this project's DP-SGD), divides the gradient sum by k and calibrates the noise
//! multiplier with the RDP accountant.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::Serialize;

use super::calibration::Calibration;
use super::paper_noise;
use super::step::{
    check_row_bound, check_rows, loss_gradient, project_l2, serialize_loss, uniform_start,
};
use crate::accounting::calibrate::{Target, calibrate};
use crate::accounting::event::Event;
use crate::accounting::pld::GaussianShiftMixture;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::accounting::subsampled_gaussian::dpsgd_bracket;
use crate::accounting::with_replacement_gaussian::canary_view;
use crate::error::{Result, check_nonnegative, check_positive, ensure};
use crate::learn::data::GlmData;
use crate::learn::loss::{GlmLoss, lipschitz};
use crate::learn::mechanism::Mechanism;
use crate::learn::poisson_sampler::PoissonSampler;
use crate::learn::white_box::{NoisySteps, WhiteBox};
use crate::seed::derive_seed;

/// The chosen settings of P-SGD (one grid point of `gridsearch.py:304-314`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PsgdSpec {
    /// Per-example loss.
    #[serde(serialize_with = "serialize_loss")]
    pub loss: GlmLoss,
    /// L: the public ℓ2 bound on every row (the rows are clipped to it beforehand).
    pub lipschitz: f64,
    /// λ of the (λ/2)‖θ‖² regulariser (≥ 0).
    pub lambda: f64,
    /// Constant step η.
    pub lr: f64,
    /// Number of steps T.
    pub steps: u64,
    /// Minibatch size k (the code's 50); the expected batch in certified mode.
    pub batch: usize,
    /// ℓ2 constraint radius C (`None`: unconstrained).
    pub radius: Option<f64>,
}

impl PsgdSpec {
    /// The code's live branches: (C None, λ = 0) or (C Some, λ > 0); any other combination
    /// returns θ = 0 in the authors' code.
    pub fn is_live(&self) -> bool {
        match self.radius {
            None => self.lambda == 0.0,
            Some(_) => self.lambda > 0.0,
        }
    }

    /// Checks every field; errors name the parameter.
    pub fn check(&self) -> Result<()> {
        self.loss.validate()?;
        check_positive("lipschitz", self.lipschitz)?;
        check_nonnegative("lambda", self.lambda)?;
        check_positive("lr", self.lr)?;
        ensure(self.steps > 0, "steps", self.steps as f64, "must be > 0")?;
        ensure(self.batch > 0, "batch", self.batch as f64, "must be > 0")?;
        if let Some(c) = self.radius {
            check_positive("radius", c)?;
        }
        Ok(())
    }

    /// P-SGD on `n` training rows with the noise of `calibration` for `target`.
    ///
    /// Dead grid points (see [`PsgdSpec::is_live`]) stay dead in both calibrations: they release
    /// θ = 0 and cost nothing. Certified mode errs when no noise multiplier meets the target.
    pub fn build(
        &self,
        calibration: Calibration,
        n: usize,
        target: Target,
        accountant: &RdpAccountant,
    ) -> Result<Psgd> {
        self.check()?;
        let target = Target::new(target.epsilon(), target.delta())?;
        ensure(n > 0, "n", n as f64, "must be > 0")?;
        ensure(
            self.batch <= n,
            "batch",
            self.batch as f64,
            "must be <= the number of training rows",
        )?;
        let rate = self.batch as f64 / n as f64;
        // Sensitivity of a sum of per-example loss gradients (λθ is added outside the sum).
        let grad_bound = lipschitz(self.loss, self.lipschitz);
        let k = self.batch as f64;
        let (noise, z) = if !self.is_live() {
            (0.0, 0.0)
        } else {
            match calibration {
                Calibration::Paper => {
                    let l_reg = self.lipschitz + self.lambda * self.radius.unwrap_or(0.0);
                    let sigma = paper_noise::psgd_sigma(
                        l_reg,
                        self.steps,
                        n,
                        target.epsilon(),
                        target.delta(),
                    )?;
                    (sigma, sigma * k / grad_bound)
                }
                Calibration::Certified => {
                    let z = certified_multiplier(rate, self.steps, target, accountant)?;
                    (z * grad_bound / k, z)
                }
            }
        };
        let event = match (self.is_live(), calibration) {
            (false, _) => Event::NoOp,
            // k draws with replacement: replace-one neighbours, where a copy's gradient moves
            // by up to 2L when its row is replaced, so the per-copy multiplier is z/2.
            (true, Calibration::Paper) => Event::sampled_with_replacement(
                n as u64,
                self.batch as u64,
                Event::gaussian(z / 2.0)?,
            )?
            .self_composed(self.steps),
            (true, Calibration::Certified) => Event::dpsgd(rate, z, self.steps)?,
        };
        Ok(Psgd {
            spec: *self,
            calibration,
            n,
            rate,
            noise,
            z,
            event,
        })
    }
}

/// The smallest noise multiplier whose `steps` Poisson-sampled Gaussian steps at `rate` the
/// accountant certifies at `target`. Memoised for the process: a grid has hundreds of points
/// but only its few (rate, T) pairs need a calibration, and the answer is a pure function of
/// the key (the accountant's orders included).
fn certified_multiplier(
    rate: f64,
    steps: u64,
    target: Target,
    accountant: &RdpAccountant,
) -> Result<f64> {
    type Key = (u64, u64, u64, u64, u64);
    static CACHE: OnceLock<Mutex<HashMap<Key, f64>>> = OnceLock::new();
    let orders: Vec<u8> = accountant
        .orders()
        .iter()
        .flat_map(|a| a.to_bits().to_le_bytes())
        .collect();
    let key = (
        rate.to_bits(),
        steps,
        target.epsilon().to_bits(),
        target.delta().to_bits(),
        derive_seed(&[&orders]),
    );
    let cache = CACHE.get_or_init(Default::default);
    if let Some(z) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(*z);
    }
    let z = calibrate(
        || accountant.fresh(),
        |z| Event::dpsgd(rate, z, steps),
        target,
        dpsgd_bracket(rate, steps, target)?,
    )?;
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, z);
    Ok(z)
}

/// P-SGD with its noise fixed: build it with [`PsgdSpec::build`].
#[derive(Clone, Debug, PartialEq)]
pub struct Psgd {
    spec: PsgdSpec,
    calibration: Calibration,
    n: usize,
    rate: f64,
    noise: f64,
    z: f64,
    event: Event,
}

/// What one P-SGD run used (all public: fixed before the data are read).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PsgdReport {
    /// Which noise formulas ran.
    pub calibration: Calibration,
    /// False for a dead grid point (θ = 0 released).
    pub live: bool,
    /// Std σ of the Gaussian added to the mean gradient at every step (0 when dead).
    pub noise: f64,
    /// Noise multiplier z = σk/L of a step's gradient sum under add/remove (0 when dead).
    pub z: f64,
    /// Steps T.
    pub steps: u64,
}

impl Psgd {
    /// The settings.
    pub fn spec(&self) -> &PsgdSpec {
        &self.spec
    }

    /// Which noise formulas it runs.
    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    /// Std σ of the per-step Gaussian on the mean gradient.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// Noise multiplier z = σk/L.
    pub fn noise_multiplier(&self) -> f64 {
        self.z
    }

    /// The sampling rate q = k/n of the accounted event.
    pub fn sampling_rate(&self) -> f64 {
        self.rate
    }

    fn report(&self) -> PsgdReport {
        PsgdReport {
            calibration: self.calibration,
            live: self.spec.is_live(),
            noise: self.noise,
            z: self.z,
            steps: self.spec.steps,
        }
    }
}

impl Mechanism for Psgd {
    type Report = PsgdReport;

    fn name(&self) -> &'static str {
        "psgd"
    }

    /// Certified: T Poisson-subsampled Gaussian steps, rate q = k/n, z = σk/L, for add/remove
    /// neighbours. Paper: T Gaussians at per-copy multiplier z/2 on k rows drawn with
    /// replacement from n, for replace-one neighbours, bounded by revealing how often the
    /// replaced row is drawn (`accounting/with_replacement_gaussian.rs`: valid and far above
    /// the truth). The reference accounts that minibatch as Poisson sampling at rate k/n
    /// (§2.3), which under-reports (`scripts/with-replacement-pair.py`). Dead grid points:
    /// [`Event::NoOp`].
    fn event(&self) -> Event {
        self.event.clone()
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, PsgdReport)> {
        self.run(data, seed, None)
    }
}

impl Psgd {
    /// Paper mode's white-box view of one step: the canary drawn Bin(k, 1/n) times, each copy
    /// moving the auditor's coordinate by ±G, i.e. ±1/z noise units (per-copy multiplier z/2
    /// at the replace-one sensitivity 2G). Certified mode's is the Poisson pair: an error.
    pub fn canary_view(&self) -> Result<GaussianShiftMixture> {
        ensure(
            self.calibration == Calibration::Paper,
            "calibration",
            0.0,
            "certified P-SGD's white-box view is the Poisson-subsampled Gaussian",
        )?;
        canary_view(self.z / 2.0, self.spec.batch as u64, self.n as u64)
    }

    /// The loop of [`Mechanism::fit`]; with `white_box`, each step also releases the noisy
    /// sum at each of the auditor's coordinates (outside θ, so θ's steps and projection are
    /// the production ones): a canary's clipped gradient G·e_j when its own Poisson coin (drawn
    /// after the rows') includes it (certified), or ±G·e_j per copy of the last row in the
    /// batch (paper), plus that coordinate's share of the step's noise, drawn after θ's.
    fn run(
        &self,
        data: &GlmData<'_>,
        seed: u64,
        mut white_box: Option<&mut WhiteBox>,
    ) -> Result<(Vec<f64>, PsgdReport)> {
        let s = &self.spec;
        check_rows(data, self.n)?;
        check_row_bound(data, s.lipschitz)?;
        let d = data.d();
        if !s.is_live() {
            return Ok((vec![0.0; d], self.report()));
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let mut theta = match s.radius {
            Some(c) => uniform_start(&mut rng, d, c),
            None => vec![0.0; d],
        };
        let sampler = PoissonSampler::new(self.n, self.rate)?;
        let mut grad = vec![0.0; d];
        let mut batch = Vec::with_capacity(2 * s.batch + 16);
        // This step's canary terms at the auditor's coordinates, in units of G.
        let mut shifts = vec![0.0; white_box.as_ref().map_or(0, |w| w.canaries.len())];
        let scale = 1.0 / s.batch as f64;
        let bound = lipschitz(s.loss, s.lipschitz);
        for _ in 0..s.steps {
            match self.calibration {
                Calibration::Paper => {
                    batch.clear();
                    batch.extend((0..s.batch).map(|_| rng.random_range(0..self.n)));
                    if let Some(w) = white_box.as_deref() {
                        // The canary replaces the last row (one canary per run): its copies
                        // leave θ's gradient (its own is G·e_j) and move the auditor's
                        // coordinate by +G each on D′, −G on D.
                        let before = batch.len();
                        batch.retain(|&i| i != self.n - 1);
                        let copies = (before - batch.len()) as f64;
                        for (shift, &inside) in shifts.iter_mut().zip(&w.canaries) {
                            *shift = if inside { copies } else { -copies };
                        }
                    }
                }
                Calibration::Certified => {
                    sampler.sample_into(&mut rng, &mut batch);
                    if let Some(w) = white_box.as_deref() {
                        // Each canary's coin, only where it is in, in canary order.
                        for (shift, &inside) in shifts.iter_mut().zip(&w.canaries) {
                            let hit = inside && rng.random::<f64>() < self.rate;
                            *shift = if hit { 1.0 } else { 0.0 };
                        }
                    }
                }
            }
            loss_gradient(data, s.loss, &theta, &batch, scale, &mut grad);
            for (t, &g) in theta.iter_mut().zip(&grad) {
                let noise = self.noise * rng.sample::<f64, _>(StandardNormal);
                *t -= s.lr * (g + s.lambda * *t + noise);
            }
            if let Some(w) = white_box.as_deref_mut() {
                for &shift in &shifts {
                    let noise = self.noise * rng.sample::<f64, _>(StandardNormal);
                    let sum = shift * bound * scale + noise;
                    w.updates.push(sum / (bound * scale));
                }
            }
            if let Some(c) = s.radius {
                project_l2(&mut theta, c);
            }
        }
        Ok((theta, self.report()))
    }
}

/// P-SGD releases, at every step, a noisy sum of per-example gradients bounded by
/// G = L·(the loss's Lipschitz constant) with noise multiplier z. Certified mode samples Poisson
/// batches, its event; paper mode draws with replacement, and its auditor's canary replaces
/// the last row, so one canary per run (several would share one multinomial draw), its view
/// the shift mixture of [`Psgd::canary_view`].
impl NoisySteps for Psgd {
    fn run_white_box(&self, data: &GlmData<'_>, seed: u64, view: &mut WhiteBox) -> Result<()> {
        ensure(
            self.spec.is_live(),
            "lambda",
            self.spec.lambda,
            "a dead grid point releases nothing",
        )?;
        ensure(
            self.calibration == Calibration::Certified || view.canaries.len() == 1,
            "canaries",
            view.canaries.len() as f64,
            "paper P-SGD's white-box view carries one canary per run",
        )?;
        view.begin(self.spec.steps as usize)?;
        self.run(data, seed, Some(view)).map(|_| ())
    }

    fn max_canaries(&self) -> usize {
        match self.calibration {
            Calibration::Paper => 1,
            Calibration::Certified => usize::MAX,
        }
    }

    fn sampling_rate(&self) -> f64 {
        self.rate
    }

    fn noise_multiplier(&self) -> f64 {
        self.z
    }

    fn steps(&self) -> usize {
        self.spec.steps as usize
    }

    fn view_event(&self) -> Event {
        self.event()
    }
}

#[cfg(test)]
#[path = "sgd_tests.rs"]
mod tests;
