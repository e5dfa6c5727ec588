//! The datasets, their public raw files (canonical URL + pinned sha256) and what is done to them.
//!
//! Hashes are those of the files exactly as distributed (see `shared/datasets/MANIFEST.md`);
//! MNIST, RCV1 and Gisette hashes also agree with independent public loaders; the Covertype
//! and real-sim ones come from public loaders (see their entries) and are not yet checked
//! against a download here.

use std::fmt;
use std::str::FromStr;

use crate::error::DataError;

/// One raw file of a dataset.
#[derive(Clone, Copy, Debug)]
pub struct RawFile {
    /// File name (also its name in the cache and the mirror).
    pub name: &'static str,
    /// Canonical download URL.
    pub url: &'static str,
    /// sha256 of the file as distributed at `url`.
    pub sha256: &'static str,
    /// Other accepted sha256 values: byte-different copies with identical content (a
    /// recompressed `.gz` whose decompressed bytes match the original's known hash).
    pub alt_sha256: &'static [&'static str],
    /// Whether the file is gzip-compressed.
    pub gz: bool,
}

impl RawFile {
    /// Whether `sha` (lower-case hex) is an accepted hash of this file.
    pub fn accepts(&self, sha: &str) -> bool {
        self.sha256 == sha || self.alt_sha256.contains(&sha)
    }
}

/// The registered datasets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DatasetId {
    /// UCI Adult (census income), train + test.
    Adult,
    /// UCI Adult exactly as Iyengar et al.'s preprocessing script builds it (45,220 rows).
    AdultIyengar,
    /// UCI Adult as Neel et al. (2019) use it: `adult.data`, balanced, 7 columns (15,682 × 23).
    AdultNeel,
    /// NIPS 2003 Gisette, training part.
    Gisette,
    /// RCV1-v2 (LYRL2004 vectors), CCAT vs rest, Iyengar's 50,000-document subset.
    Rcv1,
    /// LIBSVM real-sim (72,309 documents), real vs simulated, each row with its own values.
    RealSim,
    /// real-sim exactly as Iyengar et al.'s script saves it (values misaligned by its shuffle).
    RealSimIyengar,
    /// KDD Cup 1999 10% file, Iyengar's 70,000-row sample, normal vs attack.
    KddCup99,
    /// UCI Covertype (581,012 rows, 7 classes) as Iyengar et al.'s script scales it.
    Covertype,
    /// MNIST digits (65,000 rows as in Iyengar et al.), one-vs-rest labels.
    Mnist,
    /// LIBSVM a1a (Platt's binarised Adult, 123 features): `a1a.t` (30,956 rows) then `a1a`
    /// (1,605 rows), the train and test sets of Avent et al. (2020).
    A1a,
    /// All 70,000 MNIST digits: the 60,000 training images then the 10,000 test images.
    MnistFull,
    /// Iyengar's low-dimensional `make_classification` data (10,000 × 40, as their code).
    SyntheticL,
    /// Iyengar's high-dimensional `make_classification` data (5,000 × 5,000, Table I).
    SyntheticH,
    /// The same generator at 2,000 × 2,000 (their code's size; the Huber experiments).
    SyntheticH2000,
}

/// Everything in the registry, in listing order.
pub const ALL: [DatasetId; 15] = [
    DatasetId::Adult,
    DatasetId::AdultIyengar,
    DatasetId::AdultNeel,
    DatasetId::Gisette,
    DatasetId::Rcv1,
    DatasetId::RealSim,
    DatasetId::RealSimIyengar,
    DatasetId::KddCup99,
    DatasetId::Covertype,
    DatasetId::Mnist,
    DatasetId::A1a,
    DatasetId::MnistFull,
    DatasetId::SyntheticL,
    DatasetId::SyntheticH,
    DatasetId::SyntheticH2000,
];

/// Static description of a dataset.
#[derive(Clone, Copy, Debug)]
pub struct DatasetSpec {
    /// Registry name.
    pub name: &'static str,
    /// One-line summary including shape and task.
    pub summary: &'static str,
    /// Raw files (empty for generated datasets).
    pub files: &'static [RawFile],
    /// Folder of the raw files in the cache and the mirror (variants share their source's).
    pub raw_dir: &'static str,
}

