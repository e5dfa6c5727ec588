//! End-to-end tests against the shared raw-file mirror (`shared/datasets/raw`, next to the
//! repository; CI has it). No network: downloads are disabled in every config.

use std::path::{Path, PathBuf};

use dp_data::fetch::sha256_hex;
use dp_data::{DataConfig, DataError, DatasetId, Mirror, Preprocess};

fn shared_raw() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/raw");
    assert!(
        p.join("adult").join("adult.data").is_file(),
        "the shared dataset mirror is missing: expected {} (shared/datasets/raw beside the repository)",
        p.display()
    );
    p
}

fn config(cache: &Path, mirror: &Path) -> DataConfig {
    DataConfig::new(cache)
        .with_mirror(Mirror::Dir(mirror.to_path_buf()))
        .with_download(false)
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn adult_has_the_reference_shape_and_balance() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    let info = cfg.info(DatasetId::Adult).unwrap();
    assert_eq!((info.rows, info.features), (45_222, 104));
    assert_eq!(format!("{:.4}", info.positive_fraction), "0.2478");
    assert_eq!((info.train_rows, info.test_rows), (36_177, 9_045));
    // Raw files were verified and cached under <cache>/adult/.
    for f in DatasetId::Adult.spec().files {
        let bytes = std::fs::read(cache.path().join("adult").join(f.name)).unwrap();
        assert_eq!(sha256_hex(&bytes), f.sha256);
    }

    let d = cfg.dataset(DatasetId::Adult).unwrap();
    // Every row: exactly one indicator in each of the 8 categorical blocks, continuous
    // columns scaled into [0, 1] with each column's maximum equal to 1.
    let mut col_max = [0.0f64; 6];
    for i in 0..d.len() {
        let mut row = vec![0.0; 104];
        d.x.row(i).axpy(1.0, &mut row);
        assert_eq!(row[..98].iter().sum::<f64>(), 8.0, "row {i}");
        for (m, v) in col_max.iter_mut().zip(&row[98..]) {
            assert!((0.0..=1.0).contains(v));
            *m = m.max(*v);
        }
    }
    assert_eq!(col_max, [1.0; 6]);
    assert_eq!(info.nonzeros, d.x.nnz());

    // A second config without any mirror is served from the processed cache alone.
    let offline = DataConfig::new(cache.path()).with_download(false);
    assert_eq!(offline.dataset(DatasetId::Adult).unwrap(), d);
    let split = offline
        .load(DatasetId::Adult, &Preprocess::redberg())
        .unwrap();
    assert_eq!(split.train.x.ncols(), 105);
    assert!(split.test.x.max_row_norm() <= 2f64.sqrt() + 1e-12);
}

#[test]
fn flipped_byte_in_mirror_is_rejected_and_nothing_is_cached() {
    let raw = shared_raw();
    for victim in ["adult.data", "adult.test"] {
        let mirror = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(mirror.path().join("adult")).unwrap();
        for f in ["adult.data", "adult.test"] {
            let mut bytes = std::fs::read(raw.join("adult").join(f)).unwrap();
            if f == victim {
                bytes[1000] ^= 0x01;
            }
            std::fs::write(mirror.path().join("adult").join(f), bytes).unwrap();
        }
        let cache = tempfile::tempdir().unwrap();
        let cfg = config(&cache.path().join("c"), mirror.path());
        let err = cfg.dataset(DatasetId::Adult).unwrap_err();
        let spec = DatasetId::Adult
            .spec()
            .files
            .iter()
            .find(|f| f.name == victim)
            .unwrap();
        match &err {
            DataError::Checksum {
                file,
                expected,
                actual,
                ..
            } => {
                assert_eq!(file, victim);
                assert_eq!(expected, spec.sha256);
                assert_ne!(actual, spec.sha256);
            }
            other => panic!("expected a checksum error, got {other}"),
        }
        let msg = err.to_string();
        assert!(msg.contains(spec.sha256), "{msg}");
        let written = files_under(&cache.path().join("c"));
        assert!(
            written.iter().all(|p| p.file_name().unwrap() != victim),
            "the corrupt file must not be cached: {written:?}"
        );
        assert!(
            written
                .iter()
                .all(|p| !p.starts_with(cache.path().join("c").join("processed")))
        );
        if victim == "adult.data" {
            assert!(written.is_empty(), "{written:?}");
        }
    }
}

