//! DPareto's five hyperparameters λ = (epochs, lot, lr, clip, z): boxes, the random-sampling
//! distributions of the paper's Tables 3/4, linear grids, and rounding to a trainable point.

use dp_core::learn::avent::{Hyper, round_half_even};
use rand::Rng;
use rand_distr::{Distribution as _, Exp, Normal};
use serde::{Deserialize, Serialize};

/// Number of hyperparameters.
pub const DIM: usize = 5;

/// Their names, in coordinate order (CSV headers, messages).
pub const NAMES: [&str; DIM] = ["epochs", "lot", "lr", "clip", "noise_multiplier"];

/// A closed range per hyperparameter, as TOML `epochs = [1, 64]` etc.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Box5 {
    /// Epochs.
    pub epochs: [f64; 2],
    /// Lot size.
    pub lot: [f64; 2],
    /// Learning rate.
    pub lr: [f64; 2],
    /// Clipping norm.
    pub clip: [f64; 2],
    /// Noise multiplier z.
    pub noise_multiplier: [f64; 2],
}

impl Box5 {
    /// The ranges in coordinate order.
    pub fn ranges(&self) -> [[f64; 2]; DIM] {
        [
            self.epochs,
            self.lot,
            self.lr,
            self.clip,
            self.noise_multiplier,
        ]
    }

    /// Lower and upper ends as two vectors.
    pub fn bounds(&self) -> ([f64; DIM], [f64; DIM]) {
        let r = self.ranges();
        (r.map(|r| r[0]), r.map(|r| r[1]))
    }

    /// Checks `0 < lo < hi < ∞` for each range (epochs, lot ≥ 1), naming the key.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        for (name, [lo, hi]) in NAMES.iter().zip(self.ranges()) {
            let min = if *name == "epochs" || *name == "lot" {
                1.0
            } else {
                f64::MIN_POSITIVE
            };
            if !(lo >= min && lo < hi && hi.is_finite()) {
                return Err(format!(
                    "key `{key}.{name}` = [{}, {}] must be an increasing pair of positive numbers{}",
                    crate::quoting::number(lo),
                    crate::quoting::number(hi),
                    if min == 1.0 { " >= 1" } else { "" }
                ));
            }
        }
        Ok(())
    }
}

/// Random-sampling distributions (P App. C, `random_sampling/harness.py:179-226`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Distribution {
    /// Table 4 (Adult): epochs U, lot N(128, 64²), lr 1e-3 + Exp(10), clip and z 0.1 + Exp(0.1).
    Adult,
    /// Table 3 (MNIST): epochs U, lot N(800, 800²), lr 1e-3 + Exp(10), clip and z 0.1 + Exp(0.5).
    Mnist,
    /// Every hyperparameter uniform over its range (`random_sampling_all_uniform.py`).
    Uniform,
}

/// One coordinate's sampler before rejection.
enum Draw {
    Uniform,
    Normal(f64, f64),
    ShiftedExp(f64, f64),
}

impl Distribution {
    fn draws(self) -> [Draw; DIM] {
        use Draw::*;
        match self {
            Distribution::Adult => [
                Uniform,
                Normal(128.0, 64.0),
                ShiftedExp(1e-3, 10.0),
                ShiftedExp(0.1, 0.1),
                ShiftedExp(0.1, 0.1),
            ],
            Distribution::Mnist => [
                Uniform,
                Normal(800.0, 800.0),
                ShiftedExp(1e-3, 10.0),
                ShiftedExp(0.1, 0.5),
                ShiftedExp(0.1, 0.5),
            ],
            Distribution::Uniform => [Uniform, Uniform, Uniform, Uniform, Uniform],
        }
    }

    /// One point (unrounded), each coordinate redrawn until it falls strictly inside its range
    /// (the authors' test is `lo < v < hi`).
    pub fn sample<R: Rng>(self, ranges: &Box5, rng: &mut R) -> [f64; DIM] {
        let mut x = [0.0; DIM];
        for ((x, draw), [lo, hi]) in x.iter_mut().zip(self.draws()).zip(ranges.ranges()) {
            *x = loop {
                let v = match draw {
                    Draw::Uniform => rng.random_range(lo..hi),
                    Draw::Normal(m, s) => Normal::new(m, s).expect("valid").sample(rng),
                    Draw::ShiftedExp(s, rate) => s + Exp::new(rate).expect("valid").sample(rng),
                };
                if lo < v && v < hi {
                    break v;
                }
            };
        }
        x
    }
}

