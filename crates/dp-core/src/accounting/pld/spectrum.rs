//! The k-th power of a PMF's spectrum for FFT self-composition, with an error bound.
//!
//! Why this is not just `X̂_f.powi(k)`: the computed spectrum X̂_f = X_f + e_f (forward-FFT
//! round-off |e_f| ≤ γ ≈ 8u·log₂len) enters as X̂_f^k, so e_f is amplified to
//! k|X_f|^{k−1}|e_f|, and binary powering in f64 adds a relative error of up to (k − 1)·√5u
//! (each rounding is raised to the remaining power). At the few low frequencies where
//! |X_f|^k is not negligible this is k times the FFT error: for 5630 DP-SGD steps the bound
//! was 2e-10, most of a δ of 2.3e-10, and ε came out looser than RDP's. There X_f is
//! recomputed by a direct DFT and raised to the k-th power in double-double arithmetic
//! (`dd.rs`), leaving only the final rounding (≤ u|X_f|^k); elsewhere the f64 values and
//! their amplified error bound are kept. Which frequencies get the accurate path only
//! affects tightness and time: every frequency's error is bounded and charged.

use rustfft::num_complex::Complex64;

use super::dd::{CDd, Dd, split, two_prod_split, two_sum, unit_root};

const U: f64 = 0.5 * f64::EPSILON;

/// Relative error bound of one f64 complex product (Brent, Percival & Zimmermann 2007: √5u).
const COMPLEX_MUL_ERROR: f64 = 2.25 * U;

/// Relative error bound of one double-double complex product (see `dd.rs`).
const DD_COMPLEX_MUL_ERROR: f64 = 11.0 * U * U;

/// Direct-DFT work (PMF length × frequencies) always allowed; more if the FFTs are larger.
const MIN_DIRECT_BUDGET: usize = 1 << 20;

/// Replaces `spectrum` (the forward FFT of `probs` placed at grid indices offset, offset + 1,
/// … folded modulo its length; forward error ≤ `gamma` per frequency, Σ probs ≤ 1) by its
/// `k`-th power and returns a bound on the ℓ2 norm of the error of the result.
///
/// The inverse transform will charge about γ‖X^k‖₁ ≥ γ anyway, so the accurate path is only
/// taken when the f64 bound exceeds that, and only where a frequency's bound exceeds
/// γ/(8√len) (the rest then add at most γ/8).
pub(crate) fn power_spectrum(
    spectrum: &mut [Complex64],
    probs: &[f64],
    offset: i64,
    k: u64,
    gamma: f64,
) -> f64 {
    let len = spectrum.len();
    let half = len / 2;
    let kf = k as f64;
    let pow_rel = ((kf - 1.0) * COMPLEX_MUL_ERROR.ln_1p()).exp_m1();
    let floor = gamma / (8.0 * (len as f64).sqrt());
    // |X_f| and |X̂_f| are both ≤ a = |X̂_f| + γ, so |X̂_f^k − X_f^k| ≤ kγa^{k−1}, and the
    // powering adds ≤ pow_rel·a^k (+1e-300 for underflow). Below a_min that is ≤ `floor`.
    let a_min = (floor / (kf * gamma + pow_rel)).powf(1.0 / (kf - 1.0)) * (1.0 - 1e-12);
    let power_bound = |a: f64| {
        if k <= 64 {
            a.powi(k as i32 - 1) * (1.0 + 4.0 * kf * U)
        } else {
            a.powf(kf - 1.0) * (1.0 + 1e-12)
        }
    };
    // Per pair {f, len − f} (conjugates, as the PMF is real): error bound and a^k.
    let bounds: Vec<(f64, f64)> = (0..=half)
        .map(|f| {
            let (x, y) = (spectrum[f], spectrum[(len - f) % len]);
            let norm = x.norm_sqr().max(y.norm_sqr()).sqrt();
            let a = norm * (1.0 + 4.0 * U) + gamma;
            if a <= a_min {
                return (floor + 1e-300, floor);
            }
            let ak1 = power_bound(a);
            (kf * gamma * ak1 + pow_rel * ak1 * a + 1e-300, ak1 * a)
        })
        .collect();
    let pair = |f: usize| if f == 0 || 2 * f == len { 1.0 } else { 2.0 };
    let (f64_sq, power_l1) = bounds
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(e, l), (f, (b, p))| {
            (e + pair(f) * b * b, l + pair(f) * p)
        });
    let mut chosen: Vec<usize> = if f64_sq.sqrt() > gamma * power_l1.max(1.0) {
        (0..=half).filter(|&f| bounds[f].0 > floor).collect()
    } else {
        Vec::new()
    };
    let budget = MIN_DIRECT_BUDGET.max(len * len.ilog2() as usize / 2);
    let most = (budget / probs.len().max(1)).max(1);
    if chosen.len() > most {
        chosen.select_nth_unstable_by(most - 1, |&x, &y| bounds[y].0.total_cmp(&bounds[x].0));
        chosen.truncate(most);
    }
    let accurate = accurate_powers(probs, offset, len, &chosen, k);
    let mut is_chosen = vec![false; half + 1];
    let mut error_sq = 0.0;
    for (&f, &(value, error)) in chosen.iter().zip(&accurate) {
        is_chosen[f] = true;
        error_sq += pair(f) * error * error;
        spectrum[f] = value;
        spectrum[(len - f) % len] = value.conj();
    }
    for f in 0..=half {
        if !is_chosen[f] {
            error_sq += pair(f) * bounds[f].0 * bounds[f].0;
            spectrum[f] = powu(spectrum[f], k);
            if 2 * f != len && f != 0 {
                spectrum[len - f] = powu(spectrum[len - f], k);
            }
        }
    }
    error_sq.sqrt()
}

