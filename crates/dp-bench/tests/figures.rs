//! The `dp-bench figures` contract: file names, the default folder, skipping Figure 2 and the
//! tables without results, and usage errors.

mod common;

use std::path::Path;

use common::{code_out_err, dp_bench_cmd, fake_grid_run, output, redberg_config};

fn run(args: &[&str], cwd: &Path) -> (i32, String, String) {
    code_out_err(&output(dp_bench_cmd(args).current_dir(cwd)))
}

const ACCOUNTANT_FIGURES: [&str; 4] = ["fig1", "fig3", "fig4", "fig5"];

#[test]
fn figures_cli_writes_accountant_figures_to_the_default_folder_and_skips_fig2() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(&["figures", "redberg2023"], dir.path());
    assert_eq!(code, 0, "{err}");
    let folder = dir.path().join("results/figures/redberg2023");
    for stem in ACCOUNTANT_FIGURES {
        for ext in ["png", "svg", "csv"] {
            let f = folder.join(format!("{stem}.{ext}"));
            assert!(f.is_file(), "{} missing; stdout: {out}", f.display());
            assert!(out.contains(&format!("{stem}.{ext}")), "{out}");
        }
    }
    assert!(!folder.join("fig2.png").exists() && !folder.join("tables.md").exists());
    assert!(
        err.contains("Figure 2 skipped") && err.contains("Tables 1-2 skipped"),
        "{err}"
    );
    assert!(err.contains("configs/redberg2023/adult.toml"), "{err}");
}

#[test]
fn figures_cli_plots_fig2_and_tables_from_results() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("res");
    // 10 trials at the mean ± 0.45918367, five each way: 1.96 · SE = 1.96 · 0.45918367/3 = 0.30.
    let methods = ["alg1", "dpsgd_dishonest", "dpsgd_honest"];
    fake_grid_run(
        &results.join("adult"),
        &redberg_config(&methods, "[0.1, 1.0, 8.0]", 10),
        |m, _, t| {
            let acc = match m {
                "alg1" => 83.0,
                "dpsgd_dishonest" => 84.0,
                _ => 82.0,
            };
            acc + if t % 2 == 0 {
                0.459_183_67
            } else {
                -0.459_183_67
            }
        },
    );
    let out_dir = dir.path().join("out");
    let (code, out, err) = run(
        &[
            "figures",
            "redberg2023",
            "--out",
            out_dir.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    for f in ["fig2.png", "fig2.svg", "fig2.csv", "tables.md"] {
        assert!(out_dir.join(f).is_file(), "{f} missing: {out}");
    }
    let md = std::fs::read_to_string(out_dir.join("tables.md")).unwrap();
    assert!(
        md.contains("| 1 | 84.00 ± 0.30 | 83.54 | 83.00 ± 0.30 | 83.18 | 82.00 ± 0.30 | 82.40 |"),
        "{md}"
    );
}

#[test]
fn figures_cli_rejects_an_unknown_paper() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["figures", "nosuchpaper"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("redberg2023"), "{err}");
}

#[test]
fn figures_cli_benchmark_without_runs_says_how_to_make_them() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["figures", "benchmark"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("paper = \"benchmark\"")
            && err.contains("configs/benchmark/adult-external.toml"),
        "{err}"
    );
    assert!(!dir.path().join("results/figures/benchmark").exists());
}
