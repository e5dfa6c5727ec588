//! Drives a study: proposes points (all at once for random and grid, one at a time for
//! DPareto), evaluates them, checkpoints each, then writes the outputs.

use crate::experiment::provenance::Provenance;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rayon::prelude::*;

use super::config::{StudyConfig, StudyKind};
use super::dpareto;
use super::oracle::{Oracle, StudyData};
use super::output;
use super::points::{PointLog, Source};
use super::space::{DIM, grid};
use crate::experiment::runner::progress_bar;
use dp_core::seed::derive_seed;

/// What a study run did.
#[derive(Debug)]
pub struct StudyReport {
    /// Results folder.
    pub dir: PathBuf,
    /// Points in the study.
    pub total: usize,
    /// Points evaluated by this run (the rest were in the checkpoint).
    pub ran: usize,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// The `i`-th random point of a study seeded `seed`: its own stream, so DPareto's seed points
/// are exactly the random study's first points.
pub fn random_point(cfg: &StudyConfig, i: usize) -> [f64; DIM] {
    let r = cfg.random.as_ref().expect("validated");
    let mut rng = StdRng::seed_from_u64(derive_seed(&[
        b"avent2020-random",
        &cfg.seed.to_le_bytes(),
        &(i as u64).to_le_bytes(),
    ]));
    r.distribution.sample(&r.ranges, &mut rng)
}

/// The points a non-adaptive study evaluates, in order.
fn planned(cfg: &StudyConfig) -> Vec<(Source, [f64; DIM])> {
    match cfg.study {
        StudyKind::Random => {
            let n = cfg.random.as_ref().expect("validated").points;
            (0..n)
                .map(|i| (Source::Random, random_point(cfg, i)))
                .collect()
        }
        StudyKind::GridSearch => {
            let g = cfg.grid.as_ref().expect("validated");
            grid(g.size, &g.ranges)
                .into_iter()
                .map(|x| (Source::Grid, x))
                .collect()
        }
        StudyKind::Dpareto => {
            let k0 = cfg.dpareto.as_ref().expect("validated").initial;
            (0..k0)
                .map(|i| (Source::Random, random_point(cfg, i)))
                .collect()
        }
    }
}

/// Runs (or resumes) the study of `cfg` into `dir`.
pub fn run(cfg: &StudyConfig, dir: &Path, progress: bool) -> anyhow::Result<StudyReport> {
    let start = Instant::now();
    let fingerprint = serde_json::to_string_pretty(cfg)?;
    let mut log = PointLog::open(dir, &fingerprint)?;
    let data = StudyData::load(cfg)?;
    let oracle = Oracle::new(cfg, &data)?;
    let plan = planned(cfg);
    let total = cfg.total_points();
    let done = log.points().len();
    if done > 0 {
        errln!(
            "resuming: {done} of {total} points already evaluated in {}",
            dir.display()
        );
    }
    let bar = progress_bar(total, "points", progress);
    bar.set_position(done as u64);
    // Non-adaptive points in parallel chunks, appended in index order.
    let chunk = 2 * rayon::current_num_threads().max(1);
    let mut next = done.min(plan.len());
    while next < plan.len() {
        let end = (next + chunk).min(plan.len());
        let pts: Vec<_> = (next..end)
            .into_par_iter()
            .map(|i| oracle.evaluate(i, plan[i].0, plan[i].1))
            .collect::<anyhow::Result<_>>()?;
        for p in pts {
            log.append(p)?;
            bar.inc(1);
        }
        next = end;
    }
    if let Some(bo) = &cfg.dpareto {
        let mut proposer = dpareto::Proposer::new(cfg, bo);
        while log.points().len() < total {
            let index = log.points().len();
            let (x, trace) = proposer.propose(log.points(), index)?;
            let mut p = oracle.evaluate(index, Source::Bo, x)?;
            p.bo = Some(trace);
            bar.set_message(format!("eps {:.3} err {:.3}", p.epsilon, p.error()));
            log.append(p)?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    output::write(dir, cfg, log.points())?;
    Provenance::here("study", start.elapsed().as_secs_f64(), &cfg.dataset).write(dir)?;
    Ok(StudyReport {
        dir: dir.to_path_buf(),
        total,
        ran: total - done.min(total),
        seconds: start.elapsed().as_secs_f64(),
    })
}
