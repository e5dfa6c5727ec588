//! Composition of discretised PLDs by FFT convolution.
//!
//! Every approximation made here is charged to the infinity mass, which only raises δ(ε):
//! - k-fold self-composition keeps a window of the composed support chosen by a Chernoff
//!   bound (Koskela et al.; dp_accounting's `compute_self_convolve_bounds`); the bound on the
//!   mass outside the window, which the cyclic FFT aliases into it, is added;
//! - FFT round-off: an ℓ1 bound on the error (see [`fft_gamma`]), evaluated on the actual
//!   spectra, is added and negative outputs are clamped to 0. For the k-th power of a
//!   spectrum the forward error is amplified k-fold, so the frequencies where that matters
//!   are recomputed in double-double (`spectrum.rs`).

use rustfft::FftPlanner;
use rustfft::num_complex::Complex64;

use super::pmf::Pmf;
use super::spectrum;
use crate::error::{Result, ensure};
use crate::special::log_sum_exp;

/// Largest FFT the accountant will run (2^24 complex values = 256 MiB).
const MAX_FFT_LEN: usize = 1 << 24;

/// Products of support sizes up to this are convolved directly (exact, no FFT round-off).
const DIRECT_LIMIT: usize = 1 << 16;

/// Number of support buckets used to choose the Chernoff order (the bound itself is then
/// evaluated on the exact PMF).
const MGF_BUCKETS: usize = 4096;

/// Linear convolution of two PLDs on the same grid (infinity masses compose as
/// 1 − (1 − m₁)(1 − m₂)).
pub(crate) fn convolve(a: &Pmf, b: &Pmf) -> Result<Pmf> {
    let (pa, pb) = (a.probs(), b.probs());
    let n = pa.len() + pb.len() - 1;
    let (probs, round_off) = if pa.len() * pb.len() <= DIRECT_LIMIT {
        let mut out = vec![0.0; n];
        for (i, &x) in pa.iter().enumerate() {
            for (j, &y) in pb.iter().enumerate() {
                out[i + j] += x * y;
            }
        }
        (out, 0.0)
    } else {
        let len = fast_len(n);
        check_fft_len(len)?;
        let mut planner = FftPlanner::<f64>::new();
        let forward = planner.plan_fft_forward(len);
        let mut fa = embed(pa, len);
        let mut fb = embed(pb, len);
        forward.process(&mut fa);
        forward.process(&mut fb);
        let (norm_a, norm_b) = (spectral_norm(&fa), spectral_norm(&fb));
        let mut product = SpectrumSums::default();
        for (x, y) in fa.iter_mut().zip(&fb) {
            *x *= y;
            product.add(*x);
        }
        planner.plan_fft_inverse(len).process(&mut fa);
        let scale = 1.0 / len as f64;
        let out = fa[..n].iter().map(|z| (z.re * scale).max(0.0)).collect();
        // Forward errors |ê_f| ≤ γ‖·‖₁ ≤ γ meet the other factor's spectrum; then the product's
        // rounding and the inverse transform.
        let gamma = fft_gamma(len);
        let round_off =
            gamma * (norm_a + norm_b) + 3.0 * UNIT_ROUNDOFF * product.l2() + gamma * product.l1;
        (out, round_off)
    };
    let (ma, mb) = (a.infinity_mass(), b.infinity_mass());
    let infinity_mass = (ma + mb - ma * mb + round_off).min(1.0);
    Ok(Pmf::from_parts(
        a.grid_step(),
        a.offset() + b.offset(),
        probs,
        infinity_mass,
    ))
}

