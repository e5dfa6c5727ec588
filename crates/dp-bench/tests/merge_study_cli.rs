//! `dp-bench merge` on a study's results folder: a study runs whole, in shard 0, so the merge
//! has nothing to do and says where the results are instead of asking for shards.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{data_mirror, dp_bench_cmd, output, repo_root, stderr};

fn dp_bench(args: &[&Path], data: &Path) -> Output {
    output(
        dp_bench_cmd(args)
            .env("DPBENCH_DATA_DIR", data)
            .env("DPBENCH_DATA_MIRROR", data_mirror())
            .env("DPBENCH_OFFLINE", "1"),
    )
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
    let smoke = repo_root().join("configs/avent2020/smoke.toml");
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
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let before = files(&out);

    let o = dp_bench(&[Path::new("merge"), &out], &data);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("holds a study") && err.contains("nothing to merge"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "its results are points.csv, front.csv, hv.csv in {}",
            out.display()
        )),
        "{err}"
    );
    assert!(!err.contains("--shard"), "{err}");
    assert_eq!(files(&out), before, "nothing written");
}
