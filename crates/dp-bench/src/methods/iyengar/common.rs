//! The machinery every Iyengar et al. method shares: the common config keys, the [`Grid`] an
//! algorithm describes itself by, and the one [`Method`] that runs any grid.

use std::fmt::Debug;

use dp_core::accounting::event::Event;
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::iyengar::Calibration;
use std::sync::Arc;

use dp_core::learn::{GlmData, Mechanism};
use dp_core::seed::run_seed;
use serde::{Deserialize, Serialize};

pub use super::scored::Scored;
use super::sweep::{Sweep, finite};
use super::{descent, honest};
use crate::experiment::grid::Cell;
use crate::experiment::method::check_grid_size;
use crate::experiment::record::CellRecord;
use crate::methods::dpsgd::Tuning;
use crate::methods::row_clip::{ClippedData, RowClip};
use crate::methods::{Aggregate, CellOutcome, Context, LossKind, Method, Protocol, parse_table};

/// Keys every Iyengar et al. method takes besides its grid.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Common {
    /// Loss: logistic, or Huber SVM with h = 0.1.
    #[serde(default)]
    pub loss: LossKind,
    /// The authors' noise formulas (`paper`) or this project's certified calibration.
    #[serde(default)]
    pub calibration: Calibration,
    /// Every grid point in every trial, best mean reported (`dishonest`, the paper's
    /// protocol), or Papernot–Steinke private selection (`honest`).
    #[serde(default = "dishonest")]
    pub tuning: Tuning,
    /// Honest only: the s in P[K > s] = `tail_prob` that fixes the Poisson mean of K.
    #[serde(default = "default_runs")]
    pub grid_size: u32,
    /// Honest only: P[K > grid_size].
    #[serde(default = "default_tail_prob")]
    pub tail_prob: f64,
}

fn dishonest() -> Tuning {
    Tuning::Dishonest
}
fn default_runs() -> u32 {
    10
}
fn default_tail_prob() -> f64 {
    0.9
}

const COMMON_KEYS: &[&str] = &["loss", "calibration", "tuning", "grid_size", "tail_prob"];

impl Common {
    /// Moves the common keys out of a method table and parses them.
    pub fn take(table: &mut toml::Table) -> Result<Common, String> {
        let mut mine = toml::Table::new();
        for k in COMMON_KEYS {
            if let Some(v) = table.remove(*k) {
                mine.insert((*k).to_string(), v);
            }
        }
        let c: Common = parse_table(mine)?;
        if !(c.tail_prob > 0.0 && c.tail_prob < 1.0) {
            return Err(format!(
                "tail_prob` = {} must be in (0, 1)",
                crate::quoting::number(c.tail_prob)
            ));
        }
        check_grid_size(u64::from(c.grid_size))?;
        Ok(c)
    }
}

/// One run of a grid point: the release, its privacy event and its diagnostics.
pub struct Run {
    /// The released model.
    pub theta: Vec<f64>,
    /// The event of what ran (for paper-mode AMP, at the γ it reached).
    pub event: Event,
    /// Noise scale of the run (the algorithm's main noise parameter), for the records.
    pub noise: f64,
}