/// k-fold composition of `a` with itself, keeping the part of the support whose outside
/// mass is at most `tail_mass` by the Chernoff bound.
pub(crate) fn self_convolve(a: &Pmf, k: u64, tail_mass: f64) -> Result<Pmf> {
    if k == 1 {
        return Ok(a.clone());
    }
    let window = chernoff_window(a, k, tail_mass);
    let width = (window.hi - window.lo + 1) as usize;
    ensure(
        width <= MAX_FFT_LEN,
        "grid-step",
        a.grid_step(),
        "too small for this many compositions (window above 2^24 grid points)",
    )?;
    let len = fast_len(width);
    check_fft_len(len)?;
    // Cyclic convolution of the support folded modulo `len` equals the linear k-fold
    // convolution folded modulo `len`: grid indices add, residues follow.
    let mut buf = vec![Complex64::new(0.0, 0.0); len];
    for (i, &p) in a.probs().iter().enumerate() {
        let idx = (a.offset() + i as i64).rem_euclid(len as i64) as usize;
        buf[idx].re += p;
    }
    let mut planner = FftPlanner::<f64>::new();
    planner.plan_fft_forward(len).process(&mut buf);
    // Forward error per frequency ≤ γ·Σp, plus ≤ 2u·Σp if the support was folded onto itself.
    let gamma = fft_gamma(len);
    let forward = gamma + 2.0 * UNIT_ROUNDOFF;
    let spectrum_error = spectrum::power_spectrum(&mut buf, a.probs(), a.offset(), k, forward);
    let power_l1: f64 = buf.iter().map(|z| z.norm()).sum();
    planner.plan_fft_inverse(len).process(&mut buf);
    let scale = 1.0 / len as f64;
    let probs = (window.lo..=window.hi)
        .map(|j| (buf[j.rem_euclid(len as i64) as usize].re * scale).max(0.0))
        .collect();
    let composed_infinity = -(k as f64 * (-a.infinity_mass()).ln_1p()).exp_m1();
    // Powered-spectrum error (ℓ2, hence ℓ1 of the output), inverse transform, and the 1/len
    // scaling (≤ 2u relative per output, on a total mass ≤ 1 + the other terms).
    let round_off = spectrum_error + gamma * power_l1 + 3.0 * UNIT_ROUNDOFF;
    let infinity_mass = (composed_infinity + window.outside_mass + round_off).min(1.0);
    Ok(Pmf::from_parts(a.grid_step(), window.lo, probs, infinity_mass).truncate_tails(0.0))
}

/// Grid-index window [lo, hi] of a k-fold composition and a bound on the mass outside it.
#[derive(Debug, PartialEq)]
struct Window {
    lo: i64,
    hi: i64,
    outside_mass: f64,
}

/// Chernoff: for S the k-fold sum and λ > 0, Pr(S ≥ t) ≤ e^{−λt} M(λ)^k and
/// Pr(S ≤ t) ≤ e^{λt} M(−λ)^k, where M is the (sub-probability) MGF of the finite part.
fn chernoff_window(a: &Pmf, k: u64, tail_mass: f64) -> Window {
    let h = a.grid_step();
    let kf = k as f64;
    let full_lo = a.offset() * k as i64;
    let full_hi = (a.offset() + a.probs().len() as i64 - 1) * k as i64;
    let log_half = (0.5 * tail_mass).ln();
    let exact = Buckets::exact(a);
    if exact.loss.is_empty() {
        return Window {
            lo: full_lo,
            hi: full_lo,
            outside_mass: 0.0,
        };
    }
    let coarse = Buckets::new(a);
    // Upper end: smallest t with k·K(λ) − λt ≤ ln(τ/2); the objective is quasi-convex in λ.
    let lam = minimise_log_scale(|lam| (kf * coarse.log_mgf(lam) - log_half) / lam);
    let t_hi = (kf * exact.log_mgf(lam) - log_half) / lam;
    let (hi, upper_mass) = if t_hi / h >= full_hi as f64 {
        (full_hi, 0.0)
    } else {
        let hi = (t_hi / h).ceil() as i64;
        (hi, (kf * exact.log_mgf(lam) - lam * hi as f64 * h).exp())
    };
    // Lower end: largest t with k·K(−λ) + λt ≤ ln(τ/2).
    let lam = minimise_log_scale(|lam| (kf * coarse.log_mgf(-lam) - log_half) / lam);
    let t_lo = -(kf * exact.log_mgf(-lam) - log_half) / lam;
    let (lo, lower_mass) = if t_lo / h <= full_lo as f64 {
        (full_lo, 0.0)
    } else {
        let lo = ((t_lo / h).floor() as i64).min(hi);
        (lo, (kf * exact.log_mgf(-lam) + lam * lo as f64 * h).exp())
    };
    Window {
        lo,
        hi,
        outside_mass: upper_mass + lower_mass,
    }
}

/// Support points and masses for evaluating the log-MGF K(λ) = ln Σ p_i e^{λ ω_i}.
struct Buckets {
    loss: Vec<f64>,
    log_mass: Vec<f64>,
}

impl Buckets {
    fn exact(a: &Pmf) -> Self {
        let (loss, log_mass) = a
            .probs()
            .iter()
            .enumerate()
            .filter(|(_, p)| **p > 0.0)
            .map(|(i, p)| (a.loss(i), p.ln()))
            .unzip();
        Self { loss, log_mass }
    }

