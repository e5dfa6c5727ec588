//! `kind = "dpsgd"`: DP-SGD with Poisson sampling and learning-rate tuning, dishonest (every
//! grid point trained, the best mean over trials reported, tuning cost ignored) or honest
//! (Papernot–Steinke private selection around the run, its cost accounted).

use dp_core::accounting::event::Neighbours;
use dp_core::accounting::subsampled_gaussian::calibrate_dpsgd;
use dp_core::accounting::{HonestTuning, Target};
use dp_core::error::ensure;
use dp_core::learn::{
    Candidates, DpSgd, Mechanism, RepeatAndSelect, best_of, expected_batch, log_grid,
    poisson_schedule,
};
use serde::{Deserialize, Serialize};

use super::audited::{Audited, Fixed, Steps};
use super::{
    Aggregate, CellOutcome, Context, LossKind, Method, MethodEntry, OptimizerKind, Protocol,
    check_grid_size, param_error, parse_table, test_accuracy,
};
use crate::experiment::grid::Cell;
use crate::experiment::record::CellRecord;

/// The table entry.
pub const ENTRY: MethodEntry = MethodEntry {
    kind: "dpsgd",
    summary: "DP-SGD (Poisson sampling), learning rate tuned dishonestly or honestly",
    parse,
};

/// How DP-SGD's learning rate is tuned.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Tuning {
    /// Best learning rate by mean test accuracy over trials, privacy cost ignored.
    Dishonest,
    /// Papernot–Steinke private selection with K ~ Poisson(μ); cost accounted.
    Honest,
}

impl Tuning {
    /// Its name in configs.
    pub fn name(self) -> &'static str {
        match self {
            Tuning::Dishonest => "dishonest",
            Tuning::Honest => "honest",
        }
    }
}

/// Where honest tuning's K runs take their learning rates.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum CandidateRule {
    /// Each run draws its learning rate independently: log-uniform on [lr_min, lr_max], or
    /// uniform from `learning_rates`. Papernot–Steinke's setting (the sound default).
    #[default]
    Random,
    /// K learning rates log-spaced over [lr_min, lr_max], as Redberg et al. describe; the set
    /// depends on K, so the runs are not i.i.d. draws of one algorithm.
    PaperGrid,
}

/// `[methods.NAME]` keys of DP-SGD.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DpsgdConfig {
    /// Dishonest or honest tuning.
    pub tuning: Tuning,
    /// Passes over the data: T = epochs · ⌈n / batch_size⌉.
    #[serde(default = "default_epochs")]
    pub epochs: u32,
    /// Expected batch size (sampling rate q = batch_size / n_train).
    #[serde(default = "default_batch")]
    pub batch_size: u32,
    /// Per-example clipping norm C.
    #[serde(default = "default_clip")]
    pub clip: f64,
    /// Optimiser.
    #[serde(default)]
    pub optimizer: OptimizerKind,
    /// Smallest learning rate.
    #[serde(default = "default_lr_min")]
    pub lr_min: f64,
    /// Largest learning rate.
    #[serde(default = "default_lr_max")]
    pub lr_max: f64,
    /// Dishonest: number of learning rates. Honest: the s in P[K > s] = tail_prob.
    #[serde(default = "default_grid_size")]
    pub grid_size: u32,
    /// Honest only: P[K > grid_size] that fixes the Poisson mean μ.
    #[serde(default = "default_tail_prob")]
    pub tail_prob: f64,
    /// Honest only: how each run picks its learning rate.
    #[serde(default)]
    pub candidates: CandidateRule,
    /// Honest with `candidates = "random"`: draw from this list instead of log-uniformly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning_rates: Option<Vec<f64>>,
    /// Loss.
    #[serde(default)]
    pub loss: LossKind,
    /// Dishonest only: also tune the clipping norm over these values (replaces `clip`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clips: Option<Vec<f64>>,
    /// Dishonest only: also tune the expected batch size over these values (replaces
    /// `batch_size`); each size is calibrated for its own (q, T).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_sizes: Option<Vec<u32>>,
    /// Release the mean of all iterates instead of the last (Neel et al.'s baseline).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub average_iterates: bool,
    /// How dense rows are stored for training: `"f64"` (default) or `"f32"` (half the memory
    /// traffic, arithmetic in f64, clipping by the f32 rows' own norms; sparse data ignore it).
    #[serde(default, skip_serializing_if = "FeatureStorage::is_f64")]
    pub feature_storage: FeatureStorage,
}

/// Storage precision of dense training rows.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FeatureStorage {
    /// The rows as loaded.
    #[default]
    F64,
    /// An f32 copy of the rows, made once per run.
    F32,
}