/// An algorithm of Iyengar et al. as a grid of hyperparameter points.
pub trait Grid: Send + Sync + Debug + Serialize + 'static {
    /// One hyperparameter point.
    type Point: Clone + Debug + Send + Sync;

    /// The mechanism a point builds.
    type Mech: Mechanism;

    /// The `kind` in configs.
    fn kind(&self) -> &'static str;

    /// How a run takes its target-independent part from a shared slot (output-perturbation
    /// algorithms: `Some(descent::run::<Self>)`, see [`descent`]); `None` runs everything.
    /// Only for grids whose points do not depend on ε (the share is keyed by point index).
    const DESCENT: Option<descent::Hook<Self::Mech>> = None;

    /// The points, given the training-set size and the target ε (H-F AMP's f₁ depends on ε).
    fn points(&self, n: usize, epsilon: f64) -> Vec<Self::Point>;

    /// How a point clips the rows (train and test).
    fn clip(&self, p: &Self::Point) -> RowClip;

    /// A point the authors' code runs but that cannot learn (P-SGD's dead branches): honest
    /// tuning draws only live points.
    fn live(&self, _p: &Self::Point) -> bool {
        true
    }

    /// The point in words, `key=value` joined by `;` (no commas: it goes into CSV files).
    fn label(&self, p: &Self::Point) -> String;

    /// The point's mechanism for `target` on `n` training rows.
    fn build(
        &self,
        common: &Common,
        p: &Self::Point,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Self::Mech>;

    /// The relation the certified ε of the point's event is for, in `calibration`:
    /// replace-one for the output-perturbation and Frank–Wolfe events (their sensitivities are
    /// replace-one's) and paper P-SGD's with-replacement batches, add/remove for objective
    /// perturbation and Poisson-sampled SGD.
    fn certificate(&self, _calibration: Calibration) -> dp_core::accounting::event::Neighbours {
        dp_core::accounting::event::Neighbours::ReplaceOne
    }

    /// The run's main noise scale, for the records.
    fn noise(report: &<Self::Mech as Mechanism>::Report) -> f64;

    /// What a white-box auditor sees of the mechanism (`audit.canary = "gradient"`), for
    /// those with a view: every step's noisy sum (P-SGD, AMP's minimiser), every step's vertex
    /// (P-FW), the last iterate before its output noise is projected (P-SCPSGD).
    fn white_box(_mech: &Self::Mech) -> Option<Box<dyn crate::methods::audited::WhiteBox>> {
        None
    }

    /// The event of what ran: the mechanism's, unless the run changed it (paper-mode AMP's
    /// γ-doubling retries).
    fn ran(mech: &Self::Mech, _report: &<Self::Mech as Mechanism>::Report) -> Event {
        mech.event()
    }

    /// Builds, fits on `data` and returns the release.
    fn run(
        &self,
        common: &Common,
        p: &Self::Point,
        data: &GlmData<'_>,
        target: Target,
        rdp: &RdpAccountant,
        seed: u64,
    ) -> dp_core::Result<Run> {
        let mech = self.build(common, p, data.n(), target, rdp)?;
        let (theta, report) = mech.fit(data, seed)?;
        Ok(Run {
            theta,
            event: Self::ran(&mech, &report),
            noise: Self::noise(&report),
        })
    }

    /// The event of the point's mechanism for `target` (honest tuning calibrates with it).
    fn event(
        &self,
        common: &Common,
        p: &Self::Point,
        n: usize,
        target: Target,
        rdp: &RdpAccountant,
    ) -> dp_core::Result<Event> {
        Ok(self.build(common, p, n, target, rdp)?.event())
    }
}

/// A [`Grid`] with its common keys: the [`Method`] of every Iyengar et al. kind.
#[derive(Debug, Serialize)]
pub struct GridMethod<G: Grid> {
    /// The shared keys.
    #[serde(flatten)]
    pub common: Common,
    /// The algorithm's grid.
    #[serde(flatten)]
    pub grid: G,
    /// Honest tuning's per-run targets, solved once per ε and shared by the trials.
    #[serde(skip)]
    pub honest: honest::Cache,
    /// Dishonest tuning's ε-independent descents, shared by the ε values of a trial.
    #[serde(skip)]
    pub descents: descent::Cache,
}

impl<G: Grid> GridMethod<G> {
    /// [`GridMethod::new`] after counting the grid's points, defaults included, before any
    /// is built: the grid is the product of its lists, each an axis, and a few long lists
    /// would otherwise allocate it.
    pub fn checked(common: Common, grid: G) -> Result<Self, String> {
        let axes = serde_json::to_value(&grid).map_err(|e| format!("…`: {e}"))?;
        let points = axes
            .as_object()
            .into_iter()
            .flat_map(|o| o.values())
            .filter_map(serde_json::Value::as_array)
            .fold(1u64, |p, a| p.saturating_mul(a.len() as u64));
        let max = dp_core::accounting::private_selection::MAX_TUNING_RUNS;
        if points > max {
            return Err(format!(
                "…`: the grid's lists make {points} points, more than {max} (every point is a \
                 training in every cell; docs/limits.md): cut the lists"
            ));
        }
        Ok(Self::new(common, grid))
    }

