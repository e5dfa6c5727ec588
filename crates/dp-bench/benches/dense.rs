//! Dense DP-SGD against its memory bound on Synthetic-H (4,000 training rows of 5,001 f64
//! features: unit rows + bias, Redberg et al.'s preprocessing): one 60-epoch run at ε = 1
//! (batch 256, Adam, C = √2), and the bound — the same Poisson batches with each sampled row
//! read once and nothing else (a sum over the row), so the ratio of the two is how far DP-SGD
//! is from streaming its rows at the machine's bandwidth.
//!
//! `cargo bench -p dp-bench --bench dense`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dp_core::accounting::subsampled_gaussian::calibrate_dpsgd;
use dp_core::accounting::{RdpAccountant, Target};
use dp_core::learn::poisson_sampler::PoissonSampler;
use dp_core::learn::{DpSgd, GlmData, Mechanism};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// A stored value read as f64.
trait Value: Copy {
    fn f(self) -> f64;
}
impl Value for f64 {
    fn f(self) -> f64 {
        self
    }
}
impl Value for f32 {
    fn f(self) -> f64 {
        f64::from(self)
    }
}

/// The kernels' software-prefetch distance, so the bound streams the rows as well as they do.
const PF_BYTES: usize = 2048;

/// Requests element `at` of each of four rows (a hint: past a row's end it is harmless).
#[inline(always)]
fn prefetch<T>(rows: [&[T]; 4], at: usize) {
    #[cfg(target_arch = "x86_64")]
    for r in rows {
        // SAFETY: prefetching is a hint and never faults; wrapping_add keeps the pointer
        // arithmetic defined past the row's end.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(r.as_ptr().wrapping_add(at) as *const i8);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (rows, at);
}

/// Reads every sampled row of `steps` Poisson batches once, four rows at a time with sixteen
/// independent sums, so that only the memory system limits it: the least traffic any DP-SGD
/// over these batches can have.
fn stream<T: Value>(x: &[T], d: usize, n: usize, q: f64, steps: usize) -> f64 {
    let sampler = PoissonSampler::new(n, q).unwrap();
    let mut rng = StdRng::seed_from_u64(0);
    let mut batch = Vec::new();
    let mut total = 0.0;
    let row = |i: usize| &x[i * d..(i + 1) * d];
    for _ in 0..steps {
        sampler.sample_into(&mut rng, &mut batch);
        let mut groups = batch.chunks_exact(4);
        for g in &mut groups {
            let (a, b, c, e) = (row(g[0]), row(g[1]), row(g[2]), row(g[3]));
            let mut acc = [[0.0f64; 4]; 4];
            for (i, (((ac, bc), cc), ec)) in a
                .chunks_exact(4)
                .zip(b.chunks_exact(4))
                .zip(c.chunks_exact(4))
                .zip(e.chunks_exact(4))
                .enumerate()
            {
                prefetch([a, b, c, e], 4 * i + PF_BYTES / std::mem::size_of::<T>());
                for k in 0..4 {
                    acc[0][k] += ac[k].f();
                    acc[1][k] += bc[k].f();
                    acc[2][k] += cc[k].f();
                    acc[3][k] += ec[k].f();
                }
            }
            total += acc.iter().flatten().sum::<f64>();
        }
        for &i in groups.remainder() {
            total += row(i).iter().map(|v| v.f()).sum::<f64>();
        }
    }
    total
}

fn dense(c: &mut Criterion) {
    let split =
        dp_data::load("synthetic-h", &dp_data::Preprocess::redberg()).expect("Synthetic-H builds");
    let data = GlmData::new(&split.train.x, &split.train.y).unwrap();
    let (n, d) = (data.n(), data.d());
    let sqrt2 = std::f64::consts::SQRT_2;
    let rdp = RdpAccountant::new();
    let target = Target::new(1.0, 1e-5).unwrap();
    let sgd_with = |z: f64| DpSgd::paper(n, 256, 60, sqrt2, z, 1e-3);
    let probe = sgd_with(1.0);
    let (q, steps) = (probe.sampling_rate, probe.steps as u64);
    let event_of = |z: f64| Ok(sgd_with(z).event());
    let z = calibrate_dpsgd(|| rdp.fresh(), event_of, target, q, steps).unwrap();
    let sgd = sgd_with(z);
    let x = match &split.train.x {
        dp_core::features::FeatureMatrix::Dense { data, .. } => data.clone(),
        _ => panic!("Synthetic-H is dense"),
    };

    let mut group = c.benchmark_group("synthetic_h");
    group.sample_size(10);
    group.bench_function("dpsgd_60_epochs", |b| {
        b.iter(|| black_box(&sgd).fit(&data, 0).unwrap())
    });
    group.bench_function("stream_rows_60_epochs", |b| {
        b.iter(|| stream(black_box(&x), d, n, sgd.sampling_rate, sgd.steps))
    });
    // feature_storage = "f32": the same run streaming half the bytes.
    let data32 = data.with_f32_rows();
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    group.bench_function("dpsgd_60_epochs_f32", |b| {
        b.iter(|| black_box(&sgd).fit(&data32, 0).unwrap())
    });
    group.bench_function("stream_rows_60_epochs_f32", |b| {
        b.iter(|| stream(black_box(&x32), d, n, sgd.sampling_rate, sgd.steps))
    });
    group.finish();
}

criterion_group!(benches, dense);
criterion_main!(benches);
