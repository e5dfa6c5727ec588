//! The next-point search of DPareto: GPflowOpt's staged optimiser (`optim.py`), i.e. the best
//! of N i.i.d. uniform candidates in the box, refined by a local quasi-Newton run.
//!
//! The local stage replaces scipy's L-BFGS-B with the project's unconstrained L-BFGS under the
//! box map x = lo + (hi − lo)·sigmoid(u), on −α/|α_MC| (the scaling makes its tolerances
//! relative), with central finite-difference gradients in u. The 2D + 1 points of one
//! difference stencil go to the acquisition as one batch, so a GP predicts them together.
//! The better of the Monte-Carlo best and the refined point is returned.
//!
//! Ties, including a flat acquisition (α ≡ 0 when every candidate mean is dominated), go to
//! the first maximum in draw order, as `np.argmin` does in GPflowOpt's `MCOptimizer`: under
//! a flat acquisition the result is the first uniform draw, i.e. a random-search step. The
//! local stage is then skipped (its gradient is zero) and [`SearchResult::flat`] tells the
//! caller.

use rand::Rng;

use crate::error::{DpError, Result, ensure};
use crate::learn::lbfgs::{LbfgsOptions, LbfgsStatus, Objective, lbfgs};

/// Settings of [`maximise`].
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Uniform candidates of the Monte-Carlo stage (GPflowOpt's `MCOptimizer(domain, 5000)`).
    pub candidates: usize,
    /// Iteration cap of the local stage; 0 skips it.
    pub max_iter: usize,
    /// Central-difference step in the unconstrained coordinates u.
    pub fd_step: f64,
    /// The local stage stops once ‖∇_u α‖ ≤ this × |α_MC|.
    pub rel_grad_tol: f64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            candidates: 5000,
            max_iter: 100,
            fd_step: 1e-5,
            rel_grad_tol: 1e-8,
        }
    }
}

/// Outcome of [`maximise`].
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The chosen point.
    pub x: Vec<f64>,
    /// The acquisition at `x`.
    pub value: f64,
    /// The best uniform candidate.
    pub mc_x: Vec<f64>,
    /// The acquisition at `mc_x`.
    pub mc_value: f64,
    /// Whether the local stage improved on the Monte-Carlo best (then `x` is its result).
    pub refined: bool,
    /// Whether every candidate tied with the first one (e.g. α ≡ 0).
    pub flat: bool,
    /// Points evaluated in total.
    pub evaluations: usize,
}

fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

/// −α(x(u))/scale over the unconstrained coordinates, with central differences.
struct Reparametrised<'a, F> {
    lo: &'a [f64],
    hi: &'a [f64],
    acquisition: &'a mut F,
    scale: f64,
    step: f64,
    rows: Vec<f64>,
    points: usize,
}

impl<F: FnMut(&[f64], usize) -> Vec<f64>> Reparametrised<'_, F> {
    fn to_x(&self, u: &[f64], x: &mut [f64]) {
        for d in 0..u.len() {
            x[d] = self.lo[d] + (self.hi[d] - self.lo[d]) * sigmoid(u[d]);
        }
    }
}

impl<F: FnMut(&[f64], usize) -> Vec<f64>> Objective for Reparametrised<'_, F> {
    fn dim(&self) -> usize {
        self.lo.len()
    }

    fn eval(&mut self, u: &[f64], grad: &mut [f64]) -> f64 {
        let dim = u.len();
        let mut rows = std::mem::take(&mut self.rows);
        rows.resize((2 * dim + 1) * dim, 0.0);
        self.to_x(u, &mut rows[..dim]);
        let centre = rows[..dim].to_vec();
        for d in 0..dim {
            for (k, sign) in [(1 + 2 * d, 1.0), (2 + 2 * d, -1.0)] {
                let row = &mut rows[k * dim..(k + 1) * dim];
                row.copy_from_slice(&centre);
                let ud = u[d] + sign * self.step;
                row[d] = self.lo[d] + (self.hi[d] - self.lo[d]) * sigmoid(ud);
            }
        }
        let values = (self.acquisition)(&rows, dim);
        self.rows = rows;
        self.points += 2 * dim + 1;
        if values.len() != 2 * dim + 1 || values.iter().any(|v| !v.is_finite()) {
            // Non-finite values make the line search step back.
            grad.fill(0.0);
            return f64::INFINITY;
        }
        for d in 0..dim {
            grad[d] = -(values[1 + 2 * d] - values[2 + 2 * d]) / (2.0 * self.step * self.scale);
        }
        -values[0] / self.scale
    }
}

