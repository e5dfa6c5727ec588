//! `docs/reference/iyengar2019.md` §2.9 (Adult: n = 36,176, δ = 1/n², ε = 0.1) and §2.2's
//! f₁ table, to 1e-6 relative.

use super::*;

const N: usize = 36_176;

fn delta() -> f64 {
    1.0 / (N as f64 * N as f64)
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!(
        ((got - want) / want).abs() < 1e-6,
        "got {got:e}, want {want:e}"
    );
}

#[test]
fn delta_is_one_over_n_squared() {
    close(delta(), 7.641153e-10);
}

#[test]
fn amp_vector() {
    let b = AmpBudget::split(0.1, delta(), 0.01, 0.9).unwrap();
    close(b.eps1, 0.099);
    close(b.eps2, 0.001);
    close(b.eps3, 0.0891);
    close(b.delta1, 7.564742e-10);
    close(b.delta2, 7.641153e-12);
    let gamma = 1.0 / (N as f64 * N as f64);
    let a = amp(b, N, 1.0, 1.0, gamma).unwrap();
    close(a.lambda, 202.0202);
    close(a.sigma1, 4.641918e-3);
    close(a.sigma2, 1.115866e-3);
}

#[test]
fn psgd_vectors() {
    close(psgd_sigma(1.0, 100, N, 0.1, delta()).unwrap(), 5.066050e-2);
    // Constrained and regularised: L_reg = L + λC = 1 + 1e-3 · 10.
    close(
        psgd_sigma(1.0 + 1e-3 * 10.0, 100, N, 0.1, delta()).unwrap(),
        5.116711e-2,
    );
}

#[test]
fn ppsgd_vector() {
    let o = ppsgd(10, 1.0, 0.01, 50, 0.1, delta()).unwrap();
    close(o.sensitivity, 0.004);
    close(o.sigma, 2.634263e-1);
}

#[test]
fn pscpsgd_vector() {
    close(pscpsgd_smoothness(1.0, 1e-3), 1.001);
    let o = pscpsgd(1e-3, 10.0, 1.0, N, 0.1, delta()).unwrap();
    close(o.sensitivity, 5.583812e-2);
    close(o.sigma, 3.677308);
}

#[test]
fn pfw_vector() {
    close(
        pfw_laplace_scale(1.0, 10.0, 100, N, 0.1, delta()).unwrap(),
        3.582238e-1,
    );
}

#[test]
fn hf_amp_fractions_match_the_reference_table() {
    let eps = [
        0.01,
        10f64.powf(-1.5),
        0.1,
        10f64.powf(-0.5),
        1.0,
        10f64.powf(0.5),
        10.0,
    ];
    let code = [0.9900, 0.9544, 0.9307, 0.9154, 0.9054, 0.8989, 0.9010];
    let paper = [0.9900, 0.9562, 0.9320, 0.9163, 0.9061, 0.8994, 0.9000];
    for ((&e, &c), &p) in eps.iter().zip(&code).zip(&paper) {
        let fc = hf_amp_eps_frac(e).unwrap();
        let fp = hf_amp_eps_frac_paper(e, false).unwrap();
        assert!((fc - c).abs() < 5e-5, "code f₁({e}) = {fc}, table {c}");
        assert!((fp - p).abs() < 5e-5, "paper f₁({e}) = {fp}, table {p}");
        assert_eq!(
            hf_amp_eps_frac_paper(e, true).unwrap(),
            0.97f64.max(1.0 - 1.0 / e)
        );
    }
    // Λ at L = 1, f = 0.01 (the table's last row), to its printed precision.
    let lambdas = [2.02e4, 1400.0, 291.7, 75.5, 21.4, 6.32, 2.04];
    for (&e, &want) in eps.iter().zip(&lambdas) {
        let b = AmpBudget::split(e, delta(), 0.01, hf_amp_eps_frac(e).unwrap()).unwrap();
        let got = amp(b, N, 1.0, 1.0, delta()).unwrap().lambda;
        assert!(
            ((got - want) / want).abs() < 5e-3,
            "Λ({e}) = {got}, table {want}"
        );
    }
}

#[test]
fn out_of_range_inputs_name_the_parameter() {
    let name = |r: Result<f64>| match r {
        Err(crate::DpError::OutOfRange { name, .. }) => name,
        other => panic!("expected OutOfRange, got {other:?}"),
    };
    assert_eq!(name(psgd_sigma(1.0, 0, N, 0.1, delta())), "steps");
    assert_eq!(
        name(pfw_laplace_scale(1.0, -1.0, 10, N, 0.1, delta())),
        "l1_radius"
    );
    assert_eq!(
        name(AmpBudget::split(0.1, delta(), 1.0, 0.9).map(|b| b.eps1)),
        "eps_out_frac"
    );
}
