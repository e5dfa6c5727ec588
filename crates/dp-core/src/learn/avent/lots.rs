//! Lots drawn without replacement exactly as `rand::seq::index::sample` (rand 0.9) draws them,
//! the same calls on the generator and the same output order, in O(lot) per draw instead of
//! rand's O(lot²) (Floyd) or O(n) (partial Fisher–Yates over a fresh `0..n` vector).
//!
//! DPareto's trainers draw one lot per step: at the median of the paper's Adult distribution
//! (lot 124 of 30,956) rand's Floyd scan was a quarter of a training's time, and lots above
//! ~136 rows allocate and fill a 124 kB index vector at every step. Keeping rand's algorithm
//! choice and its draws keeps every earlier result (points, fronts, Table 2) bit for bit.

use rand::Rng;
use rand::distr::{Distribution, Uniform};

/// Marks an index that is not in the lot being drawn.
const ABSENT: u32 = u32::MAX;

/// Which of rand's three algorithms `index::sample` picks for (length, amount).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Algorithm {
    Floyd,
    Inplace,
    Rejection,
}

/// rand 0.9's choice (`seq/index.rs`, `sample`), constants and `f32` arithmetic included.
fn algorithm(length: u32, amount: u32) -> Algorithm {
    let j = usize::from(length >= 500_000);
    let amount_fp = amount as f32;
    if amount < 163 {
        const C: [[f32; 2]; 2] = [[1.6, 8.0 / 45.0], [10.0, 70.0 / 9.0]];
        let m4 = C[0][j] * amount_fp;
        if amount > 11 && (length as f32) < (C[1][j] + m4) * amount_fp {
            Algorithm::Inplace
        } else {
            Algorithm::Floyd
        }
    } else {
        const C: [f32; 2] = [270.0, 330.0 / 9.0];
        if (length as f32) < C[j] * amount_fp {
            Algorithm::Inplace
        } else {
            Algorithm::Rejection
        }
    }
}

/// Draws lots of `amount` distinct indices of `0..length`, reusing its buffers across draws.
pub(crate) struct LotSampler {
    length: u32,
    amount: u32,
    algorithm: Algorithm,
    /// Floyd and rejection: each index's position in the lot, or [`ABSENT`]. Partial
    /// Fisher–Yates: the permuted `0..length` (identity between draws).
    table: Vec<u32>,
    lot: Vec<u32>,
    /// Fisher–Yates: the swap partner of each step, to undo the swaps after a draw.
    swaps: Vec<u32>,
}

impl LotSampler {
    /// A sampler of `amount ≤ length ≤ u32::MAX` indices.
    pub(crate) fn new(length: usize, amount: usize) -> LotSampler {
        assert!(
            amount <= length,
            "lot {amount} exceeds the {length} records"
        );
        let length = u32::try_from(length).expect("at most u32::MAX records");
        let amount = amount as u32;
        let algorithm = algorithm(length, amount);
        let table = match algorithm {
            Algorithm::Inplace => (0..length).collect(),
            Algorithm::Floyd | Algorithm::Rejection => vec![ABSENT; length as usize],
        };
        LotSampler {
            length,
            amount,
            algorithm,
            table,
            lot: Vec::with_capacity(amount as usize),
            swaps: Vec::with_capacity(amount as usize),
        }
    }

    /// The next lot, identical to `rand::seq::index::sample(rng, length, amount)`.
    pub(crate) fn draw<R: Rng + ?Sized>(&mut self, rng: &mut R) -> &[u32] {
        self.lot.clear();
        match self.algorithm {
            Algorithm::Floyd => self.floyd(rng),
            Algorithm::Inplace => self.inplace(rng),
            Algorithm::Rejection => self.rejection(rng),
        }
        &self.lot
    }

