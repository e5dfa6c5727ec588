//! Records the commit the binary is built from (`DPBENCH_BUILD_COMMIT`, read by `main.rs`
//! alone), so that a results folder names the code that produced it even when the binary runs
//! in another checkout. This package holds only the binary, its tests, examples and benchmarks
//! (the library is the dp-bench-lib package): a rerun here recompiles main.rs, not the library.

#[path = "src/experiment/git.rs"]
mod git;

use std::path::Path;

fn main() {
    let here = Path::new(".");
    println!("cargo:rustc-env=DPBENCH_BUILD_COMMIT={}", git::commit(here));
    // A commit moves HEAD's ref and rewrites the index; an edit changes a source file.
    if let Some(dir) = git::git(here, &["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "index", "packed-refs"] {
            println!("cargo:rerun-if-changed={dir}/{f}");
        }
        if let Some(r) = git::git(here, &["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
    for d in [
        "src",
        "build.rs",
        "../dp-core/src",
        "../dp-data/src",
        "../dp-mip/src",
    ] {
        if Path::new(d).exists() {
            println!("cargo:rerun-if-changed={d}");
        }
    }
}
