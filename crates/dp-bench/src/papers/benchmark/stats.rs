//! Demšar's (2006) comparison of learners over datasets: ranks with ties, the Friedman and
//! Iman–Davenport tests, the Nemenyi critical difference and its groups; and, within one
//! (dataset, ε) cell, Welch's one-sided test that decides which learners tie with the best
//! (`/work/shared/reference/benchmark.md` §1).

use super::distributions::{f_cdf, t_cdf};

/// The Nemenyi q_α at α = 0.05 for k = 2…12 learners (studentized range at ∞ df over √2;
/// Demšar's Table 5a to three decimals, orange3's `compute_CD` beyond k = 10).
pub const Q_05: [f64; 11] = [
    1.960, 2.344, 2.569, 2.728, 2.850, 2.948, 3.031, 3.102, 3.164, 3.219, 3.268,
];

/// Significance level of every test here.
pub const ALPHA: f64 = 0.05;

/// Ranks of `values`, 1 for the largest, ties sharing the mean of the ranks they span
/// (two learners tied for second both get 2.5). NaN values must be removed first.
pub fn mean_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        // Positions i..=j (0-based) hold ranks i+1..=j+1: their mean.
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            ranks[o] = rank;
        }
        i = j + 1;
    }
    ranks
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
/// the degrees of freedom are (n−1)(s_a² + s_b²)²/(s_a⁴ + s_b⁴), as §1 writes them. Two
/// samples without spread have t = ±∞ (p 0 or 1) if their means differ, and p = 1 if not.
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

/// Which learners tie with the best of one cell: the best (highest mean) does, and so does
/// every learner whose per-trial accuracies a one-sided Welch test at [`ALPHA`] does not find
/// worse than the best's. Learners with fewer than two trials tie only on an equal mean.
pub fn tied_with_best(samples: &[Vec<f64>]) -> Vec<bool> {
    let means: Vec<f64> = samples
        .iter()
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let Some(best) = (0..means.len()).max_by(|&a, &b| means[a].total_cmp(&means[b])) else {
        return Vec::new();
    };
    (0..samples.len())
        .map(|i| match welch(&samples[best], &samples[i]) {
            _ if means[i] == means[best] => true,
            Some(w) => w.p_greater >= ALPHA,
            None => false,
        })
        .collect()
}

/// Ranks in one cell: the learners tied with the best ([`tied_with_best`]) share the mean of
/// ranks 1…m, the others follow by mean accuracy (exact ties sharing their mean rank).
pub fn cell_ranks(samples: &[Vec<f64>]) -> Vec<f64> {
    let tied = tied_with_best(samples);
    let means: Vec<f64> = samples
        .iter()
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    // The best group is made one value above everything else, then ranked as ties.
    let top = means.iter().copied().fold(f64::NEG_INFINITY, f64::max) + 1.0;
    let keyed: Vec<f64> = means
        .iter()
        .zip(&tied)
        .map(|(&m, &t)| if t { top } else { m })
        .collect();
    mean_ranks(&keyed)
}

/// The Friedman and Iman–Davenport statistics of an N × k table of ranks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friedman {
    /// Blocks (datasets).
    pub n: usize,
    /// Learners.
    pub k: usize,
    /// χ²_F on k − 1 degrees of freedom.
    pub chi2: f64,
    /// Iman–Davenport F_F on (k − 1, (k − 1)(N − 1)) degrees of freedom.
    pub f: f64,
    /// P[F ≥ F_F] under the null hypothesis that all learners are equivalent.
    pub p: f64,
}

/// Friedman's test on `ranks[block][learner]` (each block ranks all k learners; N, k ≥ 2).
pub fn friedman(ranks: &[Vec<f64>]) -> Option<Friedman> {
    let n = ranks.len();
    let k = ranks.first()?.len();
    if ranks.iter().any(|r| r.len() != k) {
        return None;
    }
    let mean: Vec<f64> = (0..k)
        .map(|j| ranks.iter().map(|r| r[j]).sum::<f64>() / n as f64)
        .collect();
    friedman_from_means(&mean, n)
}

/// Friedman's test from the k learners' mean ranks R_j over N blocks (N, k ≥ 2).
pub fn friedman_from_means(mean: &[f64], n: usize) -> Option<Friedman> {
    let k = mean.len();
    if n < 2 || k < 2 {
        return None;
    }
    let (nf, kf) = (n as f64, k as f64);
    let sum_sq: f64 = mean.iter().map(|r| r * r).sum();
    let chi2 = 12.0 * nf / (kf * (kf + 1.0)) * (sum_sq - kf * (kf + 1.0).powi(2) / 4.0);
    let denom = nf * (kf - 1.0) - chi2;
    // Identical rankings in every block make the denominator 0: F is infinite.
    let f = if denom > 0.0 {
        (nf - 1.0) * chi2 / denom
    } else {
        f64::INFINITY
    };
    let p = 1.0 - f_cdf(f, kf - 1.0, (kf - 1.0) * (nf - 1.0));
    Some(Friedman { n, k, chi2, f, p })
}

/// Nemenyi's critical difference at α = 0.05 for k learners over N blocks (`None` beyond
/// the tabulated k = 2…12).
pub fn nemenyi_cd(k: usize, n: usize) -> Option<f64> {
    let q = *Q_05.get(k.checked_sub(2)?)?;
    Some(q * (k as f64 * (k as f64 + 1.0) / (6.0 * n as f64)).sqrt())
}

