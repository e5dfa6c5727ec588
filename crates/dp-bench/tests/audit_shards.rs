//! Audits split into shards and merged give the table one process gives: the same outcomes
//! (wall time aside) and the same `audit.md`, for the black-box threshold audit and the
//! white-box one; a merge with a shard missing writes nothing and names the shard.

mod common;

use std::path::Path;

use common::{assert_success, dp_bench, stderr};

const DATASET: &str = "[dataset]\nname = \"synthetic-l\"\nsubsample = 200\nbias = 0\n";

/// Every outcome of a results folder, its wall time zeroed, by file name.
fn outcomes(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let mut out: Vec<(String, serde_json::Value)> = std::fs::read_dir(dir.join("audits"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v["seconds"] = 0.into();
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `audit.csv` without its last column (each audit's wall time).
fn table_without_seconds(dir: &Path) -> String {
    let csv = std::fs::read_to_string(dir.join("audit.csv")).unwrap();
    csv.lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string() + "\n")
        .collect()
}

fn audit(config: &Path, out: &Path, shard: Option<&str>) {
    let mut args = vec![
        "audit".to_string(),
        config.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--quiet".into(),
    ];
    if let Some(s) = shard {
        args.extend(["--shard".into(), s.into()]);
    }
    assert_success(&dp_bench(&args));
}

#[test]
fn sharded_audits_merge_to_the_single_process_table() {
    let dir = tempfile::tempdir().unwrap();
    let dpsgd = "kind = \"dpsgd\"\ntuning = \"dishonest\"\ngrid_size = 1\noptimizer = \"sgd\"\n\
                 lr_min = 1.0\nlr_max = 1.0\nepochs = 2\nbatch_size = 200\n";
    let configs = [
        (
            "black.toml",
            format!(
                "seed = 3\ntrials = 301\nepsilons = [1.0, 4.0]\ndelta = 1e-5\n[audit]\n\
                 keep_scores = true\n{DATASET}[methods.alg1]\nkind = \"alg1\"\n\
                 [methods.amp]\nkind = \"amp\"\neps_frac = [0.9]\neps_out_frac = [0.01]\nrow_clip = [1.0]\n"
            ),
        ),
        (
            "white.toml",
            format!(
                "seed = 4\ntrials = 500\nepsilons = [2.0]\ndelta = 1e-5\n[audit]\n\
                 canary = \"gradient\"\n{DATASET}[methods.full]\n{dpsgd}"
            ),
        ),
    ];
    for (name, text) in configs {
        let config = dir.path().join(name);
        std::fs::write(&config, text).unwrap();
        let single = dir.path().join(format!("{name}-single"));
        audit(&config, &single, None);
        let sharded = dir.path().join(format!("{name}-sharded"));
        // A split into more shards than there are runs of a kind would not help, but must
        // still be exact: 4 shards of 301 runs are blocks of 75 and 76.
        for i in [2, 0, 3] {
            audit(&config, &sharded, Some(&format!("{i}/4")));
        }
        // Shard 1 is missing: nothing is written, and the message names it.
        let o = dp_bench(&["merge".as_ref(), sharded.as_os_str()]);
        let err = stderr(&o);
        assert!(!o.status.success(), "{err}");
        assert!(err.contains("owed by shard(s) 1 of 4"), "{name}: {err}");
        assert!(!err.contains("  "), "a message with a run of spaces: {err}");
        assert!(!sharded.join("audit.md").exists() && !sharded.join("audits").exists());
        audit(&config, &sharded, Some("1/4"));
        // Rerunning a finished shard reuses its blocks.
        let again = dp_bench(&[
            "audit".as_ref(),
            config.as_os_str(),
            "--out".as_ref(),
            sharded.as_os_str(),
            "--quiet".as_ref(),
            "--shard".as_ref(),
            "1/4".as_ref(),
        ]);
        assert!(stderr(&again).contains("0 run now"), "{}", stderr(&again));
        assert_success(&dp_bench(&["merge".as_ref(), sharded.as_os_str()]));
        let (a, b) = (outcomes(&single), outcomes(&sharded));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{name}: merged outcomes differ from one process's");
        let md = |d: &Path| std::fs::read_to_string(d.join("audit.md")).unwrap();
        assert_eq!(md(&single), md(&sharded), "{name}");
        assert_eq!(
            table_without_seconds(&single),
            table_without_seconds(&sharded)
        );
        if name == "black.toml" {
            for f in ["alg1@1.csv", "amp@4.csv"] {
                let scores = |d: &Path| std::fs::read_to_string(d.join("scores").join(f)).unwrap();
                assert_eq!(scores(&single), scores(&sharded), "{f}");
            }
        }
    }
}
