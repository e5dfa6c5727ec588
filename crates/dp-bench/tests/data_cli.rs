//! `dp-bench data …` end to end, with the shared raw-file mirror and a temp cache per test.
//! Environment variables are set on the child process only, so tests cannot race.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{assert_success, dp_bench_cmd, output, stderr, stdout};

fn shared_raw() -> PathBuf {
    let p = common::shared_raw();
    assert!(
        p.join("adult").join("adult.data").is_file(),
        "the shared dataset mirror is missing: expected {} (shared/datasets/raw beside the repository)",
        p.display()
    );
    p
}

fn dp_bench(cache: &Path, mirror: impl AsRef<OsStr>, args: &[&str]) -> Output {
    output(
        dp_bench_cmd(args)
            .env("DPBENCH_DATA_DIR", cache)
            .env("DPBENCH_DATA_MIRROR", mirror)
            .env("DPBENCH_OFFLINE", "1"),
    )
}

fn info_json(cache: &Path, mirror: &Path, name: &str) -> serde_json::Value {
    let out = dp_bench(cache, mirror, &["data", "info", name, "--json"]);
    assert_success(&out);
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn info_reports_reference_shapes() {
    let cache = tempfile::tempdir().unwrap();
    let raw = shared_raw();
    let adult = info_json(cache.path(), &raw, "adult");
    assert_eq!(adult["rows"], 45_222);
    assert_eq!(adult["features"], 104);
    assert_eq!(
        format!("{:.4}", adult["positive_fraction"].as_f64().unwrap()),
        "0.2478"
    );
    assert_eq!(adult["train_rows"], 36_177);
    assert_eq!(adult["test_rows"], 9_045);
    assert!(adult["nonzeros"].as_u64().unwrap() > 45_222 * 8);
    assert_eq!(
        adult["sha256"]["adult.data"],
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"
    );
    let l = info_json(cache.path(), &raw, "synthetic-l");
    assert_eq!(
        (l["rows"].as_u64(), l["features"].as_u64()),
        (Some(10_000), Some(40))
    );
    let h = info_json(cache.path(), &raw, "synthetic-h");
    assert_eq!(
        (h["rows"].as_u64(), h["features"].as_u64()),
        (Some(5_000), Some(5_000))
    );

    let out = dp_bench(cache.path(), &raw, &["data", "list"]);
    let text = stdout(&out);
    assert!(
        out.status.success() && text.contains("adult") && text.contains("ready"),
        "{text}"
    );
}

#[test]
fn corrupt_mirror_fails_with_checksum_error_and_writes_nothing() {
    let mirror = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(mirror.path().join("adult")).unwrap();
    for f in ["adult.data", "adult.test"] {
        std::fs::copy(
            shared_raw().join("adult").join(f),
            mirror.path().join("adult").join(f),
        )
        .unwrap();
    }
    let victim = mirror.path().join("adult").join("adult.data");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[12_345] ^= 0x20;
    std::fs::write(&victim, bytes).unwrap();

    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().join("cache");
    let out = dp_bench(
        &cache_dir,
        mirror.path(),
        &["data", "info", "adult", "--json"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("checksum mismatch for adult.data"), "{err}");
    assert!(
        err.contains("5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert!(!cache_dir.exists(), "nothing may be written to the cache");

    let out = dp_bench(&cache_dir, mirror.path(), &["data", "fetch", "adult"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!cache_dir.exists());
}

#[test]
fn unknown_dataset_is_a_usage_error() {
    let cache = tempfile::tempdir().unwrap();
    for args in [
        &["data", "info", "adulttt"][..],
        &["data", "fetch", "mnist", "nope"][..],
    ] {
        let out = dp_bench(cache.path(), shared_raw(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("valid names") && err.contains("synthetic-h"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn info_reports_the_split_that_runs() {
    let cache = tempfile::tempdir().unwrap();
    let raw = shared_raw();
    // a1a ships as a1a.t (train) and a1a (test), and studies run exactly that split.
    let a1a = info_json(cache.path(), &raw, "a1a");
    assert_eq!(
        (a1a["train_rows"].as_u64(), a1a["test_rows"].as_u64()),
        (Some(30_956), Some(1_605))
    );
    assert_eq!(a1a["split"]["kind"], "fixed", "{a1a}");
    assert_eq!(a1a["split"]["train_rows"], 30_956);
    let out = dp_bench(cache.path(), &raw, &["data", "info", "a1a"]);
    let text = stdout(&out);
    assert_success(&out);
    assert!(text.contains("train / test rows  30956 / 1605"), "{text}");
    assert!(text.contains("split              fixed"), "{text}");
    // Datasets without their own split: the grid configs' default shuffle.
    let l = info_json(cache.path(), &raw, "synthetic-l");
    assert_eq!(
        (l["train_rows"].as_u64(), l["test_rows"].as_u64()),
        (Some(8_000), Some(2_000))
    );
    assert_eq!(l["split"]["kind"], "shuffled", "{l}");
    assert_eq!(l["split"]["seed"], 10_000_019);
}

#[test]
fn a_bit_flip_in_the_processed_cache_is_named_and_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    let raw = shared_raw();
    let first = info_json(cache.path(), &raw, "adult");
    let file = PathBuf::from(first["cache_file"].as_str().unwrap());
    let good = std::fs::read(&file).unwrap();
    let mut bad = good.clone();
    // The least significant byte of the last feature value (a sha256 trails the file).
    let at = bad.len() - 32 - 8;
    bad[at] ^= 1;
    std::fs::write(&file, &bad).unwrap();

    let out = dp_bench(cache.path(), &raw, &["data", "info", "adult", "--json"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&file.display().to_string()) && err.contains("checksum mismatch"),
        "{err}"
    );
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again, first);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        good,
        "rebuilt to the same bytes"
    );
    let out = dp_bench(cache.path(), &raw, &["data", "info", "adult", "--json"]);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn an_unreachable_http_mirror_is_not_reported_as_missing_files() {
    // A loopback port nothing listens on: bound by the OS, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mirror = format!("http://127.0.0.1:{port}/");
    let cache = tempfile::tempdir().unwrap();
    let out = dp_bench(cache.path(), &mirror, &["data", "fetch", "a1a"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("not in mirror"), "{err}");
    assert!(
        err.contains(&format!(
            "mirror failed (http://127.0.0.1:{port}/a1a/a1a.t)"
        )),
        "{err}"
    );
    assert!(err.to_lowercase().contains("connection refused"), "{err}");
    assert!(err.contains("downloads are disabled"), "{err}");
}