/// The maximal groups of learners with all pairwise mean-rank gaps below `cd`, as index
/// ranges (first, last) into `sorted` (mean ranks in increasing order); a group is a run of
/// consecutive learners since the gaps grow with distance in that order. Singletons are left
/// out: a CD diagram draws no bar for them.
pub fn cd_groups(sorted: &[f64], cd: f64) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut last_end = 0;
    for i in 0..sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] - sorted[i] < cd {
            j += 1;
        }
        // A group ending where the previous one ended lies inside it.
        if j > i && (groups.is_empty() || j > last_end) {
            groups.push((i, j));
            last_end = j;
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() < tol, "{a} vs {b}");
    }

    #[test]
    fn benchmark_ranks_share_the_mean_of_tied_positions() {
        assert_eq!(mean_ranks(&[0.8, 0.9, 0.7]), vec![2.0, 1.0, 3.0]);
        assert_eq!(mean_ranks(&[0.9, 0.8, 0.8, 0.7]), vec![1.0, 2.5, 2.5, 4.0]);
        assert_eq!(mean_ranks(&[5.0, 5.0, 5.0]), vec![2.0, 2.0, 2.0]);
        assert!(mean_ranks(&[]).is_empty());
    }

    /// Demšar (2006) §3.2.4: C4.5 and three variants on 14 datasets, mean ranks 3.143,
    /// 2.000, 2.893 and 1.964 (rank sums 44, 28, 40.5 and 27.5) give χ²_F = 9.28 and
    /// F_F = 3.69, above the critical F(3, 39) = 2.85, and a Nemenyi CD of 1.25.
    #[test]
    fn benchmark_friedman_reproduces_demsar_worked_example() {
        let mean = [44.0 / 14.0, 28.0 / 14.0, 40.5 / 14.0, 27.5 / 14.0];
        let f = friedman_from_means(&mean, 14).unwrap();
        close(f.chi2, 9.28, 0.005);
        close(f.f, 3.69, 0.005);
        // scipy.stats.f.sf(3.6866, 3, 39) ≈ 0.0198: rejected at 0.05, as Demšar says.
        assert!(f.p < ALPHA && f.p > 0.015, "{}", f.p);
        close(nemenyi_cd(4, 14).unwrap(), 1.25, 0.005);
        // A table of ranks gives the same as its means.
        let blocks = vec![vec![1.0, 2.0, 3.0, 4.0], vec![2.0, 1.0, 4.0, 3.0]];
        assert_eq!(
            friedman(&blocks),
            friedman_from_means(&[1.5, 1.5, 3.5, 3.5], 2)
        );
    }

    #[test]
    fn benchmark_friedman_of_identical_rankings_is_certain_and_of_balanced_ones_null() {
        let same = vec![vec![1.0, 2.0, 3.0]; 5];
        let f = friedman(&same).unwrap();
        close(f.chi2, 10.0, 1e-12); // 12·5/12 · (1 + 4 + 9 − 12) = 10
        assert!(f.f.is_infinite() && f.p == 0.0);
        let balanced = vec![vec![1.0, 2.0, 3.0], vec![3.0, 2.0, 1.0]];
        let f = friedman(&balanced).unwrap();
        close(f.chi2, 0.0, 1e-12);
        close(f.p, 1.0, 1e-12);
        assert!(friedman(&[vec![1.0, 2.0]]).is_none(), "one block");
    }

    #[test]
    fn benchmark_nemenyi_cd_for_k10_n5_is_6_06() {
        close(nemenyi_cd(10, 5).unwrap(), 6.06, 0.005);
        close(
            nemenyi_cd(2, 10).unwrap(),
            1.96 * (6.0f64 / 60.0).sqrt(),
            1e-12,
        );
        assert!(nemenyi_cd(13, 5).is_none() && nemenyi_cd(1, 5).is_none());
    }

    /// Equal n: Welch's ν is (n−1)(s_a² + s_b²)²/(s_a⁴ + s_b⁴) (§1); the p-value is scipy's
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

    #[test]
    fn benchmark_cell_ranks_put_learners_tied_with_the_best_at_a_shared_rank() {
        let best = vec![90.0, 91.0, 89.0, 90.5, 89.5];
        let near = vec![89.8, 90.9, 88.7, 90.6, 89.0]; // within noise of the best
        let far = vec![70.0, 71.0, 69.0, 70.5, 69.5];
        let farther = vec![60.0, 61.0, 59.0, 60.5, 59.5];
        assert_eq!(
            tied_with_best(&[near.clone(), best.clone(), far.clone()]),
            vec![true, true, false]
        );
        assert_eq!(
            cell_ranks(&[far, near, best, farther]),
            vec![3.0, 1.5, 1.5, 4.0]
        );
    }

    #[test]
    fn benchmark_cd_groups_are_maximal_runs_below_the_cd() {
        // Gaps: 1.0–1.5–2.2 within 1.25 of 1.0; 2.2–3.0 a group; 4.5 alone.
        let r = [1.0, 1.5, 2.2, 3.0, 4.5];
        assert_eq!(cd_groups(&r, 1.25), vec![(0, 2), (2, 3)]);
        assert_eq!(cd_groups(&r, 10.0), vec![(0, 4)]);
        assert!(cd_groups(&r, 0.1).is_empty());
    }
}
