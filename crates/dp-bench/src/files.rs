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

/// Makes `dir` a results folder, or checks that it is one, before anything is written to it;
/// returns its marker, open for [`lock_dir`].
///
/// Results overwrite files by name (`config.toml`, `summary.md`, `cells.csv`, …), so they go
/// only into a new or empty folder, or one that dp-bench made for the same `kind` of results
/// (`"grid"`, `"audit"`, `"search"`, `"illustrative"`, `"slurm"`): every folder it writes holds
/// its [`LOCK_FILE`] from the start, which is its marker and names the kind. A user's own
/// folder given as `--out`, or another kind's, is refused whole, before a byte is written.
pub fn claim_dir(dir: &Path, kind: &str) -> anyhow::Result<File> {
    check_dir(dir, Some(kind))?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create results directory {}", dir.display()))?;
    // Never truncates, and never through a symlink planted in its place.
    let path = dir.join(LOCK_FILE);
    let mut marker = open_append(&path)?;
    if marker.metadata().map(|m| m.len() == 0).unwrap_or(false) {
        // Two shards claiming their parent at once may both write it: the first line counts.
        // One write of the whole line: `writeln!` may write the kind and the newline apart,
        // and two appenders then interleave into "gridgrid" (a Slurm array did).
        use std::io::Write;
        marker
            .write_all(format!("{kind}\n").as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(marker)
}

/// The kind a marker names: its first line, `None` for a marker written before kinds were
/// (empty), which any kind may take over.
fn marked_kind(marker: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = String::new();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(marker)
        .ok()?;
    file.take(64).read_to_string(&mut head).ok()?;
    let kind = head.lines().next().unwrap_or("").trim();
    (!kind.is_empty()).then(|| kind.to_string())
}

/// What [`claim_dir`] checks, writing nothing: that `dir` is new, empty or a results folder
/// (of `kind`, when given). Runs call it before they load data, so that a wrong `--out` fails
/// at once.
pub fn check_dir(dir: &Path, kind: Option<&str>) -> anyhow::Result<()> {
    check_results_path(dir).map_err(UsageError)?;
    let lock_path = dir.join(LOCK_FILE);
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let marked = std::fs::symlink_metadata(&lock_path).is_ok_and(|m| m.is_file());
            // A folder that holds only what dp-bench put there before the run that owns it:
            // the shards' folders and the Slurm scripts (each shard has its own marker).
            // Anything else, or a file by those names, is not ours.
            // The marker itself is ours too: a shard claiming the folder at this moment may
            // create it after `marked` was read.
            let foreign = entries.filter_map(Result::ok).any(|e| {
                let ours = (e.file_type().is_ok_and(|t| t.is_dir())
                    && (e.file_name() == SHARDS_DIR || e.file_name() == "slurm"))
                    || (e.file_type().is_ok_and(|t| t.is_file()) && e.file_name() == LOCK_FILE);
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
            if let (true, Some(want), Some(found)) = (marked, kind, marked_kind(&lock_path))
                && found != want
            {
                return Err(UsageError(format!(
                    "{} holds dp-bench's {found} results, and this run writes {want} results, \
                     whose files (config.toml, summaries) would overwrite them: give this run a \
                     folder of its own",
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
pub fn lock_dir(dir: &Path, kind: &str) -> anyhow::Result<File> {
    let lock = claim_dir(dir, kind)?;
    let lock_path = dir.join(LOCK_FILE);
    // A child process started by another thread holds a copy of every open descriptor until
    // it execs, so a lock just released can look held for a moment: retry for up to a second
    // before calling it another run's.
    let mut tries = 0;
    let mut result = lock.try_lock();
    while matches!(result, Err(std::fs::TryLockError::WouldBlock)) && tries < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        tries += 1;
        result = lock.try_lock();
    }
    match result {
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

    /// Shards of a Slurm array claim their parent at once; each must read the kind back
    /// whole (a marker written in two pieces read "gridgrid" once and failed two shards).
    #[test]
    fn concurrent_claims_leave_one_readable_kind() {
        for round in 0..50 {
            let root = tempfile::tempdir().unwrap();
            let dir = root.path().join("r");
            std::fs::create_dir(&dir).unwrap();
            std::thread::scope(|s| {
                for _ in 0..8 {
                    s.spawn(|| claim_dir(&dir, "grid").unwrap());
                }
            });
            let kind = marked_kind(&dir.join(LOCK_FILE));
            assert_eq!(kind.as_deref(), Some("grid"), "round {round}");
        }
    }

    #[test]
    fn only_new_empty_or_dp_bench_folders_are_claimed() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("r");
        claim_dir(&dir, "grid").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap(),
            "grid\n"
        );
        std::fs::write(dir.join("summary.md"), "").unwrap();
        claim_dir(&dir, "grid").unwrap();
        // Another kind of results does not go into a grid's folder, nor a grid into its.
        let e = claim_dir(&dir, "audit").unwrap_err().to_string();
        assert!(
            e.contains("grid results") && e.contains("audit results"),
            "{e}"
        );
        // A marker from before kinds (empty) is taken over by the first kind to claim it.
        let old_run = root.path().join("old-run");
        std::fs::create_dir(&old_run).unwrap();
        std::fs::write(old_run.join(LOCK_FILE), "").unwrap();
        std::fs::write(old_run.join("cells.csv"), "").unwrap();
        claim_dir(&old_run, "search").unwrap();
        assert!(claim_dir(&old_run, "grid").is_err());
        // A user's folder, and one holding a file named like ours, are refused.
        let mine = root.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("notes.md"), "").unwrap();
        assert!(claim_dir(&mine, "grid").is_err());
        let named = root.path().join("named");
        std::fs::create_dir(&named).unwrap();
        std::fs::write(named.join(SHARDS_DIR), "").unwrap();
        assert!(check_dir(&named, None).is_err());
        // The parent of shards run before the marker: only shard and Slurm folders.
        let old = root.path().join("old");
        std::fs::create_dir_all(old.join(SHARDS_DIR).join("0-of-2")).unwrap();
        std::fs::create_dir_all(old.join("slurm")).unwrap();
        claim_dir(&old, "grid").unwrap();
        for bad in ["", ".", "..", "results/.", "a/.."] {
            assert!(check_results_path(Path::new(bad)).is_err(), "{bad:?}");
        }
        assert!(check_results_path(Path::new("results/...x")).is_ok());
    }
}