/// Maximises `acquisition` over the box [lo, hi]: the best of `opts.candidates` uniform
/// draws from `rng`, then a bounded L-BFGS refinement from it. `acquisition(rows, dim)`
/// evaluates row-major points (`rows.len() / dim` of them) and returns one value per row.
pub fn maximise<R, F>(
    lo: &[f64],
    hi: &[f64],
    mut acquisition: F,
    rng: &mut R,
    opts: &SearchOptions,
) -> Result<SearchResult>
where
    R: Rng + ?Sized,
    F: FnMut(&[f64], usize) -> Vec<f64>,
{
    let dim = lo.len();
    if dim == 0 || hi.len() != dim {
        return Err(DpError::Invalid(format!(
            "search box bounds have lengths {} and {}; need equal and non-zero",
            dim,
            hi.len()
        )));
    }
    for d in 0..dim {
        ensure(lo[d].is_finite(), "lo", lo[d], "must be finite")?;
        ensure(
            hi[d].is_finite() && hi[d] > lo[d],
            "hi",
            hi[d],
            "must be finite and > lo",
        )?;
    }
    let n = opts.candidates;
    ensure(n >= 1, "candidates", n as f64, "must be >= 1")?;
    ensure(
        opts.fd_step > 0.0 && opts.fd_step.is_finite(),
        "fd_step",
        opts.fd_step,
        "must be > 0 and finite",
    )?;
    let mut cands = Vec::with_capacity(n * dim);
    for _ in 0..n {
        for d in 0..dim {
            cands.push(lo[d] + (hi[d] - lo[d]) * rng.random::<f64>());
        }
    }
    let values = acquisition(&cands, dim);
    if values.len() != n {
        return Err(DpError::Invalid(format!(
            "acquisition returned {} values for {n} candidates",
            values.len()
        )));
    }
    if values.iter().any(|v| v.is_nan()) {
        return Err(DpError::Invalid("acquisition returned NaN".into()));
    }
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    let mc_x = cands[best * dim..(best + 1) * dim].to_vec();
    let mc_value = values[best];
    let flat = values.iter().all(|&v| v == mc_value);
    let mut result = SearchResult {
        x: mc_x.clone(),
        value: mc_value,
        mc_x,
        mc_value,
        refined: false,
        flat,
        evaluations: n,
    };
    if flat || opts.max_iter == 0 || !mc_value.is_finite() {
        return Ok(result);
    }
    // A draw at exactly lo would map to u = −∞; nudging it in costs nothing measurable.
    let u0: Vec<f64> = (0..dim)
        .map(|d| {
            let f = ((result.mc_x[d] - lo[d]) / (hi[d] - lo[d])).clamp(1e-12, 1.0 - 1e-12);
            (f / (1.0 - f)).ln()
        })
        .collect();
    let mut obj = Reparametrised {
        lo,
        hi,
        acquisition: &mut acquisition,
        scale: if mc_value != 0.0 { mc_value.abs() } else { 1.0 },
        step: opts.fd_step,
        rows: Vec::new(),
        points: 0,
    };
    let lopts = LbfgsOptions {
        max_iter: opts.max_iter,
        max_evals: 20 * opts.max_iter,
        ..LbfgsOptions::default()
    };
    let report = lbfgs(&mut obj, &u0, opts.rel_grad_tol, &lopts);
    result.evaluations += obj.points;
    if report.status == LbfgsStatus::NonFinite || -report.value * obj.scale <= mc_value {
        return Ok(result);
    }
    let mut x = vec![0.0; dim];
    obj.to_x(&report.x, &mut x);
    // Re-evaluated so that `value` is the acquisition at `x` itself, not a rescaled copy.
    let value = acquisition(&x, dim).first().copied().unwrap_or(f64::NAN);
    result.evaluations += 1;
    if value > mc_value {
        result.x = x;
        result.value = value;
        result.refined = true;
    }
    Ok(result)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
