//! A search (random, grid or DPareto) as a study of the one engine
//! ([`crate::experiment::engine`]): its points proposed all at once for random and grid, one
//! at a time for DPareto, evaluated and checkpointed by the engine, then its outputs written.

use crate::experiment::provenance::Provenance;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::ProgressBar;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::config::{StudyConfig, StudyKind};
use super::dpareto;
use super::oracle::{Oracle, StudyData};
use super::output;
use super::points::{BoTrace, Point, PointLog, Source};
use super::space::{DIM, grid};
use crate::experiment::engine::{self, Observer};
use crate::experiment::runner::progress_bar;
use crate::experiment::study::Study;
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

/// One point to evaluate: where it stands in the study, who proposed it, and (DPareto) what
/// BO knew when it did.
pub struct Proposal {
    index: usize,
    source: Source,
    x: [f64; DIM],
    trace: Option<BoTrace>,
}

/// A search as a [`Study`] of the one engine: the planned points (every point of a random or
/// grid study, DPareto's seed points) in one batch, then DPareto's proposals one at a time,
/// each from every point before it.
struct Search<'a> {
    plan: Vec<(Source, [f64; DIM])>,
    proposer: Option<dpareto::Proposer<'a>>,
    total: usize,
}

impl Study for Search<'_> {
    type Unit = Proposal;
    type Record = Point;

    fn propose(&mut self, finished: &[Point]) -> anyhow::Result<Vec<Proposal>> {
        let done = finished.len();
        if done < self.plan.len() {
            return Ok((done..self.plan.len())
                .map(|index| Proposal {
                    index,
                    source: self.plan[index].0,
                    x: self.plan[index].1,
                    trace: None,
                })
                .collect());
        }
        match &mut self.proposer {
            Some(p) if done < self.total => {
                let (x, trace) = p.propose(finished, done)?;
                Ok(vec![Proposal {
                    index: done,
                    source: Source::Bo,
                    x,
                    trace: Some(trace),
                }])
            }
            _ => Ok(Vec::new()),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.total)
    }
}

/// A search's progress: a bar over its points, DPareto's last (ε, error) beside it.
struct SearchProgress<'a>(&'a ProgressBar);

impl Observer<Point> for SearchProgress<'_> {
    fn record(&self, p: &Point) {
        if p.source == Source::Bo {
            self.0
                .set_message(format!("eps {:.3} err {:.3}", p.epsilon, p.error()));
        }
        self.0.inc(1);
    }
}

/// Runs (or resumes) the study of `cfg` into `dir`.
pub fn run(cfg: &StudyConfig, dir: &Path, progress: bool) -> anyhow::Result<StudyReport> {
    let start = Instant::now();
    let fingerprint = serde_json::to_string_pretty(cfg)?;
    let mut log = PointLog::open(dir, &fingerprint)?;
    let data = StudyData::load(cfg)?;
    let oracle = Oracle::new(cfg, &data)?;
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
    let mut study = Search {
        plan: planned(cfg),
        proposer: cfg
            .dpareto
            .as_ref()
            .map(|bo| dpareto::Proposer::new(cfg, bo)),
        total,
    };
    let evaluate = |u: &Proposal| {
        let mut p = oracle.evaluate(u.index, u.source, u.x)?;
        p.bo = u.trace.clone();
        Ok(p)
    };
    engine::drive(&mut study, &mut log, &evaluate, &SearchProgress(&bar))?;
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
