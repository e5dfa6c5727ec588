//! RCV1-v2 (LYRL2004 vectors), CCAT vs rest, Iyengar et al.'s 50,000-document subset.

use serde_json::json;

use crate::entry::{Build, DatasetEntry, Encoding};
use crate::parse::rcv1::{self, Rcv1Subset};
use crate::registry::{DatasetId, RawFile};

/// The vector files in the order scikit-learn's `fetch_rcv1` stacks them (train first, then
/// test parts 0–3), followed by the topic assignments.
const FILES: &[RawFile] = &[
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

/// RCV1-v2, CCAT vs rest, Iyengar et al.'s 50,000-document subset.
pub static RCV1: DatasetEntry = DatasetEntry {
    name: "rcv1",
    summary: "RCV1-v2 tf-idf, Iyengar subset: 50,000 x 47,236 sparse, CCAT vs rest",
    files: FILES,
    raw_dir: "rcv1",
    shape: (50_000, rcv1::N_FEATURES),
    fixed_train_rows: None,
    encoding: Encoding::Public,
    build: Build::Parse {
        // Streamed: the vector files decompress to gigabytes and only the subset is kept.
        parse: |s| {
            let vectors = (0..5).map(|i| (s.name(i), s.gz_reader(i))).collect();
            rcv1::parse(vectors, s.gz_reader(5), &Rcv1Subset::default())
        },
        recipe: || json!(Rcv1Subset::default()),
    },
};

// Named as the enum variant this handle replaced, so call sites read the same.
#[allow(non_upper_case_globals)]
impl DatasetId {
    /// RCV1-v2, Iyengar et al.'s subset.
    pub const Rcv1: DatasetId = DatasetId::of(&RCV1);
}
