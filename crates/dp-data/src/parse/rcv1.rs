//! RCV1-v2 (LYRL2004 tf-idf vectors + topic qrels) → Iyengar et al.'s CCAT-vs-rest subset.
//!
//! Iyengar et al.'s `rcv1.py` takes `sklearn.datasets.fetch_rcv1()` (train file first, then test
//! parts 0–3, which is document-id order), keeps the first 500,000 documents, calls
//! `np.random.seed(10000019)`, shuffles an index array and keeps the first 50,000. We replay
//! that shuffle with [`NumpyLegacyRng`], so the subset *and its order* are theirs. Only the
//! 50,000 kept documents are parsed; the rest are streamed past.

use std::collections::HashSet;
use std::io::BufRead;

use serde::Serialize;

use super::svmlight::{CsrBuilder, parse_line};
use crate::dataset::Dataset;
use crate::error::{DataError, Result};
use crate::numpy_rng::NumpyLegacyRng;

/// Dimension of the LYRL2004 vectors (scikit-learn's `N_FEATURES`).
pub const N_FEATURES: usize = 47_236;

/// Which documents to keep and which topic is positive.
#[derive(Clone, Debug, Serialize)]
pub struct Rcv1Subset {
    /// Documents considered, from the start of the stacked files (500,000).
    pub first: usize,
    /// Documents kept after the seeded shuffle (50,000).
    pub keep: usize,
    /// `np.random.seed` value (10000019).
    pub seed: u32,
    /// Positive topic (`CCAT`, the most frequent one; column 33 of scikit-learn's target).
    pub topic: String,
    /// Feature dimension.
    pub n_features: usize,
}

impl Default for Rcv1Subset {
    fn default() -> Self {
        Rcv1Subset {
            first: 500_000,
            keep: 50_000,
            seed: 10_000_019,
            topic: "CCAT".into(),
            n_features: N_FEATURES,
        }
    }
}

/// A kept document: id, feature indices, values.
type KeptDoc = (u32, Vec<u32>, Vec<f64>);

/// Streams `vector_files` (name, decompressed reader) in order, keeping the subset's documents.
pub fn parse<R: BufRead>(
    vector_files: Vec<(&str, R)>,
    qrels: R,
    subset: &Rcv1Subset,
) -> Result<Dataset> {
    if subset.keep > subset.first {
        return Err(DataError::Invalid(format!(
            "cannot keep {} of {} documents",
            subset.keep, subset.first
        )));
    }
    let perm = NumpyLegacyRng::new(subset.seed).permutation(subset.first);
    // slot[p] = output row of the p-th document, for the kept ones.
    let mut slot = vec![u32::MAX; subset.first];
    for (out, &p) in perm[..subset.keep].iter().enumerate() {
        slot[p] = out as u32;
    }

    let mut rows: Vec<Option<KeptDoc>> = vec![None; subset.keep];
    let mut position = 0usize;
    'files: for (name, reader) in vector_files {
        for (i, line) in reader.lines().enumerate() {
            if position == subset.first {
                break 'files;
            }
            let line = line.map_err(|e| DataError::parse(name, e))?;
            if line.trim().is_empty() {
                continue;
            }
            let s = slot[position];
            position += 1;
            if s == u32::MAX {
                continue;
            }
            let l = parse_line(&line, subset.n_features, name, i + 1)?
                .ok_or_else(|| DataError::at_line(name, i + 1, "empty document line"))?;
            let doc: u32 = l
                .head
                .parse()
                .map_err(|_| DataError::at_line(name, i + 1, "bad document id"))?;
            rows[s as usize] = Some((doc, l.indices, l.values));
        }
    }
    if position < subset.first {
        return Err(DataError::parse(
            "rcv1 vectors",
            format!("{position} documents, need at least {}", subset.first),
        ));
    }

    let positive = topic_docs(qrels, &subset.topic)?;
    let mut b = CsrBuilder::new(subset.n_features);
    let mut y = Vec::with_capacity(subset.keep);
    for (doc, idx, val) in rows
        .into_iter()
        .map(|r| r.expect("every kept slot was filled"))
    {
        b.push(&idx, &val);
        y.push(if positive.contains(&doc) { 1.0 } else { -1.0 });
    }
    Ok(Dataset {
        name: "rcv1".into(),
        x: b.finish(),
        y,
        classes: None,
    })
}