    /// Floyd's combination algorithm; rand's linear `position` scan becomes a table lookup
    /// (the lot holds distinct values, so the first match is the only one).
    fn floyd<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        for j in self.length - self.amount..self.length {
            let t = rng.random_range(..=j);
            let at = self.table[t as usize];
            if at != ABSENT {
                // j enters the lot here for the first time: earlier draws were all < j.
                self.lot[at as usize] = j;
                self.table[j as usize] = at;
            }
            self.table[t as usize] = self.lot.len() as u32;
            self.lot.push(t);
        }
        for &v in &self.lot {
            self.table[v as usize] = ABSENT;
        }
    }

    /// Partial Fisher–Yates on a kept identity permutation, restored by undoing the swaps.
    fn inplace<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.swaps.clear();
        for i in 0..self.amount {
            let j = rng.random_range(i..self.length);
            self.table.swap(i as usize, j as usize);
            self.swaps.push(j);
        }
        self.lot
            .extend_from_slice(&self.table[..self.amount as usize]);
        for (i, &j) in self.swaps.iter().enumerate().rev() {
            self.table.swap(i, j as usize);
        }
    }

    /// Rejection sampling; rand's `HashSet` becomes the membership table.
    fn rejection<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let distr = Uniform::new(0, self.length).expect("length > amount >= 163");
        for _ in 0..self.amount {
            let mut pos = distr.sample(rng);
            while self.table[pos as usize] != ABSENT {
                pos = distr.sample(rng);
            }
            self.table[pos as usize] = 0;
            self.lot.push(pos);
        }
        for &v in &self.lot {
            self.table[v as usize] = ABSENT;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use std::collections::HashSet;

    /// rand's rejection sampler, which keys a `HashSet`.
    fn rand_rejection<R: Rng + ?Sized>(rng: &mut R, length: u32, amount: u32) -> Vec<u32> {
        let mut cache = HashSet::with_capacity(amount as usize);
        let distr = Uniform::new(0, length).unwrap();
        (0..amount)
            .map(|_| {
                let mut pos = distr.sample(rng);
                while !cache.insert(pos) {
                    pos = distr.sample(rng);
                }
                pos
            })
            .collect()
    }

    /// Every branch of rand's choice, including its edges: the lot and the generator's state
    /// afterwards match rand's `index::sample` draw for draw.
    #[test]
    fn draws_what_rand_draws() {
        let cases: &[(usize, usize)] = &[
            (30_956, 124),   // Floyd (the Adult median)
            (30_956, 150),   // in place, amount < 163
            (30_956, 512),   // in place, amount >= 163
            (60_000, 200),   // rejection
            (600_000, 170),  // rejection, length >= 500,000
            (600_000, 3000), // in place, length >= 500,000
            (100, 11),       // Floyd below the amount-11 shortcut
            (100, 12),       // in place
            (50, 50),        // the whole set
            (7, 0),          // an empty lot
            (1, 1),
        ];
        for &(n, m) in cases {
            let mut ours = StdRng::seed_from_u64(n as u64 * 31 + m as u64);
            let mut theirs = ours.clone();
            let mut s = LotSampler::new(n, m);
            for _ in 0..25 {
                let want = rand::seq::index::sample(&mut theirs, n, m).into_vec();
                let got: Vec<usize> = s.draw(&mut ours).iter().map(|&v| v as usize).collect();
                assert_eq!(got, want, "n = {n}, lot = {m}");
            }
            assert_eq!(
                ours.random::<u64>(),
                theirs.random::<u64>(),
                "n = {n}, lot = {m}"
            );
        }
    }

    #[test]
    fn the_choice_of_algorithm_is_rands() {
        assert_eq!(algorithm(30_956, 124), Algorithm::Floyd);
        assert_eq!(algorithm(30_956, 150), Algorithm::Inplace);
        assert_eq!(algorithm(60_000, 200), Algorithm::Rejection);
        // The rejection branch agrees with rand's HashSet version on its own.
        let mut a = StdRng::seed_from_u64(3);
        let mut b = a.clone();
        let mut s = LotSampler::new(60_000, 200);
        assert_eq!(s.draw(&mut a), rand_rejection(&mut b, 60_000, 200));
    }
}
