//! A build without the `mip` feature (the default) refuses a config that names one of Neel et
//! al.'s MIP kinds at validation: exit 2, one line saying how to rebuild, no results folder;
//! and `dp-bench list` names the kinds it lacks. With the feature this file compiles to
//! nothing: the workspace tests build it so, and scripts/test.sh runs it again without.
#![cfg(not(feature = "mip"))]

use std::path::Path;
use std::process::{Command, Output};

fn dp_bench(args: &[&std::ffi::OsStr]) -> Output {
    // From the repository root, so that the committed config is found by its usual path.
    Command::new(env!("CARGO_BIN_EXE_dp-bench"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(args)
        .env("DPBENCH_OFFLINE", "1")
        .output()
        .expect("dp-bench runs")
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for needle in [
        "configs/neel2019/smoke.toml: ",
        "table `methods.",
        "needs the MIP oracle, which this build lacks",
        "`cargo build --release -p dp-bench --features mip`",
        "cmake and libclang",
        "docs/papers/neel2019.md",
    ] {
        assert!(stderr.contains(needle), "{needle:?} missing from: {stderr}");
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("not in this build: opdisc, rspm, zero_one_erm")
            && stdout.contains("--features mip"),
        "{stdout}"
    );
    // The kinds that need no solver stay.
    assert!(
        stdout.contains("  opsamp ") && stdout.contains("  logreg_erm "),
        "{stdout}"
    );
}
