//! Processed-dataset cache: a small binary format so a second load is a file read.
//!
//! Layout (all little-endian): magic `DPDATA\0\x02`, `u64` header length, a JSON header
//! (`Header`), then `y` (`n` f64), class labels (`n` u32, if any), and the features: dense
//! `n·d` f64 row-major, or CSR `indptr` (`n+1` u64), `indices` (nnz u32), `values` (nnz f64);
//! last, the sha256 of every byte before it (32 raw bytes).
//! The header repeats the full cache key; a file whose key differs is ignored (rebuilt). The
//! checksum is what catches damage the structure cannot: a flipped low-order bit of a value
//! still decodes, and would change every result computed from the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use dp_core::features::{Csr, FeatureMatrix};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::dataset::Dataset;
use crate::error::{DataError, Result};
use crate::fetch::{sha256_hex, write_atomic};

/// Format 2 added the checksum; format-1 files have none and are rebuilt.
const MAGIC: &[u8; 8] = b"DPDATA\0\x02";
const MAGIC_V1: &[u8; 8] = b"DPDATA\0\x01";
const DIGEST_LEN: usize = 32;

/// What [`read`] found at a cache path.
#[derive(Debug, PartialEq)]
pub enum Cached {
    /// A verified dataset of the asked key.
    Hit(Dataset),
    /// No file, or the file of another key: build and write it.
    Miss,
    /// A file that must not be used, and why (checksum mismatch, truncated, older format).
    Invalid(String),
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Header {
    key: String,
    name: String,
    nrows: usize,
    ncols: usize,
    sparse: bool,
    nnz: usize,
    has_classes: bool,
}

/// Cache file for `name` under `dir`, named by a hash of the full `key`.
pub fn path_for(dir: &Path, name: &str, key: &str) -> PathBuf {
    dir.join(format!("{name}-{}.bin", &sha256_hex(key.as_bytes())[..16]))
}

/// Writes `data` atomically with its key.
pub fn write(path: &Path, key: &str, data: &Dataset) -> Result<()> {
    let (sparse, nnz) = match &data.x {
        FeatureMatrix::Dense { data, .. } => (false, data.len()),
        FeatureMatrix::Sparse(c) => (true, c.values.len()),
    };
    let header = Header {
        key: key.to_string(),
        name: data.name.clone(),
        nrows: data.x.nrows(),
        ncols: data.x.ncols(),
        sparse,
        nnz,
        has_classes: data.classes.is_some(),
    };
    let header = serde_json::to_vec(&header).expect("header serialises");
    write_atomic(path, |out| {
        let mut hashed = HashingWriter {
            inner: out,
            sha: Sha256::new(),
        };
        let w: &mut dyn Write = &mut hashed;
        w.write_all(MAGIC)?;
        w.write_all(&(header.len() as u64).to_le_bytes())?;
        w.write_all(&header)?;
        put(w, &data.y, |v| v.to_le_bytes())?;
        if let Some(c) = &data.classes {
            put(w, c, |v| v.to_le_bytes())?;
        }
        match &data.x {
            FeatureMatrix::Dense { data, .. } => put(w, data, |v| v.to_le_bytes())?,
            FeatureMatrix::Sparse(c) => {
                put(w, &c.indptr, |v| (v as u64).to_le_bytes())?;
                put(w, &c.indices, |v| v.to_le_bytes())?;
                put(w, &c.values, |v| v.to_le_bytes())?;
            }
        }
        let digest = hashed.sha.finalize();
        hashed.inner.write_all(&digest)
    })
}

/// Passes bytes through while hashing them, so the checksum costs no second serialisation.
struct HashingWriter<'a> {
    inner: &'a mut dyn Write,
    sha: Sha256,
}

impl Write for HashingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sha.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Serialises a slice in blocks (one `write_all` per 64 KiB instead of per value).
fn put<T: Copy, const N: usize>(
    w: &mut dyn Write,
    xs: &[T],
    enc: impl Fn(T) -> [u8; N],
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(N * 8192);
    for chunk in xs.chunks(8192) {
        buf.clear();
        for &x in chunk {
            buf.extend_from_slice(&enc(x));
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

/// Reads the cached dataset of `key` at `path`, verifying its checksum.
pub fn read(path: &Path, key: &str) -> Result<Cached> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cached::Miss),
        Err(e) => return Err(DataError::io("reading", path, e)),
    };
    Ok(check(&bytes, key))
}

/// [`read`] on bytes already in memory.
fn check(bytes: &[u8], key: &str) -> Cached {
    if bytes.starts_with(MAGIC_V1) {
        return Cached::Invalid("written by an older dp-bench without a checksum".into());
    }
    if !bytes.starts_with(MAGIC) || bytes.len() < MAGIC.len() + DIGEST_LEN {
        return Cached::Invalid("not a dp-bench processed-data file".into());
    }
    let (body, stored) = bytes.split_at(bytes.len() - DIGEST_LEN);
    let actual = Sha256::digest(body);
    if actual.as_slice() != stored {
        return Cached::Invalid(format!(
            "checksum mismatch: the file records sha256 {}, its contents hash to {}",
            hex::encode(stored),
            hex::encode(actual)
        ));
    }
    match decode(body, key) {
        Decoded::Data(d) => Cached::Hit(d),
        Decoded::OtherKey => Cached::Miss,
        Decoded::Malformed => {
            Cached::Invalid("checksum matches but the layout is not valid".into())
        }
    }
}

enum Decoded {
    Data(Dataset),
    OtherKey,
    Malformed,
}