#[test]
fn kddcup99_sample_matches_iyengar() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    let info = cfg.info(DatasetId::KddCup99).unwrap();
    // Replaying their script with NumPy (seed 10000019, randint(494021, size=70000), one-hot of
    // the categories present) gives 3 + 62 + 10 indicators + 38 numeric = 113 columns and
    // 13,908 `normal.` rows; Table I reports 114 columns, one more than their code produces.
    assert_eq!((info.rows, info.features), (70_000, 113));
    let d = cfg.dataset(DatasetId::KddCup99).unwrap();
    assert_eq!(d.y.iter().filter(|&&v| v > 0.0).count(), 13_908);
}

#[test]
fn mnist_has_65000_rows_of_784_pixels() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    let d = cfg.dataset(DatasetId::Mnist).unwrap();
    assert_eq!((d.x.nrows(), d.x.ncols(), d.n_classes()), (65_000, 784, 10));
    let classes = d.classes.as_ref().unwrap();
    // The last 10,000 rows are the test set: its class counts are known (980 zeros, 1,135 ones).
    assert_eq!(classes[55_000..].iter().filter(|&&c| c == 0).count(), 980);
    assert_eq!(classes[55_000..].iter().filter(|&&c| c == 1).count(), 1_135);
    let zeros = classes.iter().filter(|&&c| c == 0).count();
    assert_eq!(d.y.iter().filter(|&&v| v > 0.0).count(), zeros);
    assert!(d.x.max_row_norm() <= 28.0);
}

#[test]
fn a1a_is_a1a_t_then_a1a_with_the_reference_balance() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    let d = cfg.dataset(DatasetId::A1a).unwrap();
    assert_eq!((d.x.nrows(), d.x.ncols()), (32_561, 123));
    let train = DatasetId::A1a.fixed_train_rows().unwrap();
    assert_eq!(train, 30_956);
    let pos = |r: std::ops::Range<usize>| {
        let len = r.len() as f64;
        d.y[r].iter().filter(|&&v| v > 0.0).count() as f64 / len
    };
    // Avent et al.'s reference notes: 0.2405 positive in train, 0.2461 in test (1,210 of the
    // 1,605 test rows are negative, the majority-class floor of their fronts).
    assert_eq!(format!("{:.4}", pos(0..train)), "0.2405");
    assert_eq!(format!("{:.4}", pos(train..32_561)), "0.2461");
    assert_eq!(d.y[train..].iter().filter(|&&v| v < 0.0).count(), 1_210);
    // Binary features, about 13.9 per row.
    let nnz = d.x.nnz() as f64 / 32_561.0;
    assert!((nnz - 13.9).abs() < 0.1, "{nnz}");
    assert!((0..32_561).all(|i| d.x.row(i).norm_sq() == d.x.row(i).norm_sq().round()));
}

#[test]
fn mnist_full_keeps_all_70000_digits_in_file_order() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    let full = cfg.dataset(DatasetId::MnistFull).unwrap();
    let short = cfg.dataset(DatasetId::Mnist).unwrap();
    assert_eq!((full.x.nrows(), full.x.ncols()), (70_000, 784));
    assert_eq!(DatasetId::MnistFull.fixed_train_rows(), Some(60_000));
    // The 65,000-row variant drops the first 5,000 training images and nothing else.
    assert_eq!(
        full.classes.as_ref().unwrap()[5_000..],
        short.classes.as_ref().unwrap()[..]
    );
}

