//! Demšar's (2006) comparison of learners over datasets: ranks with ties, the Friedman and
//! Iman–Davenport tests, the Nemenyi critical difference and its groups. Within one
//! (dataset, ε) cell, see [`super::cell_stats`].

use super::distributions::f_cdf;

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

    /// Demšar (2006) §3.2.4 (the data of his Table 6): C4.5 and three variants on 14
    /// datasets, mean ranks 3.143, 2.000, 2.893 and 1.964 (rank sums 44, 28, 40.5 and 27.5)
    /// give χ²_F = 9.28 and F_F = 3.69 (not 3.86), above the critical F(3, 39) = 2.85, and a
    /// Nemenyi CD of 1.25 (q = 2.569). To more digits, from the same rank sums:
    /// python3 -c "import numpy as np, scipy.stats as s; R = np.array([44, 28, 40.5, 27.5]) /
    /// 14; c = 12*14/20*((R**2).sum() - 4*25/4); F = 13*c/(14*3 - c); print(c, F,
    /// s.f.sf(F, 3, 39))" gives 9.278571428571437, 3.686313032089068, 0.019823006192249054;
    /// q from s.studentized_range.ppf(0.95, 4, np.inf)/√2 = 2.569031772546482, CD 1.2535591….
    #[test]
    fn benchmark_friedman_reproduces_demsar_worked_example() {
        let mean = [44.0 / 14.0, 28.0 / 14.0, 40.5 / 14.0, 27.5 / 14.0];
        let f = friedman_from_means(&mean, 14).unwrap();
        close(f.chi2, 9.28, 0.005);
        close(f.f, 3.69, 0.005);
        close(f.chi2, 9.278_571_428_571_437, 1e-10);
        close(f.f, 3.686_313_032_089_068, 1e-10);
        close(f.p, 0.019_823_006_192_249_054, 1e-10);
        assert!(f.p < ALPHA);
        close(nemenyi_cd(4, 14).unwrap(), 1.25, 0.005);
        // Q_05 holds q to three decimals: the CD to about 1e-3 of scipy's.
        close(nemenyi_cd(4, 14).unwrap(), 1.253_559_147_117_605_7, 2e-4);
        // A table of ranks gives the same as its means.
        let blocks = vec![vec![1.0, 2.0, 3.0, 4.0], vec![2.0, 1.0, 4.0, 3.0]];
        assert_eq!(
            friedman(&blocks),
            friedman_from_means(&[1.5, 1.5, 3.5, 3.5], 2)
        );
    }

    /// scipy.stats.friedmanchisquare on a 6 × 5 table without ties (so no tie correction),
    /// and F_F with its p-value from scipy.stats.f.sf:
    /// python3 -c "import numpy as np, scipy.stats as s; X = np.array(TABLE); c =
    /// s.friedmanchisquare(*X.T).statistic; N, k = X.shape; F = (N-1)*c/(N*(k-1) - c);
    /// print(c, F, s.f.sf(F, k-1, (k-1)*(N-1)))" gives 18.933333333333337, 18.68421052631581,
    /// 1.5629978934280678e-06. Ranks here are 1 for the best, scipy's 1 for the smallest:
    /// χ²_F is the same either way.
    #[test]
    fn benchmark_friedman_matches_scipy_friedmanchisquare() {
        let table = [
            [0.81, 0.79, 0.84, 0.70, 0.77],
            [0.66, 0.71, 0.69, 0.60, 0.64],
            [0.90, 0.93, 0.91, 0.85, 0.88],
            [0.75, 0.74, 0.80, 0.72, 0.73],
            [0.58, 0.63, 0.61, 0.55, 0.57],
            [0.88, 0.86, 0.92, 0.83, 0.87],
        ];
        let ranks: Vec<Vec<f64>> = table.iter().map(|b| mean_ranks(b)).collect();
        let f = friedman(&ranks).unwrap();
        assert_eq!((f.n, f.k), (6, 5));
        close(f.chi2, 18.933_333_333_333_337, 1e-10);
        close(f.f, 18.684_210_526_315_81, 1e-9);
        close(f.p, 1.562_997_893_428_067_8e-6, 1e-12);
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

    #[test]
    fn benchmark_cd_groups_are_maximal_runs_below_the_cd() {
        // Gaps: 1.0–1.5–2.2 within 1.25 of 1.0; 2.2–3.0 a group; 4.5 alone.
        let r = [1.0, 1.5, 2.2, 3.0, 4.5];
        assert_eq!(cd_groups(&r, 1.25), vec![(0, 2), (2, 3)]);
        assert_eq!(cd_groups(&r, 10.0), vec![(0, 4)]);
        assert!(cd_groups(&r, 0.1).is_empty());
    }
}
