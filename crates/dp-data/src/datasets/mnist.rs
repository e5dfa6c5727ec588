//! MNIST digits (LeCun's IDX files): the 65,000 rows Iyengar et al. use, and all 70,000 with
//! the distribution's own train/test split.

use serde_json::json;

use crate::dataset::Dataset;
use crate::entry::{Build, DatasetEntry, Encoding, Sources};
use crate::error::Result;
use crate::parse::idx::{self, MnistLayout};
use crate::registry::{DatasetId, RawFile};

/// In the order the parser reads them: train images, train labels, test images, test labels.
const FILES: &[RawFile] = &[
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

/// MNIST digits, 65,000 rows as in Iyengar et al. (TensorFlow's validation images dropped).
pub static MNIST: DatasetEntry = DatasetEntry {
    name: "mnist",
    summary: "MNIST 65,000 x 784 (TF train split + test), pixels/255, 10 classes; y = digit 0 vs rest",
    files: FILES,
    raw_dir: "mnist",
    shape: (65_000, 784),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| parse(s, &MnistLayout::default()),
        recipe: || json!(MnistLayout::default()),
    },
};

/// All 70,000 MNIST digits: the 60,000 training images then the 10,000 test images.
pub static MNIST_FULL: DatasetEntry = DatasetEntry {
    name: "mnist-full",
    summary: "MNIST 70,000 x 784: 60,000 training then 10,000 test images, pixels/255, 10 classes; y = digit 0 vs rest",
    files: FILES,
    raw_dir: "mnist",
    shape: (70_000, 784),
    fixed_train_rows: Some(60_000),
    encoding: Encoding::Public,
    build: Build::Parse {
        parse: |s| parse(s, &full()),
        recipe: || json!(full()),
    },
};

/// All of MNIST, no validation images dropped.
fn full() -> MnistLayout {
    MnistLayout {
        validation: 0,
        ..MnistLayout::default()
    }
}

fn parse(s: &Sources, layout: &MnistLayout) -> Result<Dataset> {
    idx::parse(
        &s.gunzip(0)?,
        &s.gunzip(1)?,
        &s.gunzip(2)?,
        &s.gunzip(3)?,
        layout,
    )
}

// Named as the enum variants these handles replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// MNIST, Iyengar et al.'s 65,000 rows.
    pub const Mnist: DatasetId = DatasetId::of(&MNIST);
    /// All 70,000 MNIST digits with their own split.
    pub const MnistFull: DatasetId = DatasetId::of(&MNIST_FULL);
}