/// Row-major float64 bytes of train then test, as NumPy's `x.tobytes()` of the shuffled array.
fn row_major_bytes(parts: [&dp_data::Dataset; 2]) -> (Vec<u8>, Vec<f64>) {
    let mut x = Vec::new();
    let mut y = Vec::new();
    for d in parts {
        let mut row = vec![0.0; d.x.ncols()];
        for i in 0..d.len() {
            row.fill(0.0);
            d.x.row(i).axpy(1.0, &mut row);
            x.extend(row.iter().flat_map(|v| v.to_le_bytes()));
        }
        y.extend(&d.y);
    }
    (x, y)
}

#[test]
fn adult_iyengar_matches_the_authors_arrays_row_for_row() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    // Shares adult's raw files (and their mirror folder).
    assert_eq!(DatasetId::AdultIyengar.spec().raw_dir, "adult");
    let split = cfg
        .load(DatasetId::AdultIyengar, &Preprocess::default())
        .unwrap();
    assert_eq!((split.train.len(), split.test.len()), (36_176, 9_044));
    assert_eq!(split.train.x.ncols(), 104);
    let positives = |d: &dp_data::Dataset| d.y.iter().filter(|&&v| v > 0.0).count();
    assert_eq!(
        (positives(&split.train), positives(&split.test)),
        (9_022, 2_184)
    );
    let mut r0 = vec![0.0; 104];
    split.train.x.row(0).axpy(1.0, &mut r0);
    let nz: Vec<usize> = (0..104).filter(|&j| r0[j] != 0.0).collect();
    assert_eq!(nz, [4, 8, 25, 32, 44, 54, 56, 95, 98, 99, 100, 103]);
    // sha256 of the authors' x (45,220 × 104 float64, C order, after their seed-10000019
    // shuffle) and y, as given (abbreviated) in the reference notes.
    let (x, y) = row_major_bytes([&split.train, &split.test]);
    let hx = sha256_hex(&x);
    assert!(
        hx.starts_with("ff5fb092") && hx.ends_with("633475"),
        "x sha256 {hx}"
    );
    // y as float64 (±1), the column of the authors' stacked float array.
    let y64: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    let hy = sha256_hex(&y64);
    assert!(
        hy.starts_with("356b4ea3") && hy.ends_with("7234d"),
        "y sha256 {hy}"
    );
}

#[test]
fn adult_neel_is_the_balanced_23_column_set_of_adult_data() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path(), &shared_raw());
    let d = cfg.dataset(DatasetId::AdultNeel).unwrap();
    assert_eq!((d.len(), d.x.ncols()), (15_682, 23));
    assert_eq!(d.y.iter().filter(|&&v| v > 0.0).count(), 7_841);
    let mut row = vec![0.0; 23];
    let mut distinct = std::collections::HashSet::new();
    for i in 0..d.len() {
        row.fill(0.0);
        d.x.row(i).axpy(1.0, &mut row);
        // One level of each of the four one-hot groups (7 + 6 + 5 + 2 columns).
        for (lo, hi) in [(0, 7), (7, 13), (13, 18), (18, 20)] {
            assert_eq!(row[lo..hi].iter().sum::<f64>(), 1.0, "row {i}");
        }
        assert!(row[20..].iter().all(|v| (0.0..=1.0).contains(v)), "row {i}");
        distinct.insert(row.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }
    // The reference notes count about 2,640 distinct rows (the MIP's size).
    assert!(
        (2_500..2_800).contains(&distinct.len()),
        "{}",
        distinct.len()
    );
    // Column maxima are those of adult.data, hence the constant divisors.
    let maxima: Vec<f64> = (20..23)
        .map(|j| {
            (0..d.len())
                .map(|i| {
                    row.fill(0.0);
                    d.x.row(i).axpy(1.0, &mut row);
                    row[j]
                })
                .fold(0.0, f64::max)
        })
        .collect();
    assert_eq!(maxima, [1.0, 1.0, 1.0]);
    let sub = d.stratified_subsample(1_000, 1).unwrap();
    assert_eq!(sub.y.iter().filter(|&&v| v > 0.0).count(), 500);
}