/// Decodes a checksummed body (magic, header, arrays).
fn decode(bytes: &[u8], key: &str) -> Decoded {
    let mut r = Reader { bytes, pos: 0 };
    let header = (|| {
        if r.take(8)? != MAGIC {
            return None;
        }
        let hlen = u64::from_le_bytes(r.take(8)?.try_into().ok()?) as usize;
        serde_json::from_slice::<Header>(r.take(hlen)?).ok()
    })();
    match header {
        None => Decoded::Malformed,
        Some(h) if h.key != key => Decoded::OtherKey,
        Some(h) => decode_arrays(&mut r, h).map_or(Decoded::Malformed, Decoded::Data),
    }
}

fn decode_arrays(r: &mut Reader<'_>, header: Header) -> Option<Dataset> {
    let n = header.nrows;
    let y = r.array(n, f64::from_le_bytes)?;
    let classes = if header.has_classes {
        Some(r.array(n, u32::from_le_bytes)?)
    } else {
        None
    };
    let x = if header.sparse {
        let indptr: Vec<usize> = r.array(n + 1, |b: [u8; 8]| u64::from_le_bytes(b) as usize)?;
        let indices = r.array(header.nnz, u32::from_le_bytes)?;
        let values = r.array(header.nnz, f64::from_le_bytes)?;
        let ok = indptr.first() == Some(&0)
            && indptr.last() == Some(&header.nnz)
            && indptr.windows(2).all(|w| w[0] <= w[1])
            && indices.iter().all(|&j| (j as usize) < header.ncols);
        if !ok {
            return None;
        }
        FeatureMatrix::Sparse(Csr {
            nrows: n,
            ncols: header.ncols,
            indptr,
            indices,
            values,
        })
    } else {
        if header.nnz != n.checked_mul(header.ncols)? {
            return None;
        }
        FeatureMatrix::dense(r.array(header.nnz, f64::from_le_bytes)?, n, header.ncols)
    };
    (r.pos == r.bytes.len()).then_some(Dataset {
        name: header.name,
        x,
        y,
        classes,
    })
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn array<T, const N: usize>(
        &mut self,
        count: usize,
        dec: impl Fn([u8; N]) -> T,
    ) -> Option<Vec<T>> {
        let raw = self.take(count.checked_mul(N)?)?;
        Some(
            raw.chunks_exact(N)
                .map(|c| dec(c.try_into().expect("exact chunk")))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(sparse: bool, classes: bool) -> Dataset {
        let x = if sparse {
            FeatureMatrix::Sparse(Csr {
                nrows: 3,
                ncols: 4,
                indptr: vec![0, 2, 2, 3],
                indices: vec![0, 3, 1],
                values: vec![0.5, -1.25, 1e-300],
            })
        } else {
            FeatureMatrix::dense(vec![1.0, -0.0, f64::MIN_POSITIVE, 3.5, 4.0, 5.0], 3, 2)
        };
        Dataset {
            name: "t".into(),
            x,
            y: vec![1.0, -1.0, 1.0],
            classes: classes.then(|| vec![7, 0, 2]),
        }
    }

    #[test]
    fn round_trip_and_key_check() {
        let dir = tempfile::tempdir().unwrap();
        for (sparse, classes) in [(false, false), (true, true), (false, true)] {
            let d = sample(sparse, classes);
            let p = path_for(dir.path(), "t", "key-a");
            write(&p, "key-a", &d).unwrap();
            assert_eq!(read(&p, "key-a").unwrap(), Cached::Hit(d));
            assert_eq!(read(&p, "key-b").unwrap(), Cached::Miss, "another key");
        }
        assert_ne!(
            path_for(dir.path(), "t", "a"),
            path_for(dir.path(), "t", "b")
        );
        assert_eq!(
            read(&dir.path().join("absent.bin"), "k").unwrap(),
            Cached::Miss
        );
    }

    #[test]
    fn truncated_or_corrupt_files_are_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.bin");
        write(&p, "k", &sample(true, false)).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert!(matches!(check(&bytes, "k"), Cached::Hit(_)));
        let invalid = |b: &[u8]| matches!(check(b, "k"), Cached::Invalid(_));
        assert!(invalid(&bytes[..bytes.len() - 1]));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(invalid(&longer));
        let mut bad_magic = bytes.clone();
        bad_magic[0] ^= 1;
        assert!(invalid(&bad_magic));
        assert!(invalid(&[]));
    }

    /// The lowest mantissa bit of one feature value: the file still decodes, to other data.
    #[test]
    fn a_low_order_bit_flip_is_a_checksum_mismatch() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.bin");
        let d = sample(false, false);
        write(&p, "k", &d).unwrap();
        let mut bytes = std::fs::read(&p).unwrap();
        // The last dense value (5.0) ends just before the digest; its first byte is the
        // least significant one.
        let at = bytes.len() - DIGEST_LEN - 8;
        bytes[at] ^= 1;
        let (body, _) = bytes.split_at(bytes.len() - DIGEST_LEN);
        let Decoded::Data(flipped) = decode(body, "k") else {
            panic!("the flipped body still decodes");
        };
        assert_ne!(flipped, d);
        std::fs::write(&p, &bytes).unwrap();
        match read(&p, "k").unwrap() {
            Cached::Invalid(why) => assert!(why.contains("checksum mismatch"), "{why}"),
            other => panic!("a flipped bit must not be served: {other:?}"),
        }
    }

    #[test]
    fn format_1_files_are_invalid_not_trusted() {
        let mut v1 = MAGIC_V1.to_vec();
        v1.extend([0u8; 64]);
        match check(&v1, "k") {
            Cached::Invalid(why) => assert!(why.contains("older"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
