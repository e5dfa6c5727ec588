//! The sampling-without-replacement accountant (DPareto's privacy oracle) against reference
//! values computed outside this crate: the eleven (epochs, m, z) → ε of Avent et al. 2020
//! (autodp 0.1, `/work/shared/reference/avent2020.md` §3.1), and per-step RDP values from
//! high-precision arithmetic (`tests/reference/subsampled_gaussian_wor_mpmath.py`).

use std::time::Instant;

use dp_core::accounting::subsampled_gaussian_wor::{WorGaussian, epsilon, integer_orders};
use dp_core::accounting::{
    Accountant, Conversion, Event, RdpAccountant, calibrate, epsilon_of,
    subsampled_gaussian::dpsgd_bracket,
};
use dp_core::accounting::{RdpCurve, Target};

/// Adult's training-set size.
const N: u64 = 30_956;

/// A reference vector of Avent et al. §3.1.
struct Vector {
    epochs: u64,
    lot: u64,
    z: f64,
    /// ε of autodp 0.1 (classic conversion, α up to 800 with its Brent refinement).
    eps: f64,
    /// The order autodp's optimum sits next to.
    order: f64,
    /// ε by the improved conversion from the same RDP, and the largest order it was computed
    /// with (1000 for the whole grid; the table gives three of them on orders ≤ 256 only, to
    /// four decimals).
    improved: f64,
    improved_max_order: u32,
}

impl Vector {
    /// T = round(epochs · round(n/m)), as `dp_feedforward_net.py` computes it.
    fn steps(&self) -> u64 {
        self.epochs * ((N as f64 / self.lot as f64).round() as u64)
    }

    fn rate(&self) -> f64 {
        self.lot as f64 / N as f64
    }
}

#[rustfmt::skip]
const VECTORS: [Vector; 11] = [
    Vector { epochs: 2, lot: 32, z: 1.0, eps: 1.0386290410998213, order: 13.0, improved: 0.744840, improved_max_order: 1000 },
    Vector { epochs: 2, lot: 128, z: 1.0, eps: 1.5337122399581529, order: 10.0, improved: 1.172508, improved_max_order: 1000 },
    Vector { epochs: 4, lot: 32, z: 1.0, eps: 1.1178474447495772, order: 13.0, improved: 0.824059, improved_max_order: 1000 },
    Vector { epochs: 4, lot: 128, z: 1.0, eps: 1.788209833648863, order: 10.0, improved: 1.427006, improved_max_order: 1000 },
    Vector { epochs: 2, lot: 32, z: 8.0, eps: 0.05562616464089842, order: 410.0, improved: 0.0365, improved_max_order: 256 },
    Vector { epochs: 2, lot: 128, z: 8.0, eps: 0.11272934562898837, order: 202.0, improved: 0.077642, improved_max_order: 1000 },
    Vector { epochs: 4, lot: 32, z: 8.0, eps: 0.0783939954813914, order: 292.0, improved: 0.0525, improved_max_order: 256 },
    Vector { epochs: 4, lot: 128, z: 8.0, eps: 0.1585598242646789, order: 144.0, improved: 0.112472, improved_max_order: 1000 },
    Vector { epochs: 3, lot: 78, z: 2.655940687147833, eps: 0.33619531327198415, order: 68.0, improved: 0.252370, improved_max_order: 1000 },
    Vector { epochs: 3, lot: 93, z: 1.0391793771508868, eps: 1.379750889919971, order: 12.0, improved: 1.066839, improved_max_order: 1000 },
    Vector { epochs: 2, lot: 44, z: 6.7971617105390445, eps: 0.07715206980137464, order: 296.0, improved: 0.0515, improved_max_order: 256 },
];

#[test]
fn the_eleven_dpareto_vectors_hold_with_the_classic_conversion() {
    let mut worst: f64 = 0.0;
    for v in &VECTORS {
        let t = v.steps();
        let (eps, order) = epsilon(v.rate(), v.z, t, 1e-5, Conversion::Classic).unwrap();
        let rel = eps / v.eps - 1.0;
        // autodp's Brent search stops ~1e-5 in α from the integer optimum, so it sits at most
        // 3e-7 above the integer minimum; the integer minimum must never be above it.
        assert!(
            rel.abs() <= 1e-6 && rel <= 3e-7,
            "epochs {} m {} z {} (T {t}): {eps} vs {} (rel {rel:e})",
            v.epochs,
            v.lot,
            v.z,
            v.eps
        );
        assert_eq!(order, v.order, "epochs {} m {} z {}", v.epochs, v.lot, v.z);
        worst = worst.max(rel.abs());
    }
    println!("max relative deviation from autodp over the 11 vectors: {worst:.3e}");
    // The step counts of the table.
    let steps: Vec<u64> = VECTORS.iter().map(Vector::steps).collect();
    assert_eq!(
        steps,
        [1934, 484, 3868, 968, 1934, 484, 3868, 968, 1191, 999, 1408]
    );
}