const ADULT_DATA: RawFile = RawFile {
    name: "adult.data",
    url: "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data",
    sha256: "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    alt_sha256: &[],
    gz: false,
};

const ADULT_FILES: &[RawFile] = &[
    ADULT_DATA,
    RawFile {
        name: "adult.test",
        url: "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test",
        sha256: "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        alt_sha256: &[],
        gz: false,
    },
];

const GISETTE_FILES: &[RawFile] = &[
    RawFile {
        name: "gisette_train.data",
        url: "https://archive.ics.uci.edu/ml/machine-learning-databases/gisette/GISETTE/gisette_train.data",
        sha256: "6d4c5e998afe67937b9e77a3334e03c85e545ebc65a6eb1333ffc14125cfc389",
        alt_sha256: &[],
        gz: false,
    },
    RawFile {
        name: "gisette_train.labels",
        url: "https://archive.ics.uci.edu/ml/machine-learning-databases/gisette/GISETTE/gisette_train.labels",
        sha256: "42bd681fe51b161f033df773df14a0116e492676555ab14616c1b72edc054075",
        alt_sha256: &[],
        gz: false,
    },
];

/// RCV1 vectors in the order scikit-learn's `fetch_rcv1` stacks them (train first, then
/// test parts 0–3), followed by the topic assignments.
const RCV1_FILES: &[RawFile] = &[
    RawFile {
        name: "lyrl2004_vectors_train.dat.gz",
        url: "https://ndownloader.figshare.com/files/5976057",
        sha256: "5468f656d0ba7a83afc7ad44841cf9a53048a5c083eedc005dcdb5cc768924ae",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "lyrl2004_vectors_test_pt0.dat.gz",
        url: "https://ndownloader.figshare.com/files/5976069",
        sha256: "ed40f7e418d10484091b059703eeb95ae3199fe042891dcec4be6696b9968374",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "lyrl2004_vectors_test_pt1.dat.gz",
        url: "https://ndownloader.figshare.com/files/5976066",
        sha256: "87700668ae45d45d5ca1ef6ae9bd81ab0f5ec88cc95dcef9ae7838f727a13aa6",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "lyrl2004_vectors_test_pt2.dat.gz",
        url: "https://ndownloader.figshare.com/files/5976063",
        sha256: "48143ac703cbe33299f7ae9f4995db49a258690f60e5debbff8995c34841c7f5",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "lyrl2004_vectors_test_pt3.dat.gz",
        url: "https://ndownloader.figshare.com/files/5976060",
        sha256: "dfcb0d658311481523c6e6ca0c3f5a3e1d3d12cde5d7a8ce629a9006ec7dbb39",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "rcv1v2.topics.qrels.gz",
        url: "https://ndownloader.figshare.com/files/5976048",
        sha256: "2a98e5e5d8b770bded93afc8930d88299474317fe14181aee1466cc754d0d1c1",
        alt_sha256: &[],
        gz: true,
    },
];

const KDD_FILES: &[RawFile] = &[RawFile {
    name: "kddcup.data_10_percent.gz",
    url: "http://kdd.ics.uci.edu/databases/kddcup99/kddcup.data_10_percent.gz",
    sha256: "8045aca0d84e70e622d1148d7df782496f6333bf6eb979a1b0837c42a9fd9561",
    alt_sha256: &[],
    gz: true,
}];

/// Covertype as distributed by UCI. scikit-learn's `fetch_covtype` pins the same sha256 for its
/// figshare copy (`https://ndownloader.figshare.com/files/5976039`), and an independent loader
/// (eli-osherovich/papers_with_code, `datasets/uci_cover_type/dl_config.py`) pins it for this
/// UCI URL, so both serve the same bytes. Iyengar et al. download this URL.
const COVERTYPE_FILES: &[RawFile] = &[RawFile {
    name: "covtype.data.gz",
    url: "https://archive.ics.uci.edu/ml/machine-learning-databases/covtype/covtype.data.gz",
    sha256: "614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771",
    alt_sha256: &[],
    gz: true,
}];

