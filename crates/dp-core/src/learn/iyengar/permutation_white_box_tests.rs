//! The white-box view of P-SCPSGD: the production loop on the auditor's dataset, refused
//! where it would not be the certified mechanism, and the two runs exactly as far apart as
//! the module's derivation says, never farther.

use super::*;
use crate::accounting::calibrate::Target;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::learn::Mechanism;
use crate::learn::iyengar::permutation::PscpsgdSpec;
use crate::learn::loss::GlmLoss;

fn pscpsgd(calibration: Calibration, radius: f64, passes: u64) -> Pscpsgd {
    let spec = PscpsgdSpec {
        loss: GlmLoss::Huber { h: 0.1 },
        lipschitz: 1.0,
        lambda: 1.0,
        radius,
        passes,
        batch: 300,
    };
    let target = Target::new(1.0, 1e-6).unwrap();
    spec.build(calibration, 1000, target, &RdpAccountant::new())
        .unwrap()
}

fn canary(d: usize, g: f64) -> Vec<f64> {
    let mut v = vec![0.0; d];
    v[0] = g;
    v
}

#[test]
fn bad_views_are_refused() {
    let certified = pscpsgd(Calibration::Certified, 1.0, 5);
    let g = certified.gradient_bound();
    assert_eq!(g, 1.0);
    assert_eq!(
        certified
            .white_box_release(4, 1, &canary(4, g))
            .unwrap()
            .len(),
        4
    );
    assert!(certified.white_box_release(4, 1, &canary(3, g)).is_err());
    assert!(certified.white_box_release(0, 1, &[]).is_err());
    assert!(
        certified
            .white_box_release(4, 1, &[0.8, 0.8, 0.0, 0.0])
            .is_err()
    );
    assert!(
        certified
            .white_box_release(4, 1, &canary(4, f64::NAN))
            .is_err()
    );
    let paper = pscpsgd(Calibration::Paper, 1.0, 5);
    assert!(paper.white_box_release(4, 1, &canary(4, g)).is_err());
    assert!(paper.white_box_shift().is_err());
}

/// Without a canary's gradient the view is the production run before its last projection:
/// same permutation, same start, same noise.
#[test]
fn the_view_is_the_production_run() {
    let m = pscpsgd(Calibration::Certified, 1.0, 5);
    let d = 6;
    let origin = crate::features::FeatureMatrix::origin(1000, d);
    let y = vec![1.0; 1000];
    let data = GlmData::new(&origin, &y).unwrap();
    for seed in [3, 4] {
        let (released, _) = m.fit(&data, seed).unwrap();
        let mut view = m.white_box_release(d, seed, &vec![0.0; d]).unwrap();
        crate::learn::iyengar::step::project_l2(&mut view, 1.0);
        assert_eq!(released, view);
    }
}

/// Same seed on D and D′: the noise cancels and the difference is the iterates'. It never
/// exceeds the derived shift, reaches it when the canary falls in the batch that attains
/// it, and lies along e₁ when the first projection does not bite.
#[test]
fn the_runs_are_at_most_the_shift_apart_and_reach_it() {
    for (radius, passes) in [(1.0, 5), (0.1, 5), (1.0, 1), (1.0, 40)] {
        let m = pscpsgd(Calibration::Certified, radius, passes);
        let shift = m.white_box_shift().unwrap();
        let g = m.gradient_bound();
        let d = 3;
        let mut most = 0.0f64;
        for seed in 0..24 {
            let a = m.white_box_release(d, seed, &canary(d, g)).unwrap();
            let b = m.white_box_release(d, seed, &canary(d, -g)).unwrap();
            let gap = a
                .iter()
                .zip(&b)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                gap <= shift * (1.0 + 1e-9),
                "{radius} {passes}: {gap} > {shift}"
            );
            most = most.max(gap);
        }
        assert!(
            (most - shift).abs() <= 1e-9 * shift,
            "{radius} {passes}: {most} vs {shift}"
        );
    }
}

/// The shift is below the certificate's Δ₂ by G/L_reg and the early steps, and tends to
/// 2G/(λn) as passes grow (the early steps' share vanishes).
#[test]
fn the_shift_sits_below_the_certificate_by_the_regulariser() {
    for radius in [1.0, 0.1] {
        let mut last = 0.0;
        for passes in [1, 5, 40, 400] {
            let m = pscpsgd(Calibration::Certified, radius, passes);
            let shift = m.white_box_shift().unwrap();
            let l_reg = m.gradient_bound() + 1.0 * radius;
            let cap = m.sensitivity() * m.gradient_bound() / l_reg;
            assert!(shift <= cap * (1.0 + 1e-12), "{shift} > {cap}");
            assert!(shift > last, "the early steps' share shrinks with passes");
            last = shift;
            if passes == 400 {
                assert!(shift > 0.995 * cap, "{shift} vs {cap}");
            }
        }
    }
}

