//! Pure ε-DP releases in the PLD accountant (taken only by [`PldAccountant::with_pure_dp`],
//! for audit ceilings): randomised response's PLD against the closed form of k-fold
//! randomised response (Kairouz, Oh & Viswanath 2015's optimal composition).

use dp_core::accounting::Accountant as _;
use dp_core::accounting::event::Event;
use dp_core::accounting::pld::{Pld, PldConfig};
use dp_core::accounting::{PldAccountant, RdpAccountant};
use dp_core::special::ln_binom;

/// δ(ε) of k-fold randomised response with P-mass σ(ε₀) at loss `up` and σ(−ε₀) at `down`
/// (ε₀, −ε₀ for the exact pair): the loss is j·up + (k − j)·down, j ~ Bin(k, σ(ε₀)).
fn rr_delta(e0: f64, (up, down): (f64, f64), k: u64, eps: f64) -> f64 {
    let ln_p = -(-e0).exp().ln_1p();
    let ln_q = -e0.exp().ln_1p();
    (0..=k)
        .map(|j| {
            let loss = up * j as f64 + down * (k - j) as f64;
            let w = (ln_binom(k as f64, j as f64) + j as f64 * ln_p + (k - j) as f64 * ln_q).exp();
            w * (-(eps - loss).exp_m1()).max(0.0)
        })
        .sum()
}

#[test]
fn one_step_is_randomised_response() {
    let cfg = PldConfig::default();
    let pld = Pld::randomized_response(0.5, &cfg).unwrap().unwrap();
    // δ(0) is the total variation σ(ε₀) − σ(−ε₀) = tanh(ε₀/2); δ(ε₀) = 0.
    let tv = (0.25f64).tanh();
    let d0 = pld.delta(0.0).unwrap();
    assert!(d0 >= tv && d0 < tv + 1e-4, "{d0} vs {tv}");
    assert!(pld.delta(0.5 + 1e-3).unwrap() < 1e-12);
    // P's and Q's masses are whole: Q's is Σ p e^{−ω} = σ(ε₀)e^{−ε₀} + σ(−ε₀)e^{ε₀} = 1.
    for e0 in [0.5, 0.03, 0.04515, 3.0] {
        let pmf = Pld::randomized_response(e0, &cfg).unwrap().unwrap();
        let pmf = pmf.remove();
        let (p, q) = (0..pmf.probs().len()).fold((0.0, 0.0), |(p, q), i| {
            let m = pmf.probs()[i];
            (p + m, q + m * (-pmf.loss(i)).exp())
        });
        assert!(
            (p - 1.0).abs() < 1e-12 && (q - 1.0).abs() < 1e-12,
            "ε₀ {e0}: {p} {q}"
        );
    }
    assert!(Pld::randomized_response(0.0, &cfg).unwrap().is_none());
    assert!(Pld::randomized_response(-1.0, &cfg).is_err());
    assert!(Pld::randomized_response(f64::INFINITY, &cfg).is_err());
    assert!(Pld::randomized_response(1e9, &cfg).is_err());
}

#[test]
fn composition_bounds_the_closed_form_from_above_and_closely() {
    let cfg = PldConfig::default();
    let h = cfg.grid_step;
    for (e0, k) in [(0.03, 50u64), (0.09, 50), (0.5, 20), (1.0, 3)] {
        let pld = Pld::randomized_response(e0, &cfg)
            .unwrap()
            .unwrap()
            .self_compose(k)
            .unwrap();
        for eps in [0.0, 0.2, 0.5, 1.0, 2.0] {
            let exact = rr_delta(e0, (e0, -e0), k, eps);
            let ours = pld.delta(eps).unwrap();
            assert!(ours >= exact, "ε₀ {e0} k {k} ε {eps}: {ours} < {exact}");
            // Each atom is split between grid points at most h = 1e-4 apart, which moves δ less
            // than rounding both losses up by h; the FFT's round-off is charged to the mass at
            // +∞ (below 1e-9 here).
            let looser = rr_delta(e0, (e0 + h, -e0 + h), k, eps);
            assert!(
                ours <= looser + 1e-9,
                "ε₀ {e0} k {k} ε {eps}: {ours} > {looser}"
            );
        }
    }
}

#[test]
fn the_accountant_takes_pure_steps_only_when_asked() {
    let step = Event::EpsilonDelta {
        epsilon: 0.03,
        delta: 0.0,
    };
    let event = step.clone().self_composed(50);
    assert!(PldAccountant::new().pld(&event).is_err());
    let pld = PldAccountant::new()
        .with_pure_dp()
        .pld(&event)
        .unwrap()
        .unwrap();
    // Tighter than RDP's ε²/2-zCDP route and than basic composition, never below the truth.
    let delta = 1e-6;
    let ours = pld.epsilon(delta).unwrap();
    let mut rdp = RdpAccountant::new();
    rdp.compose(&step, 50).unwrap();
    let via_rdp = rdp.epsilon(delta).unwrap();
    assert!(ours < via_rdp && ours < 50.0 * 0.03, "{ours} vs {via_rdp}");
    assert!(rr_delta(0.03, (0.03, -0.03), 50, ours) <= delta * (1.0 + 1e-6));
    // Approximate-DP releases stay refused.
    let approx = Event::EpsilonDelta {
        epsilon: 0.03,
        delta: 1e-9,
    };
    assert!(PldAccountant::new().with_pure_dp().pld(&approx).is_err());
    // The flag survives `fresh`, and composing reports the smaller of PLD and RDP.
    let mut acc = PldAccountant::new().with_pure_dp().fresh();
    acc.compose(&step, 50).unwrap();
    let composed = acc.epsilon(delta).unwrap();
    assert!((composed - ours).abs() < 1e-9, "{composed} vs {ours}");
    // A step the PLD cannot discretise is refused and leaves the accountant as it was.
    let wide = Event::EpsilonDelta {
        epsilon: 1e9,
        delta: 0.0,
    };
    assert!(acc.compose(&wide, 1).is_err());
    assert_eq!(acc.epsilon(delta).unwrap(), composed);
}
