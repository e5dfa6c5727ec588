//! The audit of Neel et al.'s OPDisc on the exact MIP oracle: replace-one pairs on the zero
//! base, each run one certified solve compared with the χ-bound's ε for its σ; a solve cut
//! short by the wall-clock cap stops the audit (its outcome would be the machine's) instead of
//! counting as an empty release.
#![cfg(feature = "mip")]

mod common;

use std::path::Path;

use common::show_audits as show;
use dp_bench::audit::table::Verdict;
use dp_bench::experiment::config::Config;

fn config(trials: u32, epsilon: f64, method: &str) -> Config {
    config_on("zeros", trials, epsilon, method)
}

fn config_on(base: &str, trials: u32, epsilon: f64, method: &str) -> Config {
    let text = format!(
        "seed = 3\ntrials = {trials}\nepsilons = [{epsilon:?}]\ndelta = \"1/n^2\"\n\
         [audit]\nbase = \"{base}\"\n\
         [dataset]\nname = \"adult-neel\"\nnormalize_rows = true\nbias = 0\n\
         test_fraction = 0\nsubsample = 200\n\
         [methods.o]\nkind = \"opdisc\"\n{method}"
    );
    Config::parse(&text, Path::new("audit.toml")).unwrap()
}

#[test]
fn opdisc_is_audited_against_its_chi_bound() {
    let cfg = config(
        300,
        64.0,
        "calibration = \"authors-code\"\nnode_limit = 5000\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dp_bench::audit::run(&cfg, dir.path(), false)
        .unwrap()
        .outcomes;
    show(&out);
    let o = &out[0];
    assert_eq!(
        (o.neighbours.as_str(), o.threat_model.as_str()),
        ("replace_one", "black-box")
    );
    // The authors' σ/2 certifies far more than its claim under the χ-bound.
    assert!(o.epsilon_certified > 2.0 * 64.0, "{o:?}");
    assert_eq!(o.failures, [0, 0], "{o:?}");
    assert_eq!(Verdict::of(o), Verdict::Consistent, "{o:?}");
    // The canary's penalty of 1 against σ ≈ 4 is seen: the runs are the solver's argmins.
    assert!(o.epsilon_lower > 0.0, "{o:?}");
}

#[test]
fn a_wall_clock_cap_stops_the_audit() {
    let cfg = config(20, 1.0, "wall_cap = 1e-9\n");
    let dir = tempfile::tempdir().unwrap();
    let Err(err) = dp_bench::audit::run(&cfg, &dir.path().join("r"), false) else {
        panic!("a capped solve is no outcome");
    };
    let msg = format!("{err:#}");
    assert!(
        msg.contains("not reproducible") && msg.contains("wall_cap"),
        "{msg}"
    );
    // The audit got as far as its results folder, and recorded nothing of the runs there.
    let r = dir.path().join("r");
    assert!(
        r.join("audits").is_dir(),
        "the audit stopped before its folder"
    );
    assert!(!r.join("audit.csv").exists() && !r.join("audit.md").exists());
    assert_eq!(std::fs::read_dir(r.join("audits")).unwrap().count(), 0);
}

/// A solve the node budget does not certify releases what a cell releases and carries no
/// guarantee, as a cell: one such run makes the audit's certified ε ∞. On the data's own rows
/// (the zero base's solves certify at the root) one node rarely proves optimality.
#[test]
fn an_uncertified_solve_certifies_nothing() {
    let cfg = config_on("data", 10, 8.0, "node_limit = 1\n");
    let dir = tempfile::tempdir().unwrap();
    let out = dp_bench::audit::run(&cfg, dir.path(), false)
        .unwrap()
        .outcomes;
    show(&out);
    assert_eq!(out[0].epsilon_certified, f64::INFINITY, "{:?}", out[0]);
}

/// OPDisc has neither an add/remove certificate (a one-run audit's relation) nor a white-box
/// view: both audits are refused before any run, naming the fix, and leave no folder.
#[test]
fn one_run_and_white_box_audits_are_refused() {
    for (setting, fix) in [
        (
            "test = \"one_run\"\ncanaries = 100\nguesses = 10",
            "audit.test = \"threshold\"",
        ),
        ("canary = \"gradient\"", "canary = \"rare_feature\""),
    ] {
        let text = format!(
            "seed = 3\ntrials = {}\nepsilons = [1.0]\ndelta = \"1/n^2\"\n\
             [audit]\n{setting}\n\
             [dataset]\nname = \"adult-neel\"\nnormalize_rows = true\nbias = 0\n\
             test_fraction = 0\nsubsample = 200\n\
             [methods.o]\nkind = \"opdisc\"\n",
            if setting.contains("one_run") { 1 } else { 2 }
        );
        let cfg = Config::parse(&text, Path::new("audit.toml")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path().join("r");
        let Err(err) = dp_bench::audit::run(&cfg, &r, false) else {
            panic!("{setting}: audited");
        };
        let msg = format!("{err:#}");
        assert!(msg.contains(fix), "{setting}: {msg}");
        assert!(!r.exists(), "{setting}: a folder was left");
    }
}
