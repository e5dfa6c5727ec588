//! The `dp-bench privacy` contract: flag names, JSON keys, values and exit codes.

mod common;

use common::{code_out_err, dp_bench};

fn run(args: &[&str]) -> (i32, String, String) {
    code_out_err(&dp_bench(args))
}

fn json(args: &[&str]) -> serde_json::Map<String, serde_json::Value> {
    let mut a = vec!["privacy"];
    a.extend_from_slice(args);
    a.push("--json");
    let (code, out, err) = run(&a);
    assert_eq!(code, 0, "{args:?} failed: {err}");
    assert_eq!(
        out.trim().lines().count(),
        1,
        "exactly one JSON line: {out}"
    );
    serde_json::from_str::<serde_json::Value>(&out)
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

fn num(m: &serde_json::Map<String, serde_json::Value>, k: &str) -> f64 {
    m.get(k)
        .unwrap_or_else(|| panic!("key {k} in {m:?}"))
        .as_f64()
        .unwrap()
}

const DPSGD: [&str; 9] = [
    "dpsgd",
    "--sampling-rate",
    "0.00708",
    "--noise-multiplier",
    "2.75",
    "--steps",
    "8478",
    "--delta",
    "1e-5",
];

#[test]
fn dpsgd_anchor_rdp_and_pld() {
    let rdp = num(&json(&DPSGD), "epsilon");
    assert!((rdp - 1.0).abs() < 0.02, "RDP ε = {rdp}");
    let mut a = DPSGD.to_vec();
    a.extend(["--accountant", "pld"]);
    let pld = num(&json(&a), "epsilon");
    assert!((pld - 0.914).abs() < 0.01, "PLD ε = {pld}");
    assert!(pld < rdp);
}

#[test]
fn dpsgd_calibration_round_trips_and_tuning_costs_more() {
    let z = num(
        &json(&[
            "dpsgd",
            "--sampling-rate",
            "0.00708",
            "--epsilon",
            "1",
            "--steps",
            "8478",
            "--delta",
            "1e-5",
        ]),
        "noise_multiplier",
    );
    let zs = z.to_string();
    let eps = num(
        &json(&[
            "dpsgd",
            "--sampling-rate",
            "0.00708",
            "--noise-multiplier",
            &zs,
            "--steps",
            "8478",
            "--delta",
            "1e-5",
        ]),
        "epsilon",
    );
    assert!(
        eps <= 1.0 && eps > 0.999,
        "calibrated z = {z} gives ε = {eps}"
    );
    let mut a = DPSGD.to_vec();
    a.extend(["--tuning", "poisson:15.41"]);
    let tuned = num(&json(&a), "epsilon");
    let mut b = DPSGD.to_vec();
    b.extend(["--tuning", "tnb:1:10"]);
    let geo = num(&json(&b), "epsilon");
    assert!(tuned > 1.0 && geo > 1.0, "tuning adds cost: {tuned}, {geo}");
}

/// Avent et al. 2020 §3.1 (autodp 0.1): (epochs, m, z, ε) on Adult (n = 30,956, δ = 1e-5).
const DPARETO: [(u64, u64, f64, f64); 11] = [
    (2, 32, 1.0, 1.0386290410998213),
    (2, 128, 1.0, 1.5337122399581529),
    (4, 32, 1.0, 1.1178474447495772),
    (4, 128, 1.0, 1.788209833648863),
    (2, 32, 8.0, 0.05562616464089842),
    (2, 128, 8.0, 0.11272934562898837),
    (4, 32, 8.0, 0.0783939954813914),
    (4, 128, 8.0, 0.1585598242646789),
    (3, 78, 2.655940687147833, 0.33619531327198415),
    (3, 93, 1.0391793771508868, 1.379750889919971),
    (2, 44, 6.7971617105390445, 0.07715206980137464),
];

/// `dpsgd --sampling without-replacement --conversion classic` at lot m of n = 30,956.
fn dpareto_args(m: u64, steps: u64, noise: &str) -> Vec<String> {
    [
        "dpsgd",
        "--sampling",
        "without-replacement",
        "--conversion",
        "classic",
        "--sampling-rate",
        &format!("{m}/30956"),
        noise,
        "--steps",
        &steps.to_string(),
        "--delta",
        "1e-5",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn dpsgd_without_replacement_reproduces_dpareto() {
    let mut worst: f64 = 0.0;
    for (epochs, m, z, reference) in DPARETO {
        // T = round(epochs · round(n/m)), as DPareto's training loop counts steps.
        let steps = epochs * (30956.0 / m as f64).round() as u64;
        let mut a = dpareto_args(m, steps, "--noise-multiplier");
        a.insert(8, z.to_string());
        let args: Vec<&str> = a.iter().map(String::as_str).collect();
        let eps = num(&json(&args), "epsilon");
        let rel = eps / reference - 1.0;
        assert!(
            rel.abs() <= 1e-6 && rel <= 3e-7,
            "epochs {epochs} m {m} z {z}: {eps} vs {reference}"
        );
        worst = worst.max(rel.abs());
    }
    println!("max relative deviation over the 11 vectors: {worst:.3e}");
}

#[test]
fn dpsgd_without_replacement_calibrates_and_classic_costs_more() {
    // Row 9 of the table: ε = 0.33619531327198415 at z = 2.655940687147833, m = 78, T = 1191.
    let mut a = dpareto_args(78, 1191, "--epsilon");
    a.insert(8, "0.33619531327198415".into());
    let args: Vec<&str> = a.iter().map(String::as_str).collect();
    let z = num(&json(&args), "noise_multiplier");
    assert!((z / 2.655940687147833 - 1.0).abs() < 1e-6, "z = {z}");
    // Classic conversion is never below improved, for either sampling.
    for sampling in ["poisson", "without-replacement"] {
        let eps = |conversion: &str| {
            num(
                &json(&[
                    "dpsgd",
                    "--sampling",
                    sampling,
                    "--conversion",
                    conversion,
                    "--sampling-rate",
                    "78/30956",
                    "--noise-multiplier",
                    "2.655940687147833",
                    "--steps",
                    "1191",
                    "--delta",
                    "1e-5",
                ]),
                "epsilon",
            )
        };
        let (classic, improved) = (eps("classic"), eps("improved"));
        assert!(classic > improved, "{sampling}: {classic} vs {improved}");
    }
    // A decimal rate and the fraction are the same rate.
    let frac = num(&json(&DPSGD), "epsilon");
    let mut b = DPSGD.to_vec();
    b[2] = "708/100000";
    assert_eq!(num(&json(&b), "epsilon"), frac);
}

#[test]
fn gaussian_modes_are_consistent() {
    let sigma = num(
        &json(&["gaussian", "--epsilon", "1", "--delta", "1e-5"]),
        "sigma",
    );
    assert!((sigma - 3.7306).abs() < 1e-3, "σ = {sigma}");
    let s = sigma.to_string();
    let eps = num(
        &json(&["gaussian", "--sigma", &s, "--delta", "1e-5"]),
        "epsilon",
    );
    assert!((eps - 1.0).abs() < 1e-6);
    // δ of 4 compositions at σ = 3, ε = 1, by the default accountant or the one named.
    let delta = |accountant: &[&str]| {
        let mut a = vec![
            "gaussian",
            "--sigma",
            "3",
            "--epsilon",
            "1",
            "--compositions",
            "4",
        ];
        a.extend_from_slice(accountant);
        num(&json(&a), "delta")
    };
    let d_exact = delta(&[]);
    let d_pld = delta(&["--accountant", "pld"]);
    let d_rdp = delta(&["--accountant", "rdp"]);
    assert!(
        d_pld >= d_exact && (d_pld - d_exact) / d_exact < 1e-3,
        "{d_pld} vs {d_exact}"
    );
    assert!(
        d_rdp > d_exact,
        "RDP is an upper bound: {d_rdp} vs {d_exact}"
    );
}

#[test]
fn gaussian_calibration_is_on_the_safe_side_for_every_accountant() {
    let mut sigmas = Vec::new();
    for acc in ["exact", "pld", "rdp"] {
        let common = ["--compositions", "10", "--accountant", acc];
        let mut a = vec!["gaussian", "--epsilon", "1", "--delta", "1e-5"];
        a.extend(common);
        let sigma = num(&json(&a), "sigma");
        let eps_at = |s: f64| {
            let s = s.to_string();
            let mut a = vec!["gaussian", "--sigma", &s, "--delta", "1e-5"];
            a.extend(common);
            num(&json(&a), "epsilon")
        };
        assert!(eps_at(sigma) <= 1.0, "{acc}: ε(σ) = {}", eps_at(sigma));
        assert!(
            eps_at(sigma * (1.0 - 1e-6)) > 1.0,
            "{acc}: σ is not the smallest"
        );
        sigmas.push(sigma);
    }
    // Exact ≤ PLD ≤ RDP: both accountants over-report, PLD by less (never more than RDP).
    assert!(
        sigmas[0] <= sigmas[1] && sigmas[1] <= sigmas[2],
        "{sigmas:?}"
    );
    assert!((sigmas[1] - sigmas[0]) / sigmas[0] < 1e-6, "{sigmas:?}");
}

#[test]
fn objpert_bounds_are_ordered() {
    let base = [
        "objpert",
        "--sigma",
        "5",
        "--lambda",
        "20",
        "--beta",
        "1",
        "--lipschitz",
        "1",
        "--epsilon",
        "1",
    ];
    let d = |bound: &str| {
        let mut a = base.to_vec();
        a.extend(["--bound", bound]);
        num(&json(&a), "delta")
    };
    let (lower, profile, rdp, kifer) = (d("lower"), d("profile"), d("rdp"), d("kifer"));
    assert!(
        lower <= profile && profile <= rdp && rdp <= kifer,
        "{lower} {profile} {rdp} {kifer}"
    );
    let mut a = base.to_vec();
    a.extend(["--bound", "profile", "--compositions", "3"]);
    assert!(num(&json(&a), "delta") > profile);
}

#[test]
fn alg1_calibration_matches_the_derivations_check_value() {
    // `given` names ε or the noise (σ, λ); the derivation's δ, σ_out, τ, β and clip follow.
    let alg1 = |given: &[&str]| {
        let mut a = vec!["alg1"];
        a.extend_from_slice(given);
        a.extend(["--delta", "1e-5", "--sigma-out", "0.15", "--tau", "0.01"]);
        a.extend(["--beta", "0.5", "--clip", "1.4142135623730951"]);
        json(&a)
    };
    let m = alg1(&["--epsilon", "1"]);
    let (sigma, lambda) = (num(&m, "sigma"), num(&m, "lambda"));
    assert!(
        (sigma - 6.859).abs() < 0.01 && (lambda - 4.02).abs() < 0.02,
        "σ = {sigma}, λ = {lambda}"
    );
    let (s, l) = (sigma.to_string(), lambda.to_string());
    let eps = num(&alg1(&["--sigma", &s, "--lambda", &l]), "epsilon");
    assert!(eps <= 1.0 && eps > 0.99, "ε = {eps}");
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_flag() {
    let dpsgd = |rate: &str, extra: &str| {
        format!(
            "privacy dpsgd --sampling-rate {rate} --noise-multiplier 1 --steps 10 --delta 1e-5 \
             {extra}"
        )
    };
    let lot = "32/30956";
    let cases: [(String, &str); 14] = [
        ("privacy gaussian --sigma 1 --delta 1.5".into(), "--delta"),
        ("privacy gaussian --sigma -1 --delta 1e-5".into(), "--sigma"),
        (
            "privacy dpsgd --sampling-rate 0 --noise-multiplier 1 --steps 10 --delta 1e-5".into(),
            "--sampling-rate",
        ),
        (
            "privacy dpsgd --sampling-rate 0.1 --noise-multiplier 1 --steps 10".into(),
            "--delta",
        ),
        (
            "privacy objpert --sigma 5 --lambda 1 --beta 1 --lipschitz 1 --bound rdp --delta 1e-5"
                .into(),
            "--lambda",
        ),
        (
            "privacy gaussian --sigma 1 --delta 1e-5 --bogus 1".into(),
            "--bogus",
        ),
        (
            "privacy objpert --sigma 5 --lambda 20 --beta 1 --lipschitz 1 --bound nope --delta 1e-5"
                .into(),
            "--bound",
        ),
        (
            dpsgd(lot, "--sampling without-replacement --accountant pld"),
            "--sampling",
        ),
        (
            dpsgd(lot, "--conversion classic --accountant pld"),
            "--conversion",
        ),
        (dpsgd(lot, "--sampling sideways"), "--sampling"),
        (dpsgd(lot, "--conversion best"), "--conversion"),
        (dpsgd("32/0", ""), "--sampling-rate"),
        (dpsgd("m/n", ""), "--sampling-rate"),
        (
            dpsgd("40000/30956", "--sampling without-replacement"),
            "--sampling-rate",
        ),
    ];
    for (cmd, flag) in &cases {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert_eq!(
            err.trim().lines().count(),
            1,
            "{args:?}: one line, got {err}"
        );
        assert!(err.contains(flag), "{args:?}: {err} should name {flag}");
    }
}

/// Degenerate input (docs/limits.md): +∞ or one line naming the flags given, never ε = 0, a
/// hang, an abort or a 300-digit number.
#[test]
fn degenerate_inputs_get_infinity_or_one_line_naming_the_flags() {
    let split = |s: &str| -> Vec<String> { s.split_whitespace().map(String::from).collect() };
    let timed = |cmd: &str| {
        let args = split(cmd);
        let t = std::time::Instant::now();
        let got = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(t.elapsed().as_secs() < 30, "{cmd}: took {:?}", t.elapsed());
        got
    };
    let dpsgd = "privacy dpsgd --sampling-rate 0.01 --steps 10 --delta 1e-5";
    for z in ["1e-300", "1e-200", "1e-156", "1e-154", "1e-10", "1e-5"] {
        for wor in ["", "--sampling without-replacement"] {
            let cmd = format!("{dpsgd} --noise-multiplier {z} {wor}");
            let (code, out, err) = timed(&cmd);
            let eps = out
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("epsilon = ");
            let eps: f64 = eps.parse().unwrap_or(f64::NAN);
            assert!(code == 0 && eps > 1e10, "{cmd}: {out} {err}");
        }
    }
    let (_, out, _) = timed("privacy gaussian --sigma 1e-160 --delta 1e-5");
    assert!(out.starts_with("epsilon = inf"), "{out}");
    // (command, texts the one-line error must contain)
    let errors: [(String, &[&str]); 5] = [
        (
            format!("{dpsgd} --epsilon 1e300"),
            &["--epsilon 1e300", "beyond", "1e-3"],
        ),
        (
            format!("{dpsgd} --epsilon 1e30 --sampling without-replacement"),
            &["--epsilon 1e30", "beyond"],
        ),
        (
            "privacy dpsgd --sampling-rate 0.01 --epsilon 1e-6 --steps 1000000000 --delta 1e-5 \
             --sampling without-replacement --conversion classic"
                .into(),
            &["--epsilon 1e-6", "--delta 1e-5"],
        ),
        (
            format!("{dpsgd} --noise-multiplier 1e-10 --accountant pld"),
            &["--noise-multiplier 1e-10", "--accountant rdp"],
        ),
        (
            "privacy gaussian --sigma 1e-3 --delta 1e-5 --accountant pld".into(),
            &["--sigma 0.001", "--accountant rdp"],
        ),
    ];
    for (cmd, wanted) in &errors {
        let (code, out, err) = timed(cmd);
        assert_eq!(code, 2, "{cmd}: {out} {err}");
        assert!(
            out.is_empty() && err.trim().lines().count() == 1,
            "{cmd}: {err}"
        );
        for w in *wanted {
            assert!(err.contains(w), "{cmd}: {err} should contain {w}");
        }
        for unwanted in [
            "--grid-step",
            "--noise-multiplier must",
            "got inf",
            "0000000000",
        ] {
            assert!(!err.contains(unwanted), "{cmd}: {err} contains {unwanted}");
        }
    }
}

/// `privacy event FILE`: the same DP-SGD event written as JSON gets the numbers `privacy
/// dpsgd` gives it (RDP and PLD), the best is the smaller; a bad event names its field
/// (exit 2), a release without guarantee is ∞ (null in JSON).
#[test]
fn a_json_event_is_accounted_as_the_calculator_accounts_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e.json");
    std::fs::write(
        &file,
        r#"{"type":"SelfComposed","count":8478,"event":{"type":"PoissonSampled",
            "sampling_probability":0.00708,"event":{"type":"Gaussian","noise_multiplier":2.75}}}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let m = json(&["event", path, "--delta", "1e-5"]);
    let rdp = num(&json(&DPSGD), "epsilon");
    let mut a = DPSGD.to_vec();
    a.extend(["--accountant", "pld"]);
    let pld = num(&json(&a), "epsilon");
    assert_eq!(num(&m, "epsilon_rdp"), rdp);
    assert_eq!(num(&m, "epsilon_pld"), pld);
    assert_eq!(num(&m, "epsilon"), rdp.min(pld));
    std::fs::write(&file, r#"{"type":"Gaussian"}"#).unwrap();
    let (code, _, err) = run(&["privacy", "event", path, "--delta", "1e-5"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("noise_multiplier") && err.contains(path),
        "{err}"
    );
    std::fs::write(&file, r#"{"type":"NonPrivate"}"#).unwrap();
    let m = json(&["event", path, "--delta", "1e-5"]);
    assert!(m["epsilon"].is_null(), "{m:?}");
}
