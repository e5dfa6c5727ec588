//! DP-SGD for GLMs (Abadi et al. 2016 as run by Opacus): Poisson-sampled batches,
//! per-example gradients clipped to norm `C`, Gaussian noise `N(0, z²C²I)` on their sum, the
//! sum divided by the *expected* batch size `q·n` of the dataset the mechanism was built for
//! (a public constant, [`DpSgd::expected_batch`]), then an Adam or SGD step.
//!
//! Privacy accounting (`q`, `z`, `T` ↦ ε) lives in [`crate::accounting`]; this module only runs
//! the mechanism. A GLM per-example gradient is `f'(xᵀθ)·x`, so its norm is
//! `|f'(xᵀθ)|·‖x‖` with the row norm precomputed: clipping is a scalar factor and each example
//! costs one dot product and one axpy over the row's non-zeros. No allocation inside the loop.

use super::data::GlmData;
use super::dense_batch;
use super::loss::GlmLoss;
use super::mechanism::Mechanism;
use super::optimizer::{Optimizer, OptimizerState};
use super::poisson_sampler::PoissonSampler;
use super::prefetch;
use super::white_box::{NoisySteps, WhiteBox};
use crate::accounting::event::Event;
use crate::error::{Result, check_nonnegative, check_positive, check_sampling_rate, ensure};
use crate::features::FeatureMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

/// DP-SGD: what runs ([`dpsgd`]) and, as a [`Mechanism`], what is accounted.
#[derive(Clone, Debug, PartialEq)]
pub struct DpSgd {
    /// Per-example loss.
    pub loss: GlmLoss,
    /// Per-example gradient clipping norm `C`.
    pub clip: f64,
    /// Noise multiplier `z` (noise standard deviation `z·C` on the clipped sum).
    pub noise_multiplier: f64,
    /// Poisson sampling rate `q`.
    pub sampling_rate: f64,
    /// Number of steps `T`.
    pub steps: usize,
    /// Update rule.
    pub optimizer: Optimizer,
    /// Optional L2 strength: `l2·θ` is added to the noisy mean gradient (0 = none).
    pub l2: f64,
    /// Release the mean of the iterates θ₁…θ_T instead of θ_T (Neel et al.'s private-LR
    /// baseline). Post-processing of the same noisy steps: the event does not change.
    pub average_iterates: bool,
    /// The constant each step's noisy sum is divided by: q·n of the dataset the mechanism is
    /// built for, fixed at construction. Dividing by q·|D| of the data it runs on instead would
    /// make the scale of the release, and the variance of its noise, a function of the private
    /// size |D| under add/remove neighbours, which the event does not account for (found by
    /// auditing DP-SGD on D and D ∪ {canary}).
    pub expected_batch: f64,
}

impl DpSgd {
    /// The paper's setting: logistic loss, Adam, no L2, expected batch `batch`, `epochs` passes
    /// of `ceil(n / batch)` steps each.
    pub fn paper(
        n: usize,
        batch: usize,
        epochs: usize,
        clip: f64,
        noise_multiplier: f64,
        lr: f64,
    ) -> Self {
        let (sampling_rate, steps) = poisson_schedule(n, batch, epochs);
        DpSgd {
            expected_batch: expected_batch(sampling_rate, n),
            loss: GlmLoss::Logistic,
            clip,
            noise_multiplier,
            sampling_rate,
            steps,
            optimizer: Optimizer::adam(lr),
            l2: 0.0,
            average_iterates: false,
        }
    }

    /// Checks every field and returns the mechanism (errors name the parameter).
    pub fn checked(self) -> Result<Self> {
        self.validate()?;
        Ok(self)
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        self.loss.validate()?;
        check_positive("clip", self.clip)?;
        let z = self.noise_multiplier;
        check_nonnegative("noise-multiplier", z)?;
        let q = self.sampling_rate;
        check_sampling_rate(q)?;
        check_nonnegative("l2", self.l2)?;
        check_positive("expected-batch", self.expected_batch)?;
        self.optimizer.validate()
    }
}

/// The expected batch q·n of `n` rows sampled at rate `q` (the Poisson sampler's own
/// expression, so that a mechanism built for the rows it runs on divides exactly as before).
pub fn expected_batch(q: f64, n: usize) -> f64 {
    q * n as f64
}

