use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Integer-valued points so that ties and duplicates are frequent.
fn lattice_points(rng: &mut StdRng, n: usize, side: i32) -> Vec<Point2> {
    (0..n)
        .map(|_| {
            (
                rng.random_range(0..side) as f64,
                rng.random_range(0..side) as f64,
            )
        })
        .collect()
}

fn real_points(rng: &mut StdRng, n: usize, a: f64, b: f64) -> Vec<Point2> {
    (0..n)
        .map(|_| (a * rng.random::<f64>(), b * rng.random::<f64>()))
        .collect()
}

/// GPflowOpt's definition applied literally, O(n²), duplicates then removed.
fn brute_non_dominated(points: &[Point2]) -> Vec<Point2> {
    let dominates = |q: &Point2, p: &Point2| q.0 <= p.0 && q.1 <= p.1 && (q.0 < p.0 || q.1 < p.1);
    let mut out: Vec<Point2> = points
        .iter()
        .filter(|p| !points.iter().any(|q| dominates(q, p)))
        .copied()
        .collect();
    out.sort_by(|p, q| p.partial_cmp(q).unwrap());
    out.dedup();
    out
}

/// `pf_utils.compute_pf_points` transcribed loop for loop.
fn transcribed_pf_points(points: &[Point2]) -> Vec<Point2> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|p, q| p.0.partial_cmp(&q.0).unwrap());
    let mut pf = Vec::new();
    for i in 0..sorted.len() {
        let current = sorted[i].1;
        let better = (0..i).rev().any(|j| sorted[j].1 < current);
        if !better {
            pf.push(sorted[i]);
        }
    }
    pf
}

/// Area of the dominated region below `r` by summing the elementary rectangles of the
/// coordinate grid whose centre some point dominates.
fn brute_hypervolume(points: &[Point2], r: Point2) -> f64 {
    let mut xs: Vec<f64> = points.iter().map(|p| p.0).filter(|&x| x < r.0).collect();
    let mut ys: Vec<f64> = points.iter().map(|p| p.1).filter(|&y| y < r.1).collect();
    xs.push(r.0);
    ys.push(r.1);
    for v in [&mut xs, &mut ys] {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v.dedup();
    }
    let mut area = 0.0;
    for i in 0..xs.len() - 1 {
        for j in 0..ys.len() - 1 {
            let c = (0.5 * (xs[i] + xs[i + 1]), 0.5 * (ys[j] + ys[j + 1]));
            if points.iter().any(|p| p.0 <= c.0 && p.1 <= c.1) {
                area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
            }
        }
    }
    area
}

#[test]
fn non_dominated_hand_example() {
    let pts = [
        (1.0, 3.0),
        (2.0, 2.0),
        (1.0, 2.0),
        (2.0, 2.0),
        (0.0, 5.0),
        (3.0, 1.0),
        (3.0, 1.5),
        (3.0, 1.0),
    ];
    let (front, count) = non_dominated_with_multiplicity(&pts).unwrap();
    assert_eq!(front, vec![(0.0, 5.0), (1.0, 2.0), (3.0, 1.0)]);
    assert_eq!(count, 4, "(3, 1) appears twice");
}

#[test]
fn non_dominated_matches_the_definition() {
    let mut rng = StdRng::seed_from_u64(11);
    for trial in 0..300 {
        let n = 1 + trial % 40;
        let pts = lattice_points(&mut rng, n, 8);
        let (front, count) = non_dominated_with_multiplicity(&pts).unwrap();
        assert_eq!(front, brute_non_dominated(&pts), "{pts:?}");
        let with_dups = pts.iter().filter(|p| front.contains(p)).count();
        assert_eq!(count, with_dups);
        assert!(front.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 > w[1].1));
    }
}

#[test]
fn reported_front_keeps_ties_as_pf_utils_does() {
    let later_better = [(1.0, 0.5), (1.0, 0.3), (2.0, 0.3)];
    assert_eq!(
        reported_front(&later_better).unwrap(),
        later_better.to_vec()
    );
    let earlier_better = [(1.0, 0.3), (1.0, 0.5), (2.0, 0.3), (0.5, 0.9)];
    assert_eq!(
        reported_front(&earlier_better).unwrap(),
        vec![(0.5, 0.9), (1.0, 0.3), (2.0, 0.3)]
    );
    let mut rng = StdRng::seed_from_u64(12);
    for trial in 0..300 {
        let pts = lattice_points(&mut rng, 1 + trial % 40, 6);
        assert_eq!(reported_front(&pts).unwrap(), transcribed_pf_points(&pts));
    }
}

#[test]
fn reported_hypervolume_hand_example() {
    // (4 − 1)(1 − 0.5) + (10 − 4)(1 − 0.2); the third point is beyond ε = 10.
    let front = [(1.0, 0.5), (4.0, 0.2), (12.0, 0.1)];
    assert!((reported_hypervolume(&front, ANTI_IDEAL).unwrap() - 6.3).abs() < 1e-12);
    assert!((hypervolume(&front, ANTI_IDEAL).unwrap() - 6.3).abs() < 1e-12);
    assert_eq!(reported_hypervolume(&[], ANTI_IDEAL).unwrap(), 0.0);
    assert_eq!(paper_hypervolume(&[(10.0, 0.1), (3.0, 1.0)]).unwrap(), 0.0);
}

