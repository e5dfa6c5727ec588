//! NumPy's legacy `RandomState` (MT19937) for the few draws the reference scripts make.
//!
//! Iyengar et al.'s preprocessing calls `np.random.seed(10000019)` and then `np.random.shuffle`
//! or `np.random.randint`. Reproducing those exact streams makes our RCV1 subset, KDDCup99 sample
//! and Gisette split *the same rows* as theirs instead of merely "a seeded subset". Only the
//! 32-bit paths are implemented (bounds below 2³², which covers every dataset here).

/// MT19937 seeded like `numpy.random.RandomState(seed)` (Knuth's `init_genrand`).
#[derive(Clone)]
pub struct NumpyLegacyRng {
    state: [u32; 624],
    pos: usize,
}

impl NumpyLegacyRng {
    /// Same state as `numpy.random.RandomState(seed)` / `np.random.seed(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        NumpyLegacyRng { state, pos: 624 }
    }

    fn twist(&mut self) {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        const MATRIX_A: u32 = 0x9908_b0df;
        for i in 0..624 {
            let y = (self.state[i] & UPPER) | (self.state[(i + 1) % 624] & LOWER);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            self.state[i] = self.state[(i + 397) % 624] ^ (y >> 1) ^ mag;
        }
        self.pos = 0;
    }

    /// The next tempered 32-bit output (`genrand_int32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.pos >= 624 {
            self.twist();
        }
        let mut y = self.state[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// Uniform integer in `[0, max]` by masked rejection (NumPy's `random_interval`).
    pub fn random_interval(&mut self, max: u32) -> u32 {
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        mask |= mask >> 1;
        mask |= mask >> 2;
        mask |= mask >> 4;
        mask |= mask >> 8;
        mask |= mask >> 16;
        loop {
            let v = self.next_u32() & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// `randint(high)`: uniform in `[0, high)`; panics if `high` is 0 or above 2³².
    pub fn randint(&mut self, high: usize) -> usize {
        assert!(
            high >= 1 && high - 1 <= u32::MAX as usize,
            "randint bound out of the 32-bit range"
        );
        self.random_interval((high - 1) as u32) as usize
    }

    /// In-place shuffle identical to `RandomState.shuffle` (Fisher–Yates from the back).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        assert!(
            items.is_empty() || items.len() - 1 <= u32::MAX as usize,
            "shuffle length out of range"
        );
        for i in (1..items.len()).rev() {
            let j = self.random_interval(i as u32) as usize;
            items.swap(i, j);
        }
    }

    /// `arange(n)` shuffled: the row order `np.random.shuffle` gives an `n`-row array.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        self.shuffle(&mut p);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values printed by NumPy 2.4 (`numpy.random.RandomState`), see each comment.

    #[test]
    fn raw_stream_matches_mt19937() {
        // RandomState(5489).randint(0, 2**32, size=5, dtype=np.uint32)
        let mut r = NumpyLegacyRng::new(5489);
        let got: Vec<u32> = (0..5).map(|_| r.next_u32()).collect();
        assert_eq!(
            got,
            vec![3499211612, 581869302, 3890346734, 3586334585, 545404204]
        );
    }

    #[test]
    fn randint_matches_numpy() {
        // RandomState(10000019).randint(494021, size=8)
        let mut r = NumpyLegacyRng::new(10000019);
        let got: Vec<usize> = (0..8).map(|_| r.randint(494021)).collect();
        assert_eq!(
            got,
            vec![192026, 150744, 241308, 94288, 138379, 23509, 231877, 102040]
        );
        // RandomState(10000019).randint(494021, size=70000): last three and the sum
        let mut r = NumpyLegacyRng::new(10000019);
        let all: Vec<usize> = (0..70000).map(|_| r.randint(494021)).collect();
        assert_eq!(&all[69997..], &[308534, 178616, 265143]);
        assert_eq!(all.iter().sum::<usize>(), 17240969278);
    }

    #[test]
    fn shuffle_matches_numpy() {
        // a = np.arange(20); RandomState(10000019).shuffle(a)
        let p = NumpyLegacyRng::new(10000019).permutation(20);
        assert_eq!(
            p,
            vec![
                12, 4, 2, 8, 7, 14, 13, 3, 17, 9, 6, 19, 10, 0, 1, 18, 15, 5, 11, 16
            ]
        );
        // 2-D arrays shuffle rows with the same stream: arange(21).reshape(7, 3)[:, 0] / 3
        let p = NumpyLegacyRng::new(10000019).permutation(7);
        assert_eq!(p, vec![3, 6, 1, 5, 4, 0, 2]);
        // The RCV1 subset: arange(500000) shuffled
        let p = NumpyLegacyRng::new(10000019).permutation(500_000);
        assert_eq!(&p[..6], &[41576, 146973, 336385, 356929, 458518, 394143]);
        assert_eq!(
            &p[49994..50000],
            &[430823, 169789, 2322, 81400, 454719, 130332]
        );
        assert_eq!(p[..50000].iter().sum::<usize>(), 12491708970);
    }
}
