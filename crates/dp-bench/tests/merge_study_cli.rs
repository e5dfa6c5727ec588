//! `dp-bench merge` on a study's results folder: a study runs whole, in shard 0, so the merge
//! has nothing to do and says where the results are instead of asking for shards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dp_bench(args: &[&Path], data: &Path) -> Output {
    let mirror = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/raw");
    Command::new(env!("CARGO_BIN_EXE_dp-bench"))
        .args(args)
        .env("DPBENCH_DATA_DIR", data)
        .env(
            "DPBENCH_DATA_MIRROR",
            std::env::var_os("DPBENCH_DATA_MIRROR").unwrap_or(mirror.into_os_string()),
        )
        .env("DPBENCH_OFFLINE", "1")
        .output()
        .expect("dp-bench runs")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn merging_a_study_folder_says_there_is_nothing_to_merge_and_where_the_results_are() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, data) = (tmp.path().join("smoke"), tmp.path().join("data"));
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/avent2020/smoke.toml");
    // As a job array runs it: every shard of the study, then the merge.
    for shard in ["0/2", "1/2"] {
        let o = dp_bench(
            &[
                Path::new("run"),
                &smoke,
                Path::new("--out"),
                &out,
                Path::new("--shard"),
                Path::new(shard),
                Path::new("--quiet"),
            ],
            &data,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let before = files(&out);

    let o = dp_bench(&[Path::new("merge"), &out], &data);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("holds a study") && stderr.contains("nothing to merge"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "its results are points.csv, front.csv, hv.csv in {}",
            out.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("--shard"), "{stderr}");
    assert_eq!(files(&out), before, "nothing written");
}