/// For each f in `freqs`: X_f^k rounded to f64 and a bound on its error, where
/// X_f = Σ_i p_i e^{−2πi (offset + i) f / len}.
fn accurate_powers(
    probs: &[f64],
    offset: i64,
    len: usize,
    freqs: &[usize],
    k: u64,
) -> Vec<(Complex64, f64)> {
    if freqs.is_empty() {
        return Vec::new();
    }
    let dft = DirectDft::new(probs, offset, len);
    let kf = k as f64;
    let dd_rel = ((kf - 1.0) * DD_COMPLEX_MUL_ERROR.ln_1p()).exp_m1();
    freqs
        .iter()
        .map(|&f| {
            let x = dft.at(f);
            let value = x.powu(k).to_complex();
            // |(X + e)^k − X^k| ≤ k|e|a^{k−1}; dd powering ≤ dd_rel·a^k; final rounding ≤ u(1 + u)
            // of the result (≤ a^k).
            let a = x.to_complex().norm() * (1.0 + 4.0 * U) + dft.error;
            let ak1 = a.powf(kf - 1.0) * (1.0 + 1e-12);
            let error = kf * dft.error * ak1 + (dd_rel + 2.0 * U) * ak1 * a + 1e-300;
            (value, error)
        })
        .collect()
}

/// Blocked direct DFT of a PMF in double-double: X_f = Σ_b ζ_B^b Σ_j p_{bB+j} ζ^j with
/// ζ = e^{−2πi f/len}, ζ_B = ζ^B and B ≈ √n, times the offset's root.
struct DirectDft<'a> {
    probs: &'a [f64],
    splits: Vec<(f64, f64)>,
    block: usize,
    len: u64,
    shift: u64,
    /// Bound on |computed − exact| of every value.
    error: f64,
}

