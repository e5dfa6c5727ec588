use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;

/// P(ν ≥ t) for ν ~ Lap(b).
fn survival(t: f64, b: f64) -> f64 {
    if t >= 0.0 {
        0.5 * (-t / b).exp()
    } else {
        1.0 - 0.5 * (t / b).exp()
    }
}

/// P(Alg. 1 outputs `w` | answers `q`), by Simpson quadrature over the threshold noise ρ with
/// the integrand's kinks (ρ = 0, ρ = q − ½) as panel ends.
fn output_probability(svt: &Svt, q: &[bool], w: &[bool]) -> f64 {
    let (b1, b2) = svt.scales();
    // Queries the run looked at: all, or up to the ⌈C⌉-th positive.
    let mut seen = q.len();
    let mut positives = 0;
    for (i, &wi) in w.iter().enumerate() {
        positives += usize::from(wi);
        if positives == svt.max_positives() {
            seen = i + 1;
            break;
        }
    }
    let integrand = |r: f64| {
        let density = (-r.abs() / b1).exp() / (2.0 * b1);
        let p: f64 = (0..seen)
            .map(|i| {
                let s = survival(THRESHOLD + r - f64::from(u8::from(q[i])), b2);
                if w[i] { s } else { 1.0 - s }
            })
            .product();
        density * p
    };
    let tail = 60.0 * b1 + 2.0;
    let knots = [-tail, -0.5, 0.0, 0.5, tail];
    let panels = 4000;
    knots
        .windows(2)
        .map(|k| {
            let h = (k[1] - k[0]) / panels as f64;
            let inner: f64 = (1..panels)
                .map(|j| integrand(k[0] + j as f64 * h) * if j % 2 == 1 { 4.0 } else { 2.0 })
                .sum();
            h / 3.0 * (integrand(k[0]) + inner + integrand(k[1]))
        })
        .sum()
}

/// The largest log-ratio of output probabilities over all pairs of answer vectors in {0,1}^m
/// (each query's answer may move by 1 between neighbours) and all outputs.
fn privacy_loss(svt: &Svt, m: usize) -> f64 {
    let vec_of = |bits: usize| (0..m).map(|i| bits >> i & 1 == 1).collect::<Vec<_>>();
    let outputs: Vec<Vec<bool>> = (0..1 << m)
        .map(vec_of)
        .filter(|w| w.iter().filter(|&&b| b).count() <= svt.max_positives())
        // After the ⌈C⌉-th positive the run stops: no later query is answered.
        .filter(|w| {
            let mut c = 0;
            w.iter().all(|&b| {
                let ok = c < svt.max_positives();
                c += usize::from(b);
                ok || !b
            })
        })
        .collect();
    let probs: Vec<Vec<f64>> = (0..1 << m)
        .map(|bits| {
            let q = vec_of(bits);
            outputs
                .iter()
                .map(|w| output_probability(svt, &q, w))
                .collect()
        })
        .collect();
    let mut worst: f64 = 0.0;
    for a in &probs {
        for b in &probs {
            for (pa, pb) in a.iter().zip(b) {
                worst = worst.max((pa / pb).ln());
            }
        }
    }
    worst
}

#[test]
fn the_closed_form_is_one_over_b1_plus_2c_over_b2() {
    for (b, c) in [(0.01, 1.0), (1.0, 7.0), (30.0, 30.0), (2.0, 3.0)] {
        let svt = Svt::new(b, c).unwrap();
        let (b1, b2) = svt.scales();
        assert!((b1 + b2 - b).abs() < 1e-12 * b);
        let split = 1.0 / b1 + 2.0 * c / b2;
        assert!((svt.epsilon_paper() / split - 1.0).abs() < 1e-12);
        // Integer C: certified and published agree.
        assert!((svt.epsilon() / svt.epsilon_paper() - 1.0).abs() < 1e-12);
    }
    // A fractional C releases ⌈C⌉ positives and pays for them.
    let svt = Svt::new(1.0, 2.5).unwrap();
    assert_eq!(svt.max_positives(), 3);
    assert!(svt.epsilon() > svt.epsilon_paper());
}

#[test]
fn exact_output_probabilities_stay_within_the_certified_epsilon() {
    for (b, c) in [(3.0, 1.0), (3.0, 2.0), (4.0, 1.5), (2.0, 1.2)] {
        let svt = Svt::new(b, c).unwrap();
        let loss = privacy_loss(&svt, 4);
        assert!(
            loss <= svt.epsilon() + 1e-6,
            "b={b} C={c}: {loss} > {}",
            svt.epsilon()
        );
        // Not vacuous: the worst pair of neighbours gets within a factor 3 of the bound.
        assert!(loss > svt.epsilon() / 3.0, "b={b} C={c}: {loss}");
    }
}

#[test]
fn quadrature_probabilities_sum_to_one_and_match_simulation() {
    let svt = Svt::new(1.5, 2.0).unwrap();
    let q = [true, false, true, false];
    let mut total = 0.0;
    let mut rng = StdRng::seed_from_u64(5);
    let runs = 40_000;
    let draws: Vec<Vec<bool>> = (0..runs).map(|_| svt.run(&q, &mut rng)).collect();
    for bits in 0..16usize {
        let w: Vec<bool> = (0..4).map(|i| bits >> i & 1 == 1).collect();
        let freq = draws.iter().filter(|d| **d == w).count() as f64 / runs as f64;
        let c = w.iter().filter(|&&b| b).count();
        let reachable = c <= 2
            && (c < 2 || w.iter().rposition(|&b| b) == Some(3) || {
                let second = w.iter().enumerate().filter(|(_, b)| **b).nth(1).unwrap().0;
                w[second + 1..].iter().all(|&b| !b)
            });
        if !reachable {
            assert_eq!(freq, 0.0, "{w:?}");
            continue;
        }
        let p = output_probability(&svt, &q, &w);
        total += p;
        let sd = (p * (1.0 - p) / runs as f64).sqrt();
        assert!((freq - p).abs() < 5.0 * sd + 1e-4, "{w:?}: {freq} vs {p}");
    }
    assert!((total - 1.0).abs() < 1e-6, "{total}");
}

#[test]
fn f1_counts_hits_and_misses() {
    let t = [true, true, false, false];
    assert_eq!(f1_score(&t, &t), 1.0);
    assert_eq!(f1_score(&t, &[true, false, false, false]), 2.0 / 3.0);
    assert_eq!(f1_score(&t, &[false, false, true, true]), 0.0);
    assert_eq!(f1_score(&[false; 3], &[false; 3]), 1.0);
}

#[test]
fn bad_parameters_are_refused() {
    assert!(Svt::new(0.0, 2.0).is_err());
    assert!(Svt::new(1.0, 0.5).is_err());
    assert!(Svt::new(f64::NAN, 2.0).is_err());
}
#[test]
fn the_published_form_under_reports_for_a_fractional_cutoff() {
    // C = 1.01 stops after 2 positives but the closed form pays for 1.01 of them: five
    // queries already show a pair of neighbours whose output probabilities differ by more.
    let svt = Svt::new(1.0, 1.01).unwrap();
    let loss = privacy_loss(&svt, 5);
    assert!(
        loss > svt.epsilon_paper() + 0.3,
        "{loss} vs {}",
        svt.epsilon_paper()
    );
    assert!(loss <= svt.epsilon() + 1e-6);
}