/// The `size⁵` points of a linear grid over `ranges` (`np.linspace` per coordinate, the last
/// coordinate varying fastest).
pub fn grid(size: usize, ranges: &Box5) -> Vec<[f64; DIM]> {
    let axes: Vec<Vec<f64>> = ranges
        .ranges()
        .iter()
        .map(|&[lo, hi]| {
            (0..size)
                .map(|i| lo + (hi - lo) * i as f64 / (size - 1) as f64)
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(size.pow(DIM as u32));
    for i in 0..size.pow(DIM as u32) {
        let mut x = [0.0; DIM];
        let mut k = i;
        for d in (0..DIM).rev() {
            x[d] = axes[d][k % size];
            k /= size;
        }
        out.push(x);
    }
    out
}

/// The trainable point of a proposal: epochs and lot rounded as the harness's `int(round(.))`,
/// the lot capped at `n`.
pub fn to_hyper(x: &[f64; DIM], n: usize) -> Hyper {
    Hyper {
        epochs: round_half_even(x[0]).max(1.0) as u32,
        lot: (round_half_even(x[1]).max(1.0) as usize).min(n),
        lr: x[2],
        clip: x[3],
        noise_multiplier: x[4],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn table4() -> Box5 {
        Box5 {
            epochs: [1.0, 64.0],
            lot: [8.0, 512.0],
            lr: [1e-3, 0.1],
            clip: [0.1, 4.0],
            noise_multiplier: [0.1, 16.0],
        }
    }

    #[test]
    fn draws_stay_strictly_inside_and_follow_table4() {
        let mut rng = StdRng::seed_from_u64(1);
        let b = table4();
        let xs: Vec<_> = (0..20_000)
            .map(|_| Distribution::Adult.sample(&b, &mut rng))
            .collect();
        for x in &xs {
            for (v, [lo, hi]) in x.iter().zip(b.ranges()) {
                assert!(lo < *v && *v < hi);
            }
        }
        let mean = |d: usize| xs.iter().map(|x| x[d]).sum::<f64>() / xs.len() as f64;
        // lr: 1e-3 + Exp(10) truncated at 0.1 has mean 1e-3 + 1/10 − 0.099·e^{−0.99}/(1 − e^{−0.99}).
        let t = 0.099f64;
        let expect = 1e-3 + 0.1 - t * (-10.0 * t).exp() / (1.0 - (-10.0 * t).exp());
        assert!((mean(2) - expect).abs() < 1e-3, "{} vs {expect}", mean(2));
        // lot: N(128, 64²) truncated to (8, 512) has mean ≈ 131.
        assert!((mean(1) - 131.0).abs() < 2.0, "{}", mean(1));
        assert!((mean(0) - 32.5).abs() < 0.5);
    }

    #[test]
    fn grid_is_linspace_with_the_last_coordinate_fastest() {
        let g = grid(3, &table4());
        assert_eq!(g.len(), 243);
        assert_eq!(g[0], [1.0, 8.0, 1e-3, 0.1, 0.1]);
        assert_eq!(g[1][4], 8.05);
        assert_eq!(g[242], [64.0, 512.0, 0.1, 4.0, 16.0]);
        // The learning rate takes {0.001, 0.0505, 0.1} (reference notes §2.4).
        let mut lrs: Vec<f64> = g.iter().map(|x| x[2]).collect();
        lrs.dedup();
        lrs.sort_by(f64::total_cmp);
        lrs.dedup();
        assert_eq!(lrs, vec![0.001, 0.0505, 0.1]);
        assert_eq!(grid(4, &table4()).len(), 1024);
    }

    #[test]
    fn rounding_is_pythons() {
        let h = to_hyper(&[2.5, 32.5, 0.01, 1.0, 2.0], 100);
        assert_eq!((h.epochs, h.lot), (2, 32));
        let h = to_hyper(&[3.5, 500.7, 0.01, 1.0, 2.0], 100);
        assert_eq!((h.epochs, h.lot), (4, 100));
    }

    #[test]
    fn validation_names_the_key() {
        let mut b = table4();
        b.lr = [0.1, 0.01];
        assert!(b.validate("space").unwrap_err().contains("space.lr"));
    }
}
