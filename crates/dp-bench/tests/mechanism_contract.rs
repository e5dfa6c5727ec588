//! The method contract, run against every kind in `METHODS` (a kind added to the table fails
//! [`every_method_kind_is_covered`] until it has a case here): a cell run twice gives the same
//! outcome; its `epsilon_accounted` is what the kind promises (≤ the target for a certified
//! calibration, ∞ for a release without an accounted guarantee, 0 for the constant); and
//! `Method::mechanism` either gives the one mechanism a cell runs, whose event the accountants
//! certify at the target, or says why the kind is not one mechanism.

use std::path::Path;

use dp_bench::experiment::config::Config;
use dp_bench::experiment::grid::expand;
use dp_bench::methods::{METHODS, Prepared};

/// What a kind's `epsilon_accounted` must be at its target ε.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Guarantee {
    /// Certified at most the target (calibrations may use a looser accountant than the
    /// tightest one that certifies the cell, so it can be well below).
    Certified,
    /// The paper's own calibration: a finite ε, which may exceed the target.
    Paper,
    /// No accounted guarantee: ∞.
    None,
    /// Releases a constant: 0.
    Zero,
    /// Has no cell (SVT releases no model): a cell and its target check are refused, naming
    /// `dp-bench audit`; its mechanism is certified at most the target.
    AuditOnly,
}

/// One case: a kind, its table, the data it runs on and what it promises.
struct Case {
    kind: &'static str,
    table: &'static str,
    data: &'static str,
    guarantee: Guarantee,
    /// Whether `Method::mechanism` gives one mechanism for this table.
    one_mechanism: bool,
}

const GLM: &str = "name = \"synthetic-l\"\nnormalize_rows = true\nbias = 1.0\nsubsample = 400";
const ROWS: &str = "name = \"synthetic-l\"\nnormalize_rows = false\nbias = 0\nsubsample = 400";
const NEEL: &str =
    "name = \"adult-neel\"\nnormalize_rows = false\nbias = 0\ntest_fraction = 0\nsubsample = 60";

const CASES: &[Case] = &[
    Case {
        kind: "alg1",
        table: "",
        data: GLM,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "dpsgd",
        table: "tuning = \"dishonest\"\nepochs = 1\nbatch_size = 64\ngrid_size = 1\nlr_min = 0.1\nlr_max = 0.1",
        data: GLM,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "np",
        table: "",
        data: ROWS,
        guarantee: Guarantee::None,
        one_mechanism: false,
    },
    Case {
        kind: "amp",
        table: "calibration = \"certified\"\neps_frac = [0.9]\neps_out_frac = [0.01]\nrow_clip = [1.0]",
        data: ROWS,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "amp_hf",
        table: "calibration = \"certified\"",
        data: ROWS,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "psgd",
        table: "lambda = [0.0]\nlr = [0.1]\nsteps = [50]\nradius = [0]\nrow_clip = [1.0]",
        data: ROWS,
        guarantee: Guarantee::Paper,
        one_mechanism: true,
    },
    Case {
        kind: "ppsgd",
        table: "calibration = \"certified\"\nlambda = [0.001]\nlr = [0.1]\npasses = [1]\nrow_clip = [1.0]",
        data: ROWS,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "pscpsgd",
        table: "calibration = \"certified\"\nlambda = [0.001]\npasses = [1]\nradius = [10]\nrow_clip = [1.0]",
        data: ROWS,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "pfw",
        table: "calibration = \"certified\"\nsteps = [20]\nl1_radius = [100]\nlinf_clip = [0.1]",
        data: ROWS,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "opdisc",
        table: "calibration = \"chi\"\nnode_limit = 200\nwall_cap = 300",
        data: NEEL,
        guarantee: Guarantee::Certified,
        one_mechanism: true,
    },
    Case {
        kind: "rspm",
        table: "node_limit = 200\nwall_cap = 300",
        data: NEEL,
        guarantee: Guarantee::None,
        one_mechanism: false,
    },
    Case {
        kind: "opsamp",
        table: "",
        data: NEEL,
        guarantee: Guarantee::None,
        one_mechanism: false,
    },
    Case {
        kind: "zero_one_erm",
        table: "node_limit = 2000\nwall_cap = 300",
        data: NEEL,
        guarantee: Guarantee::None,
        one_mechanism: false,
    },
    Case {
        kind: "logreg_erm",
        table: "",
        data: NEEL,
        guarantee: Guarantee::None,
        one_mechanism: false,
    },
    // NumPy DP-SGD as an outside learner (examples/python; needs numpy): calibrated by the
    // worker, certified by our accountants from its declared event.
    Case {
        kind: "external",
        table: "command = [\"python3\", \"$WORKSPACE/examples/python/numpy_dpsgd.py\"]\n\
                relation = \"add_remove\"\nhyperparameters = { epochs = 2, batch_size = 50 }",
        data: GLM,
        guarantee: Guarantee::Certified,
        // Its fixed hyperparameters are one mechanism: `dp-bench audit` runs its fits.
        one_mechanism: true,
    },
    Case {
        kind: "constant",
        table: "",
        data: GLM,
        guarantee: Guarantee::Zero,
        one_mechanism: false,
    },
    Case {
        kind: "svt",
        table: "calibration = \"certified\"\ncutoff = 1.5\nd = \"0011\"\nd_prime = \"1100\"",
        data: ROWS,
        guarantee: Guarantee::AuditOnly,
        one_mechanism: true,
    },
];

