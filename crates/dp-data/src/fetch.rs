//! Verified raw files: cache, then mirror, then the canonical URL.
//!
//! Bytes are hashed in memory before anything else sees them: a file is written to the cache
//! (atomically: temp file in the same directory + rename) only after its sha256 matched, and the
//! parsers receive exactly the verified bytes, never a re-read of the disk.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::config::{DataConfig, Mirror};
use crate::error::{DataError, Result};
use crate::registry::RawFile;

/// Verified contents of one raw file and where they are cached.
pub struct Fetched {
    /// The verified bytes (still compressed for `.gz` / `.bz2` files).
    pub bytes: Vec<u8>,
    /// The cache path holding the same bytes.
    pub path: PathBuf,
    /// The sha256 the bytes have.
    pub sha256: String,
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A hidden temporary file in `dir`, to be renamed over its target once complete.
///
/// Created with mode 0666 minus the umask, like any file the user writes: tempfile's default
/// 0600 would leave results and caches unreadable to the rest of a group after the rename.
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Writes a file atomically: a temp file in the target directory, flushed, then renamed over
/// `path`, so readers never see a partial file and a crash leaves no truncated cache entry.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| DataError::io("creating", dir, e))?;
    let mut tmp =
        temp_file_in(dir).map_err(|e| DataError::io("creating a temp file in", dir, e))?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        write(&mut w)
            .and_then(|_| w.flush())
            .map_err(|e| DataError::io("writing", path, e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| DataError::io("syncing", path, e))?;
    tmp.persist(path)
        .map_err(|e| DataError::io("renaming into", path, e.error))?;
    Ok(())
}

/// Returns the verified bytes of `file` of `dataset`, fetching and caching them if needed.
///
/// A mirror or download whose bytes do not match is a hard [`DataError::Checksum`] (a tampered
/// or truncated source must not silently fall through to another one); a corrupt *cache*
/// entry is discarded and fetched again.
pub fn obtain(cfg: &DataConfig, dataset: &str, file: &RawFile) -> Result<Fetched> {
    let path = cfg.raw_dir(dataset).join(file.name);
    if let Some(bytes) = read_if_exists(&path)? {
        let sha = sha256_hex(&bytes);
        if file.accepts(&sha) {
            return Ok(Fetched {
                bytes,
                path,
                sha256: sha,
            });
        }
        cfg.note(format_args!(
            "cached {} has sha256 {sha}, expected {}; fetching it again",
            path.display(),
            file.sha256
        ));
        std::fs::remove_file(&path).map_err(|e| DataError::io("removing", &path, e))?;
    }

    let mut reasons = Vec::new();
    if let Some(mirror) = &cfg.mirror {
        let origin = mirror.describe(dataset, file.name);
        match from_mirror(mirror, dataset, file)? {
            MirrorLookup::Found(bytes) => return store(file, bytes, &origin, path),
            MirrorLookup::Absent => reasons.push(format!("not in mirror ({origin})")),
            MirrorLookup::Failed(e) => {
                cfg.note(format_args!("mirror {origin} failed: {e}"));
                reasons.push(format!("mirror failed ({origin}): {e}"));
            }
        }
    } else {
        reasons.push("no mirror set".to_string());
    }

    if !cfg.allow_download {
        reasons.push("downloads are disabled".to_string());
        return Err(unavailable(dataset, file, &reasons));
    }
    cfg.note(format_args!("downloading {} from {}", file.name, file.url));
    match http_get(file.url) {
        Ok(Some(bytes)) => store(file, bytes, file.url, path),
        Ok(None) => {
            reasons.push("download: not found (HTTP 404)".to_string());
            Err(unavailable(dataset, file, &reasons))
        }
        Err(e) => {
            reasons.push(format!("download failed: {e}"));
            Err(unavailable(dataset, file, &reasons))
        }
    }
}

fn unavailable(dataset: &str, file: &RawFile, reasons: &[String]) -> DataError {
    DataError::Unavailable {
        dataset: dataset.to_string(),
        file: file.name.to_string(),
        url: file.url.to_string(),
        reason: reasons.join("; "),
    }
}

/// Verifies `bytes` and only then writes them to the cache.
fn store(file: &RawFile, bytes: Vec<u8>, origin: &str, path: PathBuf) -> Result<Fetched> {
    let sha = sha256_hex(&bytes);
    if !file.accepts(&sha) {
        return Err(DataError::Checksum {
            file: file.name.to_string(),
            source_desc: origin.to_string(),
            expected: file.sha256.to_string(),
            actual: sha,
        });
    }
    write_atomic(&path, |w| w.write_all(&bytes))?;
    Ok(Fetched {
        bytes,
        path,
        sha256: sha,
    })
}

fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(DataError::io("reading", path, e)),
    }
}

