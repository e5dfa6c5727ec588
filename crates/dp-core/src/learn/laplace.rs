//! Laplace draws (rand_distr 0.5 has no Laplace distribution).

use rand::Rng;
use rand::distr::Open01;

/// Lap(0, b) by inverse CDF from one uniform in (0, 1) (NumPy's `laplace` formula).
pub fn laplace<R: Rng + ?Sized>(rng: &mut R, b: f64) -> f64 {
    let u: f64 = rng.sample(Open01);
    if u < 0.5 {
        b * (2.0 * u).ln()
    } else {
        -b * (2.0 - 2.0 * u).ln()
    }
}