const EPSILON: f64 = 2.0;

fn config(case: &Case) -> Config {
    let text = format!(
        "seed = 5\ntrials = 1\nepsilons = [{EPSILON}]\ndelta = 1e-5\n\n[dataset]\n{}\n\n\
         [methods.m]\nkind = \"{}\"\n{}\n",
        case.data,
        case.kind,
        case.table
            .replace("$WORKSPACE", concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    );
    Config::parse(&text, Path::new("contract.toml"))
        .unwrap_or_else(|e| panic!("{}: {e:#}", case.kind))
}

#[test]
fn every_method_kind_is_covered() {
    for m in METHODS {
        assert!(
            CASES.iter().any(|c| c.kind == m.kind),
            "method kind {:?} has no case in tests/mechanism_contract.rs: add one (its table, its \
             data and what its epsilon_accounted promises)",
            m.kind
        );
    }
}

#[test]
fn every_method_keeps_the_contract() {
    if std::env::var_os("DPBENCH_DATA_MIRROR").is_none() {
        eprintln!("DPBENCH_DATA_MIRROR unset: the Neel cases may try to download");
    }
    for case in CASES
        .iter()
        .filter(|c| METHODS.iter().any(|m| m.kind == c.kind))
    {
        let cfg = config(case);
        let prepared = Prepared::new(&cfg).unwrap();
        let ctx = prepared.context().unwrap();
        let method = &cfg.methods["m"].method;
        let cell = expand(&cfg).into_iter().next().expect("one cell");
        if case.guarantee == Guarantee::AuditOnly {
            for err in [
                method.run(&ctx, &cell).unwrap_err(),
                method.check_target(&ctx, cell.epsilon).unwrap_err(),
            ] {
                assert!(format!("{err:#}").contains("dp-bench audit"), "{err:#}");
            }
            let audited = method.mechanism(&ctx, cell.epsilon).unwrap();
            let certified = ctx.certify(&audited.event).unwrap();
            assert!(certified <= cell.epsilon * (1.0 + 1e-12), "{certified}");
            assert!(case.one_mechanism);
            continue;
        }
        let a = method.run(&ctx, &cell).unwrap();
        let b = method.run(&ctx, &cell).unwrap();
        assert_eq!(a, b, "{}: one cell, two outcomes", case.kind);
        let eps = ctx.certify(&a.event).unwrap();
        let target = cell.epsilon;
        match case.guarantee {
            Guarantee::Certified => {
                assert!(
                    eps <= target,
                    "{}: accounted {eps} > target {target}",
                    case.kind
                );
                assert!(eps > 0.0, "{}: accounted {eps}", case.kind);
            }
            Guarantee::Paper => assert!(
                eps.is_finite() && eps > 0.0,
                "{}: {eps} ({})",
                case.kind,
                a.details
            ),
            Guarantee::None => assert_eq!(eps, f64::INFINITY, "{}", case.kind),
            Guarantee::Zero => assert_eq!(eps, 0.0, "{}", case.kind),
            Guarantee::AuditOnly => unreachable!("audit-only kinds have no cell"),
        }
        assert!(
            (0.0..=100.0).contains(&a.accuracy),
            "{}: {}",
            case.kind,
            a.accuracy
        );
        match method.mechanism(&ctx, target) {
            Ok(audited) => {
                assert!(case.one_mechanism, "{}: now one mechanism", case.kind);
                let certified = ctx.certify(&audited.event).unwrap();
                if case.guarantee != Guarantee::Paper {
                    assert!(
                        certified <= target,
                        "{}: its mechanism's event certifies {certified} > {target}",
                        case.kind
                    );
                }
            }
            Err(e) => assert!(
                !case.one_mechanism,
                "{}: expected one mechanism, got: {e:#}",
                case.kind
            ),
        }
    }
}