/// real-sim from the LIBSVM site (Iyengar et al. download the `http://` form of this URL). The
/// sha256 is the one pinned by pratikrathore8/rlaopt-experiments
/// (`src/rlaopt_experiments/suites/real_erm/data.py`), the only public pin found; it has not
/// been checked against a download here.
const REALSIM_FILES: &[RawFile] = &[RawFile {
    name: "real-sim.bz2",
    url: "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/real-sim.bz2",
    sha256: "7cd52374f55ce62e803ef33ca1c44689427c23d481eff64026f8ba9f53b8cc27",
    alt_sha256: &[],
    gz: false,
}];

/// MNIST in the order the parser expects: train images, train labels, test images, test labels.
const MNIST_FILES: &[RawFile] = &[
    RawFile {
        name: "train-images-idx3-ubyte.gz",
        url: "http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz",
        sha256: "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
        // The shared mirror holds a `gzip -9 -n` recompression; its decompressed bytes have
        // the original's md5 (MANIFEST.md), so the content is identical.
        alt_sha256: &["0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971"],
        gz: true,
    },
    RawFile {
        name: "train-labels-idx1-ubyte.gz",
        url: "http://yann.lecun.com/exdb/mnist/train-labels-idx1-ubyte.gz",
        sha256: "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "t10k-images-idx3-ubyte.gz",
        url: "http://yann.lecun.com/exdb/mnist/t10k-images-idx3-ubyte.gz",
        sha256: "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
        alt_sha256: &[],
        gz: true,
    },
    RawFile {
        name: "t10k-labels-idx1-ubyte.gz",
        url: "http://yann.lecun.com/exdb/mnist/t10k-labels-idx1-ubyte.gz",
        sha256: "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
        alt_sha256: &[],
        gz: true,
    },
];

const A1A_FILES: &[RawFile] = &[
    RawFile {
        name: "a1a.t",
        url: "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a1a.t",
        sha256: "0212d0c4a3996fe6fb6a0ab54033d9f4fa4b60369b6e3bb141821d9ffc40c04d",
        alt_sha256: &[],
        gz: false,
    },
    RawFile {
        name: "a1a",
        url: "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a1a",
        sha256: "eb54c45f1bdb51286f803dd092eb8202b44637a858fc6c4e533a2d64a0d94b4e",
        alt_sha256: &[],
        gz: false,
    },
];

