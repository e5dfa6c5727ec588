//! The report's output folder holds exactly what one report run wrote. The page and its files
//! are built in a fresh sibling folder and swapped in whole, so a report of fewer results never
//! shows figures left over from an earlier one, and a failed run leaves the previous report as
//! it was. What the report wrote is listed in a marker file; a folder that holds anything else
//! (files the user put there, or a folder that is no report at all) is refused, never deleted.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::error::UsageError;

/// The marker file: its presence says "a report folder", its content lists what the report
/// wrote (relative paths, folders ending in `/`).
pub const MARKER: &str = ".dp-bench-report";

/// A report being built beside its destination.
#[derive(Debug)]
pub struct Staging {
    /// Where the report ends up.
    out: PathBuf,
    /// The fresh folder it is built in.
    tmp: PathBuf,
}

/// Every entry under `dir`, relative, sorted; folders end in `/`; links are not followed.
fn entries(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))? {
            let e = e?;
            let rel = e.path();
            let rel = rel.strip_prefix(dir).unwrap_or(&rel).to_string_lossy();
            if e.file_type()?.is_dir() {
                out.push(format!("{rel}/"));
                stack.push(e.path());
            } else if rel != MARKER {
                out.push(rel.into_owned());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// What the marker of report folder `dir` lists, or `None` if `dir` has no marker.
fn manifest(dir: &Path) -> anyhow::Result<Option<Vec<String>>> {
    let path = dir.join(MARKER);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a report marker", path.display()))?;
    Ok(Some(
        v["entries"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
    ))
}

/// Refuses to replace `dir` unless it is empty or holds only what a report wrote.
fn check_replaceable(dir: &Path) -> anyhow::Result<()> {
    let found = entries(dir)?;
    let Some(listed) = manifest(dir)? else {
        if found.is_empty() {
            return Ok(());
        }
        return Err(UsageError(format!(
            "{} is not empty and was not written by `dp-bench report` (no {MARKER} in it); \
             the report replaces its whole output folder, so give --out a new or empty folder",
            dir.display()
        ))
        .into());
    };
    let foreign: Vec<&String> = found.iter().filter(|e| !listed.contains(e)).collect();
    if foreign.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = foreign.iter().take(5).map(|s| s.as_str()).collect();
    Err(UsageError(format!(
        "{} holds {} file(s) the report did not write ({}{}); the report replaces its whole \
         output folder, so move them out or give --out another folder",
        dir.display(),
        foreign.len(),
        shown.join(", "),
        if foreign.len() > shown.len() {
            ", …"
        } else {
            ""
        }
    ))
    .into())
}

/// A sibling of `out` that does not exist yet, named after it and `what`.
fn sibling(out: &Path, what: &str) -> anyhow::Result<PathBuf> {
    let parent = out
        .parent()
        .context("the report folder needs a parent folder")?;
    let name = out.file_name().unwrap_or_default().to_string_lossy();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for n in 0.. {
        let p = parent.join(format!(".{name}.{what}-{}-{nanos}-{n}", std::process::id()));
        if std::fs::symlink_metadata(&p).is_err() {
            return Ok(p);
        }
    }
    unreachable!("an unused name exists")
}

impl Staging {
    /// Checks that `out` may be replaced and creates the fresh folder to build in.
    pub fn begin(out: &Path) -> anyhow::Result<Staging> {
        let out = match std::fs::symlink_metadata(out) {
            // The real folder is swapped, so a link to it keeps working.
            Ok(_) => std::fs::canonicalize(out)
                .with_context(|| format!("cannot resolve {}", out.display()))?,
            Err(_) => std::path::absolute(out)
                .with_context(|| format!("cannot make {} absolute", out.display()))?,
        };
        if out.file_name().is_none() {
            return Err(UsageError(format!("--out {} must name a folder", out.display())).into());
        }
        if out.exists() {
            if !out.is_dir() {
                return Err(
                    UsageError(format!("--out {} is a file, not a folder", out.display())).into(),
                );
            }
            check_replaceable(&out)?;
        }
        let tmp = sibling(&out, "new")?;
        std::fs::create_dir_all(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        Ok(Staging { out, tmp })
    }

    /// The folder to write the report into.
    pub fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Lists what was written in the marker and puts the new folder in the place of `out`.
    pub fn commit(self) -> anyhow::Result<()> {
        let listed = serde_json::json!({
            "written_by": "dp-bench report",
            "entries": entries(&self.tmp)?,
        });
        std::fs::write(self.tmp.join(MARKER), format!("{listed:#}\n"))
            .context("cannot write the report marker")?;
        if self.out.exists() {
            let old = sibling(&self.out, "old")?;
            std::fs::rename(&self.out, &old)
                .with_context(|| format!("cannot move {} aside", self.out.display()))?;
            // Checked again now that nobody can add to it: files that appeared since `begin`
            // are the user's, and the old folder goes back untouched.
            if let Err(e) = check_replaceable(&old) {
                std::fs::rename(&old, &self.out).ok();
                return Err(e);
            }
            if let Err(e) = std::fs::rename(&self.tmp, &self.out) {
                std::fs::rename(&old, &self.out).ok();
                return Err(e)
                    .with_context(|| format!("cannot move the report to {}", self.out.display()));
            }
            if let Err(e) = std::fs::remove_dir_all(&old) {
                errln!(
                    "warning: cannot remove the previous report {}: {e}",
                    old.display()
                );
            }
        } else {
            std::fs::rename(&self.tmp, &self.out)
                .with_context(|| format!("cannot move the report to {}", self.out.display()))?;
        }
        Ok(())
    }
}

impl Drop for Staging {
    /// A report that failed or was abandoned leaves no half-built folder behind.
    fn drop(&mut self) {
        if self.tmp.exists() {
            std::fs::remove_dir_all(&self.tmp).ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(out: &Path, files: &[&str]) -> anyhow::Result<()> {
        let s = Staging::begin(out)?;
        for f in files {
            let p = s.dir().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, f).unwrap();
        }
        s.commit()
    }

    #[test]
    fn a_new_report_replaces_only_what_the_last_one_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("rep");
        build(
            &out,
            &["index.html", "figures/p/fig2.svg", "runs/a/cells.csv"],
        )
        .unwrap();
        assert!(out.join("figures/p/fig2.svg").exists() && out.join(MARKER).exists());
        build(&out, &["index.html"]).unwrap();
        assert!(out.join("index.html").exists());
        assert!(!out.join("figures").exists(), "stale figures are gone");
        assert!(!out.join("runs").exists());
        // Nothing is left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn folders_with_files_the_report_did_not_write_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        // Not a report folder at all.
        let mine = dir.path().join("mine");
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::write(mine.join("thesis.tex"), "x").unwrap();
        let e = build(&mine, &["index.html"]).unwrap_err();
        assert!(e.downcast_ref::<UsageError>().is_some(), "{e}");
        assert!(
            e.to_string().contains("not written by `dp-bench report`"),
            "{e}"
        );
        assert!(mine.join("thesis.tex").exists() && !mine.join("index.html").exists());
        // A report folder the user added a file to.
        let out = dir.path().join("rep");
        build(&out, &["index.html", "figures/f.svg"]).unwrap();
        std::fs::write(out.join("figures/notes.txt"), "mine").unwrap();
        let e = build(&out, &["index.html"]).unwrap_err();
        assert!(e.to_string().contains("figures/notes.txt"), "{e}");
        assert!(out.join("figures/notes.txt").exists() && out.join("figures/f.svg").exists());
        // An empty folder is fine, and a failed build leaves nothing behind.
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        build(&empty, &["index.html"]).unwrap();
        let s = Staging::begin(&empty).unwrap();
        let tmp = s.dir().to_path_buf();
        drop(s);
        assert!(!tmp.exists() && empty.join("index.html").exists());
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert!(
            build(&file, &[])
                .unwrap_err()
                .to_string()
                .contains("is a file")
        );
    }
}
