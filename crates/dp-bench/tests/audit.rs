//! The audit as a test: measured lower bounds on ε never exceed the certified ε for the fast
//! mechanisms, and the same audit catches a mechanism whose noise is halved while its event
//! still claims the full noise (so the audit can fail).
//!
//! The broken mechanism is a researcher's kind registered beside the built-ins (the route any
//! outside learner takes): the Gaussian mechanism on Σᵢ yᵢxᵢ over unit rows, add/remove
//! sensitivity 1, audited along the canary's feature.

mod common;

use std::ffi::OsStr;
use std::path::Path;

use common::{assert_success, dp_bench, show_audits as show, stderr};

use dp_bench::audit::table::Verdict;
use dp_bench::experiment::config::Config;
use dp_bench::experiment::grid::Cell;
use dp_bench::methods::audited::{Audited, Fixed};
use dp_bench::methods::{CellOutcome, Context, Method, MethodEntry, Registry, parse_table};
use dp_core::accounting::Event;
use dp_core::accounting::event::Neighbours;
use dp_core::learn::{GlmData, Mechanism};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

/// θ = Σᵢ yᵢxᵢ + N(0, (σ·noise_scale)²I), declaring the Gaussian event of σ.
struct NoisySum {
    sigma: f64,
    noise_scale: f64,
}

impl Mechanism for NoisySum {
    type Report = ();
    fn name(&self) -> &'static str {
        "noisy_sum"
    }
    fn event(&self) -> Event {
        Event::Gaussian {
            noise_multiplier: self.sigma,
        }
    }
    fn fit(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, ())> {
        let mut theta = vec![0.0; data.d()];
        data.x().t_matvec(data.y(), &mut theta);
        let mut rng = StdRng::seed_from_u64(seed);
        let sd = self.sigma * self.noise_scale;
        theta
            .iter_mut()
            .for_each(|t| *t += sd * rng.sample::<f64, _>(StandardNormal));
        Ok((theta, ()))
    }
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct NoisySumConfig {
    /// 1 is the honest mechanism; 0.5 the bug.
    noise_scale: f64,
}

impl Method for NoisySumConfig {
    fn kind(&self) -> &'static str {
        "noisy_sum"
    }
    fn params(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap()
    }
    fn run(&self, _: &Context<'_>, _: &Cell) -> anyhow::Result<CellOutcome> {
        anyhow::bail!("only audited here")
    }
    fn mechanism<'c>(&'c self, ctx: &Context<'c>, epsilon: f64) -> anyhow::Result<Audited<'c>> {
        // Unit rows, no bias: adding a row moves Σ yᵢxᵢ by at most 1.
        anyhow::ensure!(ctx.train.max_row_norm() <= 1.0 + 1e-12);
        let sigma = dp_core::accounting::gaussian::sigma(epsilon, ctx.cfg.delta, 1.0)?;
        let mech = NoisySum {
            sigma,
            noise_scale: self.noise_scale,
        };
        Ok(Audited {
            event: mech.event(),
            label: format!("sigma={sigma}"),
            release: Box::new(Fixed(mech)),
            clip: None,
            neighbours: Neighbours::AddRemove,
            certificate: Neighbours::AddRemove,
            white_box: None,
        })
    }
}

static NOISY_SUM: MethodEntry = MethodEntry {
    kind: "noisy_sum",
    summary: "test: Gaussian mechanism on the label-weighted row sum",
    parse: |t| Ok(Box::new(parse_table::<NoisySumConfig>(t)?)),
};

fn audit(text: &str) -> Vec<dp_bench::audit::Outcome> {
    common::audit_with(text, &Registry::builtin().with(&NOISY_SUM))
}

const DATASET: &str = "[dataset]\nname = \"synthetic-l\"\nsubsample = 200\nbias = 0\n";