    /// Wraps a parsed grid.
    pub fn new(common: Common, grid: G) -> Self {
        Self {
            common,
            grid,
            honest: Default::default(),
            descents: Default::default(),
        }
    }
}

/// Where a run sits in a dishonest sweep: what its ε-independent part is shared by.
#[derive(Clone, Copy, Debug)]
pub struct SweepAt<'c> {
    /// The method's name in the config.
    pub method: &'c str,
    /// The trial.
    pub trial: u32,
    /// The point's index in the grid.
    pub point: usize,
}

/// Runs `p` on `data` (class `class` of a one-vs-all task, 0 otherwise), sharing the
/// ε-independent part of the run when `at` places it in a sweep.
#[allow(clippy::too_many_arguments)]
fn run_on<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    p: &G::Point,
    data: &GlmData<'_>,
    target: Target,
    seed: u64,
    at: Option<SweepAt<'_>>,
    class: usize,
) -> dp_core::Result<Run> {
    match (at, G::DESCENT) {
        (Some(a), Some(hook)) => {
            let shared = m
                .descents
                .shared(ctx.cfg.seed, a.method, a.trial, a.point, class);
            let mech = m.grid.build(&m.common, p, data.n(), target, &ctx.rdp)?;
            hook(&mech, data, seed, &shared)
        }
        _ => m.grid.run(&m.common, p, data, target, &ctx.rdp, seed),
    }
}

/// Runs point `p` on its clipped rows (scored by the caller, on the rows it may read).
pub fn run_point<'c, G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'c>,
    p: &G::Point,
    target: Target,
    seed: u64,
    at: Option<SweepAt<'_>>,
) -> anyhow::Result<Scored<'c>> {
    let data = ctx.clips.get(m.grid.clip(p))?;
    if !data.classes.is_empty() {
        return run_one_vs_all(m, ctx, data, p, target, seed, at);
    }
    Ok(match run_on(m, ctx, p, &data.train, target, seed, at, 0) {
        Ok(run) => Scored {
            thetas: vec![run.theta],
            epsilon: ctx.certify_as(&run.event, Some(m.grid.certificate(m.common.calibration)))?,
            event: run.event,
            noise: run.noise,
            refused: None,
            data,
        },
        Err(e) => Scored {
            thetas: vec![vec![0.0; data.train.d()]],
            epsilon: 0.0,
            event: Event::NoOp,
            noise: f64::NAN,
            refused: Some(e.to_string()),
            data,
        },
    })
}

/// The per-class target of a one-vs-all task with `k` classes: (ε/k, δ/k), as the authors
/// split it (`gridsearch.py:414-419`); basic composition makes the K releases (ε, δ)-DP.
pub fn class_target(target: Target, k: usize) -> dp_core::Result<Target> {
    if k <= 1 {
        return Ok(target);
    }
    Target::new(target.epsilon() / k as f64, target.delta() / k as f64)
}

/// The event of point `p` at `target`: the mechanism's for binary tasks, the composition of
/// the K per-class mechanisms at [`class_target`] for one-vs-all.
pub fn point_event<G: Grid>(
    m: &GridMethod<G>,
    p: &G::Point,
    n: usize,
    k: usize,
    target: Target,
    rdp: &RdpAccountant,
) -> dp_core::Result<Event> {
    let one = m
        .grid
        .event(&m.common, p, n, class_target(target, k)?, rdp)?;
    Ok(if k <= 1 {
        one
    } else {
        Event::Composed(vec![one; k])
    })
}