    /// At most `MGF_BUCKETS` points (bucket mass at the bucket's mass-weighted mean), for
    /// the order search only.
    fn new(a: &Pmf) -> Self {
        let n = a.probs().len();
        if n <= MGF_BUCKETS {
            return Self::exact(a);
        }
        let size = n.div_ceil(MGF_BUCKETS);
        let (mut loss, mut log_mass) = (Vec::new(), Vec::new());
        for (b, chunk) in a.probs().chunks(size).enumerate() {
            let mass: f64 = chunk.iter().sum();
            if mass > 0.0 {
                let first = b * size;
                let mean = chunk
                    .iter()
                    .enumerate()
                    .map(|(i, p)| p * a.loss(first + i))
                    .sum::<f64>()
                    / mass;
                loss.push(mean);
                log_mass.push(mass.ln());
            }
        }
        Self { loss, log_mass }
    }

    fn log_mgf(&self, lam: f64) -> f64 {
        let terms: Vec<f64> = self
            .loss
            .iter()
            .zip(&self.log_mass)
            .map(|(w, lm)| lm + lam * w)
            .collect();
        log_sum_exp(&terms)
    }
}

/// Minimiser over λ ∈ [1e-4, 1e7] of a quasi-convex function: log-spaced scan, then
/// golden-section search between the neighbours of the best scan point.
fn minimise_log_scale(f: impl Fn(f64) -> f64) -> f64 {
    const SCAN: usize = 45;
    let (lo, hi) = (1e-4f64.ln(), 1e7f64.ln());
    let step = (hi - lo) / (SCAN - 1) as f64;
    let g = |x: f64| {
        let v = f(x.exp());
        if v.is_nan() { f64::INFINITY } else { v }
    };
    let best =
        (0..SCAN)
            .map(|i| (i, g(lo + step * i as f64)))
            .fold(
                (0, f64::INFINITY),
                |acc, (i, v)| if v < acc.1 { (i, v) } else { acc },
            );
    let (mut a, mut b) = (
        lo + step * best.0.saturating_sub(1) as f64,
        lo + step * (best.0 + 1).min(SCAN - 1) as f64,
    );
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    let (mut x1, mut x2) = (b - ratio * (b - a), a + ratio * (b - a));
    let (mut f1, mut f2) = (g(x1), g(x2));
    for _ in 0..30 {
        if f1 <= f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - ratio * (b - a);
            f1 = g(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + ratio * (b - a);
            f2 = g(x2);
        }
    }
    let candidates = [(lo + step * best.0 as f64, best.1), (x1, f1), (x2, f2)];
    candidates
        .iter()
        .fold(candidates[0], |acc, &c| if c.1 < acc.1 { c } else { acc })
        .0
        .exp()
}

/// Unit round-off of f64.
const UNIT_ROUNDOFF: f64 = 0.5 * f64::EPSILON;

/// γ with |computed − exact| ≤ γ·‖input‖₁ for every output of an FFT of length `len`: each
/// output is a sum over log₂len butterfly stages of products with twiddles, each stage adding
/// a few ulps (complex multiply ≈ 2√2u, add u, twiddle u); c = 8 per stage is conservative.
///
/// The ℓ1 round-off bounds in this file follow from it: an inverse transform (with the 1/len
/// scaling) adds ≤ γ Σ_f |Y_f| in ℓ1, and an error spectrum E maps to an ℓ1 output error
/// ≤ ‖E‖₂ (Parseval with ‖·‖₁ ≤ √len ‖·‖₂). For the k-th power, the forward error is
/// amplified to k|X_f|^{k−1}γ at frequency f (see `spectrum.rs`).
fn fft_gamma(len: usize) -> f64 {
    8.0 * UNIT_ROUNDOFF * (len as f64).log2().max(1.0)
}

/// ℓ1 and squared ℓ2 norms of a spectrum, accumulated.
#[derive(Default)]
struct SpectrumSums {
    l1: f64,
    l2_sq: f64,
}

impl SpectrumSums {
    fn add(&mut self, z: Complex64) {
        self.l1 += z.norm();
        self.l2_sq += z.norm_sqr();
    }

    fn l2(&self) -> f64 {
        self.l2_sq.sqrt()
    }
}