#[test]
fn halved_noise_is_caught_and_the_honest_mechanism_passes() {
    let out = audit(&format!(
        "seed = 5\ntrials = 60000\nepsilons = [2.0]\ndelta = 1e-5\n[audit]\n{DATASET}\
         [methods.honest]\nkind = \"noisy_sum\"\nnoise_scale = 1.0\n\
         [methods.halved]\nkind = \"noisy_sum\"\nnoise_scale = 0.5\n"
    ));
    show(&out);
    let by = |m: &str| out.iter().find(|o| o.method == m).unwrap();
    let (honest, halved) = (by("honest"), by("halved"));
    assert!((honest.epsilon_certified - 2.0).abs() < 1e-3, "{honest:?}");
    assert_eq!(Verdict::of(honest), Verdict::Consistent, "{honest:?}");
    assert!(
        honest.epsilon_lower > 0.5,
        "the audit has no power: {honest:?}"
    );
    assert_eq!(Verdict::of(halved), Verdict::Violation, "{halved:?}");
    // The ceiling: a Gaussian certified at ε = 2 with 30,000 evaluation runs per side sits
    // between audit.md §6's 10⁴ and 10⁵ columns (0.93, 1.29). A threshold on the sum is the
    // likelihood-ratio test of a Gaussian shift, so the honest audit reaches most of it.
    let ceiling = honest
        .epsilon_ceiling
        .expect("a certified audit has a ceiling");
    assert!(ceiling > 0.93 && ceiling < 1.29, "{honest:?}");
    assert!(honest.epsilon_lower > 0.8 * ceiling, "{honest:?}");
}

#[test]
fn the_fast_learners_never_measure_above_their_certificates() {
    let out = audit(&format!(
        "seed = 6\ntrials = 3000\nepsilons = [1.0, 8.0]\ndelta = 1e-5\n[audit]\n{DATASET}\
         [methods.alg1]\nkind = \"alg1\"\n\
         [methods.dpsgd]\nkind = \"dpsgd\"\ntuning = \"dishonest\"\ngrid_size = 1\n\
         epochs = 2\nbatch_size = 50\noptimizer = \"sgd\"\nlr_min = 1.0\nlr_max = 1.0\n"
    ));
    show(&out);
    assert_eq!(out.len(), 4);
    for o in &out {
        assert_ne!(Verdict::of(o), Verdict::Violation, "{o:?}");
        assert!(
            o.epsilon_lower.is_finite() && o.epsilon_lower >= 0.0,
            "{o:?}"
        );
    }
    // At ε = 8 the canary is visible: the audit measures something, not a vacuous 0.
    let strong = out.iter().filter(|o| o.epsilon_target == 8.0);
    assert!(strong.clone().any(|o| o.epsilon_lower > 0.5), "{out:?}");
}