#[test]
fn the_improved_column_of_the_table_holds() {
    for v in &VECTORS {
        let w = WorGaussian::new(v.z).unwrap();
        let full = w
            .epsilon(v.rate(), v.steps(), 1e-5, Conversion::Improved)
            .unwrap()
            .0;
        let at = |max: u32| {
            let orders: Vec<f64> = (2..=max).map(f64::from).collect();
            let curve: RdpCurve = w.curve(v.rate(), &orders).unwrap().scaled(v.steps());
            curve.epsilon(1e-5).unwrap().0
        };
        if v.improved_max_order == 1000 {
            // Six decimals.
            assert!(
                (full - v.improved).abs() <= 6e-7,
                "m {} z {}: {full} vs {}",
                v.lot,
                v.z,
                v.improved
            );
        } else {
            // Four decimals on orders ≤ 256; the whole grid can only be lower.
            let capped = at(v.improved_max_order);
            assert!(
                (capped - v.improved).abs() <= 6e-5,
                "m {} z {}: {capped} vs {}",
                v.lot,
                v.z,
                v.improved
            );
            assert!(full <= capped);
        }
        // Improved is always below classic.
        let classic = w
            .epsilon(v.rate(), v.steps(), 1e-5, Conversion::Classic)
            .unwrap()
            .0;
        assert!(full < classic);
    }
    // Row 5 needs the orders above 256 with either conversion (0.062128 when truncated).
    let v = &VECTORS[4];
    let w = WorGaussian::new(v.z).unwrap();
    let orders: Vec<f64> = (2..=256).map(f64::from).collect();
    let truncated = w
        .curve(v.rate(), &orders)
        .unwrap()
        .scaled(v.steps())
        .epsilon_classic(1e-5)
        .unwrap()
        .0;
    assert!((truncated - 0.062128).abs() < 1e-6, "{truncated}");
}

/// (γ, z, α, per-step RDP ε'(α)) by `tests/reference/subsampled_gaussian_wor_mpmath.py`
/// (mpmath 1.3, 40 digits; exact alternating sums for the forward differences where this crate
/// integrates them). From the repository root,
/// `python3 crates/dp-core/tests/reference/subsampled_gaussian_wor_mpmath.py` prints the table
/// and `... --check crates/dp-core/tests/wor_reference_values.rs` compares it with this one
/// (about two minutes).
#[rustfmt::skip]
const WOR_REFERENCE: &[(f64, f64, u32, f64)] = &[
    (0.0010337252875048455, 1.0, 13, 4.09609226914668e-05),
    (0.0010337252875048455, 8.0, 410, 1.4207447065017093e-05),
    (0.004134901150019382, 8.0, 202, 0.00011456840802407518),
    (0.002519705388293061, 2.655940687147833, 68, 0.00013800218709884268),
    (0.0030042641168109576, 1.0391793771508868, 2, 4.556804499244444e-05),
    (0.1, 6.7971617105390445, 200, 0.0518740041055852),
    (0.3, 8.0, 200, 0.47905017445072845),
    (0.9, 8.0, 50, 0.36398663409700577),
    (0.01, 0.5, 50, 95.3149926098195),
    (0.5, 3.0, 1000, 54.86240837499561),
    (0.0001, 20.0, 800, 4.01424934421597e-08),
    (0.05, 1.5, 3, 0.00875876700074266),
];

#[test]
fn per_step_rdp_matches_high_precision_arithmetic() {
    let mut worst: f64 = 0.0;
    for &(gamma, z, alpha, reference) in WOR_REFERENCE {
        let got = WorGaussian::new(z)
            .unwrap()
            .rdp(gamma, f64::from(alpha))
            .unwrap();
        let rel = got / reference - 1.0;
        assert!(
            rel.abs() <= 1e-10,
            "γ {gamma} z {z} α {alpha}: {got:e} vs {reference:e} (rel {rel:e})"
        );
        // The crate rounds A_α − 1 up; below the reference only by the last rounding of ε.
        assert!(
            rel >= -1e-15,
            "under-reports: γ {gamma} z {z} α {alpha}: {got:e} vs {reference:e}"
        );
        worst = worst.max(rel.abs());
    }
    // The first rows are the table's γ = m/n.
    assert_eq!(WOR_REFERENCE[0].0, 32.0 / 30956.0);
    assert_eq!(WOR_REFERENCE[2].0, 128.0 / 30956.0);
    println!("max relative deviation from mpmath: {worst:.3e}");
}

