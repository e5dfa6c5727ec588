//! The two exact oracles (`docs/reference/neel2019.md` §1.4): OPDisc's `argmin_{w ∈ W} L(w) − ⟨η, π(w)⟩`
//! over `W = {w ∈ {−B..B}^d : ‖w‖² ≤ D²}` and RSPM's `argmin_{w ∈ {−1,0,1}^d} L(w) +
//! Σ_j (η_{2j} 1[w_j = 1] + η_{2j+1} 1[w_j = −1])`, as MILPs solved by HiGHS.
//!
//! A solve is **certified** only if HiGHS reports optimal with relative gap 0 *and* the
//! objective recomputed in f64 at the rounded solution equals the MIP's: the MIP relaxes the
//! loss of a row whose score falls in `(0, margin)`, so agreement at the solution proves it is
//! the true argmin (every other w's MIP value is at most its true value).

use std::time::Instant;

use highs::{HighsModelStatus, RowProblem, Sense};

use crate::rows::Rows;

/// Solver settings of one oracle call.
///
/// What decides a solve's outcome is `node_limit` alone: on one thread with a fixed seed
/// HiGHS does the same work in the same order on any machine at any load, so a node budget
/// certifies the same solves everywhere. `wall_cap` is only a safety net against a solve
/// that would never end; reaching it makes the answer [`Status::WallCapReached`].
#[derive(Clone, Debug, PartialEq)]
pub struct OracleOptions {
    /// Branch-and-bound node budget of one solve (HiGHS `mip_max_nodes`, at least 1: the
    /// root node is always evaluated).
    pub node_limit: u64,
    /// Wall-clock safety net of one solve, seconds (HiGHS `time_limit`).
    pub wall_cap: f64,
    /// HiGHS's random seed (fixed: a run is reproducible).
    pub seed: i32,
    /// A positive record needs `⟨w, x⟩ ≥ margin` (MIPs cannot state `> 0`).
    pub margin: f64,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            node_limit: 100_000,
            wall_cap: 3600.0,
            seed: 0,
            margin: 1e-3,
        }
    }
}

/// How a solve ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Proven optimal, and the recomputed objective agrees: the exact argmin.
    Certified,
    /// Not proven within the node budget (or a disagreeing recomputation): the incumbent
    /// carries no privacy guarantee. Reproducible: the same solve ends the same way anywhere.
    Uncertified {
        /// What went wrong.
        reason: String,
        /// HiGHS's relative MIP gap at the end.
        gap: f64,
    },
    /// The wall-clock safety net (or HiGHS's memory limit) stopped the solve before its node
    /// budget: whether it would have certified is unknown, and another machine may differ.
    WallCapReached {
        /// HiGHS's status.
        reason: String,
    },
}

/// One oracle call's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The (incumbent) minimiser, on the integer grid.
    pub w: Vec<i32>,
    /// Its objective recomputed in f64.
    pub objective: f64,
    /// Certified or not.
    pub status: Status,
    /// Branch-and-bound nodes the solve used (deterministic).
    pub nodes: i64,
    /// Simplex iterations over all of the solve's LPs (deterministic).
    pub lp_iterations: i64,
    /// Solve time, seconds: a measurement, never part of a decision.
    pub seconds: f64,
}

impl Answer {
    /// Whether the answer is the exact argmin.
    pub fn certified(&self) -> bool {
        self.status == Status::Certified
    }

    /// Whether the outcome is the same on every machine (the wall-clock cap was not reached).
    pub fn reproducible(&self) -> bool {
        !matches!(self.status, Status::WallCapReached { .. })
    }
}

/// OPDisc's objective `L(w) − ⟨η, π(w)⟩·D` on the grid (the `1/D` of π folded into η's
/// scale is the caller's business: here `π(w) = (w, √(D² − ‖w‖²))/D`).
pub fn opdisc_objective(rows: &Rows, w: &[i32], eta: &[f64], radius_sq: i64, margin: f64) -> f64 {
    let wf: Vec<f64> = w.iter().map(|&v| f64::from(v)).collect();
    let norm_sq: i64 = w.iter().map(|&v| i64::from(v) * i64::from(v)).sum();
    let big_d = (radius_sq as f64).sqrt();
    let last = ((radius_sq - norm_sq) as f64).sqrt();
    let linear: f64 = eta.iter().zip(&wf).map(|(e, v)| e * v).sum::<f64>() + eta[w.len()] * last;
    rows.loss(&wf, margin) - linear / big_d
}

/// RSPM's objective: the loss plus each separator's weight where it fires.
pub fn rspm_objective(rows: &Rows, w: &[i32], eta: &[f64], margin: f64) -> f64 {
    let wf: Vec<f64> = w.iter().map(|&v| f64::from(v)).collect();
    let sep: f64 = w
        .iter()
        .enumerate()
        .map(|(j, &v)| match v {
            1 => eta[2 * j],
            -1 => eta[2 * j + 1],
            _ => 0.0,
        })
        .sum();
    rows.loss(&wf, margin) + sep
}