fn ppsgd(calibration: Calibration, lr: f64) -> crate::learn::iyengar::permutation::Ppsgd {
    let spec = crate::learn::iyengar::permutation::PpsgdSpec {
        loss: GlmLoss::Huber { h: 0.1 },
        lipschitz: 1.0,
        lr,
        passes: 2,
        batch: 300,
    };
    let target = Target::new(1.0, 1e-6).unwrap();
    spec.build(calibration, 1000, target, &RdpAccountant::new())
        .unwrap()
}

/// P-PSGD's view: refused where it has no certificate or the canary is too large; without a
/// canary's gradient, the production run.
#[test]
fn ppsgd_views_are_refused_or_the_production_run() {
    let m = ppsgd(Calibration::Paper, 0.1);
    let g = m.gradient_bound();
    assert_eq!(g, 1.0);
    assert!(m.white_box_release(4, 1, &canary(3, g)).is_err());
    assert!(m.white_box_release(4, 1, &[0.8, 0.8, 0.0, 0.0]).is_err());
    assert!(m.white_box_release(4, 1, &canary(4, f64::NAN)).is_err());
    // η = 100 > 2/β: steps may expand, no certificate.
    let expansive = ppsgd(Calibration::Paper, 100.0);
    assert!(expansive.sensitivity().is_infinite());
    assert!(expansive.white_box_release(4, 1, &canary(4, g)).is_err());
    assert!(expansive.white_box_shifts().is_err());
    let d = 5;
    let origin = crate::features::FeatureMatrix::origin(1000, d);
    let y = vec![1.0; 1000];
    let data = GlmData::new(&origin, &y).unwrap();
    for seed in [3, 4] {
        let (released, _) = m.fit(&data, seed).unwrap();
        assert_eq!(
            released,
            m.white_box_release(d, seed, &vec![0.0; d]).unwrap()
        );
    }
}

/// The mixture: batches of 300, 300, 300 and 100 in the paper's code (the canary's row in the
/// short one a tenth of the time), three of 333 or 334 when balanced; the distance 2kηG/|B|.
#[test]
fn ppsgd_shifts_are_the_batches_and_the_runs_end_that_far_apart() {
    let (passes, lr, g) = (2.0, 0.1, 1.0);
    let paper = ppsgd(Calibration::Paper, lr);
    let want = [
        (0.9, 2.0 * passes * lr * g / 300.0),
        (0.1, 2.0 * passes * lr * g / 100.0),
    ];
    let got = paper.white_box_shifts().unwrap();
    assert_eq!(got.len(), 2);
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-15,
            "{a:?} vs {b:?}"
        );
    }
    // The certificate pays for the short batch in every run.
    assert!((paper.sensitivity() - want[1].1).abs() < 1e-15);
    // Balanced: three batches, of 334, 333 and 333 rows.
    let certified = ppsgd(Calibration::Certified, lr)
        .white_box_shifts()
        .unwrap();
    let want = [
        (0.334, 2.0 * passes * lr * g / 334.0),
        (0.666, 2.0 * passes * lr * g / 333.0),
    ];
    assert_eq!(certified.len(), 2);
    for (a, b) in certified.iter().zip(want) {
        assert!(
            (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-15,
            "{a:?} vs {b:?}"
        );
    }
    // Same seed on D and D′: the noise cancels and the runs end s_i apart along e₁, the short
    // batch's distance about a tenth of the time.
    let d = 2;
    let mut short = 0;
    let runs = 400;
    for seed in 0..runs {
        let a = paper.white_box_release(d, seed, &canary(d, g)).unwrap();
        let b = paper.white_box_release(d, seed, &canary(d, -g)).unwrap();
        assert_eq!(a[1], b[1]);
        let gap = b[0] - a[0];
        let at = got.iter().position(|&(_, s)| (gap - s).abs() <= 1e-12);
        assert!(at.is_some(), "seed {seed}: {gap} is no batch's distance");
        short += usize::from(at == Some(1));
    }
    // Binomial(400, 0.1): mean 40, sd 6.
    assert!(
        (16..=64).contains(&short),
        "{short} of {runs} in the short batch"
    );
}