impl<'a> DirectDft<'a> {
    fn new(probs: &'a [f64], offset: i64, len: usize) -> Self {
        let n = probs.len();
        let block = ((n as f64).sqrt().ceil() as usize).max(1);
        let blocks = n.div_ceil(block);
        let mass = probs.iter().sum::<f64>() * (1.0 + 1e-12);
        // The unit roots ζ^j (j < B) and ζ_B^b (b < blocks) come from recurrences, so their
        // errors grow by ≤ 27u² per step (an 11u² product on a 16u² root); the lazy low-part
        // sums of a block add ≤ 3B²u², each product ≤ 11u², each block sum ≤ 3u²; all per
        // part and relative to the mass. Doubled for the two parts, with a margin on top.
        let error =
            (8.0 * (block * block) as f64 + 64.0 * (block + blocks) as f64 + 256.0) * U * U * mass;
        Self {
            probs,
            splits: probs.iter().map(|&p| split(p)).collect(),
            block,
            len: len as u64,
            shift: offset.rem_euclid(len as i64) as u64,
            error,
        }
    }

    fn at(&self, f: usize) -> CDd {
        let (f, len, block) = (f as u64, self.len, self.block);
        let step = unit_root(f, len);
        let mut w = CDd::ONE;
        let table: Vec<_> = (0..block)
            .map(|_| {
                let entry = (w, split(w.re.hi), split(w.im.hi));
                w = w.mul(step);
                entry
            })
            .collect();
        let block_step = unit_root(block as u64 * f % len, len);
        let mut block_root = CDd::ONE;
        let mut x = CDd::default();
        for (chunk, splits) in self.probs.chunks(block).zip(self.splits.chunks(block)) {
            // Σ p·w with the high parts summed by TwoSum and every error term in a lazy
            // low part.
            let (mut re, mut re_lo, mut im, mut im_lo) = (0.0, 0.0, 0.0, 0.0);
            for ((&p, &ps), (w, w_re, w_im)) in chunk.iter().zip(splits).zip(&table) {
                let (ph, pl) = two_prod_split(p, ps, w.re.hi, *w_re);
                let (s, e) = two_sum(re, ph);
                re = s;
                re_lo += e + pl + p * w.re.lo;
                let (ph, pl) = two_prod_split(p, ps, w.im.hi, *w_im);
                let (s, e) = two_sum(im, ph);
                im = s;
                im_lo += e + pl + p * w.im.lo;
            }
            let sum = CDd {
                re: Dd::renormalise(re, re_lo),
                im: Dd::renormalise(im, im_lo),
            };
            x = x.add(block_root.mul(sum));
            block_root = block_root.mul(block_step);
        }
        x.mul(unit_root(self.shift * f % len, len))
    }
}

