//! Statistics within one (dataset, ε) cell: the Student-t interval of a learner's mean, and
//! which learners a test with family-wise error control cannot tell from the best (Holm-
//! corrected one-sided Welch tests against the best). The test annotates; it never reorders:
//! ranks follow the means.

use super::distributions::{t_cdf, t_ppf};
use super::stats::ALPHA;

/// A ranked entry with fewer trials is still ranked, and marked (†) in the tables.
pub const MIN_TRIALS: usize = 10;

/// Mean and half-width of the 95 % Student-t interval, t_{0.975, n−1} · s/√n with s the sample
/// standard deviation (ddof 1); the half-width is NaN for fewer than two values (no spread to
/// measure), and both are NaN when a value is.
pub fn mean_t95(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, t_ppf(0.975, n - 1.0) * (var / n).sqrt())
}

/// Welch's unequal-variance t-test of two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// (mean a − mean b) / √(s_a²/n_a + s_b²/n_b).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub nu: f64,
    /// One-sided p-value of μ_a > μ_b (P[T ≥ t] under μ_a = μ_b).
    pub p_greater: f64,
}

fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    (
        m,
        xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0),
    )
}

/// Welch's test of `a` against `b` (each at least two values; `None` otherwise). With equal n
/// the degrees of freedom are (n−1)(s_a² + s_b²)²/(s_a⁴ + s_b⁴). Two samples without spread
/// have t = ±∞ (p 0 or 1) if their means differ, and p = 1 if not.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (wa, wb) = (va / a.len() as f64, vb / b.len() as f64);
    let se2 = wa + wb;
    if se2 == 0.0 {
        let t = if ma == mb {
            0.0
        } else {
            (ma - mb) * f64::INFINITY
        };
        let p = if t > 0.0 { 0.0 } else { 1.0 };
        return Some(Welch {
            t,
            nu: f64::INFINITY,
            p_greater: p,
        });
    }
    let t = (ma - mb) / se2.sqrt();
    let nu = se2 * se2 / (wa * wa / (a.len() as f64 - 1.0) + wb * wb / (b.len() as f64 - 1.0));
    Some(Welch {
        t,
        nu,
        p_greater: 1.0 - t_cdf(t, nu),
    })
}

/// Holm's step-down adjusted p-values (Holm 1979): with the m p-values sorted increasingly,
/// the j-th (1-based) becomes max over i ≤ j of min(1, (m − i + 1) p_(i)). Rejecting where the
/// adjusted p is at most α controls the family-wise error rate at α. NaN values are left out
/// of the family and stay NaN.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = order.len();
    let mut adjusted = vec![f64::NAN; p.len()];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((m - j) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// A learner against the best of its cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VsBest {
    /// The highest mean (the first of them, if several share it).
    Best,
    /// Not shown worse: Holm-adjusted p (one-sided Welch, best > learner) above α.
    Indistinguishable(f64),
    /// Shown worse than the best at family-wise α.
    Worse(f64),
    /// Fewer than two trials on either side: no test.
    Untested,
}

impl VsBest {
    /// As the tables spell it.
    pub fn name(self) -> &'static str {
        match self {
            VsBest::Best => "best",
            VsBest::Indistinguishable(_) => "indistinguishable",
            VsBest::Worse(_) => "worse",
            VsBest::Untested => "untested",
        }
    }

    /// The Holm-adjusted p-value (NaN for the best and untested).
    pub fn p(self) -> f64 {
        match self {
            VsBest::Indistinguishable(p) | VsBest::Worse(p) => p,
            VsBest::Best | VsBest::Untested => f64::NAN,
        }
    }
}

