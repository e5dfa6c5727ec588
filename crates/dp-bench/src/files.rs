//! Atomic file writes and the run lock of a results folder: what every layer that writes
//! results uses, so it sits below all of them.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::Context;

use crate::error::UsageError;

/// The folder of a results folder that holds its shards (`shards/I-of-N/`).
pub const SHARDS_DIR: &str = "shards";

/// The lock file in a results folder.
pub const LOCK_FILE: &str = ".dp-bench.lock";

/// Refuses a results folder that names no folder of its own: `""` and `"."` (the working
/// folder), a path ending in `.` or `..`, as a config file named `..toml` gives
/// (`results/.`).
pub fn check_results_path(dir: &Path) -> Result<(), String> {
    let text = dir.to_string_lossy();
    let last = text.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if last.is_empty() || last.chars().all(|c| c == '.') {
        return Err(format!(
            "results folder {text:?} names the working folder or one above it, not a folder of \
             its own: set `output_dir` (or --out) to a new folder, or rename a config file \
             whose name is only dots"
        ));
    }
    Ok(())
}

/// Makes `dir` a results folder, or checks that it is one, before anything is written to it.
///
/// Results overwrite files by name (`config.toml`, `summary.md`, `cells.csv`, …), so they go
/// only into a new or empty folder, or one that dp-bench made: every folder it writes holds
/// its [`LOCK_FILE`] from the start, which is its marker. A user's own folder given as
/// `--out` is refused whole, before a byte is written.
pub fn claim_dir(dir: &Path) -> anyhow::Result<()> {
    check_dir(dir)?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create results directory {}", dir.display()))?;
    // Never truncates, and never through a symlink planted in its place.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(LOCK_FILE))
        .with_context(|| format!("cannot create {}", dir.join(LOCK_FILE).display()))?;
    Ok(())
}

/// What [`claim_dir`] checks, writing nothing: that `dir` is new, empty or a results folder.
/// Runs call it before they load data, so that a wrong `--out` fails at once.
pub fn check_dir(dir: &Path) -> anyhow::Result<()> {
    check_results_path(dir).map_err(UsageError)?;
    let lock_path = dir.join(LOCK_FILE);
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let marked = std::fs::symlink_metadata(&lock_path).is_ok_and(|m| m.is_file());
            // The parent of shards run before the marker existed holds only what dp-bench
            // put there: the shards' folders and the Slurm scripts (each shard has its own
            // marker). Anything else, or a file by those names, is not ours.
            let foreign = entries.filter_map(Result::ok).any(|e| {
                let ours = e.file_type().is_ok_and(|t| t.is_dir())
                    && (e.file_name() == SHARDS_DIR || e.file_name() == "slurm");
                !ours
            });
            if !marked && foreign {
                return Err(UsageError(format!(
                    "{} is not empty and is not a dp-bench results folder (it has no {LOCK_FILE}): \
                     dp-bench would overwrite files in it by name; give a new or empty folder \
                     (--out DIR or `output_dir`), or the results folder of an earlier run",
                    dir.display()
                ))
                .into());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read results folder {}", dir.display()));
        }
    }
    Ok(())
}

/// Claims `dir` ([`claim_dir`]) and takes its exclusive run lock (held while the returned file
/// lives): two runs appending to one results folder would lose each other's rows.
pub fn lock_dir(dir: &Path) -> anyhow::Result<File> {
    claim_dir(dir)?;
    let lock_path = dir.join(LOCK_FILE);
    let lock = std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&lock_path)
        .with_context(|| format!("cannot open {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "another dp-bench run is writing to {} (it holds {}); wait for it to finish, \
             or give this run its own folder with --out DIR",
            dir.display(),
            lock_path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", lock_path.display()))
        }
    }
}

/// Writes through a temporary file in the same directory, then renames over `path`.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut File) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = dp_data::fetch::temp_file_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    write(tmp.as_file_mut()).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().ok();
    tmp.persist(path)
        .with_context(|| format!("cannot move the finished file to {}", path.display()))?;
    Ok(())
}

/// [`write_atomic`] of a whole text.
pub fn write_text_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    write_atomic(path, |f| {
        use std::io::Write;
        f.write_all(text.as_bytes())?;
        Ok(())
    })
}

/// Opens `path` for appending (creating it), never through a symbolic link: a link planted in
/// a results folder in place of a file dpbench appends to (`damaged.log`, `cells.log`, …)
/// would have it write wherever the link points.
pub fn open_append(path: &Path) -> anyhow::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => Ok(f),
        // O_NOFOLLOW's refusal of a link is ELOOP.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => anyhow::bail!(
            "{} is a symlink; dpbench never writes through one (it could point anywhere): \
             remove the link and run again",
            path.display()
        ),
        Err(e) => Err(e).with_context(|| format!("cannot open {} for appending", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_empty_or_dp_bench_folders_are_claimed() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("r");
        claim_dir(&dir).unwrap();
        assert!(dir.join(LOCK_FILE).is_file());
        std::fs::write(dir.join("summary.md"), "").unwrap();
        claim_dir(&dir).unwrap();
        // A user's folder, and one holding a file named like ours, are refused.
        let mine = root.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("notes.md"), "").unwrap();
        assert!(claim_dir(&mine).is_err());
        let named = root.path().join("named");
        std::fs::create_dir(&named).unwrap();
        std::fs::write(named.join(SHARDS_DIR), "").unwrap();
        assert!(check_dir(&named).is_err());
        // The parent of shards run before the marker: only shard and Slurm folders.
        let old = root.path().join("old");
        std::fs::create_dir_all(old.join(SHARDS_DIR).join("0-of-2")).unwrap();
        std::fs::create_dir_all(old.join("slurm")).unwrap();
        claim_dir(&old).unwrap();
        for bad in ["", ".", "..", "results/.", "a/.."] {
            assert!(check_results_path(Path::new(bad)).is_err(), "{bad:?}");
        }
        assert!(check_results_path(Path::new("results/...x")).is_ok());
    }
}
