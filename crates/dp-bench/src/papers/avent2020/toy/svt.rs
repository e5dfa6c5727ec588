//! The SVT problem (P §2.2, Fig. 2; reference notes §2.5): `m = 100` binary queries of which
//! exactly 10 are true, in a random order per run; error `1 − F₁` averaged over 50 runs;
//! hyperparameters the noise level `b ∈ [10⁻², 10²]` (log) and the cutoff `C ∈ [1, 30]`.
//!
//! Each run's order and unit Laplace draws are fixed once (common random numbers): the
//! utility oracle is then a deterministic function of `(b, C)`, the same on the grid and for
//! BO.

use dp_core::learn::avent::svt::{Svt, f1_score};
use dp_core::learn::laplace::laplace;
use dp_core::seed::derive_seed;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::{Axis, Toy};

/// Queries per run.
pub const QUERIES: usize = 100;
/// True queries per run.
pub const TRUE_QUERIES: usize = 10;

/// The two hyperparameters (x, y of the figures).
pub const AXES: [Axis; 2] = [
    Axis {
        label: "noise level b",
        lo: 1e-2,
        hi: 1e2,
        log: true,
    },
    Axis {
        label: "cutoff C",
        lo: 1.0,
        hi: 30.0,
        log: false,
    },
];

struct Run {
    truth: Vec<bool>,
    rho: f64,
    nu: Vec<f64>,
}

/// SVT with the paper's ε (`certified = false`) or the certified one.
pub struct SvtToy {
    runs: Vec<Run>,
    certified: bool,
}

impl SvtToy {
    /// `runs` fixed runs drawn from `seed`.
    pub fn new(runs: usize, seed: u64, certified: bool) -> SvtToy {
        let runs = (0..runs)
            .map(|r| {
                let mut rng = StdRng::seed_from_u64(derive_seed(&[
                    b"avent2020-svt",
                    &seed.to_le_bytes(),
                    &(r as u64).to_le_bytes(),
                ]));
                let mut truth = vec![false; QUERIES];
                truth[..TRUE_QUERIES].iter_mut().for_each(|t| *t = true);
                truth.shuffle(&mut rng);
                let rho = laplace(&mut rng, 1.0);
                let nu = (0..QUERIES).map(|_| laplace(&mut rng, 1.0)).collect();
                Run { truth, rho, nu }
            })
            .collect();
        SvtToy { runs, certified }
    }

    fn svt(x: [f64; 2]) -> anyhow::Result<Svt> {
        Ok(Svt::new(x[0], x[1])?)
    }
}

impl Toy for SvtToy {
    fn name(&self) -> &'static str {
        if self.certified {
            "SVT (certified ε)"
        } else {
            "SVT (paper's ε)"
        }
    }

    fn axes(&self) -> [Axis; 2] {
        AXES
    }

    fn epsilon(&self, x: [f64; 2]) -> anyhow::Result<f64> {
        let s = Self::svt(x)?;
        Ok(if self.certified {
            s.epsilon()
        } else {
            s.epsilon_paper()
        })
    }

    fn errors(&self, xs: &[[f64; 2]]) -> anyhow::Result<Vec<f64>> {
        xs.iter()
            .map(|&x| {
                let s = Self::svt(x)?;
                let total: f64 = self
                    .runs
                    .iter()
                    .map(|r| 1.0 - f1_score(&r.truth, &s.run_with(&r.truth, r.rho, &r.nu)))
                    .sum();
                Ok(total / self.runs.len() as f64)
            })
            .collect()
    }

    fn error_label(&self) -> &'static str {
        "1 − F1"
    }

    fn hv_box(&self) -> (f64, f64) {
        (1e-2, 1e3)
    }
}
