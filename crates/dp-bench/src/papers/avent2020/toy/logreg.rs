//! The output-perturbation logistic-regression problem (P §2.2, Fig. 1; reference notes §2.5):
//! Bolt-on PSGD on a1a (`a1a.t` train, `a1a` test, rows divided by the largest norm over
//! both), hyperparameters the penalty `γ ∈ [10⁻⁴, 1]` and the noise `σ ∈ [0.1, 10]` (both
//! log), ε from the exact Gaussian mechanism at δ = 10⁻⁶, error the test error of the noisy
//! model averaged over R runs.
//!
//! Run `r` uses the same shuffles (for every γ) and the same direction of noise `ξ_r` (for
//! every γ and σ): common random numbers make the oracle deterministic in `(γ, σ)` and let a
//! grid reuse one training per `(γ, r)` across all σ. Each release is still exactly the
//! mechanism; only the comparison across points is coupled.

use std::collections::HashMap;
use std::sync::Mutex;

use anyhow::Context;
use dp_core::features::FeatureMatrix;
use dp_core::learn::GlmData;
use dp_core::learn::avent::bolton;
use dp_core::seed::derive_seed;
use dp_data::{DataConfig, Dataset, DatasetId};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use super::{Axis, Toy};

/// The paper's δ for this example.
pub const DELTA: f64 = 1e-6;

/// a1a with unit-bounded rows, split as the authors' code.
pub struct BoltOnData {
    train: Dataset,
    test: Dataset,
}

fn scaled(x: &FeatureMatrix, k: f64) -> FeatureMatrix {
    match x {
        FeatureMatrix::Dense { data, nrows, ncols } => {
            FeatureMatrix::dense(data.iter().map(|v| v * k).collect(), *nrows, *ncols)
        }
        FeatureMatrix::Sparse(c) => {
            let mut c = c.clone();
            c.values.iter_mut().for_each(|v| *v *= k);
            FeatureMatrix::Sparse(c)
        }
    }
}

impl BoltOnData {
    /// Loads a1a (cache, mirror or canonical URL); `max_train_rows` keeps the first rows only.
    pub fn load(max_train_rows: Option<usize>) -> anyhow::Result<BoltOnData> {
        let id = DatasetId::A1a;
        let all = DataConfig::from_env()
            .dataset(id)
            .context("cannot load dataset a1a")?;
        let max = GlmData::new(&all.x, &all.y)?.max_row_norm();
        let all = Dataset {
            x: scaled(&all.x, 1.0 / max),
            ..all
        };
        let split = id.fixed_train_rows().expect("a1a has a fixed split");
        let rows = |r: std::ops::Range<usize>| r.collect::<Vec<_>>();
        let train_rows = max_train_rows.unwrap_or(split).min(split);
        Ok(BoltOnData {
            train: all.select(&rows(0..train_rows)),
            test: all.select(&rows(split..all.len())),
        })
    }
}

/// The two hyperparameters (x, y of the figures).
pub const AXES: [Axis; 2] = [
    Axis {
        label: "regularisation γ",
        lo: 1e-4,
        hi: 1.0,
        log: true,
    },
    Axis {
        label: "noise σ",
        lo: 0.1,
        hi: 10.0,
        log: true,
    },
];

/// The problem on loaded data with `runs` runs from `seed`.
pub struct BoltOnToy<'a> {
    train: GlmData<'a>,
    test: GlmData<'a>,
    runs: usize,
    seed: u64,
    /// Xᵀξ_r on the test rows, per run.
    noise: Vec<Vec<f64>>,
    /// Test scores of the model of run r at γ (keyed by γ's bits).
    trained: Mutex<HashMap<u64, Vec<Vec<f64>>>>,
}

impl<'a> BoltOnToy<'a> {
    /// Prepares the runs' noise directions.
    pub fn new(data: &'a BoltOnData, runs: usize, seed: u64) -> anyhow::Result<BoltOnToy<'a>> {
        let train = GlmData::new(&data.train.x, &data.train.y)?;
        let test = GlmData::new(&data.test.x, &data.test.y)?;
        let d = train.d();
        let noise = (0..runs)
            .map(|r| {
                let mut rng = StdRng::seed_from_u64(derive_seed(&[
                    b"avent2020-bolton-noise",
                    &seed.to_le_bytes(),
                    &(r as u64).to_le_bytes(),
                ]));
                let xi: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
                test_scores(&test, &xi)
            })
            .collect();
        Ok(BoltOnToy {
            train,
            test,
            runs,
            seed,
            noise,
            trained: Mutex::new(HashMap::new()),
        })
    }

    /// Trains (once) the runs' models at every γ in `gammas`.
    fn train_all(&self, gammas: &[f64]) -> anyhow::Result<()> {
        let missing: Vec<f64> = {
            let done = self.trained.lock().expect("no panics while held");
            let mut m: Vec<f64> = gammas
                .iter()
                .copied()
                .filter(|g| !done.contains_key(&g.to_bits()))
                .collect();
            m.sort_by(f64::total_cmp);
            m.dedup();
            m
        };
        let jobs: Vec<(f64, usize)> = missing
            .iter()
            .flat_map(|&g| (0..self.runs).map(move |r| (g, r)))
            .collect();
        let scores: Vec<Vec<f64>> = jobs
            .par_iter()
            .map(|&(g, r)| {
                let seed = derive_seed(&[
                    b"avent2020-bolton-order",
                    &self.seed.to_le_bytes(),
                    &(r as u64).to_le_bytes(),
                ]);
                let theta = bolton::train_psgd(&self.train, g, seed)?;
                Ok(test_scores(&self.test, &theta))
            })
            .collect::<anyhow::Result<_>>()?;
        let mut done = self.trained.lock().expect("no panics while held");
        for (chunk, &g) in scores.chunks(self.runs).zip(&missing) {
            done.insert(g.to_bits(), chunk.to_vec());
        }
        Ok(())
    }

    fn error_at(&self, models: &[Vec<f64>], sigma: f64) -> f64 {
        let y = self.test.y();
        let total: f64 = models
            .iter()
            .zip(&self.noise)
            .map(|(m, u)| {
                let wrong = (0..y.len())
                    .filter(|&i| (m[i] + sigma * u[i] > 0.0) != (y[i] > 0.0))
                    .count();
                wrong as f64 / y.len() as f64
            })
            .sum();
        total / models.len() as f64
    }
}

fn test_scores(test: &GlmData<'_>, theta: &[f64]) -> Vec<f64> {
    (0..test.n()).map(|i| test.x().row(i).dot(theta)).collect()
}

impl Toy for BoltOnToy<'_> {
    fn name(&self) -> &'static str {
        "output-perturbation LR"
    }

    fn axes(&self) -> [Axis; 2] {
        AXES
    }

    fn epsilon(&self, x: [f64; 2]) -> anyhow::Result<f64> {
        Ok(bolton::epsilon(self.train.n(), x[0], x[1], DELTA)?)
    }

    fn errors(&self, xs: &[[f64; 2]]) -> anyhow::Result<Vec<f64>> {
        let gammas: Vec<f64> = xs.iter().map(|x| x[0]).collect();
        self.train_all(&gammas)?;
        let done = self.trained.lock().expect("no panics while held");
        Ok(xs
            .iter()
            .map(|x| self.error_at(&done[&x[0].to_bits()], x[1]))
            .collect())
    }

    fn error_label(&self) -> &'static str {
        "classification error"
    }

    fn hv_box(&self) -> (f64, f64) {
        (1e-5, 10.0)
    }
}