impl DatasetId {
    /// Registry name, as typed on the command line.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Static description.
    pub fn spec(self) -> &'static DatasetSpec {
        match self {
            DatasetId::Adult => &DatasetSpec {
                name: "adult",
                summary: "UCI Adult, train+test without missing values: 45,222 x 104 dense, income >50K",
                files: ADULT_FILES,
                raw_dir: "adult",
            },
            DatasetId::AdultIyengar => &DatasetSpec {
                name: "adult-iyengar",
                summary: "UCI Adult as Iyengar et al.'s script builds it (last record of each file dropped): 45,220 x 104 dense, income >50K",
                files: ADULT_FILES,
                raw_dir: "adult",
            },
            DatasetId::AdultNeel => &DatasetSpec {
                name: "adult-neel",
                summary: "UCI adult.data as Neel et al. use it: all 7,841 >50K plus 7,841 random <=50K records, 7 columns: 15,682 x 23 dense",
                files: &[ADULT_DATA],
                raw_dir: "adult",
            },
            DatasetId::Gisette => &DatasetSpec {
                name: "gisette",
                summary: "Gisette training part: 6,000 x 5,000 dense raw pixel features, digit 4 vs 9",
                files: GISETTE_FILES,
                raw_dir: "gisette",
            },
            DatasetId::Rcv1 => &DatasetSpec {
                name: "rcv1",
                summary: "RCV1-v2 tf-idf, Iyengar subset: 50,000 x 47,236 sparse, CCAT vs rest",
                files: RCV1_FILES,
                raw_dir: "rcv1",
            },
            DatasetId::RealSim => &DatasetSpec {
                name: "real-sim",
                summary: "LIBSVM real-sim: 72,309 x 20,958 sparse tf-idf, real vs simulated (labels as distributed)",
                files: REALSIM_FILES,
                raw_dir: "real-sim",
            },
            DatasetId::RealSimIyengar => &DatasetSpec {
                name: "real-sim-iyengar",
                summary: "real-sim as Iyengar et al.'s script saves it (values shifted by its seed-10000019 shuffle): 72,309 x 20,958 sparse",
                files: REALSIM_FILES,
                raw_dir: "real-sim",
            },
            DatasetId::KddCup99 => &DatasetSpec {
                name: "kddcup99",
                summary: "KDD Cup 1999 10%, Iyengar sample: 70,000 x 113 dense (one-hot + raw numeric), normal vs attack",
                files: KDD_FILES,
                raw_dir: "kddcup99",
            },
            DatasetId::Covertype => &DatasetSpec {
                name: "covertype",
                summary: "UCI Covertype 581,012 x 54 dense (columns with max > 1 divided by it, as Iyengar et al.), 7 classes; y = cover type 1 vs rest",
                files: COVERTYPE_FILES,
                raw_dir: "covertype",
            },
            DatasetId::Mnist => &DatasetSpec {
                name: "mnist",
                summary: "MNIST 65,000 x 784 (TF train split + test), pixels/255, 10 classes; y = digit 0 vs rest",
                files: MNIST_FILES,
                raw_dir: "mnist",
            },
            DatasetId::A1a => &DatasetSpec {
                name: "a1a",
                summary: "LIBSVM a1a (Adult, Platt's binary features): 32,561 x 123 sparse, rows 0..30,956 from a1a.t (train), then a1a (test), income >50K",
                files: A1A_FILES,
                raw_dir: "a1a",
            },
            DatasetId::MnistFull => &DatasetSpec {
                name: "mnist-full",
                summary: "MNIST 70,000 x 784: 60,000 training then 10,000 test images, pixels/255, 10 classes; y = digit 0 vs rest",
                files: MNIST_FILES,
                raw_dir: "mnist",
            },
            DatasetId::SyntheticL => &DatasetSpec {
                name: "synthetic-l",
                summary: "make_classification 10,000 x 40, 30 informative, 2 redundant, class_sep 2 (generated, as Iyengar et al.'s code)",
                files: &[],
                raw_dir: "synthetic-l",
            },
            DatasetId::SyntheticH => &DatasetSpec {
                name: "synthetic-h",
                summary: "make_classification 5,000 x 5,000, 10 informative, class_sep 2 (generated)",
                files: &[],
                raw_dir: "synthetic-h",
            },
            DatasetId::SyntheticH2000 => &DatasetSpec {
                name: "synthetic-h-2000",
                summary: "make_classification 2,000 x 2,000, 10 informative, class_sep 2 (generated; Iyengar et al.'s Huber size)",
                files: &[],
                raw_dir: "synthetic-h-2000",
            },
        }
    }

    /// Rows of the dataset's own training set when it comes with a fixed train/test split
    /// (the first rows train, the rest test), as the papers that use it split it.
    pub fn fixed_train_rows(self) -> Option<usize> {
        match self {
            DatasetId::A1a => Some(30_956),
            DatasetId::MnistFull => Some(60_000),
            _ => None,
        }
    }

    /// Comma-separated list of all registry names (for error messages).
    pub fn valid_names() -> String {
        ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for DatasetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DatasetId {
    type Err = DataError;

    fn from_str(s: &str) -> Result<Self, DataError> {
        ALL.iter()
            .copied()
            .find(|d| d.name() == s)
            .ok_or_else(|| DataError::UnknownDataset {
                name: s.to_string(),
                valid: DatasetId::valid_names(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_hashes_are_hex() {
        for d in ALL {
            assert_eq!(d.name().parse::<DatasetId>().unwrap(), d);
            for f in d.spec().files {
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
        let err = "nope".parse::<DatasetId>().unwrap_err().to_string();
        assert!(
            err.contains("adult") && err.contains("synthetic-h"),
            "{err}"
        );
    }

    #[test]
    fn variants_share_their_sources_raw_files() {
        for (variant, source) in [
            (DatasetId::AdultIyengar, DatasetId::Adult),
            (DatasetId::RealSimIyengar, DatasetId::RealSim),
        ] {
            let (v, s) = (variant.spec(), source.spec());
            assert_eq!(v.raw_dir, s.raw_dir);
            let names = |spec: &DatasetSpec| spec.files.iter().map(|f| f.name).collect::<Vec<_>>();
            assert_eq!(names(v), names(s));
        }
        let names: Vec<&str> = ALL.iter().map(|d| d.name()).collect();
        for n in ["covertype", "real-sim", "real-sim-iyengar"] {
            assert!(names.contains(&n), "{n}");
        }
    }
}