/// z^k by repeated squaring; relative error ≤ (1 + √5u)^{k−1} − 1 ≈ (k − 1)·√5u, since each
/// product's rounding is raised to the remaining power.
pub(crate) fn powu(mut z: Complex64, mut k: u64) -> Complex64 {
    let mut acc = Complex64::new(1.0, 0.0);
    while k > 0 {
        if k & 1 == 1 {
            acc *= z;
        }
        k >>= 1;
        if k > 0 {
            z *= z;
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustfft::FftPlanner;

    fn folded_spectrum(probs: &[f64], offset: i64, len: usize) -> Vec<Complex64> {
        let mut buf = vec![Complex64::new(0.0, 0.0); len];
        for (i, &p) in probs.iter().enumerate() {
            buf[(offset + i as i64).rem_euclid(len as i64) as usize].re += p;
        }
        FftPlanner::new().plan_fft_forward(len).process(&mut buf);
        buf
    }

    #[test]
    fn accurate_powers_match_the_fft_to_its_round_off() {
        let probs: Vec<f64> = (0..1000)
            .map(|i| (-(i as f64 - 400.0).powi(2) / 5e4).exp() / 396.3)
            .collect();
        let len = 3 * 512;
        let fft = folded_spectrum(&probs, -300, len);
        let freqs: Vec<usize> = (0..len).step_by(7).collect();
        let acc = accurate_powers(&probs, -300, len, &freqs, 1);
        for (&f, &(value, error)) in freqs.iter().zip(&acc) {
            assert!((value - fft[f]).norm() < 1e-14, "f={f}");
            assert!(error < 1e-15, "f={f}: {error}");
        }
        // k-th powers against f64 powering, which is accurate to ~k·u here.
        let k = 50;
        let acc = accurate_powers(&probs, -300, len, &freqs, k);
        for (&f, &(value, _)) in freqs.iter().zip(&acc) {
            assert!((value - powu(fft[f], k)).norm() < 1e-13, "f={f}");
        }
    }

    #[test]
    fn direct_dft_matches_a_naive_double_double_sum() {
        // Includes a support longer than the transform (folding) and a negative offset.
        for (n, offset, len) in [(1000usize, -300i64, 1536usize), (2100, 17, 1024), (1, 5, 7)] {
            let probs: Vec<f64> = (0..n)
                .map(|i| ((i * 37 % 101) as f64 + 0.3) / (60.0 * n as f64))
                .collect();
            let dft = DirectDft::new(&probs, offset, len);
            let roots: Vec<CDd> = (0..len as u64).map(|r| unit_root(r, len as u64)).collect();
            for f in 0..len {
                let mut naive = CDd::default();
                for (i, &p) in probs.iter().enumerate() {
                    let r = (offset + i as i64).rem_euclid(len as i64) as usize * f;
                    let w = roots[r % len];
                    let p = Dd { hi: p, lo: 0.0 };
                    naive = naive.add(CDd {
                        re: w.re.mul(p),
                        im: w.im.mul(p),
                    });
                }
                let got = dft.at(f);
                let diff = got
                    .re
                    .sub(naive.re)
                    .to_f64()
                    .hypot(got.im.sub(naive.im).to_f64());
                let naive_error = 32.0 * n as f64 * U * U;
                assert!(
                    diff <= dft.error + naive_error,
                    "n={n} f={f}: {diff:e} > {:e}",
                    dft.error
                );
                assert!(dft.error < 1e-26);
            }
        }
    }

    #[test]
    fn powered_spectrum_error_bound_covers_the_difference() {
        // A two-point PMF has the spectrum X_f = p0 + p1 e^{−2πif/len}; its k-th power in
        // double-double is the reference.
        let (p0, p1) = (0.75, 0.25);
        let len = 1024;
        let gamma = 8.0 * U * 10.0;
        for k in [2u64, 40, 600, 100_000] {
            let mut spectrum = folded_spectrum(&[p0, p1], 0, len);
            let bound = power_spectrum(&mut spectrum, &[p0, p1], 0, k, gamma);
            let mut diff_sq = 0.0;
            for (f, z) in spectrum.iter().enumerate() {
                let w = unit_root(f as u64, len as u64);
                let x = CDd {
                    re: w.re.mul(Dd { hi: p1, lo: 0.0 }).add(Dd { hi: p0, lo: 0.0 }),
                    im: w.im.mul(Dd { hi: p1, lo: 0.0 }),
                };
                let reference = x.powu(k);
                let d_re = Dd { hi: z.re, lo: 0.0 }.sub(reference.re).to_f64();
                let d_im = Dd { hi: z.im, lo: 0.0 }.sub(reference.im).to_f64();
                diff_sq += d_re * d_re + d_im * d_im;
            }
            assert!(
                diff_sq.sqrt() <= bound,
                "k={k}: {} > {bound:e}",
                diff_sq.sqrt()
            );
            // For long compositions only the final rounding (≈ 2u·‖X^k‖₂) remains; the f64
            // bound would be about k·γ·(Σ|X_f|^{2k})^{1/2} ≈ 1e-14·k.
            if k >= 600 {
                assert!(bound < 4.0 * U * (len as f64).sqrt(), "k={k}: {bound:e}");
            }
        }
    }

    #[test]
    fn powu_matches_powi() {
        let z = Complex64::new(0.3, -0.8);
        for k in [0u64, 1, 2, 5, 17, 100] {
            let p = powu(z, k);
            let q = z.powi(k as i32);
            assert!((p - q).norm() < 1e-14 * q.norm().max(1e-300) + 1e-300);
        }
    }
}