/// Adds one indicator per row with mixed-majority labels and its one-sided big-M row;
/// returns the constant part of the loss. `bound_of(u)` bounds `|⟨w, x_u⟩|` over W.
fn add_loss_rows(
    pb: &mut RowProblem,
    rows: &Rows,
    w: &[highs::Col],
    margin: f64,
    bound_of: impl Fn(usize) -> f64,
) -> f64 {
    let mut constant = 0.0;
    for u in 0..rows.len() {
        let (p, m) = (f64::from(rows.pos[u]), f64::from(rows.neg[u]));
        constant += p;
        if p == m {
            continue;
        }
        let big_m = bound_of(u) + 2.0 * margin;
        let z = pb.add_integer_column(m - p, 0..=1);
        let mut factors: Vec<(highs::Col, f64)> = w
            .iter()
            .zip(rows.row(u))
            .filter(|(_, x)| **x != 0.0)
            .map(|(c, x)| (*c, *x))
            .collect();
        factors.push((z, -big_m));
        if m > p {
            // z = 0 forces ⟨w, x⟩ ≤ 0 (predict −1); z = 1 pays m − p more.
            pb.add_row(..=0.0, &factors);
        } else {
            // z = 1 forces ⟨w, x⟩ ≥ margin (predict +1).
            pb.add_row(margin - big_m.., &factors);
        }
    }
    constant
}

/// HiGHS's MIP node count, an `int64` info value the `highs` crate has no getter for.
fn node_count(solved: &mut highs::SolvedModel) -> i64 {
    let mut nodes: i64 = -1;
    // SAFETY: the pointer is the live HiGHS instance owned by `solved`, the name is a
    // NUL-terminated literal, and `nodes` outlives the call.
    let status = unsafe {
        highs_sys::Highs_getInt64InfoValue(
            solved.as_mut_ptr(),
            c"mip_node_count".as_ptr(),
            &mut nodes,
        )
    };
    if status == highs_sys::STATUS_OK {
        nodes
    } else {
        -1
    }
}

fn solve(
    pb: RowProblem,
    opts: &OracleOptions,
    decode: impl Fn(&[f64]) -> Vec<i32>,
    objective: impl Fn(&[i32]) -> f64,
    constant: f64,
) -> Answer {
    let start = Instant::now();
    let mut model = pb.optimise(Sense::Minimise);
    model.make_quiet();
    // One thread and a fixed seed make HiGHS's search deterministic; with `time_limit` not
    // reached, none of its decisions reads the clock (docs/papers/neel2019.md), so the node
    // budget alone decides which solves certify.
    model.set_option("threads", 1);
    model.set_option("random_seed", opts.seed);
    model.set_option(
        "mip_max_nodes",
        i32::try_from(opts.node_limit.max(1)).unwrap_or(i32::MAX),
    );
    model.set_option("time_limit", opts.wall_cap);
    model.set_option("mip_rel_gap", 0.0);
    model.set_option("mip_abs_gap", 1e-9);
    let mut solved = model.solve();
    let seconds = start.elapsed().as_secs_f64();
    let status = solved.status();
    let nodes = node_count(&mut solved);
    let lp_iterations = solved.simplex_iteration_count();
    let cols = solved.get_solution().columns().to_vec();
    let answer = |w, objective, status| Answer {
        w,
        objective,
        status,
        nodes,
        lp_iterations,
        seconds,
    };
    if matches!(
        status,
        HighsModelStatus::ReachedTimeLimit | HighsModelStatus::ReachedMemoryLimit
    ) {
        let w = if cols.is_empty() {
            Vec::new()
        } else {
            decode(&cols)
        };
        let obj = if w.is_empty() {
            f64::INFINITY
        } else {
            objective(&w)
        };
        let reason = format!("{status:?} after {seconds:.1} s");
        return answer(w, obj, Status::WallCapReached { reason });
    }
    if cols.is_empty() {
        let status = Status::Uncertified {
            reason: format!("no incumbent ({status:?})"),
            gap: f64::INFINITY,
        };
        return answer(Vec::new(), f64::INFINITY, status);
    }
    let w = decode(&cols);
    let recomputed = objective(&w);
    let mip = solved.objective_value() + constant;
    let gap = solved.mip_gap();
    let agree = (recomputed - mip).abs() <= 1e-7 * (1.0 + recomputed.abs());
    let status = if status == HighsModelStatus::ReachedSolutionLimit {
        // HiGHS reports its node limit as a solution limit.
        Status::Uncertified {
            reason: "node budget reached".into(),
            gap,
        }
    } else if status != HighsModelStatus::Optimal {
        Status::Uncertified {
            reason: format!("{status:?}"),
            gap,
        }
    } else if !agree {
        Status::Uncertified {
            reason: format!("recomputed objective {recomputed} != MIP objective {mip}"),
            gap,
        }
    } else {
        Status::Certified
    };
    answer(w, recomputed, status)
}

