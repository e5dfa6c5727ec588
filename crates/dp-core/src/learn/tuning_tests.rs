use super::*;
use crate::learn::dpsgd::DpSgd;
use crate::learn::synthetic::halfspace;

#[test]
fn run_counts_have_the_selection_mean() {
    let mut rng = StdRng::seed_from_u64(1);
    for sel in [
        Selection::poisson(15.41).unwrap(),
        Selection::geometric(0.1).unwrap(),
        Selection::logarithmic(0.05).unwrap(),
        Selection::from_shape_mean(0.5, 8.0).unwrap(),
    ] {
        let n = 40_000;
        let draws: Vec<usize> = (0..n)
            .map(|_| sample_runs(&sel, &mut rng).unwrap())
            .collect();
        let mean = draws.iter().sum::<usize>() as f64 / n as f64;
        let var = draws
            .iter()
            .map(|&k| (k as f64 - mean).powi(2))
            .sum::<f64>()
            / n as f64;
        let se = (var / n as f64).sqrt();
        assert!(
            (mean - sel.mean()).abs() < 5.0 * se,
            "{sel:?}: {mean} vs {}",
            sel.mean()
        );
        if !matches!(sel, Selection::Poisson { .. }) {
            assert!(draws.iter().all(|&k| k >= 1), "truncated at 1");
        }
    }
}

#[test]
fn candidates_draw_inside_their_range() {
    let mut rng = StdRng::seed_from_u64(2);
    let g = Candidates::PaperGrid { lo: 1e-4, hi: 1e-1 }.draw(4, &mut rng);
    assert_eq!(g, log_grid(1e-4, 1e-1, 4));
    let u = Candidates::LogUniform { lo: 1e-4, hi: 1e-1 }.draw(2000, &mut rng);
    assert!(u.iter().all(|&v| (1e-4..=1e-1).contains(&v)));
    // Log-uniform: half the draws below the geometric mean.
    let below = u.iter().filter(|&&v| v < (1e-4_f64 * 1e-1).sqrt()).count();
    assert!((below as f64 / 2000.0 - 0.5).abs() < 0.05, "{below}");
    let l = Candidates::List(vec![0.1, 0.2]).draw(100, &mut rng);
    assert!(l.iter().all(|v| *v == 0.1 || *v == 0.2) && l.contains(&0.1) && l.contains(&0.2));
    assert!(Candidates::LogUniform { lo: 1.0, hi: 0.5 }.check().is_err());
    assert!(Candidates::List(vec![]).check().is_err());
}

#[test]
fn log_grid_spans_the_range() {
    let g = log_grid(1e-8, 1e-1, 10);
    assert_eq!(g.len(), 10);
    assert!((g[0] - 1e-8).abs() < 1e-20 && (g[9] - 1e-1).abs() < 1e-14);
    assert!((g[1] / g[0] - g[9] / g[8]).abs() < 1e-9, "constant ratio");
    assert!(log_grid(1e-8, 1e-1, 0).is_empty());
}

fn sgd(lr: f64, z: f64) -> Result<DpSgd> {
    DpSgd::paper(400, 40, 2, 1.0, z, lr).checked()
}

#[test]
fn the_event_charges_for_selection_and_needs_one_base_event() {
    let sel = Selection::poisson(3.0).unwrap();
    let t = RepeatAndSelect::new(
        sel,
        Candidates::LogUniform { lo: 1e-3, hi: 1e-1 },
        |lr| sgd(lr, 1.0),
        |_: &[f64], _: u64| 0.0,
    )
    .unwrap();
    assert_eq!(
        t.event(),
        sgd(0.01, 1.0).unwrap().event().repeat_and_select(sel)
    );
    // A paid score is part of every run's event; a free one is not.
    let score = Event::EpsilonDelta {
        epsilon: 0.1,
        delta: 0.0,
    };
    let run = sgd(0.01, 1.0).unwrap().event();
    let paid = Event::Composed(vec![run, score.clone()]).repeat_and_select(sel);
    assert_eq!(t.paying_for_scores(Some(score)).event(), paid);
    // The noise must not depend on the candidate.
    let r = RepeatAndSelect::new(
        sel,
        Candidates::List(vec![0.5, 1.0]),
        |z| sgd(0.01, z),
        |_: &[f64], _: u64| 0.0,
    );
    assert!(matches!(r, Err(DpError::Invalid(_))));
}

#[test]
fn releases_the_best_run_and_is_deterministic() {
    let (x, y) = halfspace(400, 4, 0.1, 3);
    let data = GlmData::new(&x, &y).unwrap();
    let score = |th: &[f64], _: u64| 100.0 * crate::learn::accuracy(&x, &y, th);
    let t = RepeatAndSelect::new(
        Selection::poisson(4.0).unwrap(),
        Candidates::LogUniform { lo: 1e-4, hi: 1e-1 },
        |lr| sgd(lr, 1.0),
        score,
    )
    .unwrap();
    for seed in 0..5 {
        let (theta, rep) = t.fit(&data, seed).unwrap();
        assert_eq!(t.fit(&data, seed).unwrap().0, theta, "same seed, same θ");
        assert_eq!(rep.scores.len(), rep.runs);
        match rep.chosen {
            Some(lr) => {
                let best = rep.scores.iter().map(|s| s.1).fold(f64::MIN, f64::max);
                assert_eq!(score(&theta, 0), best);
                assert!(rep.scores.iter().any(|s| s.0 == lr && s.1 == best));
            }
            None => assert!(rep.runs == 0 && theta.iter().all(|&v| v == 0.0)),
        }
    }
}

#[test]
fn ties_release_the_last_best_run() {
    let (x, y) = halfspace(100, 3, 0.1, 4);
    let data = GlmData::new(&x, &y).unwrap();
    let (_, rep) = best_of(|lr| sgd(lr, 1.0), &[0.1, 0.2, 0.3], &data, 7, |_, _| 1.0).unwrap();
    assert_eq!(rep.chosen, Some(0.3));
    let (theta, rep) = best_of(|lr| sgd(lr, 1.0), &[], &data, 7, |_, _| 1.0).unwrap();
    assert_eq!((rep.runs, rep.chosen, theta), (0, None, vec![0.0; 3]));
}