/// Document ids assigned `topic` in a qrels file (`<topic> <doc id> 1` per line).
pub fn topic_docs<R: BufRead>(qrels: R, topic: &str) -> Result<HashSet<u32>> {
    const FILE: &str = "rcv1v2.topics.qrels";
    let mut docs = HashSet::new();
    for (i, line) in qrels.lines().enumerate() {
        let line = line.map_err(|e| DataError::parse(FILE, e))?;
        let toks: Vec<&str> = line.split_ascii_whitespace().collect();
        match toks.as_slice() {
            [] => {}
            [t, doc, _] => {
                if *t == topic {
                    docs.insert(
                        doc.parse()
                            .map_err(|_| DataError::at_line(FILE, i + 1, "bad document id"))?,
                    );
                }
            }
            _ => {
                return Err(DataError::at_line(
                    FILE,
                    i + 1,
                    "expected `<topic> <doc id> 1`",
                ));
            }
        }
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compression, write::GzEncoder};
    use std::io::{BufReader, Write};

    fn gz(text: &str) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    }

    fn reader(bytes: &[u8]) -> BufReader<flate2::read::MultiGzDecoder<&[u8]>> {
        BufReader::new(flate2::read::MultiGzDecoder::new(bytes))
    }

    #[test]
    fn small_gz_files_in_lyrl2004_format() {
        // Train file (docs 2286, 2287), two test parts; the document with id d has feature
        // d − 2285 set to d so rows can be identified after the shuffle.
        let train = gz("2286  1:2286\n2287  2:2287 5:0.5\n");
        let pt0 = gz("2288  3:2288\n2289  4:2289\n");
        let pt1 = gz("2290  5:2290\n2291  6:2291\n");
        let qrels =
            gz("CCAT 2286 1\nGCAT 2287 1\nC15 2288 1\nCCAT 2289 1\nCCAT 2290 1\nE11 2291 1\n");
        let subset = Rcv1Subset {
            first: 5,
            keep: 3,
            seed: 10_000_019,
            topic: "CCAT".into(),
            n_features: 6,
        };
        let files = vec![
            ("train", reader(&train)),
            ("pt0", reader(&pt0)),
            ("pt1", reader(&pt1)),
        ];
        let d = parse(files, reader(&qrels), &subset).unwrap();
        // The subset is the first `keep` positions of RandomState(seed).shuffle(arange(first)).
        let perm = NumpyLegacyRng::new(10_000_019).permutation(5);
        assert_eq!((d.x.nrows(), d.x.ncols()), (3, 6));
        for (row, &p) in perm[..3].iter().enumerate() {
            let doc = 2286 + p as u32;
            let mut dense = vec![0.0; 6];
            d.x.row(row).axpy(1.0, &mut dense);
            assert_eq!(dense[p], doc as f64, "row {row} must be document {doc}");
            let ccat = [2286, 2289, 2290].contains(&doc);
            assert_eq!(d.y[row], if ccat { 1.0 } else { -1.0 });
        }
        // The sixth document (2291) is beyond `first` and never read.
        let short = vec![("train", reader(&train))];
        assert!(
            parse(short, reader(&qrels), &subset).is_err(),
            "fewer documents than `first`"
        );
    }

    #[test]
    fn qrels_format_errors() {
        assert!(topic_docs(reader(&gz("CCAT 12\n")), "CCAT").is_err());
        assert!(topic_docs(reader(&gz("CCAT x 1\n")), "CCAT").is_err());
        assert_eq!(
            topic_docs(reader(&gz("GCAT x 1\nCCAT 7 1\n")), "CCAT")
                .unwrap()
                .len(),
            1
        );
    }
}
