//! Every config committed under `configs/` parses and validates as the study it declares, so a
//! renamed key or method kind cannot leave a config that fails only when someone runs it
//! (the benchmark's unverified configs, whose data is not reachable here, included).

use std::path::{Path, PathBuf};

fn configs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            configs(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_committed_config_validates_as_its_study() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut paths = Vec::new();
    configs(&root, &mut paths);
    paths.sort();
    assert!(paths.len() > 50, "found only {} configs", paths.len());
    let mut failed = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let kind = match dp_bench::studies::declared(&text, path) {
            Ok(kind) => kind,
            Err(e) => {
                failed.push(format!("{e:#}"));
                continue;
            }
        };
        // An illustrative study is not a cluster job, so it has no plan to validate; its run
        // is covered by the figures tests.
        if kind.name == "illustrative" {
            continue;
        }
        if let Err(e) = (kind.plan)(path, Some(Path::new("/nonexistent/out"))) {
            let message = format!("{e:#}");
            // A one-run audit config has parsed and validated before the plan refuses to
            // shard it.
            if message.contains("a one-run audit is one training run") {
                continue;
            }
            // Neel et al.'s exact-oracle kinds exist only in builds with the `mip` feature.
            if !cfg!(feature = "mip") && message.contains("mip") {
                continue;
            }
            failed.push(format!("{}: {message}", path.display()));
        }
    }
    assert!(
        failed.is_empty(),
        "configs that do not validate:\n{}",
        failed.join("\n")
    );
}