/// Prints the outcomes (run with `--nocapture` to see what the audits measure).
/// The command line: `dp-bench audit` and `dp-bench run` run an audit config, write its
/// tables and refuse what is not one.
#[test]
fn the_cli_runs_audits_and_refuses_grids() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let audit = write(
        "a.toml",
        &format!(
            "seed = 1\ntrials = 200\nepsilons = [2.0]\ndelta = 1e-5\n[audit]\n{DATASET}\
             [methods.alg1]\nkind = \"alg1\"\n"
        ),
    );
    let grid = write(
        "g.toml",
        &format!(
            "seed = 1\ntrials = 1\nepsilons = [2.0]\ndelta = 1e-5\n{DATASET}[methods.np]\nkind = \"np\"\n"
        ),
    );
    let out = dir.path().join("out");
    let quietly = |verb: &str| {
        dp_bench(&[
            verb.as_ref(),
            audit.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
        ])
    };
    assert_success(&quietly("audit"));
    let csv = std::fs::read_to_string(out.join("audit.csv")).unwrap();
    assert!(
        csv.starts_with("method,kind,calibration,neighbours,certificate,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(out.join("audit.md").is_file() && out.join("provenance.json").is_file());
    // `dp-bench run` runs it too, reusing the stored outcome.
    let o = quietly("run");
    let err = stderr(&o);
    assert!(
        o.status.success() && err.contains("(0 run now, 1 reused)"),
        "{err}"
    );
    // An edited config (ε 2 → 3): the old outcome is set aside, the tables and figures show
    // only this config's audits.
    std::fs::write(
        &audit,
        std::fs::read_to_string(&audit)
            .unwrap()
            .replace("[2.0]", "[3.0]"),
    )
    .unwrap();
    assert_success(&quietly("audit"));
    assert!(out.join("audits/alg1@3.json").is_file());
    assert!(!out.join("audits/alg1@2.json").exists());
    assert!(out.join("audits/stale/alg1@2.json").is_file());
    let loaded = dp_bench::papers::audit::load(&out).unwrap();
    assert_eq!(
        loaded.iter().map(|a| a.epsilon_target).collect::<Vec<_>>(),
        [3.0]
    );
    // A grid is not an audit.
    let o = dp_bench(&["audit".as_ref(), grid.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an audit config"));
    // Refused before any run: exit 2 and no results folder; returns the message.
    let refused = |cfg: &Path, out: &str| {
        let out = dir.path().join(out);
        let o = dp_bench(&[
            OsStr::new("audit"),
            cfg.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(!out.exists());
        err
    };
    // A method that is not one mechanism is refused before any run, naming it.
    let bad = write(
        "b.toml",
        &format!(
            "seed = 1\ntrials = 10\nepsilons = [2.0]\ndelta = 1e-5\n[audit]\n{DATASET}\
             [methods.tuned]\nkind = \"dpsgd\"\ntuning = \"honest\"\n"
        ),
    );
    let err = refused(&bad, "out2");
    assert!(
        err.contains("`methods.tuned` at ε = 2") && err.contains("grid_size = 1"),
        "{err}"
    );
    // A one-run audit of a replace-one mechanism is refused before anything is written too.
    let replace_one = write(
        "r.toml",
        &format!(
            "seed = 1\ntrials = 1\nepsilons = [2.0]\ndelta = 1e-5\n[audit]\ntest = \"one_run\"\n\
             {DATASET}[methods.p]\nkind = \"ppsgd\"\nlambda = [0.001]\nlr = [0.1]\npasses = [2]\n\
             row_clip = [1.0]\n"
        ),
    );
    let err = refused(&replace_one, "out3");
    assert!(
        err.contains("`methods.p` at ε = 2") && err.contains("replace_one"),
        "{err}"
    );
}

/// The one-run audit: one training run with 1,000 canaries bounds the honest mechanism below
/// its certificate and catches one whose noise is a hundredth of what its event claims.
#[test]
fn the_one_run_audit_passes_honest_noise_and_catches_a_tiny_one() {
    let out = audit(&format!(
        "seed = 8\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-5\n\
         [audit]\ntest = \"one_run\"\ncanaries = 1000\nguesses = 100\n{DATASET}\
         [methods.honest]\nkind = \"noisy_sum\"\nnoise_scale = 1.0\n\
         [methods.broken]\nkind = \"noisy_sum\"\nnoise_scale = 0.01\n"
    ));
    show(&out);
    let by = |m: &str| out.iter().find(|o| o.method == m).unwrap();
    let (honest, broken) = (by("honest"), by("broken"));
    assert_eq!(Verdict::of(honest), Verdict::Consistent, "{honest:?}");
    let guesses = broken.one_run.as_ref().unwrap();
    assert_eq!((guesses.canaries, guesses.guesses), (1000, 200));
    assert_eq!(guesses.correct, 200, "{broken:?}");
    assert_eq!(Verdict::of(broken), Verdict::Violation, "{broken:?}");
    // Each row's ceiling reads its own certificate's curve: the honest Gaussian's (μ = 1 at
    // ε = 1 sees a few right guesses more than chance), the broken one's claimed one alike.
    let top = honest
        .epsilon_ceiling
        .expect("a certified one-run audit has a ceiling");
    assert!(top > 0.0 && top < honest.epsilon_certified, "{honest:?}");
    assert_eq!(broken.epsilon_ceiling, Some(top), "{broken:?}");
}

/// Inputs that used to pass validation and fail after every run (`trials = 1` of a threshold
/// audit, `confidence = 1e-300`, a method name too long for a file name) or ask for more than
/// memory holds are refused before anything runs or is written: exit 2, one line naming the
/// key, the value and the limit.
#[test]
fn the_cli_refuses_audits_that_would_fail_mid_run() {
    let dir = tempfile::tempdir().unwrap();
    let method = |name: &str| format!("[methods.{name}]\nkind = \"alg1\"\n");
    let cases = [
        (
            "trials = 1",
            "",
            method("alg1"),
            vec!["`trials` = 1", ">= 2"],
        ),
        (
            "trials = 4000000000",
            "",
            method("alg1"),
            vec!["`trials` = 4000000000", "2000000"],
        ),
        (
            "trials = 2",
            "confidence = 1e-300\n",
            method("alg1"),
            vec!["`audit.confidence` = 1e-300 ", "[0.5, 1)"],
        ),
        (
            "trials = 1",
            "test = \"one_run\"\ncanaries = 100001\n",
            method("alg1"),
            vec!["`audit.canaries` = 100001", "100000"],
        ),
        (
            "trials = 1",
            "test = \"one_run\"\ncanary = \"gradient\"\n",
            // Objective perturbation's white-box view carries one canary per run.
            format!("{}loss = \"huber\"\n", method("alg1")),
            vec![
                "`audit.canary` = \"gradient\"",
                "audit.test = \"threshold\"",
            ],
        ),
        (
            "trials = 1",
            "test = \"one_run\"\ncanary = \"gradient\"\n",
            // 60,000 steps × 1,000 canaries of noisy sums kept: over the limit.
            "[methods.d]\nkind = \"dpsgd\"\ntuning = \"dishonest\"\ngrid_size = 1\n\
             epochs = 300\nbatch_size = 1\n"
                .to_string(),
            vec![
                "`audit.canaries` = 1000",
                "50000000",
                "use at most 833 canaries",
            ],
        ),
        (
            "trials = 1",
            "test = \"one_run\"\ncanary = \"gradient\"\n",
            // P-FW's white-box view moves every vertex score: one canary per run.
            "[methods.pfw]\nkind = \"pfw\"\ncalibration = \"certified\"\nsteps = [10]\nl1_radius = [100]\nlinf_clip = [0.1]\n"
                .to_string(),
            vec![
                "`methods.pfw`",
                "carries 1 per run",
                "audit.test = \"threshold\"",
            ],
        ),
        (
            "trials = 100",
            "canary = \"gradient\"\n",
            // AMP on the logistic loss has no white-box view: refused, naming the ones that
            // exist.
            "[methods.amp]\nkind = \"amp\"\ncalibration = \"certified\"\neps_frac = [0.9]\n\
             eps_out_frac = [0.01]\nrow_clip = [1.0]\n"
                .to_string(),
            vec!["P-FW's vertices", "canary = \"rare_feature\""],
        ),
        // The general name limit or the audit's file-name limit, whichever comes first.
        ("trials = 2", "", method(&"m".repeat(300)), vec!["method"]),
    ];
    for (i, (trials, audit, methods, wants)) in cases.iter().enumerate() {
        let config = dir.path().join(format!("c{i}.toml"));
        std::fs::write(
            &config,
            format!(
                "seed = 1\n{trials}\nepsilons = [2.0]\ndelta = 1e-5\n[audit]\n{audit}{DATASET}{methods}"
            ),
        )
        .unwrap();
        let out = dir.path().join(format!("out{i}"));
        let o = dp_bench(&[
            "audit".as_ref(),
            config.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "case {i}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "case {i}: {err}");
        for w in wants {
            assert!(err.contains(w), "case {i}: {w:?} missing from {err}");
        }
        assert!(!out.exists(), "case {i} wrote {}", out.display());
    }
}

/// The white-box audit (`canary = "gradient"`) of full-batch DP-SGD: the GDP estimate on the
/// likelihood-ratio statistic of every step's noisy sum reaches most of its certificate and of its
/// ceiling with 4,000 runs per side, and so do Poisson batches tested against their own family and
/// Algorithm 1's minimiser seen before its output noise; a mechanism with no white-box view
/// (Algorithm 1 on the logistic loss) is refused before any run.
#[test]
fn the_white_box_audit_reaches_dpsgds_certificate() {
    let dpsgd = "kind = \"dpsgd\"\ntuning = \"dishonest\"\ngrid_size = 1\noptimizer = \"sgd\"\n\
                 lr_min = 1.0\nlr_max = 1.0\nepochs = 10\n";
    let out = audit(&format!(
        "seed = 9\ntrials = 4000\nepsilons = [4.0]\ndelta = 1e-5\n\
         [audit]\ncanary = \"gradient\"\n{DATASET}\
         [methods.full]\n{dpsgd}batch_size = 200\n\
         [methods.sampled]\n{dpsgd}batch_size = 20\n\
         [methods.alg1]\nkind = \"alg1\"\nloss = \"huber\"\n"
    ));
    show(&out);
    let by = |m: &str| out.iter().find(|o| o.method == m).unwrap();
    let (full, sampled, alg1) = (by("full"), by("sampled"), by("alg1"));
    for o in [full, sampled, alg1] {
        assert_eq!(o.threat_model, "white-box");
        assert_eq!(Verdict::of(o), Verdict::Consistent, "{o:?}");
        let ceiling = o.epsilon_ceiling.expect("a ceiling");
        assert!(ceiling <= o.epsilon_certified, "{o:?}");
        assert!(o.epsilon_lower >= 0.7 * ceiling, "{o:?}");
    }
    assert_eq!(
        (
            full.statistic.as_str(),
            sampled.statistic.as_str(),
            alg1.statistic.as_str()
        ),
        ("gdp", "fdp", "gdp")
    );
    assert!(
        full.epsilon_lower >= 0.5 * full.epsilon_certified,
        "{full:?}"
    );
    // Poisson batches, tested against their own family: over half the certificate too, and
    // above the Clopper-Pearson threshold bound of the same counts.
    assert!(
        sampled.epsilon_lower >= 0.5 * sampled.epsilon_certified,
        "{sampled:?}"
    );
    let t = sampled.test.as_ref().unwrap();
    let counts = dp_core::audit::Counts {
        false_positives: t.false_positives,
        negatives: t.negatives,
        false_negatives: t.false_negatives,
        positives: t.positives,
    };
    let gamma = 1.0 - sampled.confidence;
    let plain = dp_core::audit::threshold::epsilon_lower_bound(counts, 1e-5, gamma).unwrap();
    assert!(
        sampled.epsilon_lower > 1.2 * plain,
        "{sampled:?}: threshold {plain}"
    );
    // Rows of norm 1 here: the canary's gradient is 1 of the clipping bound √2 the
    // certificate allows for, so Algorithm 1 is held to its ceiling only.
    assert!(alg1.epsilon_ceiling.unwrap() < 0.5 * alg1.epsilon_certified);

    let registry = Registry::builtin().with(&NOISY_SUM);
    let text = format!(
        "seed = 1\ntrials = 100\nepsilons = [1.0]\ndelta = 1e-5\n[audit]\ncanary = \"gradient\"\n\
         {DATASET}[methods.alg1]\nkind = \"alg1\"\n"
    );
    let cfg = Config::parse_with(&text, Path::new("audit.toml"), &registry).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let err = format!(
        "{:#}",
        dp_bench::audit::run(&cfg, &dir.path().join("r"), false)
            .err()
            .unwrap()
    );
    assert!(
        err.contains("white-box") && err.contains("rare_feature") && err.contains("huber"),
        "{err}"
    );
    assert!(
        !dir.path().join("r").exists(),
        "a refused audit left a folder"
    );
}

/// The white-box one-run audit: 1,000 gradient canaries in one full-batch DP-SGD run, whose
/// view is exactly Gaussian, tested against the Gaussian curve (Mahloujifar et al.); a
/// sampled run, whose view is not, against its own family, with the Gaussian family's number
/// as an estimate. Full-batch P-SGD's view is Gaussian too.
#[test]
fn the_white_box_one_run_audit_tests_the_gaussian_curve() {
    let dpsgd = "kind = \"dpsgd\"\ntuning = \"dishonest\"\ngrid_size = 1\noptimizer = \"sgd\"\n\
                 lr_min = 1.0\nlr_max = 1.0\nepochs = 10\n";
    let out = audit(&format!(
        "seed = 10\ntrials = 1\nepsilons = [4.0]\ndelta = 1e-5\n\
         [audit]\ntest = \"one_run\"\ncanary = \"gradient\"\ncanaries = 1000\nguesses = 100\n\
         {DATASET}[methods.full]\n{dpsgd}batch_size = 200\n\
         [methods.sampled]\n{dpsgd}batch_size = 20\n\
         [methods.psgd]\nkind = \"psgd\"\ncalibration = \"certified\"\nlambda = [0.001]\n\
         lr = [1.0]\nsteps = [10]\nbatch = 200\nradius = [10]\nrow_clip = [1.0]\n"
    ));
    show(&out);
    let by = |m: &str| out.iter().find(|o| o.method == m).unwrap();
    let (full, sampled, psgd) = (by("full"), by("sampled"), by("psgd"));
    // P-SGD's black-box pair is replace-one (it is built for n rows); its gradient canaries
    // are add/remove, as its certificate is.
    assert_eq!(psgd.statistic, "one_run_fdp");
    for o in [full, sampled, psgd] {
        assert_eq!(o.threat_model, "white-box");
        assert_eq!(Verdict::of(o), Verdict::Consistent, "{o:?}");
        assert_eq!(o.one_run.as_ref().unwrap().guesses, 200);
    }
    assert_eq!(full.statistic, "one_run_fdp");
    assert_eq!(full.epsilon_gdp, Some(full.epsilon_lower));
    let ceiling = full.epsilon_ceiling.expect("a Gaussian view has a ceiling");
    assert!(ceiling < full.epsilon_certified, "{full:?}");
    assert!(full.epsilon_lower >= 0.5 * ceiling, "{full:?}");
    // Poisson batches: the f-DP test against the view's own family, the subsampled
    // Gaussian's curves, a bound there; the Gaussian family's number an estimate beside it.
    assert_eq!(sampled.statistic, "one_run_fdp");
    let guesses = sampled.one_run.as_ref().unwrap();
    let steinke = dp_core::audit::one_run::epsilon_lower_bound(
        1000,
        guesses.guesses,
        guesses.correct,
        1e-5,
        1.0 - sampled.confidence,
    )
    .unwrap();
    assert!(sampled.epsilon_lower > 1.3 * steinke, "{sampled:?}");
    assert!(sampled.epsilon_gdp.is_some());
    // The same test at the sampled certificate's expected counts (158 right of 200; this
    // run drew 173, eight other seeds 149 to 170): below the full-batch view's ceiling.
    let top = sampled
        .epsilon_ceiling
        .expect("a certified view has a ceiling");
    assert!(
        top > 1.2 && top < full.epsilon_ceiling.unwrap(),
        "{sampled:?}"
    );
}
