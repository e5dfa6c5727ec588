//! The sampling steps of `make_classification`, in scikit-learn's order of random draws:
//! cluster sizes, hypercube-vertex centroids, Gaussian clusters with a random covariance,
//! redundant, repeated and noise features, label flips, shift and scale, then the shuffle.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

use super::{Affine, MakeClassification};
use crate::error::Result;

impl MakeClassification {
    /// Generates `(X row-major n × d, class labels)`.
    pub fn generate(&self) -> Result<(Vec<f64>, Vec<u32>)> {
        let weights = self.validate()?;
        let mut rng = StdRng::seed_from_u64(self.seed);
        let (n, d, ni) = (self.n_samples, self.n_features, self.n_informative);
        let n_useless = d - ni - self.n_redundant - self.n_repeated;
        let n_clusters = self.n_classes * self.n_clusters_per_class;

        let mut per_cluster: Vec<usize> = (0..n_clusters)
            .map(|k| {
                (n as f64 * weights[k % self.n_classes] / self.n_clusters_per_class as f64) as usize
            })
            .collect();
        let assigned: usize = per_cluster.iter().sum();
        for i in 0..n.saturating_sub(assigned) {
            per_cluster[i % n_clusters] += 1;
        }
        let n = per_cluster.iter().sum::<usize>(); // may exceed n_samples if weights sum > 1

        let mut centroids: Vec<Vec<f64>> = hypercube_vertices(n_clusters, ni, &mut rng)
            .into_iter()
            .map(|v| {
                v.into_iter()
                    .map(|b| b as f64 * 2.0 * self.class_sep - self.class_sep)
                    .collect()
            })
            .collect();
        if !self.hypercube {
            let rows: Vec<f64> = (0..n_clusters).map(|_| rng.random::<f64>()).collect();
            let cols: Vec<f64> = (0..ni).map(|_| rng.random::<f64>()).collect();
            for (c, r) in centroids.iter_mut().zip(&rows) {
                for (v, s) in c.iter_mut().zip(&cols) {
                    *v *= r * s;
                }
            }
        }

        let mut x = vec![0.0; n * d];
        for i in 0..n {
            for v in &mut x[i * d..i * d + ni] {
                *v = rng.sample(StandardNormal);
            }
        }
        let mut y = vec![0u32; n];
        let mut start = 0;
        let mut tmp = vec![0.0; ni];
        for (k, centroid) in centroids.iter().enumerate() {
            let stop = start + per_cluster[k];
            // A: random covariance, uniform in [-1, 1), row-major ni × ni.
            let a: Vec<f64> = (0..ni * ni)
                .map(|_| 2.0 * rng.random::<f64>() - 1.0)
                .collect();
            for i in start..stop {
                y[i] = (k % self.n_classes) as u32;
                let row = &mut x[i * d..i * d + ni];
                tmp.iter_mut().for_each(|t| *t = 0.0);
                for (r, &xv) in row.iter().enumerate() {
                    for (t, &av) in tmp.iter_mut().zip(&a[r * ni..(r + 1) * ni]) {
                        *t += xv * av;
                    }
                }
                for ((v, t), c) in row.iter_mut().zip(&tmp).zip(centroid) {
                    *v = t + c;
                }
            }
            start = stop;
        }

        if self.n_redundant > 0 {
            let nr = self.n_redundant;
            let b: Vec<f64> = (0..ni * nr)
                .map(|_| 2.0 * rng.random::<f64>() - 1.0)
                .collect();
            for i in 0..n {
                let (inf, rest) = x[i * d..(i + 1) * d].split_at_mut(ni);
                for (j, out) in rest[..nr].iter_mut().enumerate() {
                    *out = inf
                        .iter()
                        .enumerate()
                        .map(|(r, &v)| v * b[r * nr + j])
                        .sum();
                }
            }
        }
        if self.n_repeated > 0 {
            let m = ni + self.n_redundant;
            let src: Vec<usize> = (0..self.n_repeated)
                .map(|_| ((m - 1) as f64 * rng.random::<f64>() + 0.5) as usize)
                .collect();
            for i in 0..n {
                for (j, &s) in src.iter().enumerate() {
                    x[i * d + m + j] = x[i * d + s];
                }
            }
        }
        if n_useless > 0 {
            for i in 0..n {
                for v in &mut x[(i + 1) * d - n_useless..(i + 1) * d] {
                    *v = rng.sample(StandardNormal);
                }
            }
        }

        // scikit-learn draws the mask even for flip_y = 0; keep the same sequence of draws.
        let flip: Vec<bool> = (0..n).map(|_| rng.random::<f64>() < self.flip_y).collect();
        for (yi, f) in y.iter_mut().zip(flip) {
            if f {
                *yi = rng.random_range(0..self.n_classes as u32);
            }
        }

        let shift: Vec<f64> = match self.shift {
            Affine::Fixed(s) => vec![s; d],
            Affine::Random => (0..d)
                .map(|_| (2.0 * rng.random::<f64>() - 1.0) * self.class_sep)
                .collect(),
        };
        let scale: Vec<f64> = match self.scale {
            Affine::Fixed(s) => vec![s; d],
            Affine::Random => (0..d).map(|_| 1.0 + 100.0 * rng.random::<f64>()).collect(),
        };
        for row in x.chunks_mut(d) {
            for ((v, s), c) in row.iter_mut().zip(&shift).zip(&scale) {
                *v = (*v + s) * c;
            }
        }

        if self.shuffle {
            let rows = permutation(n, &mut rng);
            let cols = permutation(d, &mut rng);
            let mut out = Vec::with_capacity(n * d);
            for &r in &rows {
                let src = &x[r * d..(r + 1) * d];
                out.extend(cols.iter().map(|&c| src[c]));
            }
            x = out;
            y = rows.iter().map(|&r| y[r]).collect();
        }
        Ok((x, y))
    }
}

fn permutation(n: usize, rng: &mut StdRng) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.random_range(0..=i));
    }
    p
}

/// `samples` distinct vertices of the `dims`-cube as 0/1 vectors (`_generate_hypercube`): the
/// last 30 coordinates are the bits of distinct integers, any earlier ones independent bits.
fn hypercube_vertices(samples: usize, dims: usize, rng: &mut StdRng) -> Vec<Vec<u8>> {
    if dims > 30 {
        let high: Vec<Vec<u8>> = (0..samples)
            .map(|_| (0..dims - 30).map(|_| rng.random_range(0..2u8)).collect())
            .collect();
        let low = hypercube_vertices(samples, 30, rng);
        return high
            .into_iter()
            .zip(low)
            .map(|(mut h, l)| {
                h.extend(l);
                h
            })
            .collect();
    }
    let ints = rand::seq::index::sample(rng, 1usize << dims, samples);
    // Most significant bit first, as `np.unpackbits(...)[:, -dims:]`.
    ints.into_iter()
        .map(|v| (0..dims).rev().map(|b| ((v >> b) & 1) as u8).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypercube_vertices_are_distinct_and_binary() {
        let mut rng = StdRng::seed_from_u64(3);
        let v = hypercube_vertices(16, 4, &mut rng);
        let mut set: Vec<_> = v.clone();
        set.sort();
        set.dedup();
        assert_eq!(set.len(), 16, "all 16 vertices of the 4-cube");
        let big = hypercube_vertices(5, 33, &mut rng);
        assert!(
            big.iter()
                .all(|r| r.len() == 33 && r.iter().all(|&b| b <= 1))
        );
    }
}