#[test]
fn the_accountant_on_integer_orders_with_the_classic_conversion_is_the_oracle() {
    let rdp = RdpAccountant::with_orders(&integer_orders())
        .unwrap()
        .with_conversion(Conversion::Classic);
    for v in [&VECTORS[0], &VECTORS[4], &VECTORS[8]] {
        let event = Event::dpsgd_without_replacement(v.rate(), v.z, v.steps()).unwrap();
        let via_accountant = epsilon_of(rdp.fresh(), &event, 1e-5).unwrap();
        let direct = epsilon(v.rate(), v.z, v.steps(), 1e-5, Conversion::Classic)
            .unwrap()
            .0;
        assert!(
            (via_accountant / direct - 1.0).abs() < 1e-13,
            "{via_accountant} vs {direct}"
        );
        // δ at that ε is the δ asked for (the classic inverse).
        let mut a = rdp.fresh();
        a.compose(&event, 1).unwrap();
        let d = a.delta(via_accountant).unwrap();
        assert!((d / 1e-5 - 1.0).abs() < 1e-9, "{d}");
    }
    // On the default grid (fractional orders by interpolation) ε can only be larger or equal
    // up to the grid: never below the integer-grid optimum by more than the grid allows.
    let v = &VECTORS[8];
    let event = Event::dpsgd_without_replacement(v.rate(), v.z, v.steps()).unwrap();
    let default = epsilon_of(RdpAccountant::new(), &event, 1e-5).unwrap();
    let integer = epsilon_of(
        RdpAccountant::with_orders(&integer_orders()).unwrap(),
        &event,
        1e-5,
    )
    .unwrap();
    assert!(
        (default / integer - 1.0).abs() < 2e-3,
        "{default} vs {integer}"
    );
}

#[test]
fn calibration_finds_the_smallest_noise_for_a_target() {
    let rdp = RdpAccountant::with_orders(&integer_orders())
        .unwrap()
        .with_conversion(Conversion::Classic);
    let v = &VECTORS[8];
    let (rate, steps) = (v.rate(), v.steps());
    let target = Target::new(v.eps, 1e-5).unwrap();
    let z = calibrate(
        || rdp.fresh(),
        |z| Event::dpsgd_without_replacement(rate, z, steps),
        target,
        dpsgd_bracket(rate, steps, target).unwrap(),
    )
    .unwrap();
    assert!((z / v.z - 1.0).abs() < 1e-6, "{z} vs {}", v.z);
    let at = |z: f64| {
        epsilon(rate, z, steps, 1e-5, Conversion::Classic)
            .unwrap()
            .0
    };
    assert!(at(z) <= v.eps);
}

#[test]
fn timing_of_one_epsilon() {
    // One ε from scratch (new z: forward differences, then the integer curve), as an
    // experiment needs it; printed with --nocapture.
    let reps = 20;
    let start = Instant::now();
    let mut sum = 0.0;
    for i in 0..reps {
        let z = 1.0 + 0.01 * i as f64;
        sum += epsilon(32.0 / 30956.0, z, 1934, 1e-5, Conversion::Classic)
            .unwrap()
            .0;
    }
    let per = start.elapsed().as_secs_f64() / reps as f64;
    let w = WorGaussian::new(8.0).unwrap();
    let start = Instant::now();
    for _ in 0..reps {
        sum += w
            .epsilon(128.0 / 30956.0, 968, 1e-5, Conversion::Classic)
            .unwrap()
            .0;
    }
    let per_cached = start.elapsed().as_secs_f64() / reps as f64;
    let start = Instant::now();
    for i in 0..reps {
        std::hint::black_box(WorGaussian::new(8.0 + 0.01 * i as f64).unwrap());
    }
    let per_z = start.elapsed().as_secs_f64() / reps as f64;
    println!(
        "one ε: {:.2} ms from scratch, {:.2} ms with the z tables cached; z tables {:.2} ms",
        1e3 * per,
        1e3 * per_cached,
        1e3 * per_z
    );
    assert!(sum.is_finite());
}
