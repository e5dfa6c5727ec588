//! DPareto's five hyperparameters and the step count they imply.

use crate::error::{Result, check_positive, ensure};

/// One point of DPareto's search space λ = (epochs, lot size, learning rate, clip, z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hyper {
    /// Passes over the data (rounded to an integer before training, as the authors' code).
    pub epochs: u32,
    /// Lot size `m`: records per step, drawn without replacement.
    pub lot: usize,
    /// Constant learning rate `η`.
    pub lr: f64,
    /// Per-example clipping norm `L`.
    pub clip: f64,
    /// Noise multiplier `z` (the paper's "noise variance σ²"; the code uses it as a standard
    /// deviation, `N(0, (2zL/m)²)` on the mean gradient).
    pub noise_multiplier: f64,
}

impl Hyper {
    /// Checks every field against `n` records.
    pub fn validate(&self, n: usize) -> Result<()> {
        ensure(
            self.epochs >= 1,
            "epochs",
            self.epochs as f64,
            "must be >= 1",
        )?;
        ensure(
            self.lot >= 1 && self.lot <= n,
            "lot",
            self.lot as f64,
            "must be in [1, n]",
        )?;
        check_positive("learning-rate", self.lr)?;
        check_positive("clip", self.clip)?;
        check_positive("noise-multiplier", self.noise_multiplier)
    }

    /// The number of steps `T` on `n` records.
    pub fn steps(&self, n: usize) -> u64 {
        steps(n, self.lot, self.epochs)
    }

    /// The sampling rate `m/n`.
    pub fn rate(&self, n: usize) -> f64 {
        self.lot as f64 / n as f64
    }
}

/// `T = round(epochs · round(n/m))`, as `dp_feedforward_net.py:66-67, 89` computes it (Python's
/// `round` halves to even; `n/m` is never a half-integer away from what matters here, but we
/// follow it exactly).
pub fn steps(n: usize, lot: usize, epochs: u32) -> u64 {
    let per_epoch = round_half_even(n as f64 / lot as f64);
    (epochs as f64 * per_epoch) as u64
}

/// Python 3's `round(x)`: ties go to the even integer (the authors' harness rounds with it).
pub fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// Initial parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Init {
    /// The authors' code: Xavier-normal with magnitude 3, `N(0, 6/(fan_in + fan_out))`, for
    /// weights and biases alike (a `(1, out)` bias has standard deviation √3).
    #[default]
    Code,
    /// The paper's Algorithms 3/4: θ₀ = 0.
    Paper,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_the_authors_rounding() {
        // The reference's test vectors: n = 30,956.
        assert_eq!(steps(30_956, 32, 2), 1934);
        assert_eq!(steps(30_956, 128, 2), 484);
        assert_eq!(steps(30_956, 32, 4), 3868);
        assert_eq!(steps(30_956, 78, 3), 1191);
        assert_eq!(steps(30_956, 93, 3), 999);
        assert_eq!(steps(30_956, 44, 2), 1408);
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        assert_eq!(round_half_even(3.4), 3.0);
    }

    #[test]
    fn validation_names_the_field() {
        let h = Hyper {
            epochs: 1,
            lot: 10,
            lr: 0.1,
            clip: 1.0,
            noise_multiplier: 1.0,
        };
        assert!(h.validate(100).is_ok());
        let e = Hyper { lot: 101, ..h }.validate(100).unwrap_err();
        assert!(e.to_string().contains("lot"), "{e}");
        let e = Hyper { clip: 0.0, ..h }.validate(100).unwrap_err();
        assert!(e.to_string().contains("clip"), "{e}");
    }
}
