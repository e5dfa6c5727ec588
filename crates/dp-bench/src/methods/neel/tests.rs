//! The MIP methods against their privacy contract on real data (balanced Adult, n = 300): a
//! solve the solver does not certify is never reported private, whatever is released; a
//! solver-certified OPDisc cell accounts the χ-bound's ε (above the target for the paper's σ,
//! at most the target for `chi`), RSPM's ε is stated, never accounted; reference methods run
//! once; a solve stopped by the wall clock fails its cell.

use std::path::Path;

use crate::experiment::config::Config;
use crate::experiment::grid::{Cell, expand};
use crate::methods::Prepared;

fn config(methods: &str) -> Config {
    config_at("0.5, 1.0", methods)
}

fn config_at(epsilons: &str, methods: &str) -> Config {
    let text = format!(
        r#"
seed = 7
trials = 2
epsilons = [{epsilons}]
delta = "1/n^2"
[dataset]
name = "adult-neel"
normalize_rows = false
bias = 0
test_fraction = 0
subsample = 300
{methods}
"#
    );
    Config::parse(&text, Path::new("neel-test.toml")).unwrap()
}

fn cell(cfg: &Config, method: &str, epsilon: f64) -> Cell {
    expand(cfg)
        .into_iter()
        .find(|c| c.method == method && c.epsilon == epsilon)
        .unwrap()
}

#[test]
fn uncertified_solves_are_never_reported_private() {
    // At a large ε the noise no longer dominates and a single node rarely proves optimality.
    let cfg = config_at(
        "8.0",
        r#"
[methods.refuse]
kind = "opdisc"
node_limit = 1
[methods.incumbent]
kind = "opdisc"
node_limit = 1
on_uncertified = "incumbent"
[methods.rspm_refuse]
kind = "rspm"
node_limit = 1
"#,
    );
    let prepared = Prepared::new(&cfg).unwrap();
    let ctx = prepared.context().unwrap();
    for name in ["refuse", "incumbent", "rspm_refuse"] {
        let mut uncertified = 0;
        for c in expand(&cfg).iter().filter(|c| c.method == name) {
            let out = crate::experiment::runner::run_cell(&ctx, c).unwrap();
            if out.details["solver_certified"] == true {
                continue;
            }
            uncertified += 1;
            assert_eq!(out.details["status"], "node budget reached", "{name}");
            assert_eq!(out.epsilon_accounted, f64::INFINITY, "{name}");
            assert!(out.details.get("epsilon_stated").is_none(), "{name}");
            let released = name == "incumbent";
            assert_eq!(out.details["released"], released, "{name}");
            if !released {
                // w = 0 predicts −1 everywhere: half of the balanced sample.
                assert_eq!(out.accuracy, 50.0, "{name}");
            }
        }
        assert!(uncertified > 0, "{name}: every solve certified at its root");
    }
}

#[test]
fn a_wall_clock_cap_fails_the_cell_loudly() {
    let cfg = config(
        r#"
[methods.capped]
kind = "opdisc"
wall_cap = 1e-9
"#,
    );
    let prepared = Prepared::new(&cfg).unwrap();
    let ctx = prepared.context().unwrap();
    let c = cell(&cfg, "capped", 1.0);
    let e = cfg.methods["capped"].method.run(&ctx, &c).unwrap_err();
    let msg = format!("{e:#}");
    assert!(
        msg.contains("not reproducible: wall-clock cap reached"),
        "{msg}"
    );
}

#[test]
fn solver_certified_opdisc_accounts_the_chi_bound_and_rspm_states_its_epsilon() {
    let cfg = config(
        r#"
[methods.paper]
kind = "opdisc"
[methods.chi]
kind = "opdisc"
calibration = "chi"
[methods.rspm]
kind = "rspm"
"#,
    );
    let prepared = Prepared::new(&cfg).unwrap();
    let ctx = prepared.context().unwrap();
    let run = |name: &str| {
        let c = cell(&cfg, name, 0.5);
        crate::experiment::runner::run_cell(&ctx, &c).unwrap()
    };
    let (paper, chi, rspm) = (run("paper"), run("chi"), run("rspm"));
    for (name, out) in [("paper", &paper), ("chi", &chi), ("rspm", &rspm)] {
        assert_eq!(
            out.details["solver_certified"], true,
            "{name}: {}",
            out.details
        );
    }
    // The paper's σ is certified only at a larger ε; the χ calibration at its target.
    assert!(
        paper.epsilon_accounted > 0.5 * 1.05,
        "{}",
        paper.epsilon_accounted
    );
    assert!(chi.epsilon_accounted <= 0.5, "{}", chi.epsilon_accounted);
    assert!(chi.epsilon_accounted > 0.5 * (1.0 - 1e-6));
    assert!(chi.details["noise"].as_f64() > paper.details["noise"].as_f64());
    // NRW18's ε is stated, not accounted: no summary may show it as certified.
    assert_eq!(rspm.epsilon_accounted, f64::INFINITY);
    assert_eq!(rspm.details["epsilon_stated"], 0.5);
    assert!(paper.details.get("epsilon_stated").is_none());
    // A certified argmin is a function of (data, η): the same cell gives the same model.
    assert_eq!(run("paper").details["w"], paper.details["w"]);
}

#[test]
fn reference_methods_run_once() {
    let cfg = config(
        r#"
[methods.lr]
kind = "logreg_erm"
[methods.zero_one]
kind = "zero_one_erm"
[methods.rspm]
kind = "rspm"
"#,
    );
    let cells = expand(&cfg);
    let count = |m: &str| cells.iter().filter(|c| c.method == m).count();
    assert_eq!((count("lr"), count("zero_one"), count("rspm")), (1, 1, 4));
}

#[test]
fn bad_keys_name_themselves() {
    for (table, needle) in [
        ("kind = \"opdisc\"\ntime_limit = 10", "node_limit"),
        ("kind = \"opdisc\"\nnode_limit = 0", "node_limit"),
        ("kind = \"rspm\"\nwall_cap = 0", "wall_cap"),
        ("kind = \"opdisc\"\nbound = 0", "bound"),
        ("kind = \"opdisc\"\ncalibration = \"loose\"", "loose"),
        ("kind = \"rspm\"\nsigma = 3", "sigma"),
        ("kind = \"opdisc\"\non_timeout = \"maybe\"", "maybe"),
        ("kind = \"rspm\"\non_uncertified = \"maybe\"", "maybe"),
    ] {
        let text = format!(
            "seed = 1\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-6\n[dataset]\nname = \"adult-neel\"\n[methods.m]\n{table}\n"
        );
        let e = Config::parse(&text, Path::new("x.toml")).unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains(needle) && msg.contains("methods.m"), "{msg}");
    }
}
