//! The results store's share of a large run, and the cost of finishing one cell.
//!
//! 1. A 100,000-cell grid (`constant` cells: θ = 0 scored on Synthetic-L's 2,000 test rows,
//!    about the cheapest real cell there is) run end to end, then opened again as a resume
//!    would: prints the wall time and the time spent in the store (journal appends, the
//!    compaction into Parquet/CSV at the end, and opening), which must stay under 10 %.
//! 2. Criterion: finishing one cell alone (`Store::append` then `flush`: one journal line, one
//!    `write`) with 100,000 cells already stored; a burst of cells shares one write.
//!
//! `cargo bench -p dp-bench --bench store`

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::Criterion;
use dp_bench::experiment::config::Config;
use dp_bench::experiment::record::CellRecord;
use dp_bench::experiment::runner;
use dp_bench::experiment::store::Store;

const CONFIG: &str = r#"
experiment = "store-benchmark"
seed = 1
trials = 10000
epsilons = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
delta = 1e-5

[dataset]
name = "synthetic-l"

[methods.floor]
kind = "constant"
"#;

fn whole_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = Config::parse(CONFIG, Path::new("store-benchmark.toml")).expect("config");
    let out = dir.path().join("run");
    let report = runner::run(&cfg, &out, false).expect("run");
    println!(
        "store/100k-cell run: {} cells in {:.2} s wall, {:.3} s in the store ({:.1} %)",
        report.ran,
        report.seconds,
        report.store_seconds,
        100.0 * report.store_seconds / report.seconds
    );
    let start = Instant::now();
    let mut store = Store::open(&out).expect("reopen");
    println!(
        "store/reopen of {} compacted cells: {:.3} s",
        store.rows().len(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    store.compact().expect("compact");
    println!(
        "store/compaction of {} cells into Parquet, CSV and timings: {:.3} s",
        store.rows().len(),
        start.elapsed().as_secs_f64()
    );
}

fn append(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("store");
    let row = |i: u64| CellRecord {
        method: "floor".into(),
        kind: "constant".into(),
        epsilon: 0.5,
        delta: 1e-5,
        trial: i as u32,
        seed: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        accuracy: 50.0 + (i % 7) as f64,
        epsilon_accounted: 0.0,
        wall_ms: 0.02,
        key: format!("floor|0.5|{i}|0123456789abcdef"),
        details: serde_json::json!({"noise": 1.5, "runs": 3}),
    };
    for i in 0..100_000 {
        store.append(row(i)).expect("append");
    }
    store.flush().expect("flush");
    let mut i = 100_000;
    c.bench_function("store/append+flush (100k cells stored)", |b| {
        b.iter_batched(
            || {
                i += 1;
                row(i)
            },
            |r| {
                store.append(black_box(r)).expect("append");
                store.flush().expect("flush")
            },
            criterion::BatchSize::SmallInput,
        )
    });
}

fn main() {
    whole_run();
    let mut c = Criterion::default().configure_from_args().sample_size(20);
    append(&mut c);
    c.final_summary();
}
