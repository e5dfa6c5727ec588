//! Where a result came from: `provenance.json`, written next to a run's tables when it ends
//! (run, merge, study), and shown by `dp-bench report`.

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::files::write_text_atomic;

/// File name in a results folder.
pub const PROVENANCE_FILE: &str = "provenance.json";

static BUILD_COMMIT: OnceLock<&'static str> = OnceLock::new();

/// Records the commit the running binary was built from. The `dp-bench` binary's `main` does,
/// from its build script's stamp; the stamp is not compiled into this library, so that a
/// commit recompiles `main.rs` alone. A second call is ignored.
pub fn set_build_commit(commit: &'static str) {
    let _ = BUILD_COMMIT.set(commit);
}

/// The commit the running binary was built from (`+dirty` when its crates had uncommitted
/// changes), or `unknown` when no binary recorded one (the library used from other code).
pub fn build_commit() -> &'static str {
    BUILD_COMMIT.get().copied().unwrap_or("unknown")
}

/// What made a set of results.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// dpbench's version (`Cargo.toml`).
    pub dpbench_version: String,
    /// Commit of the checkout the work ran in, at its end (`+dirty` when it had uncommitted
    /// changes; `unknown` outside a git checkout).
    pub git_commit: String,
    /// Commit the `dp-bench` binary was built from (same form); differs from `git_commit` when
    /// a binary built elsewhere, or before the checkout moved, did the work.
    #[serde(default = "unknown")]
    pub build_commit: String,
    /// Host name.
    pub host: String,
    /// CPU model and logical cores.
    pub cpu: String,
    /// Worker threads of the run (rayon).
    pub threads: usize,
    /// Wall time of the last run into the folder, seconds (for a merge: the merge's).
    pub wall_seconds: f64,
    /// When it ended (UTC, RFC 3339).
    pub finished: String,
    /// What wrote the folder: `run`, `run --shard I/N`, `merge of N shards`, `study`,
    /// `illustrative`.
    pub how: String,
    /// The dataset and the sha256 of each raw file it is made from.
    pub dataset: Value,
}

impl Provenance {
    /// The provenance of work that just ended on this machine.
    pub fn here(how: &str, wall_seconds: f64, dataset: &str) -> Provenance {
        Provenance {
            dpbench_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: super::git::commit(Path::new(".")),
            build_commit: build_commit().to_string(),
            host: host_name(),
            cpu: cpu_model(),
            threads: rayon::current_num_threads(),
            wall_seconds,
            finished: now_rfc3339(),
            how: how.to_string(),
            dataset: dataset_hashes(dataset),
        }
    }

    /// The code that did the work, in words: version, checkout commit and binary commit.
    pub fn code(&self) -> String {
        format!(
            "{} (commit {}, binary built from {})",
            self.dpbench_version, self.git_commit, self.build_commit
        )
    }

    /// Why these results may be stale against code built from `current` (the running
    /// binary's commit): `None` when the binary that produced them was built from the same
    /// commit, else a note naming both (an unknown commit is never the same).
    pub fn stale_against(&self, current: &str) -> Option<String> {
        if self.build_commit == current && current != "unknown" {
            return None;
        }
        Some(format!(
            "produced by a binary built from {}, not {current} (this binary): its numbers may \
             differ from what the current code gives; re-run to refresh",
            self.build_commit
        ))
    }

    /// Writes `dir/provenance.json` atomically.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        write_text_atomic(&dir.join(PROVENANCE_FILE), &text)
    }

    /// Reads `dir/provenance.json`, if there is one.
    pub fn read(dir: &Path) -> Option<Provenance> {
        let text = std::fs::read_to_string(dir.join(PROVENANCE_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }
}

fn unknown() -> String {
    "unknown".to_string()
}

/// The dataset's name and the pinned sha256 of each raw file (generated data: its recipe is
/// the code, so no files).
fn dataset_hashes(name: &str) -> Value {
    let files: Vec<Value> = name
        .parse::<dp_data::DatasetId>()
        .map(|id| {
            id.spec()
                .files
                .iter()
                .map(|f| json!({"file": f.name, "sha256": f.sha256}))
                .collect()
        })
        .unwrap_or_default();
    json!({"name": name, "raw_files": files})
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown".into())
}

fn cpu_model() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model} ({cores} logical cores)")
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days, no time crate needed).
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_the_raw_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = Provenance::here("run", 12.5, "adult");
        assert_eq!(p.dpbench_version, env!("CARGO_PKG_VERSION"));
        assert!(p.threads >= 1);
        assert_eq!(p.dataset["raw_files"].as_array().unwrap().len(), 2);
        assert_eq!(
            p.dataset["raw_files"][0]["sha256"].as_str().unwrap().len(),
            64
        );
        p.write(dir.path()).unwrap();
        assert_eq!(Provenance::read(dir.path()), Some(p));
        let t = now_rfc3339();
        assert!(
            t.len() == 20 && t.starts_with("20") && t.ends_with('Z'),
            "{t}"
        );
    }

    #[test]
    fn names_the_binarys_commit_and_reads_files_written_before_it() {
        // The only test that sets it (the binary's stamp is checked in tests/report_cli.rs).
        let commit = "0123456789abcdef0123456789abcdef01234567+dirty";
        set_build_commit(commit);
        set_build_commit("ignored");
        let p = Provenance::here("run", 1.0, "synthetic-l");
        assert_eq!(p.build_commit, commit);
        let mut v = serde_json::to_value(&p).unwrap();
        v.as_object_mut().unwrap().remove("build_commit");
        let old: Provenance = serde_json::from_value(v).unwrap();
        assert_eq!(old.build_commit, "unknown");
    }

    #[test]
    fn results_of_another_commit_are_flagged_stale() {
        let mut p = Provenance::here("run", 1.0, "synthetic-l");
        p.build_commit = "a".repeat(40);
        assert_eq!(p.stale_against(&"a".repeat(40)), None);
        let note = p.stale_against(&"b".repeat(40)).unwrap();
        assert!(
            note.contains(&"a".repeat(40)) && note.contains(&"b".repeat(40)),
            "{note}"
        );
        p.build_commit = "unknown".into();
        assert!(p.stale_against("unknown").is_some());
    }
}
