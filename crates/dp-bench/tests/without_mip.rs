//! A build without the `mip` feature (the default) refuses a config that names one of Neel et
//! al.'s MIP kinds at validation: exit 2, one line saying how to rebuild, no results folder;
//! and `dp-bench list` names the kinds it lacks. With the feature this file compiles to
//! nothing: the workspace tests build it so, and scripts/test.sh runs it again without.
#![cfg(not(feature = "mip"))]

mod common;

use std::ffi::OsStr;
use std::process::Output;

use common::{dp_bench_cmd, output, repo_root, stderr, stdout};

fn dp_bench(args: &[&OsStr]) -> Output {
    // From the repository root, so that the committed config is found by its usual path.
    output(
        dp_bench_cmd(args)
            .current_dir(repo_root())
            .env("DPBENCH_OFFLINE", "1"),
    )
}

#[test]
fn a_neel_config_is_refused_at_validation_with_how_to_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("neel2019");
    let out = dp_bench(&[
        "configs/neel2019/smoke.toml".as_ref(),
        "--quiet".as_ref(),
        "--out".as_ref(),
        out_dir.as_os_str(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    for needle in [
        "configs/neel2019/smoke.toml: ",
        "table `methods.",
        "needs the MIP oracle, which this build lacks",
        "`cargo build --release -p dp-bench --features mip`",
        "cmake and libclang",
        "docs/papers/neel2019.md",
    ] {
        assert!(err.contains(needle), "{needle:?} missing from: {err}");
    }
    assert!(
        !out_dir.exists(),
        "validation created {}",
        out_dir.display()
    );
}

#[test]
fn list_names_the_kinds_this_build_lacks_and_the_feature() {
    let out = dp_bench(&["list".as_ref()]);
    assert!(out.status.success());
    let listed = stdout(&out);
    assert!(
        listed.contains("not in this build: opdisc, rspm, zero_one_erm")
            && listed.contains("--features mip"),
        "{listed}"
    );
    // The kinds that need no solver stay.
    assert!(
        listed.contains("  opsamp ") && listed.contains("  logreg_erm "),
        "{listed}"
    );
}
