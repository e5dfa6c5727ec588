//! The dataset table: one [`DatasetEntry`](crate::entry::DatasetEntry) per dataset, each
//! defined in its own module here.
//!
//! Adding a dataset is a module with a `pub static` entry (raw files with URL and sha256,
//! parser, shape, split) and one line in [`DATASETS`].
//!
//! Hashes are those of the files exactly as distributed (see `shared/datasets/MANIFEST.md`);
//! MNIST, RCV1 and Gisette hashes also agree with independent public loaders; the Covertype
//! and real-sim ones come from public loaders (see their entries) and are not yet checked
//! against a download here.

use crate::registry::DatasetId;

pub mod a1a;
pub mod adult;
pub mod adult_neel;
pub mod covertype;
pub mod gisette;
pub mod kddcup99;
pub mod mnist;
pub mod rcv1;
pub mod realsim;
pub mod synthetic;

/// Every registered dataset, in listing order (`dp-bench data list`, error messages).
pub static DATASETS: &[DatasetId] = &[
    DatasetId::of(&adult::ADULT),
    DatasetId::of(&adult::ADULT_IYENGAR),
    DatasetId::of(&adult::ADULT_PUBLIC),
    DatasetId::of(&adult_neel::ADULT_NEEL),
    DatasetId::of(&gisette::GISETTE),
    DatasetId::of(&rcv1::RCV1),
    DatasetId::of(&realsim::REAL_SIM),
    DatasetId::of(&realsim::REAL_SIM_IYENGAR),
    DatasetId::of(&kddcup99::KDDCUP99),
    DatasetId::of(&covertype::COVERTYPE),
    DatasetId::of(&mnist::MNIST),
    DatasetId::of(&a1a::A1A),
    DatasetId::of(&mnist::MNIST_FULL),
    DatasetId::of(&synthetic::SYNTHETIC_L),
    DatasetId::of(&synthetic::SYNTHETIC_H),
    DatasetId::of(&synthetic::SYNTHETIC_H_2000),
];

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::entry::{Build, DatasetEntry};

    #[test]
    fn names_are_unique_and_hashes_are_hex() {
        let names: HashSet<&str> = DATASETS.iter().map(|d| d.name()).collect();
        assert_eq!(names.len(), DATASETS.len());
        for d in DATASETS {
            let e = d.spec();
            assert!(!e.summary.is_empty() && !e.raw_dir.is_empty(), "{}", e.name);
            for f in e.files {
                for h in std::iter::once(&f.sha256).chain(f.alt_sha256) {
                    assert_eq!(h.len(), 64, "{}", f.name);
                    assert!(
                        h.bytes()
                            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                    );
                }
                assert_eq!(f.gz, f.name.ends_with(".gz"), "{}", f.name);
                assert!(f.url.starts_with("http"));
            }
        }
    }

    #[test]
    fn generated_entries_state_their_generators_shape_and_have_no_files() {
        for d in DATASETS {
            let e = d.spec();
            match e.build {
                Build::Generate(g) => {
                    let g = g();
                    assert_eq!(e.shape, (g.n_samples, g.n_features), "{}", e.name);
                    assert!(e.files.is_empty(), "{}", e.name);
                }
                Build::Parse { .. } => assert!(!e.files.is_empty(), "{}", e.name),
            }
            if let Some(train) = e.fixed_train_rows {
                assert!(train < e.shape.0, "{}", e.name);
            }
        }
    }

    #[test]
    fn variants_share_their_sources_raw_files() {
        for (variant, source) in [
            (DatasetId::AdultIyengar, DatasetId::Adult),
            (DatasetId::AdultPublic, DatasetId::Adult),
            (DatasetId::RealSimIyengar, DatasetId::RealSim),
            (DatasetId::MnistFull, DatasetId::Mnist),
        ] {
            let (v, s) = (variant.spec(), source.spec());
            assert_eq!(v.raw_dir, s.raw_dir);
            let names = |e: &DatasetEntry| e.files.iter().map(|f| f.name).collect::<Vec<_>>();
            assert_eq!(names(v), names(s));
        }
        let names: Vec<&str> = DATASETS.iter().map(|d| d.name()).collect();
        for n in ["covertype", "real-sim", "real-sim-iyengar"] {
            assert!(names.contains(&n), "{n}");
        }
    }
}

#[cfg(test)]
mod wiring_tests;
