//! DPareto's proposals for a search study: the observations so far (from the checkpoint)
//! go to `dp_core::bo::dpareto::propose`, warm-started from the GP hyperparameters recorded
//! with the previous proposal, so a resumed study proposes exactly what an uninterrupted one
//! would.

use std::time::Instant;

use dp_core::bo::dpareto::{DparetoOptions, Observations, propose};
use dp_core::bo::gp::Hyper;
use dp_core::seed::derive_seed;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::config::{BoSpec, ReferenceKind, StudyConfig};
use super::points::{BoTrace, Point};
use super::space::DIM;

/// Proposes DPareto's next point from the points evaluated so far.
pub struct Proposer<'a> {
    cfg: &'a StudyConfig,
    bo: &'a BoSpec,
}

fn to_vec(h: &Hyper) -> Vec<f64> {
    let mut v = h.lengthscales.clone();
    v.extend([h.variance, h.noise]);
    v
}

fn from_vec(v: &[f64]) -> Option<Hyper> {
    (v.len() == DIM + 2).then(|| Hyper {
        lengthscales: v[..DIM].to_vec(),
        variance: v[DIM],
        noise: v[DIM + 1],
    })
}

impl<'a> Proposer<'a> {
    /// A proposer for `cfg`'s `[dpareto]` table.
    pub fn new(cfg: &'a StudyConfig, bo: &'a BoSpec) -> Self {
        Proposer { cfg, bo }
    }

    /// The point to evaluate as number `index`, and what BO knew when proposing it.
    pub fn propose(
        &mut self,
        points: &[Point],
        index: usize,
    ) -> anyhow::Result<([f64; DIM], BoTrace)> {
        let start = Instant::now();
        let x: Vec<f64> = points.iter().flat_map(|p| p.x).collect();
        let epsilon: Vec<f64> = points.iter().map(|p| p.epsilon).collect();
        let error: Vec<f64> = points.iter().map(Point::error).collect();
        let obs = Observations {
            x: &x,
            dim: DIM,
            epsilon: &epsilon,
            error: &error,
            k0: self.bo.initial,
        };
        let warm = points.iter().rev().find_map(|p| {
            let t = p.bo.as_ref()?;
            Some((from_vec(&t.privacy_gp)?, from_vec(&t.utility_gp)?))
        });
        let (lo, hi) = self.bo.space.bounds();
        let opts = DparetoOptions {
            restarts: self.bo.restarts,
            candidates: self.bo.candidates,
            estimated_reference: self.bo.reference == ReferenceKind::Gpflowopt,
        };
        let mut rng = StdRng::seed_from_u64(derive_seed(&[
            b"avent2020-bo",
            &self.cfg.seed.to_le_bytes(),
            &(index as u64).to_le_bytes(),
        ]));
        let p = propose(
            &obs,
            &lo,
            &hi,
            warm.as_ref().map(|(a, b)| (a, b)),
            &opts,
            &mut rng,
        )?;
        let mut out = [0.0; DIM];
        out.copy_from_slice(&p.x);
        Ok((
            out,
            BoTrace {
                privacy_gp: to_vec(&p.privacy),
                utility_gp: to_vec(&p.utility),
                acquisition: p.acquisition,
                seconds: start.elapsed().as_secs_f64(),
            },
        ))
    }
}
