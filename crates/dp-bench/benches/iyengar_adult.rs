//! One run of each Iyengar et al. (2019) algorithm on Adult as their script builds it
//! (`adult-iyengar`, 36,176 training rows × 104 features, rows clipped to L = 1 in ℓ2, or to
//! L = 0.1 in ℓ∞ for P-FW), at ε = 0.1, δ = 1/n², certified calibration unless named, on one
//! core. Each point is the most expensive of its default grid (the run time of a grid is a sum
//! of such runs), so these medians times the grid sizes predict a config's wall time.
//!
//! `DPBENCH_DATA_MIRROR=../shared/datasets/raw cargo bench -p dp-bench --bench iyengar_adult`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::iyengar::{AmpSpec, Calibration, PfwSpec, PpsgdSpec, PscpsgdSpec, PsgdSpec};
use dp_core::learn::{GlmData, GlmLoss, Mechanism};
use dp_data::Preprocess;

fn load(pre: Preprocess) -> dp_data::Split {
    dp_data::load("adult-iyengar", &pre).expect("adult-iyengar loads (set DPBENCH_DATA_MIRROR)")
}

fn iyengar_adult(c: &mut Criterion) {
    let l2 = load(Preprocess {
        clip_row_norm: Some(1.0),
        ..Preprocess::default()
    });
    let linf = load(Preprocess {
        clip_linf: Some(0.1),
        ..Preprocess::default()
    });
    let l2 = GlmData::new(&l2.train.x, &l2.train.y).unwrap();
    let linf = GlmData::new(&linf.train.x, &linf.train.y).unwrap();
    let n = l2.n();
    let rdp = RdpAccountant::new();
    let target = Target::new(0.1, 1.0 / (n as f64 * n as f64)).unwrap();
    let cert = Calibration::Certified;
    let loss = GlmLoss::Logistic;

    let amp = AmpSpec {
        loss,
        lipschitz: 1.0,
        eps_frac: 0.9,
        eps_out_frac: 0.01,
        gamma: 1.0 / (n as f64 * n as f64),
    };
    let amp_hf = AmpSpec::hyperparameter_free(loss, target.epsilon(), n).unwrap();
    let psgd = PsgdSpec {
        loss,
        lipschitz: 1.0,
        lambda: 0.0,
        lr: 1.0,
        steps: 1000,
        batch: 50,
        radius: None,
    };
    let ppsgd = PpsgdSpec {
        loss,
        lipschitz: 1.0,
        lr: 0.01,
        passes: 100,
        batch: 50,
    };
    let pscpsgd = PscpsgdSpec {
        loss,
        lipschitz: 1.0,
        lambda: 1e-3,
        radius: 10.0,
        passes: 200,
        batch: 50,
    };
    let pfw = PfwSpec {
        loss,
        linf: 0.1,
        l1_radius: 500.0,
        steps: 1000,
    };

    let mut group = c.benchmark_group("iyengar_adult");
    group.sample_size(10);
    let mut bench = |name: &str, run: &dyn Fn() -> Vec<f64>| {
        group.bench_function(name, |b| b.iter(|| black_box(run())));
    };
    let amp = amp.build(cert, n, target, &rdp).unwrap();
    bench("amp", &|| amp.fit(&l2, 1).unwrap().0);
    let amp_hf = amp_hf.build(cert, n, target, &rdp).unwrap();
    bench("amp_hf", &|| amp_hf.fit(&l2, 1).unwrap().0);
    let psgd = psgd.build(cert, n, target, &rdp).unwrap();
    bench("psgd_T1000", &|| psgd.fit(&l2, 1).unwrap().0);
    let ppsgd = ppsgd.build(cert, n, target, &rdp).unwrap();
    bench("ppsgd_100_passes", &|| ppsgd.fit(&l2, 1).unwrap().0);
    let pscpsgd = pscpsgd.build(cert, n, target, &rdp).unwrap();
    bench("pscpsgd_200_passes", &|| pscpsgd.fit(&l2, 1).unwrap().0);
    let pfw_paper = pfw.build(Calibration::Paper, n, target, &rdp).unwrap();
    bench("pfw_paper_T1000", &|| pfw_paper.fit(&linf, 1).unwrap().0);
    let pfw = pfw.build(cert, n, target, &rdp).unwrap();
    bench("pfw_certified_T1000", &|| pfw.fit(&linf, 1).unwrap().0);
    group.finish();
}

criterion_group!(benches, iyengar_adult);
criterion_main!(benches);