fn spectral_norm(x: &[Complex64]) -> f64 {
    x.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

fn check_fft_len(len: usize) -> Result<()> {
    ensure(
        len <= MAX_FFT_LEN,
        "fft-length",
        len as f64,
        "must be at most 2^24; increase grid-step",
    )
}

fn embed(p: &[f64], len: usize) -> Vec<Complex64> {
    let mut buf = vec![Complex64::new(0.0, 0.0); len];
    for (b, &x) in buf.iter_mut().zip(p) {
        b.re = x;
    }
    buf
}

/// Smallest 2^a or 3·2^a ≥ n: rustfft's radix-2/4 kernels are several times faster per
/// point than its radix-3 ones, so higher powers of 3 do not pay for the shorter length.
fn fast_len(n: usize) -> usize {
    let pow2 = n.next_power_of_two();
    let three = 3 * (n.div_ceil(3)).next_power_of_two();
    pow2.min(three)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct_power(p: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![1.0];
        for _ in 0..k {
            let mut next = vec![0.0; out.len() + p.len() - 1];
            for (i, &x) in out.iter().enumerate() {
                for (j, &y) in p.iter().enumerate() {
                    next[i + j] += x * y;
                }
            }
            out = next;
        }
        out
    }

    #[test]
    fn fast_len_is_smooth_and_minimal() {
        assert_eq!(fast_len(1), 1);
        assert_eq!(fast_len(5), 6);
        assert_eq!(fast_len(100), 128);
        assert_eq!(fast_len(1025), 1536);
        for n in 1..5000 {
            let l = fast_len(n);
            assert!(l >= n && l < 2 * n.max(2), "n={n} l={l}");
            let m = if l.is_multiple_of(3) { l / 3 } else { l };
            assert!(m.is_power_of_two(), "n={n} l={l}");
        }
    }

    #[test]
    fn self_convolve_without_truncation_is_exact() {
        let p = Pmf::new(0.5, -2, vec![0.1, 0.3, 0.0, 0.4, 0.15], 0.05).unwrap();
        for k in [2u64, 3, 7] {
            let c = self_convolve(&p, k, 1e-300).unwrap();
            let expect = direct_power(p.probs(), k as usize);
            assert_eq!(c.offset(), -2 * k as i64);
            for (i, e) in expect.iter().enumerate() {
                assert!((c.probs()[i] - e).abs() < 1e-15, "k={k} i={i}");
            }
            let inf = 1.0 - 0.95f64.powi(k as i32);
            assert!(c.infinity_mass() >= inf && c.infinity_mass() < inf + 1e-12);
        }
    }

    #[test]
    fn truncated_window_charges_the_outside_mass() {
        let probs: Vec<f64> = (0..41)
            .map(|i| if i == 40 { 1e-6 } else { (1.0 - 1e-6) / 40.0 })
            .collect();
        let p = Pmf::new(0.01, -20, probs, 0.0).unwrap();
        let k = 200u64;
        let full = direct_power(p.probs(), k as usize);
        let c = self_convolve(&p, k, 1e-8).unwrap();
        assert!(c.probs().len() < full.len(), "window did not truncate");
        let lo = (c.offset() - p.offset() * k as i64) as usize;
        let outside: f64 = full[..lo].iter().chain(&full[lo + c.probs().len()..]).sum();
        assert!(outside > 0.0);
        assert!(
            c.infinity_mass() >= outside,
            "{} < {outside}",
            c.infinity_mass()
        );
        assert!(c.infinity_mass() <= 1e-8);
        // Aliasing only adds the outside mass back into the window.
        let mut aliased = 0.0;
        for (i, &x) in c.probs().iter().enumerate() {
            assert!(x >= full[lo + i] - 1e-14, "i={i}");
            aliased += x - full[lo + i];
        }
        assert!(
            aliased <= outside + 1e-12,
            "aliased {aliased} vs outside {outside}"
        );
    }

    #[test]
    fn convolve_matches_direct_for_both_paths() {
        let a = Pmf::new(
            0.1,
            3,
            (0..300)
                .map(|i| (i as f64 * 0.1).sin().abs() / 200.0)
                .collect(),
            0.01,
        )
        .unwrap();
        let b = Pmf::new(
            0.1,
            -7,
            (0..400)
                .map(|i| (i as f64 * 0.07).cos().abs() / 300.0)
                .collect(),
            0.02,
        )
        .unwrap();
        let c = convolve(&a, &b).unwrap();
        assert_eq!(c.offset(), -4);
        let mut expect = vec![0.0; 699];
        for (i, x) in a.probs().iter().enumerate() {
            for (j, y) in b.probs().iter().enumerate() {
                expect[i + j] += x * y;
            }
        }
        for (x, e) in c.probs().iter().zip(&expect) {
            assert!((x - e).abs() < 1e-14);
        }
        assert!(c.infinity_mass() >= 0.01 + 0.02 - 0.0002);
        let small = convolve(&Pmf::new(0.1, 0, vec![0.5, 0.5], 0.0).unwrap(), &a).unwrap();
        assert_eq!(small.probs().len(), 301);
        assert_eq!(small.infinity_mass(), 0.01);
    }
}