/// What a mirror said about one file.
enum MirrorLookup {
    Found(Vec<u8>),
    /// The mirror answered that it lacks the file (no such path, HTTP 404).
    Absent,
    /// The mirror could not be asked (refused or timed-out connection, DNS, TLS, HTTP 5xx):
    /// kept apart from [`MirrorLookup::Absent`] so that a down mirror is not reported as an
    /// incomplete one.
    Failed(String),
}

fn from_mirror(mirror: &Mirror, dataset: &str, file: &RawFile) -> Result<MirrorLookup> {
    match mirror {
        Mirror::Dir(dir) => Ok(read_if_exists(&dir.join(dataset).join(file.name))?
            .map_or(MirrorLookup::Absent, MirrorLookup::Found)),
        Mirror::Http(base) => {
            let url = format!("{base}/{dataset}/{}", file.name);
            // Not a hard error: the canonical URL may still serve the file.
            Ok(match http_get(&url) {
                Ok(Some(bytes)) => MirrorLookup::Found(bytes),
                Ok(None) => MirrorLookup::Absent,
                Err(e) => MirrorLookup::Failed(e),
            })
        }
    }
}

/// GET `url`; `Ok(None)` on 404, `Err` with the whole cause chain otherwise.
fn http_get(url: &str) -> std::result::Result<Option<Vec<u8>>, String> {
    let client = reqwest::blocking::Client::builder()
        .user_agent(concat!("dp-bench/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .timeout(Duration::from_secs(3600))
        .build()
        .map_err(|e| with_causes(&e))?;
    let resp = client.get(url).send().map_err(|e| with_causes(&e))?;
    if resp.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    let mut resp = resp.error_for_status().map_err(|e| with_causes(&e))?;
    let mut bytes = Vec::new();
    resp.read_to_end(&mut bytes).map_err(|e| with_causes(&e))?;
    Ok(Some(bytes))
}

/// `e` and its sources joined with `: `. reqwest's own message is only "error sending request
/// for url (…)"; the reason (connection refused, DNS, TLS) is in the source chain.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        source = s.source();
    }
    msg
}

/// Decompresses a whole `.gz` (all members) into memory.
pub fn gunzip(bytes: &[u8], name: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() * 4);
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| DataError::parse(name, format!("gzip: {e}")))?;
    Ok(out)
}