impl FeatureStorage {
    fn is_f64(&self) -> bool {
        *self == FeatureStorage::F64
    }
}

fn default_epochs() -> u32 {
    60
}
fn default_batch() -> u32 {
    256
}
fn default_clip() -> f64 {
    std::f64::consts::SQRT_2
}
fn default_lr_min() -> f64 {
    1e-8
}
fn default_lr_max() -> f64 {
    1e-1
}
fn default_grid_size() -> u32 {
    10
}
fn default_tail_prob() -> f64 {
    0.9
}

fn parse(table: toml::Table) -> Result<Box<dyn Method>, String> {
    let c: DpsgdConfig = parse_table(table)?;
    // The mechanism checks clip, learning rates and the optimiser.
    let (q, steps) = poisson_schedule(1000, c.batch_size.max(1) as usize, c.epochs as usize);
    c.run_with(1000, q, steps, c.lr_min, 1.0)
        .map_err(param_error)?;
    c.candidates().check().map_err(param_error)?;
    let int = |k: &'static str, v: u32| ensure(v >= 1, k, v as f64, "must be >= 1");
    int("epochs", c.epochs).map_err(param_error)?;
    int("batch_size", c.batch_size).map_err(param_error)?;
    check_grid_size(u64::from(c.grid_size))?;
    ensure(
        c.tail_prob > 0.0 && c.tail_prob < 1.0,
        "tail_prob",
        c.tail_prob,
        "must be in (0, 1)",
    )
    .map_err(param_error)?;
    if c.clips.is_some() || c.batch_sizes.is_some() {
        if c.tuning != Tuning::Dishonest {
            return Err("clips` and `batch_sizes` are grids of dishonest tuning: \
                        set `tuning = \"dishonest\"` or give single `clip`/`batch_size`"
                .into());
        }
        for (i, &v) in c.clips.iter().flatten().enumerate() {
            ensure(
                v > 0.0 && v.is_finite(),
                "clips",
                v,
                "must be > 0 and finite",
            )
            .map_err(|e| format!("{} (entry {i})", param_error(e)))?;
        }
        for &b in c.batch_sizes.iter().flatten() {
            int("batch_sizes", b).map_err(param_error)?;
        }
        if c.clips.as_ref().is_some_and(Vec::is_empty)
            || c.batch_sizes.as_ref().is_some_and(Vec::is_empty)
        {
            return Err("clips` and `batch_sizes` must list at least one value".into());
        }
        let points = u64::from(c.grid_size)
            .saturating_mul(c.clips.as_ref().map_or(1, Vec::len) as u64)
            .saturating_mul(c.batch_sizes.as_ref().map_or(1, Vec::len) as u64);
        let max = dp_core::accounting::private_selection::MAX_TUNING_RUNS;
        if points > max {
            return Err(format!(
                "grid_size` × clips × batch_sizes = {points} grid points, more than {max}: \
                 each point runs every trial of every cell; cut the lists"
            ));
        }
    }
    Ok(Box::new(c))
}

impl DpsgdConfig {
    /// One DP-SGD run (checked) for `n` training rows: learning rate `lr`, noise multiplier
    /// `z`.
    fn run_with(&self, n: usize, q: f64, steps: usize, lr: f64, z: f64) -> dp_core::Result<DpSgd> {
        DpSgd {
            expected_batch: expected_batch(q, n),
            loss: self.loss.glm(),
            clip: self.clip,
            noise_multiplier: z,
            sampling_rate: q,
            steps,
            optimizer: self.optimizer.with_lr(lr),
            l2: 0.0,
            average_iterates: self.average_iterates,
        }
        .checked()
    }

    /// The noise multiplier at `target` with Poisson schedule `(q, steps)` over `n` rows: of one
    /// untuned run under dishonest tuning (what its candidates share, the learning rate not
    /// entering the event, so `lr_min` stands for all of them, and what an audit runs), or of
    /// the tuned procedure under honest tuning (calibrated on the event its candidates share,
    /// which `tuned` checks). DP-SGD's one calibration, with its floor ([`calibrate_dpsgd`]).
    fn z_for(
        &self,
        ctx: &Context<'_>,
        n: usize,
        (q, steps): (f64, usize),
        target: Target,
        tuning: Tuning,
    ) -> anyhow::Result<f64> {
        let event_of = |z: f64| match tuning {
            Tuning::Dishonest => Ok(self.run_with(n, q, steps, self.lr_min, z)?.event()),
            // The score's values play no part in the event; what releasing it costs does.
            Tuning::Honest => {
                let score = self.score_event(ctx, n, (q, steps), z)?;
                Ok(self
                    .tuned(n, (q, steps), z, |_: &[f64], _: u64| 0.0)?
                    .paying_for_scores(score)
                    .event())
            }
        };
        let fresh = || ctx.rdp.fresh();
        Ok(calibrate_dpsgd(fresh, event_of, target, q, steps as u64)?)
    }