/// OPDisc's oracle over `{−bound..bound}^d ∩ {‖w‖² ≤ radius_sq}` with noise `η ∈ ℝ^{d+1}`.
pub fn opdisc(
    rows: &Rows,
    bound: i32,
    radius_sq: i64,
    eta: &[f64],
    opts: &OracleOptions,
) -> Answer {
    let d = rows.d;
    assert_eq!(eta.len(), d + 1, "OPDisc needs d + 1 noise coordinates");
    let big_d = (radius_sq as f64).sqrt();
    let levels: Vec<i32> = (-bound..=bound).collect();
    let mut pb = RowProblem::default();
    // One-hot level indicators r_{jv}; w_j = Σ_v v r_{jv} is carried by a continuous column.
    let r: Vec<Vec<highs::Col>> = (0..d)
        .map(|_| {
            levels
                .iter()
                .map(|_| pb.add_integer_column(0.0, 0..=1))
                .collect()
        })
        .collect();
    let w: Vec<highs::Col> = (0..d)
        .map(|j| pb.add_column(-eta[j] / big_d, f64::from(-bound)..=f64::from(bound)))
        .collect();
    // q_s selects ‖w‖² = s; its cost is the lookup −η_{d+1}√(D² − s)/D, exact for either sign.
    let q: Vec<highs::Col> = (0..=radius_sq)
        .map(|s| pb.add_integer_column(-eta[d] * ((radius_sq - s) as f64).sqrt() / big_d, 0..=1))
        .collect();
    for j in 0..d {
        pb.add_row(1.0..=1.0, r[j].iter().map(|&c| (c, 1.0)));
        let mut f: Vec<(highs::Col, f64)> = r[j]
            .iter()
            .zip(&levels)
            .map(|(&c, &v)| (c, f64::from(v)))
            .collect();
        f.push((w[j], -1.0));
        pb.add_row(0.0..=0.0, &f);
    }
    pb.add_row(1.0..=1.0, q.iter().map(|&c| (c, 1.0)));
    let mut norm: Vec<(highs::Col, f64)> =
        q.iter().enumerate().map(|(s, &c)| (c, s as f64)).collect();
    for rj in &r {
        norm.extend(
            rj.iter()
                .zip(&levels)
                .map(|(&c, &v)| (c, -f64::from(v * v))),
        );
    }
    pb.add_row(0.0..=0.0, &norm);
    let b = f64::from(bound);
    let constant = add_loss_rows(&mut pb, rows, &w, opts.margin, |u| {
        let x = rows.row(u);
        let l1: f64 = x.iter().map(|v| v.abs()).sum();
        let l2: f64 = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        (b * l1).min(big_d * l2)
    });
    let decode = |cols: &[f64]| (0..d).map(|j| cols[w[j].index()].round() as i32).collect();
    solve(
        pb,
        opts,
        decode,
        |w| opdisc_objective(rows, w, eta, radius_sq, opts.margin),
        constant,
    )
}

/// RSPM's oracle over `{−1, 0, 1}^d` with separator weights `η ∈ ℝ^{2d}`.
pub fn rspm(rows: &Rows, eta: &[f64], opts: &OracleOptions) -> Answer {
    let d = rows.d;
    assert_eq!(eta.len(), 2 * d, "RSPM needs 2d separator weights");
    let mut pb = RowProblem::default();
    let a: Vec<highs::Col> = (0..d)
        .map(|j| pb.add_integer_column(eta[2 * j], 0..=1))
        .collect();
    let b: Vec<highs::Col> = (0..d)
        .map(|j| pb.add_integer_column(eta[2 * j + 1], 0..=1))
        .collect();
    let w: Vec<highs::Col> = (0..d).map(|_| pb.add_column(0.0, -1.0..=1.0)).collect();
    for j in 0..d {
        pb.add_row(..=1.0, [(a[j], 1.0), (b[j], 1.0)]);
        pb.add_row(0.0..=0.0, [(a[j], 1.0), (b[j], -1.0), (w[j], -1.0)]);
    }
    let constant = add_loss_rows(&mut pb, rows, &w, opts.margin, |u| {
        rows.row(u).iter().map(|v| v.abs()).sum()
    });
    let decode = |cols: &[f64]| (0..d).map(|j| cols[w[j].index()].round() as i32).collect();
    solve(
        pb,
        opts,
        decode,
        |w| rspm_objective(rows, w, eta, opts.margin),
        constant,
    )
}

#[cfg(test)]
#[path = "oracle_tests.rs"]
mod tests;