/// One-vs-all: point `p` trained once per class at (ε/K, δ/K) (each class its own seed),
/// scored by the argmax rule; a class whose release is refused contributes θ = 0.
#[allow(clippy::too_many_arguments)]
fn run_one_vs_all<'c, G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'c>,
    data: Arc<ClippedData<'c>>,
    p: &G::Point,
    target: Target,
    seed: u64,
    at: Option<SweepAt<'_>>,
) -> anyhow::Result<Scored<'c>> {
    let k = data.classes.len();
    let part = class_target(target, k)?;
    let (mut thetas, mut events) = (Vec::with_capacity(k), Vec::with_capacity(k));
    let (mut noise, mut refused) = (f64::NAN, None);
    for (c, train) in data.classes.iter().enumerate() {
        match run_on(m, ctx, p, train, part, run_seed(seed, c), at, c) {
            Ok(run) => {
                thetas.push(run.theta);
                events.push(run.event);
                noise = noise.max(run.noise);
            }
            Err(e) => {
                thetas.push(vec![0.0; train.d()]);
                events.push(Event::NoOp);
                refused.get_or_insert(format!("class {c}: {e}"));
            }
        }
    }
    // The certifier takes the smaller of two valid bounds: the accountants on the K-fold
    // composition at δ, and basic composition of each class's certificate at δ/K (the
    // paper's split).
    let event = Event::Composed(events);
    Ok(Scored {
        thetas,
        epsilon: ctx.certify_as(&event, Some(m.grid.certificate(m.common.calibration)))?,
        event,
        noise,
        refused,
        data,
    })
}

fn dishonest_cell<G: Grid>(
    m: &GridMethod<G>,
    ctx: &Context<'_>,
    cell: &Cell,
) -> anyhow::Result<CellOutcome> {
    let n = ctx.train.n();
    let target = ctx.target(cell.epsilon, Some(m.grid.certificate(m.common.calibration)))?;
    let points = m.grid.points(n, cell.epsilon);
    let mut sweep = Sweep {
        n_train: n,
        points: points.len(),
        ..Sweep::default()
    };
    // Each ε starts at its own place in the grid, so that cells of one trial at different ε
    // running at once compute different shared descents instead of waiting on the same one.
    let k = ctx.cfg.epsilons.len().max(1);
    let at_eps = ctx.cfg.epsilons.iter().position(|&e| e == cell.epsilon);
    let start = at_eps.unwrap_or(0) * points.len() / k;
    let mut scored: Vec<Option<Scored>> = points.iter().map(|_| None).collect();
    let mut events = Vec::with_capacity(points.len());
    for j in 0..points.len() {
        let i = (start + j) % points.len();
        let at = SweepAt {
            method: &cell.method,
            trial: cell.trial,
            point: i,
        };
        let seed = run_seed(cell.seed, i);
        scored[i] = Some(run_point(m, ctx, &points[i], target, seed, Some(at))?);
    }
    let validated = ctx.valid.is_some();
    let mut valid = Vec::with_capacity(points.len());
    for (i, s) in scored.into_iter().flatten().enumerate() {
        // Every point is a candidate release of the dishonest reference: each has its test
        // accuracy, and the choice between them reads the validation scores alone.
        sweep.acc.push(finite(s.test_accuracy(ctx)?));
        if validated {
            valid.push(finite(s.selection_accuracy(ctx)?));
        }
        events.push(s.event);
        sweep.eps.push(finite(s.epsilon));
        sweep.noise.push(finite(s.noise));
        if let Some(why) = s.refused {
            sweep.refused.insert(i.to_string(), why);
        }
    }
    if validated {
        sweep.valid = Some(valid);
    }
    // The cell's own numbers: its best point by the scores choices read (what this trial
    // alone would report).
    let acc: Vec<f64> = sweep.acc.iter().map(|a| a.unwrap_or(f64::NAN)).collect();
    let by: Vec<f64> = sweep
        .selection_scores()
        .iter()
        .map(|a| a.unwrap_or(f64::NAN))
        .collect();
    let best = (0..by.len())
        .max_by(|&a, &b| by[a].total_cmp(&by[b]))
        .unwrap_or(0);
    Ok(CellOutcome {
        accuracy: acc.get(best).copied().unwrap_or(f64::NAN),
        // The released run's event: dishonest tuning does not pay for the selection.
        event: events.get(best).cloned().unwrap_or(Event::NonPrivate),
        details: sweep.to_details(),
    })
}

