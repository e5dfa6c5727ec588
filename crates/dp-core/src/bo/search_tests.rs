use super::*;
use crate::bo::hvpoi::{HvPoi, Reference};
use rand::SeedableRng;
use rand::rngs::StdRng;

const LO: [f64; 5] = [-1.0, 0.0, 2.0, -3.0, 0.5];
const HI: [f64; 5] = [1.0, 2.0, 5.0, 0.0, 1.5];
const CENTRE: [f64; 5] = [0.3, 1.2, 3.1, -0.7, 0.9];

/// exp(−½ (x−c)ᵀA(x−c)) with a dense SPD A: maximum 1 at c.
fn bump(x: &[f64]) -> f64 {
    let a = [
        [4.0, 1.0, 0.0, 0.5, 0.0],
        [1.0, 3.0, 0.5, 0.0, 0.0],
        [0.0, 0.5, 2.0, 0.0, 0.3],
        [0.5, 0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.3, 0.0, 5.0],
    ];
    let r: Vec<f64> = x.iter().zip(CENTRE).map(|(x, c)| x - c).collect();
    let q: f64 = (0..5)
        .map(|i| (0..5).map(|j| r[i] * a[i][j] * r[j]).sum::<f64>())
        .sum();
    (-0.5 * q).exp()
}

fn batch(f: impl Fn(&[f64]) -> f64) -> impl FnMut(&[f64], usize) -> Vec<f64> {
    move |rows: &[f64], dim: usize| rows.chunks(dim).map(&f).collect()
}

#[test]
fn finds_a_smooth_maximum_in_five_dimensions() {
    let mut rng = StdRng::seed_from_u64(31);
    let res = maximise(&LO, &HI, batch(bump), &mut rng, &SearchOptions::default()).unwrap();
    let err = res
        .x
        .iter()
        .zip(CENTRE)
        .map(|(x, c)| (x - c).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-6, "{:?}: {err}", res.x);
    assert!(res.value > 1.0 - 1e-12, "{}", res.value);
    assert!(res.refined && res.value > res.mc_value && res.mc_value < 0.99);
    assert_eq!(res.value, bump(&res.x));
    assert_eq!(res.mc_value, bump(&res.mc_x));
    assert!(!res.flat);
    assert!(
        res.x
            .iter()
            .zip(LO.iter().zip(HI))
            .all(|(x, (l, h))| *l <= *x && *x <= h)
    );
}

#[test]
fn approaches_a_maximum_on_the_boundary() {
    // Σ x_d is largest at hi; the sigmoid map reaches it only asymptotically.
    let mut rng = StdRng::seed_from_u64(32);
    let sum = |x: &[f64]| x.iter().sum::<f64>();
    let res = maximise(&LO, &HI, batch(sum), &mut rng, &SearchOptions::default()).unwrap();
    let top = sum(&HI);
    assert!(res.refined && res.value > res.mc_value);
    assert!(top - res.value < 1e-4, "{} vs {top}", res.value);
}

#[test]
fn deterministic_under_a_seed() {
    let run = |seed| {
        let mut rng = StdRng::seed_from_u64(seed);
        maximise(&LO, &HI, batch(bump), &mut rng, &SearchOptions::default()).unwrap()
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7).mc_x, run(8).mc_x);
}

#[test]
fn flat_acquisition_takes_the_first_candidate() {
    let mut rng = StdRng::seed_from_u64(33);
    let mut calls = 0;
    let zeros = |rows: &[f64], dim: usize| {
        calls += 1;
        vec![0.0; rows.len() / dim]
    };
    let res = maximise(&LO, &HI, zeros, &mut rng, &SearchOptions::default()).unwrap();
    assert_eq!(calls, 1, "no local stage on a flat acquisition");
    let mut again = StdRng::seed_from_u64(33);
    let first: Vec<f64> = (0..5)
        .map(|d| LO[d] + (HI[d] - LO[d]) * again.random::<f64>())
        .collect();
    assert_eq!(res.x, first);
    assert!(res.flat && !res.refined && res.value == 0.0 && res.evaluations == 5000);
}

#[test]
fn ties_go_to_the_first_maximum() {
    let mut rng = StdRng::seed_from_u64(34);
    // Constant 1 on x₀ > 0, else 0: the first draw with x₀ > 0 wins and the gradient is 0.
    let step = |x: &[f64]| if x[0] > 0.0 { 1.0 } else { 0.0 };
    let res = maximise(&LO, &HI, batch(step), &mut rng, &SearchOptions::default()).unwrap();
    let mut again = StdRng::seed_from_u64(34);
    let first = loop {
        let x: Vec<f64> = (0..5)
            .map(|d| LO[d] + (HI[d] - LO[d]) * again.random::<f64>())
            .collect();
        if x[0] > 0.0 {
            break x;
        }
    };
    assert_eq!(res.x, first);
    assert!(!res.flat && !res.refined);
}

#[test]
fn maximises_hv_poi_as_well_as_a_fine_grid() {
    // μ(x) = x and fixed variances: the search and a 600² grid should agree on max α.
    let front = [(0.1, 0.9), (0.3, 0.5), (0.6, 0.3), (0.9, 0.05)];
    let acq = HvPoi::new(&front, Reference::Estimated).unwrap();
    let var = (0.01, 0.02);
    let alpha = |x: &[f64]| acq.eval((x[0], x[1]), var);
    let (lo, hi) = ([0.0, 0.0], [1.0, 1.0]);
    let mut grid_max: f64 = 0.0;
    let g = 600;
    for i in 0..=g {
        for j in 0..=g {
            grid_max = grid_max.max(alpha(&[i as f64 / g as f64, j as f64 / g as f64]));
        }
    }
    let mut rng = StdRng::seed_from_u64(35);
    let res = maximise(&lo, &hi, batch(alpha), &mut rng, &SearchOptions::default()).unwrap();
    assert!(
        res.value >= grid_max * (1.0 - 1e-6),
        "{} vs grid {grid_max}",
        res.value
    );
    assert!(
        res.value <= grid_max * (1.0 + 1e-3),
        "{} vs grid {grid_max}",
        res.value
    );
}

#[test]
fn invalid_inputs_are_rejected() {
    let mut rng = StdRng::seed_from_u64(36);
    let opts = SearchOptions::default();
    assert!(maximise(&[], &[], batch(bump), &mut rng, &opts).is_err());
    assert!(maximise(&[0.0], &[0.0], batch(bump), &mut rng, &opts).is_err());
    assert!(maximise(&[0.0, 0.0], &[1.0], batch(bump), &mut rng, &opts).is_err());
    let nan = |_: &[f64]| f64::NAN;
    assert!(maximise(&[0.0], &[1.0], batch(nan), &mut rng, &opts).is_err());
    let short = |_: &[f64], _: usize| vec![1.0];
    assert!(maximise(&[0.0], &[1.0], short, &mut rng, &opts).is_err());
    let none = SearchOptions {
        candidates: 0,
        ..opts
    };
    assert!(maximise(&[0.0], &[1.0], batch(bump), &mut rng, &none).is_err());
}