/// Poisson sampling rate and step count of `epochs` passes with expected batch `batch` over
/// `n` rows: q = min(batch/n, 1), T = epochs·⌈n/batch⌉. The one place they are derived, so
/// that the accounted (q, T) are the ones that run.
pub fn poisson_schedule(n: usize, batch: usize, epochs: usize) -> (f64, usize) {
    (
        (batch as f64 / n as f64).min(1.0),
        epochs * n.div_ceil(batch),
    )
}

impl Mechanism for DpSgd {
    type Report = DpSgdReport;

    fn name(&self) -> &'static str {
        "dpsgd"
    }

    /// `steps` Poisson-subsampled Gaussian steps with noise multiplier z (noise z·C on a sum
    /// of gradients clipped to C); z = 0 is not private.
    fn event(&self) -> Event {
        if self.noise_multiplier == 0.0 {
            return Event::NonPrivate;
        }
        Event::SelfComposed {
            event: Box::new(Event::PoissonSampled {
                rate: self.sampling_rate,
                event: Box::new(Event::Gaussian {
                    noise_multiplier: self.noise_multiplier,
                }),
            }),
            count: self.steps as u64,
        }
    }

    fn fit(&self, data: &GlmData<'_>, seed: u64) -> Result<(Vec<f64>, DpSgdReport)> {
        let out = dpsgd(data, self, &mut StdRng::seed_from_u64(seed))?;
        let report = DpSgdReport { steps: out.steps };
        Ok((out.theta, report))
    }
}

/// Diagnostics of one DP-SGD run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DpSgdReport {
    /// Steps taken.
    pub steps: usize,
}

/// Output of a DP-SGD run.
#[derive(Clone, Debug, PartialEq)]
pub struct DpSgdOutput {
    /// The final iterate `θ_T` (the released model).
    pub theta: Vec<f64>,
    /// Steps taken.
    pub steps: usize,
    /// Total number of sampled examples over all steps (diagnostic; not private).
    pub examples_seen: usize,
}

/// Runs DP-SGD from `θ₀ = 0`.
pub fn dpsgd<R: Rng + ?Sized>(
    data: &GlmData<'_>,
    params: &DpSgd,
    rng: &mut R,
) -> Result<DpSgdOutput> {
    run(data, params, rng, None)
}

/// Runs DP-SGD as [`dpsgd`] does, with the white-box auditor's extra coordinate and canary.
/// Everything else (sampling, clipping, the noise on every coordinate, the steps) is the
/// production loop's; θ is released without the extra coordinate.
pub fn dpsgd_white_box<R: Rng + ?Sized>(
    data: &GlmData<'_>,
    params: &DpSgd,
    rng: &mut R,
    white_box: &mut WhiteBox,
) -> Result<DpSgdOutput> {
    white_box.begin(params.steps)?;
    run(data, params, rng, Some(white_box))
}

impl NoisySteps for DpSgd {
    fn run_white_box(&self, data: &GlmData<'_>, seed: u64, view: &mut WhiteBox) -> Result<()> {
        let mut rng = StdRng::seed_from_u64(seed);
        dpsgd_white_box(data, self, &mut rng, view).map(|_| ())
    }

    fn sampling_rate(&self) -> f64 {
        self.sampling_rate
    }

    fn noise_multiplier(&self) -> f64 {
        self.noise_multiplier
    }

    fn steps(&self) -> usize {
        self.steps
    }

    fn view_event(&self) -> Event {
        self.event()
    }
}

