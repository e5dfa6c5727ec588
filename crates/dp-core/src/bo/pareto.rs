//! Two-objective Pareto fronts and hypervolumes, both objectives minimised.
//!
//! Two notions of front coexist because DPareto uses both:
//! - [`non_dominated`] is GPflowOpt's weakly non-dominated set (`pareto.py:non_dominated_sort`),
//!   which the HV-PoI acquisition is built on;
//! - [`reported_front`] is the authors' `pf_utils.compute_pf_points`, which produced the
//!   published fronts and hypervolumes; it keeps ε-ties and equal-error points.
//!
//! Their hypervolumes agree: [`reported_hypervolume`] of the reported front equals
//! [`hypervolume`] w.r.t. the same reference (tested).

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Unbounded};

use crate::error::{DpError, Result, ensure};

/// A point in objective space, (first, second) = (ε, error) in DPareto; both minimised.
pub type Point2 = (f64, f64);

/// The paper's anti-ideal point v† = (ε = 10, error = 1) for reported hypervolumes.
pub const ANTI_IDEAL: Point2 = (10.0, 1.0);

fn check_points(points: &[Point2]) -> Result<()> {
    match points.iter().find(|p| p.0.is_nan() || p.1.is_nan()) {
        Some(_) => Err(DpError::Invalid(
            "a Pareto point has a NaN coordinate".into(),
        )),
        None => Ok(()),
    }
}

fn check_reference(r: Point2) -> Result<()> {
    ensure(r.0.is_finite(), "reference", r.0, "must be finite")?;
    ensure(r.1.is_finite(), "reference", r.1, "must be finite")
}

/// The front and how many input points equal one of its points (duplicates included), the
/// size GPflowOpt's front has since its dominance test keeps exact duplicates.
pub(crate) fn non_dominated_with_multiplicity(points: &[Point2]) -> Result<(Vec<Point2>, usize)> {
    check_points(points)?;
    let mut sorted = points.to_vec();
    // Lexicographic order: every point that can dominate p comes before p, so p survives iff
    // its second coordinate beats all earlier ones (an exact duplicate does not).
    sorted.sort_by(|p, q| p.partial_cmp(q).expect("no NaN"));
    let mut front: Vec<Point2> = Vec::new();
    let mut count = 0;
    for p in sorted {
        match front.last() {
            Some(&last) if p.1 >= last.1 => {
                if p == last {
                    count += 1;
                }
            }
            _ => {
                front.push(p);
                count += 1;
            }
        }
    }
    Ok((front, count))
}

/// The weakly non-dominated set as GPflowOpt computes it: a point is dropped iff another is
/// ≤ in both coordinates and < in one. Exact duplicates are kept once. Sorted by the first
/// coordinate ascending, so the second is strictly descending.
pub fn non_dominated(points: &[Point2]) -> Result<Vec<Point2>> {
    Ok(non_dominated_with_multiplicity(points)?.0)
}

/// The paper's reported front (`pf_utils.compute_pf_points`, l.29-42): stable sort by ε
/// ascending, then keep a point unless an earlier point in that order has strictly smaller
/// error. Points tied in ε keep their input order, so a tie is kept when the smaller error
/// comes later; duplicates and equal-error points are all kept.
pub fn reported_front(points: &[Point2]) -> Result<Vec<Point2>> {
    check_points(points)?;
    let mut sorted = points.to_vec();
    sorted.sort_by(|p, q| p.0.partial_cmp(&q.0).expect("no NaN"));
    let mut best = f64::INFINITY;
    let mut front = Vec::new();
    for p in sorted {
        if p.1 <= best {
            front.push(p);
        }
        best = best.min(p.1);
    }
    Ok(front)
}

/// Area dominated by `points` inside the box below `reference`, i.e. the area of the union of
/// the rectangles [p, reference]. Points at or beyond the reference in either coordinate
/// contribute nothing.
pub fn hypervolume(points: &[Point2], reference: Point2) -> Result<f64> {
    check_reference(reference)?;
    let front = non_dominated(points)?;
    let inside: Vec<Point2> = front
        .into_iter()
        .filter(|p| p.0 < reference.0 && p.1 < reference.1)
        .collect();
    Ok(staircase_area(&inside, reference))
}

/// Area under a staircase sorted by the first coordinate with the second descending, all
/// strictly inside the reference box.
fn staircase_area(front: &[Point2], reference: Point2) -> f64 {
    front
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let next = front.get(i + 1).map_or(reference.0, |q| q.0);
            (next - p.0) * (reference.1 - p.1)
        })
        .sum()
}