/// Decompresses a whole `.bz2` (all concatenated streams) into memory.
pub fn bunzip2(bytes: &[u8], name: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() * 4);
    bzip2::read::MultiBzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| DataError::parse(name, format!("bzip2: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: RawFile = RawFile {
        name: "f.txt",
        url: "http://127.0.0.1:9/f.txt",
        // sha256("hello\n")
        sha256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
        alt_sha256: &[],
        gz: false,
    };

    fn setup(content: &[u8]) -> (tempfile::TempDir, tempfile::TempDir, DataConfig) {
        let mirror = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(mirror.path().join("ds")).unwrap();
        std::fs::write(mirror.path().join("ds").join("f.txt"), content).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(cache.path().join("c"))
            .with_mirror(Mirror::Dir(mirror.path().to_path_buf()))
            .with_download(false);
        (mirror, cache, cfg)
    }

    #[test]
    fn mirror_copy_is_verified_then_cached() {
        assert_eq!(sha256_hex(b"hello\n"), FILE.sha256);
        let (_m, _c, cfg) = setup(b"hello\n");
        let f = obtain(&cfg, "ds", &FILE).unwrap();
        assert_eq!(f.bytes, b"hello\n");
        assert_eq!(std::fs::read(&f.path).unwrap(), b"hello\n");
        // Second call is served from the cache even without the mirror.
        let cfg2 = DataConfig {
            mirror: None,
            ..cfg
        };
        assert_eq!(obtain(&cfg2, "ds", &FILE).unwrap().bytes, b"hello\n");
    }

    #[test]
    fn bad_mirror_copy_is_rejected_and_not_cached() {
        let (_m, _c, cfg) = setup(b"hellp\n");
        let err = obtain(&cfg, "ds", &FILE).err().expect("must fail");
        let msg = err.to_string();
        assert!(matches!(err, DataError::Checksum { .. }), "{msg}");
        assert!(
            msg.contains(FILE.sha256) && msg.contains(&sha256_hex(b"hellp\n")),
            "{msg}"
        );
        assert!(
            !cfg.cache_dir.exists(),
            "nothing may be written to the cache"
        );
    }

    #[test]
    fn corrupt_cache_entry_is_replaced() {
        let (_m, _c, cfg) = setup(b"hello\n");
        let cached = cfg.raw_dir("ds").join("f.txt");
        std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
        std::fs::write(&cached, b"garbage").unwrap();
        assert_eq!(obtain(&cfg, "ds", &FILE).unwrap().bytes, b"hello\n");
        assert_eq!(std::fs::read(&cached).unwrap(), b"hello\n");
    }

    #[test]
    fn missing_everywhere_names_file_url_and_variable() {
        let cache = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(cache.path()).with_download(false);
        let msg = obtain(&cfg, "ds", &FILE).err().unwrap().to_string();
        for needle in ["f.txt", FILE.url, "DPBENCH_DATA_MIRROR", "ds/f.txt"] {
            assert!(msg.contains(needle), "{needle} missing from: {msg}");
        }
    }

    fn http_mirror_config(base: String) -> (tempfile::TempDir, DataConfig) {
        let cache = tempfile::tempdir().unwrap();
        let cfg = DataConfig::new(cache.path().join("c"))
            .with_mirror(Mirror::Http(base))
            .with_download(false);
        (cache, cfg)
    }

    /// A loopback port nothing listens on: bound by the OS, then released.
    fn closed_port() -> u16 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }

    #[test]
    fn unreachable_http_mirror_reports_the_transport_error_not_a_missing_file() {
        let base = format!("http://127.0.0.1:{}", closed_port());
        let (_c, cfg) = http_mirror_config(base.clone());
        let msg = obtain(&cfg, "ds", &FILE).err().unwrap().to_string();
        assert!(!msg.contains("not in mirror"), "{msg}");
        assert!(
            msg.contains(&format!("mirror failed ({base}/ds/f.txt)")),
            "{msg}"
        );
        assert!(msg.to_lowercase().contains("connection refused"), "{msg}");
        assert!(!cfg.cache_dir.exists(), "nothing may be written");
    }

    #[test]
    fn http_mirror_404_is_a_missing_file() {
        use std::io::BufRead;
        let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.local_addr().unwrap());
        let answer = std::thread::spawn(move || {
            let (conn, _) = server.accept().unwrap();
            let mut reader = std::io::BufReader::new(&conn);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 0 && line != "\r\n" {
                line.clear();
            }
            (&conn)
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .unwrap();
        });
        let (_c, cfg) = http_mirror_config(base.clone());
        let msg = obtain(&cfg, "ds", &FILE).err().unwrap().to_string();
        answer.join().unwrap();
        assert!(
            msg.contains(&format!("not in mirror ({base}/ds/f.txt)")),
            "{msg}"
        );
        assert!(!msg.contains("mirror failed"), "{msg}");
    }

    /// Finished files get the mode the user's umask gives new files, not tempfile's 0600.
    #[cfg(target_os = "linux")]
    #[test]
    fn atomic_write_respects_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        write_atomic(&p, |w| w.write_all(b"a")).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask, "umask {umask:o}");
    }

    #[test]
    fn bunzip2_reads_concatenated_streams_and_rejects_garbage() {
        let bz = |text: &[u8]| {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(text).unwrap();
            e.finish().unwrap()
        };
        let mut two = bz(b"+1 1:0.5\n");
        two.extend(bz(b"-1 2:0.25\n"));
        assert_eq!(bunzip2(&two, "x.bz2").unwrap(), b"+1 1:0.5\n-1 2:0.25\n");
        let err = bunzip2(b"not bzip2", "x.bz2").unwrap_err().to_string();
        assert!(err.contains("x.bz2") && err.contains("bzip2"), "{err}");
    }

    #[test]
    fn atomic_write_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("x.bin");
        write_atomic(&p, |w| w.write_all(b"abc")).unwrap();
        write_atomic(&p, |w| w.write_all(b"defg")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"defg");
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
        let failed = write_atomic(&p, |_| Err(std::io::Error::other("boom")));
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"defg");
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}