/// Every learner of one cell against the best (highest of `means`): one-sided Welch tests of
/// "the best is better" on the per-trial `samples`, one per other learner with at least two
/// trials (the family), Holm-corrected at [`ALPHA`].
pub fn versus_best(means: &[f64], samples: &[Vec<f64>]) -> Vec<VsBest> {
    // The first of the highest means: `min_by` keeps the first of equal elements.
    let Some(best) = (0..means.len()).min_by(|&a, &b| means[b].total_cmp(&means[a])) else {
        return Vec::new();
    };
    let raw: Vec<f64> = (0..samples.len())
        .map(|i| match welch(&samples[best], &samples[i]) {
            Some(w) if i != best => w.p_greater,
            _ => f64::NAN,
        })
        .collect();
    let adjusted = holm(&raw);
    (0..samples.len())
        .map(|i| match adjusted[i] {
            _ if i == best => VsBest::Best,
            p if p.is_nan() => VsBest::Untested,
            p if p <= ALPHA => VsBest::Worse(p),
            p => VsBest::Indistinguishable(p),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() < tol, "{a} vs {b}");
    }

    /// python3 -c "import numpy as np, scipy.stats as s; x = np.array([80.1, 81.3, 79.8,
    /// 80.9, 81.0]); print(s.t.ppf(0.975, 4) * x.std(ddof=1) / np.sqrt(5))"
    #[test]
    fn benchmark_t_interval_matches_scipy() {
        let (m, h) = mean_t95(&[80.1, 81.3, 79.8, 80.9, 81.0]);
        close(m, 80.62, 1e-12);
        close(h, 0.792_138_813_696_939_2, 1e-10);
        // Wider than the normal 1.96 · SE it replaces, by t_{0.975,4}/1.96.
        let (_, z) = crate::experiment::summary::mean_ci95(&[80.1, 81.3, 79.8, 80.9, 81.0]);
        close(h / z, 2.776_445_105_197_793_4 / 1.96, 1e-9);
        assert!(mean_t95(&[3.0]).1.is_nan() && mean_t95(&[]).0.is_nan());
        assert!(mean_t95(&[1.0, f64::NAN]).0.is_nan());
    }

    /// Equal n: Welch's ν is (n−1)(s_a² + s_b²)²/(s_a⁴ + s_b⁴); the p-value is scipy's
    /// `ttest_ind(a, b, equal_var=False, alternative="greater")`.
    #[test]
    fn benchmark_welch_matches_the_formula_and_scipy() {
        let a = [80.1, 81.3, 79.8, 80.9, 81.0];
        let b = [79.0, 80.2, 78.1, 79.9, 80.5, 79.3, 78.8];
        let eq = [78.0, 80.5, 79.0, 81.5, 79.5];
        let w = welch(&a, &eq).unwrap();
        let (_, va) = mean_var(&a);
        let (_, vb) = mean_var(&eq);
        close(w.nu, 4.0 * (va + vb).powi(2) / (va * va + vb * vb), 1e-12);
        let w = welch(&a, &b).unwrap();
        close(w.t, 2.842_154_381_066_953, 1e-9);
        close(w.nu, 9.927_814_026_078_128, 1e-9);
        close(w.p_greater, 0.008_801_392_869_308_552, 1e-9);
        assert!(welch(&a, &[1.0]).is_none());
        let flat = welch(&[2.0, 2.0], &[1.0, 1.0]).unwrap();
        assert!(flat.t.is_infinite() && flat.p_greater == 0.0);
    }

    /// Holm's worked example (Wikipedia, "Holm–Bonferroni method"): p = 0.01, 0.04, 0.03,
    /// 0.005 at α = 0.05 rejects the first and the last; adjusted 0.03, 0.06, 0.06, 0.02.
    #[test]
    fn benchmark_holm_reproduces_the_worked_example() {
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (a, want) in adj.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            close(*a, want, 1e-15);
        }
        let rejected: Vec<bool> = adj.iter().map(|&p| p <= ALPHA).collect();
        assert_eq!(rejected, [true, false, false, true]);
        let with_gap = holm(&[f64::NAN, 0.02, 0.5]);
        assert!(with_gap[0].is_nan());
        close(with_gap[1], 0.04, 1e-15);
        close(with_gap[2], 0.5, 1e-15);
    }

    /// The raw one-sided Welch p-values of `best` against each are scipy's
    /// `ttest_ind(best, x, equal_var=False, alternative="greater").pvalue`: 0.364537…,
    /// 0.040095… and 8.39e-11; Holm multiplies the sorted ones by 3, 2, 1 (running max):
    /// python3 -c "import scipy.stats as s; b = [90, 91, 89, 90.5, 89.5]; [print(repr(
    /// s.ttest_ind(b, x, equal_var=False, alternative='greater').pvalue)) for x in
    /// ([89.8, 90.9, 88.7, 90.6, 89.0], [89.1, 89.7, 88.2, 89.6, 88.9], [70, 71, 69, 70.5,
    /// 69.5])]". `mid` is worse uncorrected (0.040 < 0.05) but not after Holm (0.080).
    #[test]
    fn benchmark_versus_best_is_holm_corrected_welch_against_scipy() {
        let best = vec![90.0, 91.0, 89.0, 90.5, 89.5];
        let near = vec![89.8, 90.9, 88.7, 90.6, 89.0];
        let mid = vec![89.1, 89.7, 88.2, 89.6, 88.9];
        let far = vec![70.0, 71.0, 69.0, 70.5, 69.5];
        let samples = vec![near, best, mid, far, vec![95.0]];
        let means: Vec<f64> = samples
            .iter()
            .map(|s| s.iter().sum::<f64>() / s.len() as f64)
            .collect();
        // The one-trial learner has the highest mean: it is the best, and nothing is tested.
        let v = versus_best(&means, &samples);
        assert_eq!(v[4], VsBest::Best);
        assert!(v[..4].iter().all(|x| *x == VsBest::Untested), "{v:?}");
        let v = versus_best(&means[..4], &samples[..4]);
        assert_eq!(v[1], VsBest::Best);
        let VsBest::Indistinguishable(p) = v[0] else {
            panic!("{v:?}")
        };
        close(p, 0.364_537_179_971_163_03, 1e-9);
        let VsBest::Indistinguishable(p) = v[2] else {
            panic!("{v:?}")
        };
        close(p, 0.080_190_051_014_857_77, 1e-9);
        let VsBest::Worse(p) = v[3] else {
            panic!("{v:?}")
        };
        close(p, 2.517_857_831_871_869e-10, 1e-15);
        assert_eq!(v[3].name(), "worse");
    }
}