fn run<R: Rng + ?Sized>(
    data: &GlmData<'_>,
    params: &DpSgd,
    rng: &mut R,
    mut white_box: Option<&mut WhiteBox>,
) -> Result<DpSgdOutput> {
    params.validate()?;
    let (n, d) = (data.n(), data.d());
    ensure(n > 0, "n", n as f64, "dataset must not be empty")?;
    // The white-box coordinates: d, d + 1, … of θ, one per canary, outside every row.
    let extra = white_box.as_ref().map_or(0, |w| w.canaries.len());
    let width = d + extra;
    let sampler = PoissonSampler::new(n, params.sampling_rate)?;
    let (x, y, norms) = (data.x(), data.y(), data.row_norms());
    let (loss, clip) = (params.loss, params.clip);
    let noise_sd = params.noise_multiplier * clip;
    let inv_batch = 1.0 / params.expected_batch;
    let mut theta = vec![0.0; width];
    let mut grad = vec![0.0; width];
    let mut mean = vec![0.0; if params.average_iterates { width } else { 0 }];
    let mut opt = OptimizerState::new(params.optimizer, width);
    let mut batch = Vec::with_capacity((2.0 * sampler.expected_batch()) as usize + 16);
    let mut seen = 0;
    // Dense rows go through the four-at-a-time kernel (same bits, closer to the memory's
    // bandwidth), from their f32 copy when the data ask for it.
    let dense = match (data.dense_f32(), x) {
        (Some((x32, norms32)), _) => Some(DenseRows::F32(x32, norms32)),
        (None, FeatureMatrix::Dense { data, .. }) => Some(DenseRows::F64(data)),
        _ => None,
    };
    for _ in 0..params.steps {
        sampler.sample_into(rng, &mut batch);
        seen += batch.len();
        let (th, gr) = (&theta[..d], &mut grad[..d]);
        match dense {
            Some(DenseRows::F64(xd)) => {
                dense_batch::clipped_sum(xd, d, &batch, th, y, norms, loss, clip, gr)
            }
            Some(DenseRows::F32(xd, n32)) => {
                dense_batch::clipped_sum(xd, d, &batch, th, y, n32, loss, clip, gr)
            }
            None => sparse_clipped_sum(x, y, norms, &batch, th, loss, clip, gr),
        }
        if let Some(w) = white_box.as_deref_mut() {
            // Each canary's coin is drawn after the rows' (only where it is in, where it is a
            // row), in canary order. Its clipped gradient is C·e_j, norm C, which clipping
            // leaves as it is.
            for (g, &inside) in grad[d..].iter_mut().zip(&w.canaries) {
                *g = 0.0;
                if inside && rng.random::<f64>() < params.sampling_rate {
                    *g = clip;
                }
            }
        }
        if noise_sd > 0.0 {
            for g in grad.iter_mut() {
                *g += noise_sd * rng.sample::<f64, _>(StandardNormal);
            }
        }
        if let Some(w) = white_box.as_deref_mut() {
            w.updates.extend(grad[d..].iter().map(|g| g / clip));
        }
        for (g, &t) in grad.iter_mut().zip(&theta) {
            *g = *g * inv_batch + params.l2 * t;
        }
        opt.step(&mut theta, &grad);
        if params.average_iterates {
            for (m, &t) in mean.iter_mut().zip(&theta) {
                *m += t;
            }
        }
    }
    if params.average_iterates && params.steps > 0 {
        let inv = 1.0 / params.steps as f64;
        theta = mean.iter().map(|m| m * inv).collect();
    }
    theta.truncate(d);
    Ok(DpSgdOutput {
        theta,
        steps: params.steps,
        examples_seen: seen,
    })
}

/// Dense rows as DP-SGD streams them: the matrix's own `f64`s, or an `f32` copy with the
/// norms of its rows.
#[derive(Clone, Copy)]
enum DenseRows<'a> {
    F64(&'a [f64]),
    F32(&'a [f32], &'a [f64]),
}

