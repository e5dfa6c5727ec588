//! A learner registered outside the crate (`Registry::with`, then installed for the process)
//! runs in shards, merges and reports through the same commands as a built-in one: merge
//! and report read the run's `config.toml` with the table the run used. Its own binary: the
//! installed table is process-wide.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use dp_bench::experiment::grid::Cell;
use dp_bench::methods::{
    CellOutcome, Context, Method, MethodEntry, Protocol, Registry, parse_table, test_accuracy,
};
use dp_core::accounting::{Bracket, Event, Target, calibrate};
use serde::{Deserialize, Serialize};

/// Releases θ = 0 plus Gaussian noise of a calibrated multiplier on a sensitivity-1 query
/// that it never uses: a real event, certified by the engine, whose cells are cheap.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct NoisyZero {}

#[derive(Serialize)]
struct Details {
    noise: f64,
}

impl Method for NoisyZero {
    fn kind(&self) -> &'static str {
        "noisy_zero"
    }

    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap()
    }

    fn protocol(&self) -> Protocol {
        Protocol {
            calibration: Some("certified"),
            ..Protocol::default()
        }
    }

    fn run(&self, ctx: &Context<'_>, cell: &Cell) -> anyhow::Result<CellOutcome> {
        let target = Target::new(cell.epsilon, ctx.cfg.delta)?;
        let bracket = Bracket {
            name: "noise multiplier",
            start: 1.0,
            lo: 0.0,
            hi: f64::INFINITY,
        };
        let z = calibrate(|| ctx.rdp.fresh(), Event::gaussian, target, bracket)?;
        let theta = vec![0.0; ctx.test.x.ncols()];
        Ok(CellOutcome::new(
            test_accuracy(ctx, &theta),
            Event::gaussian(z)?,
            &Details { noise: z },
        ))
    }
}

static ENTRY: MethodEntry = MethodEntry {
    kind: "noisy_zero",
    summary: "test learner",
    parse: |t| Ok(Box::new(parse_table::<NoisyZero>(t)?)),
};

fn dp_bench(args: &[&str]) -> ExitCode {
    let mut all: Vec<OsString> = vec!["dp-bench".into()];
    all.extend(args.iter().map(OsString::from));
    dp_bench::cli::main_with(all)
}

#[test]
fn an_own_learner_runs_in_shards_merges_and_reports() {
    Registry::builtin()
        .with(&ENTRY)
        .install()
        .expect("installed once");
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("own.toml");
    std::fs::write(
        &config,
        "seed = 1\ntrials = 2\nepsilons = [0.5, 2.0]\ndelta = 1e-5\n\
         [dataset]\nname = \"synthetic-l\"\n\
         [methods.mine]\nkind = \"noisy_zero\"\n[methods.floor]\nkind = \"constant\"\n",
    )
    .unwrap();
    let root = tmp.path().join("results");
    let out = root.join("own");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    for shard in ["0/2", "1/2"] {
        assert_eq!(
            dp_bench(&["run", c, "--out", o, "--quiet", "--shard", shard]),
            ExitCode::SUCCESS
        );
    }
    assert_eq!(dp_bench(&["merge", o]), ExitCode::SUCCESS);
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(summary.contains("mine"), "{summary}");
    let cells = std::fs::read_to_string(out.join("cells.csv")).unwrap();
    // Every cell of the learner is certified by the engine at most at its target.
    let header: Vec<&str> = cells.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mine: Vec<Vec<&str>> = cells
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[col("method")] == "mine")
        .collect();
    assert_eq!(mine.len(), 4);
    for r in &mine {
        let target: f64 = r[col("epsilon")].parse().unwrap();
        let eps: f64 = r[col("epsilon_accounted")].parse().unwrap();
        assert!(eps <= target && eps > 0.9 * target, "{eps} at {target}");
    }
    let page = tmp.path().join("page");
    let r = root.to_str().unwrap();
    assert_eq!(
        dp_bench(&["report", r, "--out", page.to_str().unwrap()]),
        ExitCode::SUCCESS
    );
    let html = std::fs::read_to_string(page.join("index.html")).unwrap();
    assert!(
        html.contains("noisy_zero") && html.contains("mine"),
        "the report lacks the learner"
    );
    assert!(Path::new(&page).join("runs/other/own/cells.csv").exists());
}
