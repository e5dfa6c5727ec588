//! The git commit of a checkout, `+dirty` when tracked files have uncommitted changes.
//! Shared with the build script (`build.rs`), which records the binary's own commit.

use std::path::Path;
use std::process::Command;

/// Output of `git ARGS` run in `dir`, trimmed, if git ran and succeeded.
pub fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `HEAD`'s commit in `dir`, with `+dirty` for uncommitted changes; `unknown` outside git.
pub fn commit(dir: &Path) -> String {
    match git(dir, &["rev-parse", "HEAD"]) {
        Some(head) if !head.is_empty() => {
            let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{head}+dirty") } else { head }
        }
        _ => "unknown".to_string(),
    }
}