impl<G: Grid> GridMethod<G> {
    /// The paper's report: the point with the best mean accuracy over trials.
    fn best_point(&self, cells: &[&CellRecord]) -> anyhow::Result<Aggregate> {
        let sweeps: Vec<Sweep> = cells
            .iter()
            .map(|c| Sweep::of(c))
            .collect::<anyhow::Result<_>>()?;
        let len = sweeps
            .iter()
            .map(|s| s.acc.len().min(s.selection_scores().len()))
            .min()
            .unwrap_or(0);
        // The best mean of the scores choices read: validation scores when the config has
        // validation rows, the test accuracies under the papers' protocol.
        let mean = |i: usize| -> Option<f64> {
            let v: Option<Vec<f64>> = sweeps.iter().map(|s| s.selection_scores()[i]).collect();
            v.map(|v| v.iter().sum::<f64>() / v.len() as f64)
        };
        let best = (0..len).filter_map(|i| mean(i).map(|m| (i, m))).fold(
            None::<(usize, f64)>,
            |b, (i, m)| match b {
                Some((_, bm)) if bm >= m => b,
                _ => Some((i, m)),
            },
        );
        let Some((i, _)) = best else {
            return Ok(Aggregate::per_trial(cells));
        };
        let eps = sweeps.iter().map(|s| s.epsilon(i)).fold(0.0, f64::max);
        let label = match (sweeps.first(), cells.first()) {
            (Some(s), Some(c)) => self
                .grid
                .points(s.n_train, c.epsilon)
                .get(i)
                .map(|p| self.grid.label(p)),
            _ => None,
        }
        .unwrap_or_else(|| format!("point={i}"));
        Ok(Aggregate {
            accuracies: sweeps
                .iter()
                .map(|s| s.acc[i].unwrap_or(f64::NAN))
                .collect(),
            chosen: Some(i as f64),
            label: Some(label),
            epsilon_certified: Some(eps),
        })
    }
}

impl<G: Grid> Method for GridMethod<G> {
    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some(match self.common.calibration {
                Calibration::Paper => "paper",
                Calibration::Certified => "certified",
            }),
            tuning: Some(self.common.tuning.name()),
            relation: Some(self.grid.certificate(self.common.calibration)),
        }
    }

    /// Trains one binary problem per class (Iyengar et al.'s multi-class protocol).
    fn one_vs_all(&self) -> bool {
        true
    }

    fn kind(&self) -> &'static str {
        self.grid.kind()
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    /// Ten passes per grid point (at a nominal n = 10,000 and ε = 1).
    fn cost(&self) -> f64 {
        10.0 * self.grid.points(10_000, 1.0).len() as f64
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        match self.common.tuning {
            Tuning::Dishonest => dishonest_cell(self, ctx, cell),
            Tuning::Honest => honest::cell(self, ctx, cell),
        }
    }

    /// Honest tuning's plan (the per-run target and its certificate), the expensive part of a
    /// cell, is solved here once and kept for the cells; a grid's points are calibrated per
    /// run and a point out of reach releases nothing, so there is nothing more to check.
    fn check_target(&self, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<()> {
        match self.common.tuning {
            Tuning::Honest => honest::plan_of(self, ctx, epsilon).map(drop),
            Tuning::Dishonest => Ok(()),
        }
    }

    fn mechanism<'c>(
        &'c self,
        ctx: &Context<'c>,
        epsilon: f64,
    ) -> anyhow::Result<crate::methods::audited::Audited<'c>> {
        super::audit::mechanism(self, ctx, epsilon)
    }

    fn scheme(&self) -> u32 {
        // 1: descents shared across ε draw differently from the per-cell runs before them.
        u32::from(G::DESCENT.is_some())
    }

    fn aggregate(&self, cells: &[&CellRecord]) -> anyhow::Result<Aggregate> {
        match self.common.tuning {
            Tuning::Dishonest => self.best_point(cells),
            Tuning::Honest => Ok(Aggregate::per_trial(cells)),
        }
    }
}
