//! Where datasets are cached and fetched from.
//!
//! Library code takes a [`DataConfig`] explicitly (tests build one per temp dir, so parallel
//! tests never race on process-wide environment variables); [`DataConfig::from_env`] is the
//! one place that reads `DPBENCH_DATA_DIR`, `DPBENCH_DATA_MIRROR` and `DPBENCH_OFFLINE`.

use std::path::{Path, PathBuf};

/// Environment variable overriding the cache directory.
pub const ENV_DATA_DIR: &str = "DPBENCH_DATA_DIR";
/// Environment variable naming a mirror tried before the canonical URLs.
pub const ENV_MIRROR: &str = "DPBENCH_DATA_MIRROR";
/// Environment variable that, when `1`/`true`, forbids network downloads.
pub const ENV_OFFLINE: &str = "DPBENCH_OFFLINE";

/// A copy of the raw files laid out `<mirror>/<dataset>/<file>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mirror {
    /// A local directory (also from a `file://` URL).
    Dir(PathBuf),
    /// An `http://` or `https://` base URL (no trailing slash needed).
    Http(String),
}

impl Mirror {
    /// Parses a directory path, a `file://` URL or an `http(s)://` base.
    pub fn parse(s: &str) -> Mirror {
        if let Some(rest) = s.strip_prefix("file://") {
            Mirror::Dir(PathBuf::from(rest))
        } else if s.starts_with("http://") || s.starts_with("https://") {
            Mirror::Http(s.trim_end_matches('/').to_string())
        } else {
            Mirror::Dir(PathBuf::from(s))
        }
    }

    /// Human-readable location of one file in this mirror.
    pub fn describe(&self, dataset: &str, file: &str) -> String {
        match self {
            Mirror::Dir(d) => d.join(dataset).join(file).display().to_string(),
            Mirror::Http(base) => format!("{base}/{dataset}/{file}"),
        }
    }
}

/// Cache location, optional mirror and whether downloads are allowed.
#[derive(Clone, Debug)]
pub struct DataConfig {
    /// Raw files go to `<cache_dir>/<dataset>/<file>`, processed ones to `<cache_dir>/processed/`.
    pub cache_dir: PathBuf,
    /// Tried before the canonical URL.
    pub mirror: Option<Mirror>,
    /// When false, a file missing from cache and mirror is an error instead of a download.
    pub allow_download: bool,
    /// When false, downloads and cache rebuilds are announced on stderr.
    pub quiet: bool,
}

impl DataConfig {
    /// A config caching in `cache_dir`, no mirror, downloads allowed, quiet.
    pub fn new(cache_dir: impl Into<PathBuf>) -> Self {
        DataConfig {
            cache_dir: cache_dir.into(),
            mirror: None,
            allow_download: true,
            quiet: true,
        }
    }

    /// Builder: sets the mirror.
    pub fn with_mirror(mut self, mirror: Mirror) -> Self {
        self.mirror = Some(mirror);
        self
    }

    /// Builder: enables or disables network downloads.
    pub fn with_download(mut self, allow: bool) -> Self {
        self.allow_download = allow;
        self
    }

    /// From the environment: `DPBENCH_DATA_DIR` (default: `datasets/` under the workspace root
    /// containing the current directory, else under the current directory),
    /// `DPBENCH_DATA_MIRROR` and `DPBENCH_OFFLINE`. Progress messages are on.
    pub fn from_env() -> Self {
        let cache_dir = match std::env::var_os(ENV_DATA_DIR) {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => default_cache_dir(),
        };
        let mirror = std::env::var(ENV_MIRROR)
            .ok()
            .filter(|s| !s.is_empty())
            .map(|s| Mirror::parse(&s));
        let offline =
            std::env::var(ENV_OFFLINE).map(|v| v == "1" || v.eq_ignore_ascii_case("true"));
        DataConfig {
            cache_dir,
            mirror,
            allow_download: !offline.unwrap_or(false),
            quiet: false,
        }
    }

    /// Directory of one dataset's raw files in the cache.
    pub fn raw_dir(&self, dataset: &str) -> PathBuf {
        self.cache_dir.join(dataset)
    }

    /// Directory of processed (parsed / generated) datasets.
    pub fn processed_dir(&self) -> PathBuf {
        self.cache_dir.join("processed")
    }

    pub(crate) fn note(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            // A note must not panic a download when stderr is a closed pipe.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{msg}");
        }
    }
}

fn default_cache_dir() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    workspace_root(&cwd).unwrap_or(cwd).join("datasets")
}

/// The nearest ancestor of `start` (inclusive) whose `Cargo.toml` declares a `[workspace]`.
pub fn workspace_root(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        text.lines()
            .any(|l| l.trim() == "[workspace]")
            .then(|| dir.to_path_buf())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_forms() {
        assert_eq!(Mirror::parse("/a/b"), Mirror::Dir("/a/b".into()));
        assert_eq!(Mirror::parse("file:///a/b"), Mirror::Dir("/a/b".into()));
        assert_eq!(
            Mirror::parse("https://x.org/m/"),
            Mirror::Http("https://x.org/m".into())
        );
        assert_eq!(
            Mirror::Http("http://h".into()).describe("adult", "adult.data"),
            "http://h/adult/adult.data"
        );
    }

    #[test]
    fn finds_this_workspace() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = workspace_root(here).expect("workspace root");
        assert_eq!(root, here.parent().unwrap().parent().unwrap());
    }
}
