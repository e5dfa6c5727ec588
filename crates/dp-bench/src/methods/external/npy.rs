//! The arrays an outside learner reads: `X.npy` (n × d features), `y.npy` (n labels in {0, 1})
//! and, in predictions mode, `test_X.npy` (test features only: a learner never gets test
//! labels). Each is written once per (results folder, data) in a folder named by the digest of
//! its contents, and workers map them with `np.load(path, mmap_mode="r", allow_pickle=False)`.
//!
//! Each learner gets its own copy (`External::data_root`): a worker writing in place to a
//! file another worker is reading would race with it, whatever is checked before the fit.
//! Each file is read-only, its sha256 is known from the bytes written, and before every fit
//! the harness checks every file against it ([`DataFiles::changed`]) and writes one that
//! changed again ([`write_once`]): no learner can change what another trains on, nor what it
//! trains on itself in its next fit.
//!
//! The writer is our own: NPY v1.0 for a C-order little-endian float64 array is a fixed magic,
//! a Python-dict header padded to a multiple of 64 bytes, and the raw values (numpy's
//! `format.py`), some forty lines. crates.io has `npyz`, whose header parser pulls in a
//! dependency tree for reading that we never do, and the small `npy-writer` (last release
//! 2022); neither is worth a dependency for this. Tests read the files back with numpy.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dp_core::features::FeatureMatrix;
use sha2::{Digest, Sha256};

/// The bytes of an NPY v1.0 file holding `values` as a C-order float64 array of `shape`.
pub fn write_f64(out: &mut impl Write, shape: &[usize], values: &[f64]) -> std::io::Result<()> {
    assert_eq!(shape.iter().product::<usize>(), values.len(), "shape");
    let dims: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    // A 1-d shape is written `(n,)`, as Python spells a one-element tuple.
    let tuple = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {tuple}, }}");
    // magic (6) + version (2) + header length (2) + header + '\n' must be a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let len = u16::try_from(header.len()).expect("an NPY v1.0 header is short");
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    for v in values {
        out.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}

/// The rows of `x` as one dense row-major vector (sparse rows filled with zeros).
pub fn dense_rows(x: &FeatureMatrix) -> Vec<f64> {
    let d = x.ncols();
    let mut out = vec![0.0; x.nrows() * d];
    for (i, row) in out.chunks_mut(d.max(1)).enumerate().take(x.nrows()) {
        x.row(i).axpy(1.0, row);
    }
    out
}

/// Where a learner's arrays are, as absolute paths, and the sha256 of each file's bytes.
#[derive(Clone, Debug)]
pub struct DataFiles {
    /// `X.npy`.
    pub train_x: PathBuf,
    /// `y.npy`.
    pub train_y: PathBuf,
    /// `test_X.npy`, in predictions mode.
    pub test_x: Option<PathBuf>,
    /// Each file with the sha256 of the bytes it must hold.
    sums: Vec<(PathBuf, [u8; 32])>,
}

impl DataFiles {
    /// Paths with nothing to check (tests of the request format).
    #[cfg(test)]
    pub fn at(train_x: PathBuf, train_y: PathBuf, test_x: Option<PathBuf>) -> DataFiles {
        DataFiles {
            train_x,
            train_y,
            test_x,
            sums: Vec::new(),
        }
    }

    /// The files whose bytes no longer hash to what was written (missing ones included).
    pub fn changed(&self) -> Vec<PathBuf> {
        self.sums
            .iter()
            .filter(|(path, want)| file_sha256(path).is_none_or(|got| got != *want))
            .map(|(path, _)| path.clone())
            .collect()
    }
}

/// The sha256 of a file's bytes (`None` when it cannot be read).
fn file_sha256(path: &Path) -> Option<[u8; 32]> {
    let mut f = fs::File::open(path).ok()?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).ok()?;
    Some(h.finalize().into())
}

/// The sha256 of the NPY bytes of `values` (what [`write_f64`] writes).
fn npy_sha256(shape: &[usize], values: &[f64]) -> [u8; 32] {
    let mut h = Sha256::new();
    write_f64(&mut h, shape, values).expect("hashing cannot fail");
    h.finalize().into()
}