    /// One run's training ε at the config's δ, of which a private validation score takes its
    /// share (∞, not computed, when scores are free).
    fn run_epsilon(
        &self,
        ctx: &Context<'_>,
        n: usize,
        (q, steps): (f64, usize),
        z: f64,
    ) -> dp_core::Result<f64> {
        if !ctx.selection.pays_for_scores() {
            return Ok(f64::INFINITY);
        }
        let event = self.run_with(n, q, steps, self.lr_min, z)?.event();
        ctx.certify(&event)
            .map_err(|e| dp_core::DpError::Invalid(format!("{e:#}")))
    }

    /// The event of releasing one honest run's validation score at noise `z` (`None`: free).
    fn score_event(
        &self,
        ctx: &Context<'_>,
        n: usize,
        schedule: (f64, usize),
        z: f64,
    ) -> dp_core::Result<Option<dp_core::accounting::Event>> {
        let eps = self.run_epsilon(ctx, n, schedule, z)?;
        Ok(ctx.selection.score_event(eps))
    }

    /// Honest tuning's procedure at noise `z`: K ~ Poisson runs, each with a learning rate
    /// drawn from the candidates, the best by `score` released.
    fn tuned<S: Fn(&[f64], u64) -> f64 + Send + Sync>(
        &self,
        n: usize,
        (q, steps): (f64, usize),
        z: f64,
        score: S,
    ) -> dp_core::Result<
        RepeatAndSelect<DpSgd, impl Fn(f64) -> dp_core::Result<DpSgd> + Send + Sync + '_, S>,
    > {
        let honest = HonestTuning::poisson_tail(u64::from(self.grid_size), self.tail_prob)?;
        let run = move |lr| self.run_with(n, q, steps, lr, z);
        RepeatAndSelect::new(honest.selection, self.candidates(), run, score)
    }

    /// The training data as `feature_storage` asks (the f32 copy is shared by every cell).
    fn training_data<'c>(&self, ctx: &Context<'c>) -> dp_core::learn::GlmData<'c> {
        match self.feature_storage {
            FeatureStorage::F64 => ctx.train.clone(),
            FeatureStorage::F32 => ctx.train.with_f32_rows(),
        }
    }

    /// The (clip, batch, lr) points of the dishonest grid, clip slowest.
    fn grid(&self) -> Vec<(f64, u32, f64)> {
        let clips = self.clips.clone().unwrap_or_else(|| vec![self.clip]);
        let batches = self
            .batch_sizes
            .clone()
            .unwrap_or_else(|| vec![self.batch_size]);
        let lrs = log_grid(self.lr_min, self.lr_max, self.grid_size as usize);
        let mut out = Vec::new();
        for &c in &clips {
            for &b in &batches {
                out.extend(lrs.iter().map(|&lr| (c, b, lr)));
            }
        }
        out
    }

    /// Whether clip or batch size are tuned too (candidates are then grid indices).
    fn is_grid(&self) -> bool {
        self.clips.is_some() || self.batch_sizes.is_some()
    }

    /// Dishonest tuning over (clip, batch, lr): each batch size is calibrated for the cell's
    /// target; candidates are scored by their index in [`DpsgdConfig::grid`].
    fn run_grid(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let n = ctx.train.n();
        let target = ctx.target(cell.epsilon, Some(Neighbours::AddRemove))?;
        let grid = self.grid();
        let mut z_of = std::collections::BTreeMap::new();
        for &(_, b, _) in &grid {
            if let std::collections::btree_map::Entry::Vacant(e) = z_of.entry(b) {
                let (q, steps) = poisson_schedule(n, b as usize, self.epochs as usize);
                let z = self.z_for(ctx, n, (q, steps), target, Tuning::Dishonest)?;
                e.insert((
                    z,
                    q,
                    steps,
                    self.run_with(n, q, steps, self.lr_min, z)?.event(),
                ));
            }
        }
        let build = |idx: f64| {
            let (clip, b, lr) = grid[idx as usize];
            let (z, q, steps, _) = z_of[&b];
            DpsgdConfig {
                clip,
                ..self.clone()
            }
            .run_with(n, q, steps, lr, z)
        };
        let indices: Vec<f64> = (0..grid.len()).map(|i| i as f64).collect();
        let tests = TestScores::new(ctx);
        let score = |theta: &[f64], _: u64| tests.score(ctx, theta);
        let train = self.training_data(ctx);
        let (theta, sel) = best_of(build, &indices, &train, cell.seed, score)?;
        let chosen = sel.chosen.map(|i| grid[i as usize]);
        let b = chosen.map_or(grid[0].1, |c| c.1);
        let (z, _, steps, ref event) = z_of[&b];
        let details = DpsgdDetails {
            noise: z,
            runs: sel.runs,
            chosen: Some(chosen.map(|(c, b, lr)| grid_label(c, b, lr))),
            chosen_lr: chosen.map(|c| c.2),
            test_scores: tests.paired(&sel.scores),
            scores: sel.scores,
            iterations: steps,
        };
        Ok(CellOutcome::new(
            test_accuracy(ctx, &theta),
            event.clone(),
            &details,
        ))
    }

    fn candidates(&self) -> Candidates {
        let (lo, hi) = (self.lr_min, self.lr_max);
        match (self.candidates, &self.learning_rates) {
            (CandidateRule::PaperGrid, _) => Candidates::PaperGrid { lo, hi },
            (CandidateRule::Random, Some(list)) => Candidates::List(list.clone()),
            (CandidateRule::Random, None) => Candidates::LogUniform { lo, hi },
        }
    }
}

