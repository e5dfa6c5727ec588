//! Atomic file writes and the run lock of a results folder: what every layer that writes
//! results uses, so it sits below all of them.

use std::fs::File;
use std::path::Path;

use anyhow::Context;

/// The lock file in a results folder.
pub const LOCK_FILE: &str = ".dp-bench.lock";

/// Creates `dir` and takes its exclusive run lock (held while the returned file lives): two
/// runs appending to one results folder would lose each other's rows.
pub fn lock_dir(dir: &Path) -> anyhow::Result<File> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create results directory {}", dir.display()))?;
    let lock_path = dir.join(LOCK_FILE);
    let lock = File::create(&lock_path)
        .with_context(|| format!("cannot create {}", lock_path.display()))?;
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