/// Writes the arrays under `root/<digest>/` unless they are there already with the bytes they
/// must hold, and says where. The digest covers every byte written, so two datasets never
/// share a folder. A file appears under its final name only once complete (written aside,
/// then renamed), read-only; one that changed since is written again the same way (a worker
/// that mapped the old one keeps reading it).
pub fn write_once(
    root: &Path,
    train: &FeatureMatrix,
    labels: &[f64],
    test: Option<&FeatureMatrix>,
) -> anyhow::Result<DataFiles> {
    let (n, d) = (train.nrows(), train.ncols());
    let x = dense_rows(train);
    // {0, 1}, as Python learners (scikit-learn, diffprivlib) expect; ours are ±1.
    let y: Vec<f64> = labels
        .iter()
        .map(|&l| if l > 0.0 { 1.0 } else { 0.0 })
        .collect();
    let tx = test.map(|t| (dense_rows(t), t.nrows()));
    let mut h = Sha256::new();
    for (name, shape, values) in [("X", [n, d], &x), ("y", [n, 1], &y)]
        .into_iter()
        .chain(tx.as_ref().map(|(v, m)| ("test_X", [*m, d], v)))
    {
        h.update(name.as_bytes());
        h.update(format!("{shape:?}").as_bytes());
        for v in values.iter() {
            h.update(v.to_le_bytes());
        }
    }
    let dir = root.join(hex::encode(&h.finalize()[..8]));
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = dir.canonicalize()?;
    let sums = std::sync::Mutex::new(Vec::new());
    let put = |name: &str, shape: &[usize], values: &[f64]| -> anyhow::Result<PathBuf> {
        let path = dir.join(name);
        let want = npy_sha256(shape, values);
        sums.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((path.clone(), want));
        if file_sha256(&path) == Some(want) {
            return Ok(path);
        }
        // A uniquely named temporary file, renamed into place: several methods (threads) of
        // one run may write the same folder at once.
        crate::files::write_atomic(&path, |f| {
            let mut w = BufWriter::new(f);
            write_f64(&mut w, shape, values)?;
            w.flush()?;
            Ok(())
        })?;
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444))?;
        Ok(path)
    };
    let write = || -> anyhow::Result<DataFiles> {
        Ok(DataFiles {
            train_x: put("X.npy", &[n, d], &x)?,
            train_y: put("y.npy", &[n], &y)?,
            test_x: match &tx {
                Some((v, m)) => Some(put("test_X.npy", &[*m, d], v)?),
                None => None,
            },
            sums: std::mem::take(&mut *sums.lock().unwrap_or_else(|p| p.into_inner())),
        })
    };
    write().with_context(|| format!("cannot write the learner's arrays in {}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_padded_to_64_bytes_and_values_follow() {
        let mut b = Vec::new();
        write_f64(&mut b, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.5]).unwrap();
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        let header = std::str::from_utf8(&b[10..10 + hlen]).unwrap();
        assert!(header.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"));
        assert!(header.ends_with('\n'));
        assert_eq!(b.len(), 10 + hlen + 48);
        assert_eq!(&b[b.len() - 8..], &6.5f64.to_le_bytes());
        let mut one = Vec::new();
        write_f64(&mut one, &[4], &[0.0; 4]).unwrap();
        assert!(
            std::str::from_utf8(&one[10..74])
                .unwrap()
                .contains("'shape': (4,)")
        );
    }

    #[test]
    fn files_are_written_once_per_content() {
        let dir = tempfile::tempdir().unwrap();
        let x = FeatureMatrix::dense(vec![1.0, 0.0, 0.5, -2.0], 2, 2);
        let a = write_once(dir.path(), &x, &[1.0, -1.0], None).unwrap();
        let stamp = fs::metadata(&a.train_x).unwrap().modified().unwrap();
        let b = write_once(dir.path(), &x, &[1.0, -1.0], Some(&x)).unwrap();
        assert_eq!(a.train_x.parent(), a.train_y.parent());
        assert_ne!(
            a.train_x.parent(),
            b.train_x.parent(),
            "test_X changes the digest"
        );
        let c = write_once(dir.path(), &x, &[1.0, -1.0], None).unwrap();
        assert_eq!(c.train_x, a.train_x);
        assert_eq!(fs::metadata(&c.train_x).unwrap().modified().unwrap(), stamp);
        let y = fs::read(&a.train_y).unwrap();
        assert_eq!(
            &y[y.len() - 16..],
            [1.0f64.to_le_bytes(), 0.0f64.to_le_bytes()].concat()
        );
        assert!(b.test_x.unwrap().ends_with("test_X.npy"));
    }

    #[test]
    fn a_changed_file_is_found_and_written_again_read_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let x = FeatureMatrix::dense(vec![1.0, 0.0, 0.5, -2.0], 2, 2);
        let a = write_once(dir.path(), &x, &[1.0, -1.0], None).unwrap();
        let mode = fs::metadata(&a.train_y).unwrap().permissions().mode();
        assert_eq!(mode & 0o222, 0, "written read-only");
        assert!(a.changed().is_empty());
        let good = fs::read(&a.train_y).unwrap();
        // A worker that makes it writable again and zeroes the labels in place.
        fs::set_permissions(&a.train_y, fs::Permissions::from_mode(0o644)).unwrap();
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - 16..].fill(0);
        fs::write(&a.train_y, &bad).unwrap();
        assert_eq!(a.changed(), vec![a.train_y.clone()]);
        let b = write_once(dir.path(), &x, &[1.0, -1.0], None).unwrap();
        assert_eq!(b.train_y, a.train_y);
        assert_eq!(fs::read(&a.train_y).unwrap(), good);
        assert!(a.changed().is_empty() && b.changed().is_empty());
    }
}