/// The paper's reported hypervolume (`pf_utils.compute_pf_volume`, l.45-69) of a front from
/// [`reported_front`]: drop points with ε ≥ v†₁ or error ≥ v†₂, then
/// Σ_{i<last} (ε_{i+1} − ε_i)(v†₂ − e_i) + (v†₁ − ε_last)(v†₂ − e_last). An empty remainder
/// gives 0 (the Python indexes `pf_points[-1]` and raises).
pub fn reported_hypervolume(front: &[Point2], anti_ideal: Point2) -> Result<f64> {
    check_points(front)?;
    check_reference(anti_ideal)?;
    let kept: Vec<Point2> = front
        .iter()
        .copied()
        .filter(|p| p.0 < anti_ideal.0 && p.1 < anti_ideal.1)
        .collect();
    Ok(staircase_area(&kept, anti_ideal))
}

/// The paper's hypervolume of a set of evaluated points: [`reported_hypervolume`] of the
/// [`reported_front`] w.r.t. [`ANTI_IDEAL`].
pub fn paper_hypervolume(points: &[Point2]) -> Result<f64> {
    reported_hypervolume(&reported_front(points)?, ANTI_IDEAL)
}

/// An f64 map key; `+ 0.0` on insertion folds −0 into +0 so that the two compare equal.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key(f64);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The hypervolume of a growing point set, updated in O(log n) amortised per insertion: the
/// front inside the reference box is kept as a staircase (first coordinate → second).
#[derive(Clone, Debug)]
pub struct IncrementalHypervolume {
    reference: Point2,
    stairs: BTreeMap<Key, f64>,
    volume: f64,
}

impl IncrementalHypervolume {
    /// An empty set w.r.t. a finite `reference`.
    pub fn new(reference: Point2) -> Result<Self> {
        check_reference(reference)?;
        Ok(IncrementalHypervolume {
            reference,
            stairs: BTreeMap::new(),
            volume: 0.0,
        })
    }

    /// The current hypervolume.
    pub fn volume(&self) -> f64 {
        self.volume
    }

    /// The current front inside the reference box, sorted by the first coordinate.
    pub fn front(&self) -> Vec<Point2> {
        self.stairs.iter().map(|(k, &b)| (k.0, b)).collect()
    }

    /// Adds `p` and returns the hypervolume it adds (0 if dominated or outside the box).
    pub fn insert(&mut self, p: Point2) -> Result<f64> {
        check_points(&[p])?;
        let (a, b) = (p.0 + 0.0, p.1 + 0.0);
        let r = self.reference;
        if !(a < r.0 && b < r.1) {
            return Ok(0.0);
        }
        let pred = self.stairs.range(..=Key(a)).next_back().map(|(_, &pb)| pb);
        if pred.is_some_and(|pb| pb <= b) {
            return Ok(0.0);
        }
        // Integrate (old level − b)⁺ from a rightwards; the old level starts at the
        // predecessor's height and drops at each successor, which p dominates until one
        // falls below b.
        let mut level = pred.unwrap_or(r.1);
        let mut x = a;
        let mut gain = 0.0;
        let mut dominated = Vec::new();
        let mut stop = r.0;
        for (k, &sb) in self.stairs.range((Excluded(Key(a)), Unbounded)) {
            if sb < b {
                stop = k.0;
                break;
            }
            gain += (k.0 - x) * (level - b);
            x = k.0;
            level = sb;
            dominated.push(*k);
        }
        gain += (stop - x) * (level - b);
        for k in dominated {
            self.stairs.remove(&k);
        }
        self.stairs.insert(Key(a), b);
        self.volume += gain;
        Ok(gain)
    }
}

/// The hypervolume of the first n points for n = 1..=N, w.r.t. `reference` (with
/// [`ANTI_IDEAL`] this is the paper's "HV vs number of points" curve). O(N log N).
pub fn hypervolume_curve(points: &[Point2], reference: Point2) -> Result<Vec<f64>> {
    check_points(points)?;
    let mut hv = IncrementalHypervolume::new(reference)?;
    points
        .iter()
        .map(|&p| hv.insert(p).map(|_| hv.volume()))
        .collect()
}

#[cfg(test)]
#[path = "pareto_tests.rs"]
mod tests;
