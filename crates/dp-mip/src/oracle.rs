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
#[derive(Clone, Debug, PartialEq)]
pub struct OracleOptions {
    /// Wall-clock limit of one solve, seconds.
    pub time_limit: f64,
    /// HiGHS's random seed (fixed: a run is reproducible).
    pub seed: i32,
    /// A positive record needs `⟨w, x⟩ ≥ margin` (MIPs cannot state `> 0`).
    pub margin: f64,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            time_limit: 60.0,
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
    /// Not proven (time limit, gap, or a disagreeing recomputation): the incumbent carries
    /// no privacy guarantee.
    Uncertified {
        /// What went wrong.
        reason: String,
        /// HiGHS's relative MIP gap at the end.
        gap: f64,
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
    /// Solve time, seconds.
    pub seconds: f64,
}

impl Answer {
    /// Whether the answer is the exact argmin.
    pub fn certified(&self) -> bool {
        self.status == Status::Certified
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
    model.set_option("threads", 1);
    model.set_option("random_seed", opts.seed);
    model.set_option("time_limit", opts.time_limit);
    model.set_option("mip_rel_gap", 0.0);
    model.set_option("mip_abs_gap", 1e-9);
    let solved = model.solve();
    let seconds = start.elapsed().as_secs_f64();
    let status = solved.status();
    let cols = solved.get_solution().columns().to_vec();
    if cols.is_empty() {
        return Answer {
            w: Vec::new(),
            objective: f64::INFINITY,
            status: Status::Uncertified {
                reason: format!("no incumbent ({status:?})"),
                gap: f64::INFINITY,
            },
            seconds,
        };
    }
    let w = decode(&cols);
    let recomputed = objective(&w);
    let mip = solved.objective_value() + constant;
    let gap = solved.mip_gap();
    let agree = (recomputed - mip).abs() <= 1e-7 * (1.0 + recomputed.abs());
    let status = if status != HighsModelStatus::Optimal {
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
    Answer {
        w,
        objective: recomputed,
        status,
        seconds,
    }
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
