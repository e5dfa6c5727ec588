//! Fake run folders for the readers' tests: cells written through the store (checksummed, as a
//! run writes them) from a config `Config::load` accepts, and the summary a run would write.

use std::path::{Path, PathBuf};

use super::config::Config;
use super::grid::{Cell, expand};
use super::store::{CellRecord, Store};
use super::summary;

/// What one fake cell holds: accuracy, certified ε and details.
pub struct FakeCell {
    /// Test accuracy (percent).
    pub accuracy: f64,
    /// The ε the accountant certified.
    pub epsilon_accounted: f64,
    /// The method's details (`{}` for most; a dishonest DP-SGD needs its `scores`).
    pub details: serde_json::Value,
}

/// Writes `results/<stem>/` with `config`, every cell of its grid as `cell` says, and the
/// summary; returns the folder.
pub fn fake_run(
    results: &Path,
    stem: &str,
    config: &str,
    cell: impl Fn(&Cell) -> FakeCell,
) -> PathBuf {
    let dir = results.join(stem);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(crate::files::LOCK_FILE), "").unwrap();
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let cfg = Config::load(&dir.join("config.toml")).unwrap();
    let mut store = Store::open(&dir).unwrap();
    for c in expand(&cfg) {
        let f = cell(&c);
        store
            .append(CellRecord {
                method: c.method.clone(),
                kind: cfg.methods[&c.method].kind.into(),
                epsilon: c.epsilon,
                delta: cfg.delta,
                trial: c.trial,
                seed: c.seed,
                accuracy: f.accuracy,
                details: f.details,
                epsilon_accounted: f.epsilon_accounted,
                wall_ms: 10.0 + f64::from(c.trial),
                key: c.key(),
            })
            .unwrap();
    }
    store.compact().unwrap();
    let rows = summary::summarize(&cfg, store.rows()).unwrap();
    summary::write(&dir, &rows).unwrap();
    dir
}
