//! Poisson subsampling for DP-SGD: every example joins a batch independently with
//! probability `q`, so batch sizes are Binomial(n, q).
//!
//! Drawn by geometric skips (the gap to the next included index is Geometric(q)), which costs
//! O(batch) random numbers per step instead of `n` Bernoulli trials. A skip is `⌊E/c⌋` with
//! `E ~ Exp(1)` and `c = −ln(1 − q)`: `P(⌊E/c⌋ ≥ k) = e^{−kc} = (1 − q)^k`, exactly the
//! geometric law. `E` comes from rand_distr's ziggurat sampler, which (unlike `−ln U`) needs
//! no logarithm in the common case; this loop runs ~2 million times per DP-SGD run.

use crate::error::{Result, ensure};
use rand::Rng;
use rand_distr::Exp1;

/// Samples subsets of `0..n` with inclusion probability `q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoissonSampler {
    n: usize,
    q: f64,
    /// `c = −ln(1 − q)` (> 0 for q > 0, +∞ for q = 1).
    rate: f64,
}

impl PoissonSampler {
    /// Sampler for `n` examples with rate `q ∈ [0, 1]`.
    pub fn new(n: usize, q: f64) -> Result<Self> {
        ensure(
            (0.0..=1.0).contains(&q),
            "sampling-rate",
            q,
            "must be in [0, 1]",
        )?;
        Ok(PoissonSampler {
            n,
            q,
            rate: -(-q).ln_1p(),
        })
    }

    /// Expected batch size `q·n`.
    pub fn expected_batch(&self) -> f64 {
        self.q * self.n as f64
    }

    /// Replaces `out` by a fresh sample, in increasing index order.
    pub fn sample_into<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut Vec<usize>) {
        out.clear();
        if self.q >= 1.0 {
            out.extend(0..self.n);
            return;
        }
        if self.q <= 0.0 {
            return;
        }
        let mut next = 0usize;
        loop {
            // E/c ≥ 0 (+∞ for subnormal q): the saturating cast is floor and cannot overflow.
            let e: f64 = rng.sample(Exp1);
            let skip = (e / self.rate) as usize;
            next = next.saturating_add(skip);
            if next >= self.n {
                return;
            }
            out.push(next);
            next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn batch_sizes_are_binomial() {
        let (n, q, reps) = (5000, 0.01, 4000);
        let s = PoissonSampler::new(n, q).unwrap();
        let mut rng = StdRng::seed_from_u64(11);
        let mut out = Vec::new();
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for _ in 0..reps {
            s.sample_into(&mut rng, &mut out);
            assert!(out.windows(2).all(|w| w[0] < w[1]));
            assert!(out.iter().all(|&i| i < n));
            let b = out.len() as f64;
            sum += b;
            sum_sq += b * b;
        }
        let mean = sum / reps as f64;
        let var = sum_sq / reps as f64 - mean * mean;
        let (m0, v0) = (n as f64 * q, n as f64 * q * (1.0 - q));
        // Standard error of the mean is sqrt(v0/reps) ≈ 0.035; of the variance ≈ v0·sqrt(2/reps).
        assert!(
            (mean - m0).abs() < 5.0 * (v0 / reps as f64).sqrt(),
            "mean {mean}"
        );
        assert!(
            (var - v0).abs() < 5.0 * v0 * (2.0 / reps as f64).sqrt(),
            "var {var}"
        );
    }

    #[test]
    fn inclusions_are_uniform_and_pairwise_independent() {
        // Per-index inclusion counts: chi-square against Binomial(reps, q) for 200 indices,
        // and the co-inclusion rate of adjacent indices against q² (skips must not correlate).
        let (n, q, reps) = (200, 0.05, 20000);
        let s = PoissonSampler::new(n, q).unwrap();
        let mut rng = StdRng::seed_from_u64(5);
        let mut out = Vec::new();
        let mut counts = vec![0u32; n];
        let mut adjacent = 0u64;
        for _ in 0..reps {
            s.sample_into(&mut rng, &mut out);
            for &i in &out {
                counts[i] += 1;
            }
            adjacent += out.windows(2).filter(|w| w[1] == w[0] + 1).count() as u64;
        }
        let e = reps as f64 * q;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - e).powi(2) / (e * (1.0 - q)))
            .sum();
        // 199 degrees of freedom: mean 199, sd ≈ 20; 300 is beyond the 99.99th percentile.
        assert!(chi2 < 300.0 && chi2 > 110.0, "chi2 {chi2}");
        let pairs = (reps * (n - 1)) as f64;
        let expect = pairs * q * q;
        assert!(
            (adjacent as f64 - expect).abs() < 5.0 * expect.sqrt(),
            "{adjacent} vs {expect}"
        );
    }

    #[test]
    fn edge_rates_and_determinism() {
        let mut rng = StdRng::seed_from_u64(0);
        let mut out = vec![7];
        PoissonSampler::new(10, 0.0)
            .unwrap()
            .sample_into(&mut rng, &mut out);
        assert!(out.is_empty());
        PoissonSampler::new(10, 1.0)
            .unwrap()
            .sample_into(&mut rng, &mut out);
        assert_eq!(out, (0..10).collect::<Vec<_>>());
        // A subnormal rate: ln(1 − q) is tiny but the skips must still be huge.
        let tiny = PoissonSampler::new(10, 5e-324).unwrap();
        for _ in 0..1000 {
            tiny.sample_into(&mut rng, &mut out);
            assert!(out.is_empty());
        }
        assert!(PoissonSampler::new(10, 1.5).is_err());
        assert!(PoissonSampler::new(10, f64::NAN).is_err());
        let s = PoissonSampler::new(1000, 0.1).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        s.sample_into(&mut StdRng::seed_from_u64(3), &mut a);
        s.sample_into(&mut StdRng::seed_from_u64(3), &mut b);
        assert_eq!(a, b);
        assert_eq!(s.expected_batch(), 100.0);
    }
}