#[test]
fn hypervolume_matches_rectangle_counting() {
    let mut rng = StdRng::seed_from_u64(13);
    for trial in 0..200 {
        let n = trial % 30;
        // Some points lie beyond the reference in one coordinate or both.
        let pts = real_points(&mut rng, n, 1.3, 1.3);
        let r = (1.0, 1.0);
        let hv = hypervolume(&pts, r).unwrap();
        let brute = brute_hypervolume(&pts, r);
        assert!((hv - brute).abs() < 1e-12, "{hv} vs {brute}");
    }
}

#[test]
fn hypervolume_matches_grid_counting() {
    let mut rng = StdRng::seed_from_u64(14);
    let side = 20;
    let r = (15.0, 17.0);
    for trial in 0..100 {
        let pts = lattice_points(&mut rng, 1 + trial % 25, side);
        let mut cells = 0;
        for i in 0..r.0 as i32 {
            for j in 0..r.1 as i32 {
                let (x, y) = (i as f64, j as f64);
                if pts.iter().any(|p| p.0 <= x && p.1 <= y) {
                    cells += 1;
                }
            }
        }
        assert_eq!(hypervolume(&pts, r).unwrap(), cells as f64, "{pts:?}");
    }
}

#[test]
fn paper_formula_equals_general_hypervolume() {
    let mut rng = StdRng::seed_from_u64(15);
    for trial in 0..300 {
        let n = 1 + trial % 50;
        // ε on a coarse grid (ties) and partly beyond 10; errors partly ≥ 1.
        let pts: Vec<Point2> = (0..n)
            .map(|_| {
                let eps = rng.random_range(0..26) as f64 * 0.5;
                let err = rng.random_range(0..23) as f64 * 0.05;
                (eps, err)
            })
            .collect();
        let general = hypervolume(&pts, ANTI_IDEAL).unwrap();
        let paper = paper_hypervolume(&pts).unwrap();
        assert!((general - paper).abs() < 1e-12, "{general} vs {paper}");
        // On a front strictly inside the box the formula is the general HV of that front.
        let inside: Vec<Point2> = non_dominated(&pts)
            .unwrap()
            .into_iter()
            .filter(|p| p.0 < 10.0 && p.1 < 1.0)
            .collect();
        let formula = reported_hypervolume(&inside, ANTI_IDEAL).unwrap();
        assert!((formula - hypervolume(&inside, ANTI_IDEAL).unwrap()).abs() < 1e-12);
    }
}

#[test]
fn curve_equals_recomputation_for_every_prefix() {
    let mut rng = StdRng::seed_from_u64(16);
    for (n, side) in [(400, 30), (300, 1000)] {
        let mut pts = lattice_points(&mut rng, n, side);
        let scale = 1.0 / side as f64;
        pts.iter_mut().for_each(|p| *p = (p.0 * scale, p.1 * scale));
        let r = (0.9, 0.8);
        let curve = hypervolume_curve(&pts, r).unwrap();
        assert_eq!(curve.len(), n);
        for k in 1..=n {
            let direct = hypervolume(&pts[..k], r).unwrap();
            assert!((curve[k - 1] - direct).abs() < 1e-12, "prefix {k}");
        }
        assert!(curve.windows(2).all(|w| w[1] >= w[0]));
        let mut inc = IncrementalHypervolume::new(r).unwrap();
        pts.iter().for_each(|&p| {
            inc.insert(p).unwrap();
        });
        let inside: Vec<Point2> = non_dominated(&pts)
            .unwrap()
            .into_iter()
            .filter(|p| p.0 < r.0 && p.1 < r.1)
            .collect();
        assert_eq!(inc.front(), inside);
    }
}

#[test]
fn insert_reports_the_gain() {
    let mut hv = IncrementalHypervolume::new((4.0, 4.0)).unwrap();
    assert_eq!(hv.insert((2.0, 2.0)).unwrap(), 4.0);
    assert_eq!(hv.insert((2.0, 2.0)).unwrap(), 0.0, "duplicate");
    assert_eq!(hv.insert((3.0, 3.0)).unwrap(), 0.0, "dominated");
    assert_eq!(hv.insert((5.0, 0.0)).unwrap(), 0.0, "beyond the reference");
    // (1, 3) adds [1, 2] × [3, 4].
    assert_eq!(hv.insert((1.0, 3.0)).unwrap(), 1.0);
    // (0, 0) dominates both: adds 16 − 5.
    assert_eq!(hv.insert((0.0, 0.0)).unwrap(), 11.0);
    assert_eq!(hv.front(), vec![(0.0, 0.0)]);
    // −0 and +0 are one key.
    assert_eq!(hv.insert((-0.0, 0.0)).unwrap(), 0.0);
    assert_eq!(hv.front().len(), 1);
    assert_eq!(hv.volume(), 16.0);
}

#[test]
fn invalid_inputs_are_rejected() {
    let nan = [(f64::NAN, 1.0)];
    assert!(non_dominated(&nan).is_err());
    assert!(reported_front(&nan).is_err());
    assert!(hypervolume(&nan, (1.0, 1.0)).is_err());
    assert!(hypervolume(&[], (f64::INFINITY, 1.0)).is_err());
    assert!(hypervolume_curve(&nan, (1.0, 1.0)).is_err());
    assert_eq!(hypervolume(&[], (1.0, 1.0)).unwrap(), 0.0);
}
