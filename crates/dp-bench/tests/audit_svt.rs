//! The sparse vector technique (`kind = "svt"`) through `dp_bench::audit::run` and the CLI:
//! the paper's closed form is refuted for a fractional cutoff on the auditor's answers, the
//! certified calibration is not, each reaches most of its exact ceiling; a grid naming it and
//! audits with another canary are refused before anything runs.

mod common;

use std::path::Path;

use common::{audit_builtin as audit, code_out_err, dp_bench, show_audits as show};
use dp_bench::audit::table::Verdict;
use dp_bench::experiment::config::Config;
use dp_bench::methods::Registry;

const DATASET: &str = "[dataset]\nname = \"synthetic-l\"\nsubsample = 2\n";
const PAIR: &str = "cutoff = 1.01\nd = \"0000000000000011\"\nd_prime = \"1111111111111100\"\n";

#[test]
fn the_paper_calibration_of_a_fractional_cutoff_is_refuted_and_the_certified_one_is_not() {
    let out = audit(&format!(
        "seed = 3\ntrials = 400000\nepsilons = [4.0]\ndelta = 1e-5\n\
         [audit]\ncanary = \"queries\"\n{DATASET}\
         [methods.paper]\nkind = \"svt\"\ncalibration = \"paper\"\n{PAIR}\
         [methods.certified]\nkind = \"svt\"\ncalibration = \"certified\"\n{PAIR}"
    ));
    show(&out);
    let by = |m: &str| out.iter().find(|o| o.method == m).unwrap();
    let (paper, certified) = (by("paper"), by("certified"));
    // Two positives released, 1.01 paid for: the certificate is 1.6 times the claim, and
    // the exact likelihood ratio of the released vector passes the claim.
    assert!(
        paper.epsilon_certified > 1.5 * paper.epsilon_target,
        "{paper:?}"
    );
    assert_eq!(Verdict::of(paper), Verdict::ClaimRefuted, "{paper:?}");
    assert_eq!(Verdict::of(certified), Verdict::Consistent, "{certified:?}");
    for o in [paper, certified] {
        assert_eq!(
            (o.threat_model.as_str(), o.statistic.as_str()),
            ("black-box", "threshold")
        );
        let top = o.epsilon_ceiling.expect("the pair's exact curve");
        assert!(top < o.epsilon_certified, "{o:?}");
        assert!(o.epsilon_lower >= 0.8 * top, "{o:?}");
    }
}

#[test]
fn svt_is_refused_where_it_has_nothing_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let svt = format!("[methods.svt]\nkind = \"svt\"\ncalibration = \"paper\"\n{PAIR}");
    let cases = [
        // A grid: SVT has no cell.
        ("run", String::new(), "dp-bench audit"),
        // A data canary: SVT trains on no rows.
        ("audit", "[audit]\n".to_string(), "queries"),
        // A gradient canary: SVT has no steps.
        (
            "audit",
            "[audit]\ncanary = \"gradient\"\n".to_string(),
            "queries",
        ),
    ];
    for (i, (command, audit, expect)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("c{i}.toml"));
        std::fs::write(
            &path,
            format!("seed = 1\ntrials = 10\nepsilons = [1.0]\ndelta = 1e-5\n{audit}{DATASET}{svt}"),
        )
        .unwrap();
        let out = dir.path().join(format!("out{i}"));
        let o = dp_bench(&[
            command,
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let (code, _, err) = code_out_err(&o);
        assert_ne!(code, 0, "{command} {audit:?}: {err}");
        assert!(err.contains(expect), "{command} {audit:?}: {err}");
        assert!(!out.exists(), "{command} {audit:?} left {}", out.display());
    }
    // The queries canary on a learner with no such view.
    let path = dir.path().join("dpsgd.toml");
    std::fs::write(
        &path,
        format!(
            "seed = 1\ntrials = 10\nepsilons = [1.0]\ndelta = 1e-5\n[audit]\ncanary = \
             \"queries\"\n{DATASET}[methods.d]\nkind = \"dpsgd\"\ntuning = \"dishonest\"\n\
             grid_size = 1\nlr_min = 1.0\nlr_max = 1.0\nepochs = 1\nbatch_size = 2\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("out-dpsgd");
    let o = dp_bench(&[
        "audit",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let (code, _, err) = code_out_err(&o);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("gradient"), "{err}");
    assert!(!out.exists());
}

#[test]
fn bad_answer_strings_are_refused_naming_the_key() {
    let cases = [
        ("d = \"0012\"", "d`"),
        ("d = \"\"", "d`"),
        ("d = \"0000000000000000000000000\"", "d`"),
        ("d = \"001\"", "d_prime`"),
    ];
    for (d, key) in cases {
        let text = format!(
            "seed = 1\ntrials = 10\nepsilons = [1.0]\ndelta = 1e-5\n[audit]\ncanary = \
             \"queries\"\n{DATASET}[methods.s]\nkind = \"svt\"\ncalibration = \"paper\"\n\
             cutoff = 2.0\n{d}\nd_prime = \"0000\"\n"
        );
        let err = Config::parse_with(&text, Path::new("a.toml"), &Registry::builtin()).unwrap_err();
        assert!(format!("{err:#}").contains(key), "{d}: {err:#}");
    }
}
