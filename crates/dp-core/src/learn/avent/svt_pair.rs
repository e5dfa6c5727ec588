//! Every output of the sparse vector technique ([`Svt`]) on two answer vectors, with its exact
//! probability under each: what an auditor who chooses the queries' answers on D and D′ needs
//! to score a run by its likelihood ratio, and the pair's exact trade-off curve and ε(δ).
//!
//! **Outputs.** A run answers queries in order and stops after the ⌈C⌉-th ⊤, so an output is
//! a pattern of ⊤/⊥ over a prefix: all m queries with fewer than ⌈C⌉ ⊤, or a prefix ending in
//! the ⌈C⌉-th. They are enumerated depth first; each is one bit mask and a length.
//!
//! **Probabilities.** Given the threshold's unit noise ρ ~ Lap(1) (scaled by b₁), the answers
//! are independent: query i is ⊥ iff ν_i < x_i(ρ) = (½ + b₁ρ − a_i)/b₂ with ν_i ~ Lap(1).
//! So P(pattern) = ∫ Lap(ρ) Π_i P(ν_i on the pattern's side of x_i(ρ)) dρ, one dimension,
//! computed in log space by composite Gauss–Legendre on panels whose ends include the
//! integrand's kinks (ρ = 0 and ρ = ±1/(2b₁)), on [−R, R] with R = 1/(2b₁) + 60: the mass
//! beyond is below e^{−60}. Panels are narrow enough for the integrand's steepest slope
//! (1 + m·b₁/b₂ in ln), where a 20-node rule is exact to double precision. Prefixes share
//! their running products, so the whole table costs one pass per pattern prefix.

use std::collections::HashMap;

use crate::accounting::quadrature::panel;
use crate::error::{DpError, Result};
use crate::learn::avent::svt::{Svt, THRESHOLD};
use crate::special::log_sum_exp;

/// At most this many queries: an output is a 64-bit mask, and the table stays small.
pub const MAX_QUERIES: usize = 24;

/// At most this many outputs (Σ_{j ≤ ⌈C⌉} C(m, j) for m queries): the table is built before
/// any run.
pub const MAX_OUTPUTS: usize = 100_000;

/// One output: the pattern (bit i set for ⊤ at query i), how many queries it answered, and
/// ln of its probability under D and under D′.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Output {
    /// ⊤ at query i iff bit i is set.
    pub mask: u64,
    /// The number of queries answered.
    pub len: usize,
    /// ln P(output | D).
    pub ln_p: f64,
    /// ln P(output | D′).
    pub ln_q: f64,
}

/// The exact output distributions of one [`Svt`] on answers `d` (D) and `d_prime` (D′).
#[derive(Clone, Debug)]
pub struct SvtPair {
    svt: Svt,
    outputs: Vec<Output>,
    index: HashMap<(u64, usize), usize>,
}

/// ln P(ν < x) and ln P(ν ≥ x) for ν ~ Lap(1), each accurate in its own tail.
fn ln_laplace_sides(x: f64) -> (f64, f64) {
    let half = 0.5f64.ln();
    if x < 0.0 {
        (half + x, (-0.5 * x.exp()).ln_1p())
    } else {
        ((-0.5 * (-x).exp()).ln_1p(), half - x)
    }
}

impl SvtPair {
    /// The table for `svt` on two answer vectors of one length (1 to [`MAX_QUERIES`]);
    /// errors name the limit.
    pub fn new(svt: Svt, d: &[bool], d_prime: &[bool]) -> Result<Self> {
        let count = Self::check_size(&svt, d.len(), d_prime.len())?;
        let m = d.len();
        let (b1, b2) = svt.scales();
        let nodes = nodes(b1, b2, m);
        // ln of the unit Laplace density of ρ times the node's weight, the common factor.
        let base: Vec<f64> = nodes
            .iter()
            .map(|&(r, ln_w)| ln_w - r.abs() - std::f64::consts::LN_2)
            .collect();
        // For each query and node: (ln P(⊥), ln P(⊤)) under D and under D′.
        let sides = |answers: &[bool]| -> Vec<Vec<(f64, f64)>> {
            answers
                .iter()
                .map(|&a| {
                    nodes
                        .iter()
                        .map(|&(r, _)| {
                            ln_laplace_sides((THRESHOLD + b1 * r - f64::from(u8::from(a))) / b2)
                        })
                        .collect()
                })
                .collect()
        };
        let (sd, sp) = (sides(d), sides(d_prime));
        let mut outputs = Vec::with_capacity(count as usize);
        let mut walk = Walk {
            cutoff: svt.max_positives(),
            m,
            sides: [&sd, &sp],
            outputs: &mut outputs,
        };
        walk.descend(0, 0, 0, [base.clone(), base]);
        let index = outputs
            .iter()
            .enumerate()
            .map(|(i, o)| ((o.mask, o.len), i))
            .collect();
        Ok(Self {
            svt,
            outputs,
            index,
        })
    }

    /// Checks, without building it, that the table of `svt` on answer vectors of lengths
    /// `d` and `d_prime` may be built (one length, 1 to [`MAX_QUERIES`], at most
    /// [`MAX_OUTPUTS`] outputs): its number of outputs, or an error naming the limit.
    pub fn check_size(svt: &Svt, d: usize, d_prime: usize) -> Result<u128> {
        if d == 0 || d > MAX_QUERIES || d_prime != d {
            return Err(DpError::Invalid(format!(
                "an SVT pair needs two answer vectors of one length in 1..={MAX_QUERIES}, got \
                 {d} and {d_prime}"
            )));
        }
        let count = output_count(d, svt.max_positives());
        if count > MAX_OUTPUTS as u128 {
            return Err(DpError::Invalid(format!(
                "an SVT pair of {d} queries with cutoff {} has {count} outputs, over the \
                 {MAX_OUTPUTS} the exact table may hold: use fewer queries or a smaller cutoff",
                svt.max_positives()
            )));
        }
        Ok(count)
    }

