//! The two random pieces shared by DPareto's linear and MLP trainers.

use rand::Rng;
use rand_distr::StandardNormal;

/// Turns a clipped-gradient sum over a lot of `m` into the noisy mean the authors' optimisers
/// step with: `sum/m + N(0, (2zL/m)²)` per coordinate (`optimizers/dp_sgd.py:14`).
pub fn add_mean_noise<R: Rng>(sum: &mut [f64], m: usize, z: f64, clip: f64, rng: &mut R) {
    let inv_m = 1.0 / m as f64;
    let sd = 2.0 * z * clip * inv_m;
    for g in sum.iter_mut() {
        *g = *g * inv_m + sd * rng.sample::<f64, _>(StandardNormal);
    }
}

/// Xavier-normal with magnitude 3 (MXNet's `Xavier(rnd_type='gaussian', magnitude=3)`):
/// `N(0, 6/(fan_in + fan_out))`, written into `out`.
pub fn xavier_normal<R: Rng>(out: &mut [f64], fan_in: usize, fan_out: usize, rng: &mut R) {
    let sd = (6.0 / (fan_in + fan_out) as f64).sqrt();
    for v in out.iter_mut() {
        *v = sd * rng.sample::<f64, _>(StandardNormal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn noise_has_the_replace_one_scale() {
        let mut rng = StdRng::seed_from_u64(3);
        let (m, z, clip, k) = (50, 1.5, 2.0, 200_000);
        let mut v = vec![100.0; k];
        add_mean_noise(&mut v, m, z, clip, &mut rng);
        let mean = v.iter().sum::<f64>() / k as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / k as f64;
        let sd = 2.0 * z * clip / m as f64;
        assert!((mean - 2.0).abs() < 4.0 * sd / (k as f64).sqrt(), "{mean}");
        assert!((var.sqrt() / sd - 1.0).abs() < 0.01, "{}", var.sqrt());
    }

    #[test]
    fn xavier_bias_of_a_linear_model_has_sd_sqrt3() {
        let mut rng = StdRng::seed_from_u64(4);
        let mut v = vec![0.0; 100_000];
        xavier_normal(&mut v, 1, 1, &mut rng);
        let sd = (v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64).sqrt();
        assert!((sd - 3f64.sqrt()).abs() < 0.02, "{sd}");
    }
}