impl Method for DpsgdConfig {
    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some("certified"),
            tuning: Some(self.tuning.name()),
            relation: Some(Neighbours::AddRemove),
        }
    }

    fn kind(&self) -> &'static str {
        ENTRY.kind
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain struct")
    }

    /// Epochs times the trainings a cell runs (every grid point; honest tuning's K is about
    /// `grid_size`).
    fn cost(&self) -> f64 {
        let runs = match self.tuning {
            Tuning::Dishonest => self.grid().len(),
            Tuning::Honest => self.grid_size as usize,
        };
        f64::from(self.epochs) * runs as f64
    }

    /// Calibrates z for the cell's target (for one run, or for the tuned procedure), trains
    /// every candidate and keeps every score.
    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        if self.is_grid() {
            return self.run_grid(ctx, cell);
        }
        let n = ctx.train.n();
        let (q, steps) = poisson_schedule(n, self.batch_size as usize, self.epochs as usize);
        let target = ctx.target(cell.epsilon, Some(Neighbours::AddRemove))?;
        let train = self.training_data(ctx);
        let run = |lr: f64, z: f64| self.run_with(n, q, steps, lr, z);
        let z = self.z_for(ctx, n, (q, steps), target, self.tuning)?;
        let tests = TestScores::new(ctx);
        let (theta, selected, event) = match self.tuning {
            Tuning::Dishonest => {
                let lrs = log_grid(self.lr_min, self.lr_max, self.grid_size as usize);
                let score = |theta: &[f64], _: u64| tests.score(ctx, theta);
                let (theta, sel) = best_of(|lr| run(lr, z), &lrs, &train, cell.seed, score)?;
                // The released run's own ε: dishonest tuning does not pay for the selection.
                (theta, sel, run(self.lr_min, z)?.event())
            }
            Tuning::Honest => {
                let run_eps = self.run_epsilon(ctx, n, (q, steps), z)?;
                let score = |theta: &[f64], seed: u64| ctx.selection_score(theta, run_eps, seed);
                let mech = self
                    .tuned(n, (q, steps), z, score)?
                    .paying_for_scores(ctx.selection.score_event(run_eps));
                let (theta, sel) = mech.fit(&train, cell.seed)?;
                (theta, sel, mech.event())
            }
        };
        let details = DpsgdDetails {
            noise: z,
            runs: selected.runs,
            chosen: None,
            chosen_lr: selected.chosen,
            test_scores: tests.paired(&selected.scores),
            scores: selected.scores,
            iterations: steps,
        };
        // K = 0: private selection releases nothing; the model stays at θ₀ = 0.
        Ok(CellOutcome::new(
            test_accuracy(ctx, &theta),
            event,
            &details,
        ))
    }

    fn check_target(&self, ctx: &Context<'_>, epsilon: f64) -> anyhow::Result<()> {
        let n = ctx.train.n();
        let target = ctx.target(epsilon, Some(Neighbours::AddRemove))?;
        if self.is_grid() {
            let mut batches: Vec<u32> = self.grid().iter().map(|&(_, b, _)| b).collect();
            batches.sort_unstable();
            batches.dedup();
            for b in batches {
                let schedule = poisson_schedule(n, b as usize, self.epochs as usize);
                self.z_for(ctx, n, schedule, target, Tuning::Dishonest)?;
            }
            return Ok(());
        }
        let schedule = poisson_schedule(n, self.batch_size as usize, self.epochs as usize);
        self.z_for(ctx, n, schedule, target, self.tuning).map(drop)
    }

    /// Add/remove-one (Poisson sampling's RDP bound). Only an untuned run is one mechanism:
    /// dishonest tuning with `grid_size = 1`, calibrated as its cells are.
    fn mechanism<'c>(&'c self, ctx: &Context<'c>, epsilon: f64) -> anyhow::Result<Audited<'c>> {
        anyhow::ensure!(
            self.tuning == Tuning::Dishonest && !self.is_grid() && self.grid_size == 1,
            "an audit runs one DP-SGD mechanism: set `tuning = \"dishonest\"` and \
             `grid_size = 1` (one learning rate, `lr_min`), without `clips` or `batch_sizes`"
        );
        let n = ctx.train.n();
        let (q, steps) = poisson_schedule(n, self.batch_size as usize, self.epochs as usize);
        let target = ctx.target(epsilon, Some(Neighbours::AddRemove))?;
        let z = self.z_for(ctx, n, (q, steps), target, Tuning::Dishonest)?;
        let lr = log_grid(self.lr_min, self.lr_max, 1)[0];
        let mech = self.run_with(n, q, steps, lr, z)?;
        Ok(Audited {
            event: mech.event(),
            label: format!("z={z:.4};q={q:.4};T={steps};lr={lr:e}"),
            white_box: Some(Box::new(Steps(mech.clone()))),
            release: Box::new(Fixed(mech)),
            clip: None,
            neighbours: Neighbours::AddRemove,
            certificate: Neighbours::AddRemove,
        })
    }

    fn aggregate(&self, cells: &[&CellRecord]) -> anyhow::Result<Aggregate> {
        Ok(match self.tuning {
            Tuning::Dishonest if self.is_grid() => {
                let mut agg = Aggregate::best_mean_over_candidates(cells);
                let grid = self.grid();
                if let Some(&(c, b, lr)) = agg.chosen.and_then(|i| grid.get(i as usize)) {
                    agg.label = Some(grid_label(c, b, lr));
                    agg.chosen = Some(lr);
                }
                agg
            }
            Tuning::Dishonest => Aggregate::best_mean_over_candidates(cells),
            Tuning::Honest => Aggregate::per_trial(cells),
        })
    }
}