    /// The mechanism.
    pub fn svt(&self) -> &Svt {
        &self.svt
    }

    /// Every output with its probabilities, in the walk's order.
    pub fn outputs(&self) -> &[Output] {
        &self.outputs
    }

    /// The output a run released (its ⊤/⊥ vector as [`Svt::run`] returns it): its index in
    /// [`SvtPair::outputs`], `None` for a vector no run of this pair can give.
    pub fn index_of(&self, released: &[bool]) -> Option<usize> {
        let key = pattern(released, self.svt.max_positives())?;
        self.index.get(&key).copied()
    }

    /// δ(ε) of the pair, the larger of the two directions: Σ max(0, P − e^ε Q).
    pub fn delta(&self, epsilon: f64) -> f64 {
        let one = |forward: bool| -> f64 {
            self.outputs
                .iter()
                .map(|o| {
                    let (a, b) = if forward {
                        (o.ln_p, o.ln_q)
                    } else {
                        (o.ln_q, o.ln_p)
                    };
                    (a.exp() - (epsilon + b).exp()).max(0.0)
                })
                .sum()
        };
        one(true).max(one(false)).min(1.0)
    }

    /// The pair's ε at `delta`: the least ε ≥ 0 with [`SvtPair::delta`] at most `delta`, by
    /// bisection (to 1e-12).
    pub fn epsilon(&self, delta: f64) -> f64 {
        if self.delta(0.0) <= delta {
            return 0.0;
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while self.delta(hi) > delta && hi < 1e6 {
            lo = hi;
            hi *= 2.0;
        }
        while hi - lo > 1e-12 * hi.max(1.0) {
            let mid = 0.5 * (lo + hi);
            if self.delta(mid) > delta {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

/// The depth-first walk over output prefixes.
struct Walk<'a> {
    cutoff: usize,
    m: usize,
    sides: [&'a Vec<Vec<(f64, f64)>>; 2],
    outputs: &'a mut Vec<Output>,
}

impl Walk<'_> {
    /// Extends the prefix of `len` answers (`mask`, `positives` ⊤ so far) whose running
    /// log-integrands under D and D′ are `acc`.
    fn descend(&mut self, len: usize, mask: u64, positives: usize, acc: [Vec<f64>; 2]) {
        if positives == self.cutoff || len == self.m {
            self.outputs.push(Output {
                mask,
                len,
                ln_p: log_sum_exp(&acc[0]),
                ln_q: log_sum_exp(&acc[1]),
            });
            return;
        }
        for top in [false, true] {
            let next: [Vec<f64>; 2] = [0, 1].map(|s| {
                acc[s]
                    .iter()
                    .zip(&self.sides[s][len])
                    .map(|(a, &(below, above))| a + if top { above } else { below })
                    .collect()
            });
            let bit = u64::from(top) << len;
            self.descend(len + 1, mask | bit, positives + usize::from(top), next);
        }
    }
}

/// The quadrature nodes on [−R, R] and ln of their weights (module docs).
fn nodes(b1: f64, b2: f64, m: usize) -> Vec<(f64, f64)> {
    let kink = 0.5 / b1;
    let reach = kink + 60.0;
    let slope = 1.0 + m as f64 * b1 / b2;
    let width = (2.0 / slope).min(1.0);
    let ends = [-reach, -kink, 0.0, kink, reach];
    let mut out = Vec::new();
    for w in ends.windows(2) {
        let panels = ((w[1] - w[0]) / width).ceil().max(1.0) as usize;
        let h = (w[1] - w[0]) / panels as f64;
        for p in 0..panels {
            out.extend(panel(w[0] + p as f64 * h, h));
        }
    }
    out
}

/// Σ_{j < c} C(m, j) outputs with fewer than c ⊤ over all m queries, plus those ending in the
/// c-th ⊤ at query i: C(i − 1, c − 1) for i = c..m.
fn output_count(m: usize, c: usize) -> u128 {
    let binom = |n: usize, k: usize| -> u128 {
        if k > n {
            return 0;
        }
        (0..k).fold(1u128, |acc, j| acc * (n - j) as u128 / (j as u128 + 1))
    };
    let below: u128 = (0..c.min(m + 1)).map(|j| binom(m, j)).sum();
    let ending: u128 = (c.max(1)..=m).map(|i| binom(i - 1, c - 1)).sum();
    below + ending
}

/// A released vector as (mask, answered): the prefix up to the c-th ⊤ (every later answer
/// must be ⊥, as a run leaves them), or all of it.
fn pattern(released: &[bool], cutoff: usize) -> Option<(u64, usize)> {
    if released.len() > 64 {
        return None;
    }
    let mut mask = 0u64;
    let mut positives = 0;
    for (i, &top) in released.iter().enumerate() {
        if top {
            mask |= 1 << i;
            positives += 1;
            if positives == cutoff {
                let rest_quiet = released[i + 1..].iter().all(|&t| !t);
                return rest_quiet.then_some((mask, i + 1));
            }
        }
    }
    Some((mask, released.len()))
}

#[cfg(test)]
#[path = "svt_pair_tests.rs"]
mod tests;