/// The clipped-gradient sum of a batch over sparse rows, one row at a time, with the
/// lookups of later batch members requested early.
#[allow(clippy::too_many_arguments)]
fn sparse_clipped_sum(
    x: &FeatureMatrix,
    y: &[f64],
    norms: &[f64],
    batch: &[usize],
    theta: &[f64],
    loss: GlmLoss,
    clip: f64,
    grad: &mut [f64],
) {
    grad.iter_mut().for_each(|g| *g = 0.0);
    for (k, &i) in batch.iter().enumerate() {
        if let Some(&far) = batch.get(k + 2 * prefetch::AHEAD) {
            prefetch::meta(x, y, norms, far);
        }
        if let Some(&ahead) = batch.get(k + prefetch::AHEAD) {
            prefetch::row(x, ahead);
        }
        let row = x.row(i);
        // A zero coefficient (flat loss) adds nothing: skip the row.
        let c = loss.clipped_deriv(row.dot(theta), y[i], norms[i], clip);
        if c != 0.0 {
            row.axpy(c, grad);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureMatrix;

    /// With q = 1, z = 0, no clipping and SGD, DP-SGD is full-batch gradient descent on the
    /// mean loss: compare with a direct implementation.
    #[test]
    fn reduces_to_gradient_descent() {
        let x = FeatureMatrix::dense(vec![1.0, 0.5, -0.3, 1.0, 0.8, -1.0, 0.0, 1.0], 4, 2);
        let y = [1.0, -1.0, 1.0, -1.0];
        let data = GlmData::new(&x, &y).unwrap();
        let params = DpSgd {
            loss: GlmLoss::Logistic,
            clip: 100.0,
            noise_multiplier: 0.0,
            sampling_rate: 1.0,
            steps: 25,
            optimizer: Optimizer::sgd(0.7),
            l2: 0.1,
            average_iterates: false,
            expected_batch: expected_batch(1.0, 4),
        };
        let out = dpsgd(&data, &params, &mut StdRng::seed_from_u64(1)).unwrap();
        let mut th = [0.0; 2];
        for _ in 0..25 {
            let mut g = [0.1 * th[0], 0.1 * th[1]];
            for (i, &yi) in y.iter().enumerate() {
                let u = x.row(i).dot(&th);
                let fp = GlmLoss::Logistic.deriv(u, yi);
                g[0] += fp * x.row(i).dot(&[1.0, 0.0]) / 4.0;
                g[1] += fp * x.row(i).dot(&[0.0, 1.0]) / 4.0;
            }
            th[0] -= 0.7 * g[0];
            th[1] -= 0.7 * g[1];
        }
        assert!((out.theta[0] - th[0]).abs() < 1e-12 && (out.theta[1] - th[1]).abs() < 1e-12);
        assert_eq!(out.examples_seen, 100);
    }

    /// f32 rows train on rounded data: a different model, but close to the f64 one, and the
    /// rounded rows' own norms do the clipping.
    #[test]
    fn f32_rows_train_close_to_f64() {
        let (n, d) = (64, 9);
        let v: Vec<f64> = (0..n * d)
            .map(|k| ((k * 37 % 101) as f64 - 50.0) / 77.0)
            .collect();
        let x = FeatureMatrix::dense(v, n, d);
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let data = GlmData::new(&x, &y).unwrap();
        let p = DpSgd {
            loss: GlmLoss::Logistic,
            clip: 0.8,
            noise_multiplier: 0.5,
            sampling_rate: 0.3,
            steps: 40,
            optimizer: Optimizer::sgd(0.2),
            l2: 0.0,
            average_iterates: false,
            expected_batch: expected_batch(0.3, n),
        };
        let a = dpsgd(&data, &p, &mut StdRng::seed_from_u64(3))
            .unwrap()
            .theta;
        let f32_data = data.with_f32_rows();
        let (rows, norms) = f32_data.dense_f32().unwrap();
        assert_eq!((rows.len(), norms.len()), (n * d, n));
        assert!(data.dense_f32().is_none(), "only the copy that asked");
        let b = dpsgd(&f32_data, &p, &mut StdRng::seed_from_u64(3))
            .unwrap()
            .theta;
        assert_ne!(a, b);
        for (u, w) in a.iter().zip(&b) {
            assert!((u - w).abs() < 1e-5, "{u} vs {w}");
        }
    }

    /// Averaging releases the mean of the iterates of the very same run.
    #[test]
    fn averaging_releases_the_mean_iterate() {
        let x = FeatureMatrix::dense(vec![1.0, 0.5, -0.3, 1.0, 0.8, -1.0, 0.0, 1.0], 4, 2);
        let y = [1.0, -1.0, 1.0, -1.0];
        let data = GlmData::new(&x, &y).unwrap();
        let step = |steps: usize, average_iterates: bool| {
            let p = DpSgd {
                loss: GlmLoss::Logistic,
                clip: 1.0,
                noise_multiplier: 0.7,
                sampling_rate: 0.5,
                steps,
                optimizer: Optimizer::sgd(0.3),
                l2: 0.0,
                average_iterates,
                expected_batch: expected_batch(0.5, 4),
            };
            dpsgd(&data, &p, &mut StdRng::seed_from_u64(9))
                .unwrap()
                .theta
        };
        let mut mean = [0.0; 2];
        for t in 1..=6 {
            let th = step(t, false);
            mean[0] += th[0] / 6.0;
            mean[1] += th[1] / 6.0;
        }
        let avg = step(6, true);
        assert!((avg[0] - mean[0]).abs() < 1e-12 && (avg[1] - mean[1]).abs() < 1e-12);
        assert_ne!(avg, step(6, false));
    }

    /// One step with one example whose gradient exceeds C: the update is exactly −lr·C·x̂/(qn).
    #[test]
    fn clips_each_example_to_norm_c() {
        let x = FeatureMatrix::dense(vec![3.0, 4.0], 1, 2);
        let data = GlmData::new(&x, &[1.0]).unwrap();
        let params = DpSgd {
            loss: GlmLoss::huber(),
            clip: 0.5,
            noise_multiplier: 0.0,
            sampling_rate: 1.0,
            steps: 1,
            optimizer: Optimizer::sgd(1.0),
            l2: 0.0,
            average_iterates: false,
            expected_batch: expected_batch(1.0, 1),
        };
        // Huber at margin 0 has g' = −1, so the raw gradient is −(3, 4) with norm 5.
        let out = dpsgd(&data, &params, &mut StdRng::seed_from_u64(1)).unwrap();
        assert!((out.theta[0] - 0.3).abs() < 1e-15 && (out.theta[1] - 0.4).abs() < 1e-15);
    }

    /// The noise on the update has standard deviation z·C/(qn) per coordinate.
    #[test]
    fn noise_has_the_calibrated_scale() {
        let x = FeatureMatrix::dense(vec![0.0; 200 * 2], 200, 2);
        let y = vec![1.0; 200];
        let data = GlmData::new(&x, &y).unwrap();
        let params = DpSgd {
            loss: GlmLoss::Logistic,
            clip: 2.0,
            noise_multiplier: 1.5,
            sampling_rate: 0.1,
            steps: 1,
            optimizer: Optimizer::sgd(1.0),
            l2: 0.0,
            average_iterates: false,
            expected_batch: expected_batch(0.1, 200),
        };
        let mut rng = StdRng::seed_from_u64(9);
        let reps = 4000;
        let mut sq = 0.0;
        for _ in 0..reps {
            let out = dpsgd(&data, &params, &mut rng).unwrap();
            sq += out.theta.iter().map(|t| t * t).sum::<f64>();
        }
        let sd = (sq / (2 * reps) as f64).sqrt();
        let expect = 1.5 * 2.0 / 20.0;
        assert!((sd / expect - 1.0).abs() < 0.03, "{sd} vs {expect}");
    }

    #[test]
    fn rejects_bad_parameters() {
        let x = FeatureMatrix::dense(vec![1.0, 0.0], 1, 2);
        let data = GlmData::new(&x, &[1.0]).unwrap();
        let good = DpSgd::paper(1, 1, 1, 1.0, 1.0, 0.1);
        assert!(dpsgd(&data, &good, &mut StdRng::seed_from_u64(0)).is_ok());
        for bad in [
            DpSgd {
                clip: 0.0,
                ..good.clone()
            },
            DpSgd {
                noise_multiplier: -1.0,
                ..good.clone()
            },
            DpSgd {
                sampling_rate: 0.0,
                ..good.clone()
            },
            DpSgd {
                l2: f64::NAN,
                average_iterates: false,
                ..good.clone()
            },
            DpSgd {
                optimizer: Optimizer::adam(-1.0),
                ..good.clone()
            },
        ] {
            assert!(dpsgd(&data, &bad, &mut StdRng::seed_from_u64(0)).is_err());
        }
        let p = DpSgd::paper(36178, 256, 60, 2f64.sqrt(), 1.0, 1e-3);
        assert_eq!(p.steps, 60 * 142);
        assert!((p.sampling_rate * 36178.0 - 256.0).abs() < 1e-9);
    }
}