/// What a DP-SGD cell records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DpsgdDetails {
    /// Noise multiplier z.
    pub noise: f64,
    /// Trainings run (the grid's points, or honest tuning's K).
    pub runs: usize,
    /// A (clip, batch, lr) grid's released point in words; absent without such a grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Option<String>>,
    /// The released run's learning rate (`None` when K = 0).
    pub chosen_lr: Option<f64>,
    /// `[candidate, score]` of every run: what selection read (the test accuracy under the
    /// papers' protocol; the validation score, released privately under honest tuning,
    /// with validation rows).
    pub scores: Vec<(f64, f64)>,
    /// Dishonest tuning with validation rows: `[candidate, test accuracy]` of every run, which
    /// the summary reports for the candidate chosen by its validation scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_scores: Option<Vec<(f64, f64)>>,
    /// Steps T of each run.
    pub iterations: usize,
}

/// The test accuracies of a dishonest grid's candidates, kept beside their validation scores
/// (when the config has validation rows) for the summary to report the chosen one's: the
/// choice reads the validation scores alone.
struct TestScores(Option<std::cell::RefCell<Vec<f64>>>);

impl TestScores {
    fn new(ctx: &Context<'_>) -> Self {
        Self(ctx.valid.map(|_| Default::default()))
    }

    /// The free selection score of θ, noting its test accuracy when there are validation rows.
    fn score(&self, ctx: &Context<'_>, theta: &[f64]) -> f64 {
        if let Some(t) = &self.0 {
            t.borrow_mut().push(test_accuracy(ctx, theta));
        }
        ctx.free_selection_score(theta)
    }

    /// `[candidate, test accuracy]` in the order of `scores`.
    fn paired(&self, scores: &[(f64, f64)]) -> Option<Vec<(f64, f64)>> {
        let t = self.0.as_ref()?.borrow();
        if t.is_empty() {
            return None;
        }
        Some(
            scores
                .iter()
                .zip(t.iter())
                .map(|(&(v, _), &a)| (v, a))
                .collect(),
        )
    }
}

/// A grid point in words (no commas: it goes into CSV files).
fn grid_label(clip: f64, batch: u32, lr: f64) -> String {
    format!("C={clip};batch={batch};lr={lr:.3e}")
}
