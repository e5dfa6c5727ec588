//! Dataset load times: first load (parse or generate, write the processed cache) and cached
//! load (read the processed cache), for Adult (from the shared mirror) and Synthetic-H.
//!
//! `cargo bench -p dp-data --bench load` (Adult needs `shared/datasets/raw` beside the repo).

use std::hint::black_box;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dp_data::{DataConfig, DatasetId, Mirror, Preprocess};

fn config(cache: &Path) -> DataConfig {
    let mirror = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/raw");
    DataConfig::new(cache)
        .with_mirror(Mirror::Dir(mirror))
        .with_download(false)
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    for id in [DatasetId::Adult, DatasetId::SyntheticH] {
        group.bench_function(format!("{id}/first"), |b| {
            b.iter_batched(
                || tempfile::tempdir().expect("tempdir"),
                |dir| black_box(config(dir.path()).dataset(id).expect("loads").len()),
                BatchSize::PerIteration,
            )
        });
        let warm = tempfile::tempdir().expect("tempdir");
        let cfg = config(warm.path());
        cfg.dataset(id).expect("loads");
        group.bench_function(format!("{id}/cached"), |b| {
            b.iter(|| black_box(cfg.dataset(id).expect("cached").len()))
        });
        group.bench_function(format!("{id}/cached+redberg-split"), |b| {
            b.iter(|| {
                black_box(
                    cfg.load(id, &Preprocess::redberg())
                        .expect("split")
                        .train
                        .len(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
