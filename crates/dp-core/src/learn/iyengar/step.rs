//! Pieces shared by the SGD-style mechanisms of Iyengar et al. (P-SGD, P-PSGD, P-SCPSGD): the
//! public row-bound check, the ℓ2-ball projection, the code's uniform start, minibatch
//! gradients over sparse or dense rows, the minibatch partitions of the permutation variants,
//! and the Gaussian noise-multiplier calibration of the certified mode.

use rand::Rng;
use rand_distr::StandardNormal;
use serde::Serializer;

use crate::accounting::calibrate::{Bracket, Target, calibrate};
use crate::accounting::event::Event;
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::error::{DpError, Result, check_positive};
use crate::features::{Row, gather_dot};
use crate::learn::data::GlmData;
use crate::learn::loss::GlmLoss;
use crate::learn::prefetch;

/// Relative slack on the row bound, so that rows clipped to exactly `L` (whose computed norm
/// may round a few ulps above it) pass.
const ROW_BOUND_SLACK: f64 = 1e-12;

/// Refuses data with a row longer than the public bound `L`: every sensitivity of these
/// mechanisms is derived from `L`, never from the rows.
pub fn check_row_bound(data: &GlmData<'_>, lipschitz: f64) -> Result<()> {
    check_positive("lipschitz", lipschitz)?;
    let max = data.max_row_norm();
    if max <= lipschitz * (1.0 + ROW_BOUND_SLACK) {
        Ok(())
    } else {
        Err(DpError::Invalid(format!(
            "a training row has l2 norm {max}, above the public bound lipschitz = {lipschitz}: \
             clip the rows to the bound first"
        )))
    }
}

/// Refuses data whose size differs from the public n the noise was calibrated for.
pub fn check_rows(data: &GlmData<'_>, n: usize) -> Result<()> {
    if data.n() == n {
        Ok(())
    } else {
        Err(DpError::Invalid(format!(
            "the mechanism was calibrated for n = {n} rows but the data have {}",
            data.n()
        )))
    }
}

/// Projects `theta` onto the ℓ2 ball of radius `radius` (θ·min(1, C/‖θ‖)).
pub fn project_l2(theta: &mut [f64], radius: f64) {
    let norm = theta.iter().map(|t| t * t).sum::<f64>().sqrt();
    if norm > radius {
        let s = radius / norm;
        theta.iter_mut().for_each(|t| *t *= s);
    }
}

/// The authors' random start θ₀ ~ U[−C, C]^d (`np.random.uniform`), used whenever a radius C
/// is set.
pub fn uniform_start<R: Rng + ?Sized>(rng: &mut R, d: usize, radius: f64) -> Vec<f64> {
    (0..d)
        .map(|_| radius * (2.0 * rng.random::<f64>() - 1.0))
        .collect()
}

/// Adds `N(0, sigma²)` to every coordinate (nothing drawn when `sigma = 0`).
pub fn add_gaussian<R: Rng + ?Sized>(rng: &mut R, sigma: f64, v: &mut [f64]) {
    if sigma > 0.0 {
        for x in v.iter_mut() {
            *x += sigma * rng.sample::<f64, _>(StandardNormal);
        }
    }
}

/// `grad ← scale · Σ_{i ∈ rows} ∇ℓ(xᵢᵀθ; yᵢ)` (the loss part only; callers add λθ).
///
/// Rows go in chunks: all margins of a chunk first (independent dots the CPU overlaps), then
/// one batched derivative ([`GlmLoss::deriv_into`], vectorised exp), then the axpys. Row by row,
/// each row's dot → exp → axpy chain would run serially. Rows are prefetched because batches
/// are scattered.
pub fn loss_gradient(
    data: &GlmData<'_>,
    loss: GlmLoss,
    theta: &[f64],
    rows: &[usize],
    scale: f64,
    grad: &mut [f64],
) {
    const CHUNK: usize = 64;
    let (x, y, norms) = (data.x(), data.y(), data.row_norms());
    grad.iter_mut().for_each(|g| *g = 0.0);
    let (mut u, mut yc, mut dv) = ([0.0; CHUNK], [0.0; CHUNK], [0.0; CHUNK]);
    for (c, chunk) in rows.chunks(CHUNK).enumerate() {
        for (k, &i) in chunk.iter().enumerate() {
            let at = c * CHUNK + k;
            if let Some(&far) = rows.get(at + 2 * prefetch::AHEAD) {
                prefetch::meta(x, y, norms, far);
            }
            if let Some(&ahead) = rows.get(at + prefetch::AHEAD) {
                prefetch::row(x, ahead);
            }
            u[k] = row_dot(x.row(i), theta);
            yc[k] = y[i];
        }
        let m = chunk.len();
        loss.deriv_into(&u[..m], &yc[..m], &mut dv[..m]);
        for (&i, &fp) in chunk.iter().zip(&dv[..m]) {
            if fp != 0.0 {
                x.row(i).axpy(scale * fp, grad);
            }
        }
    }
}

/// xᵀθ with two independent sums over a sparse row's non-zeros (half the add-latency chain
/// of [`Row::dot`]; Adult's rows have 14).
#[inline]
fn row_dot(row: Row<'_>, theta: &[f64]) -> f64 {
    match row {
        Row::Dense(_) => row.dot(theta),
        Row::Sparse(idx, val) => gather_dot::<2>(idx, val, theta),
    }
}

/// Boundaries `[b₀ = 0, b₁, …, b_m = n]` of the minibatches of a permutation pass.
///
/// `balanced = false` is the authors' loop: consecutive batches of `batch`, the last one
/// smaller. `balanced = true` (certified mode) makes ⌊n/batch⌋ batches whose sizes differ by at
/// most one, so none is smaller than `batch` (when n ≥ batch): a replace-one neighbour's
/// influence on a step is 2Lη/|B|, so a short last batch would break the sensitivity 2kLη/b.
pub fn batch_bounds(n: usize, batch: usize, balanced: bool) -> Vec<usize> {
    let batch = batch.max(1);
    if balanced {
        let m = (n / batch).max(1);
        let (base, extra) = (n / m, n % m);
        let mut b = Vec::with_capacity(m + 1);
        b.push(0);
        for j in 0..m {
            b.push(b[j] + base + usize::from(j < extra));
        }
        b
    } else {
        let mut b: Vec<usize> = (0..n).step_by(batch).collect();
        b.push(n);
        b
    }
}

/// Number and smallest size of the minibatches [`batch_bounds`] makes (what the sensitivities
/// need): computed from the public n only.
pub fn batch_shape(n: usize, batch: usize, balanced: bool) -> (usize, usize) {
    let b = batch_bounds(n, batch, balanced);
    let smallest = b.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0);
    (b.len() - 1, smallest)
}

/// Smallest Gaussian noise multiplier z whose event `accountant` certifies within `target`
/// (the Gaussian event depends only on σ/Δ, so the same z holds for either neighbour relation).
pub fn gaussian_multiplier(target: Target, accountant: &RdpAccountant) -> Result<f64> {
    let target = Target::new(target.epsilon(), target.delta())?;
    let bracket = Bracket {
        name: "noise multiplier",
        start: (2.0 * (1.25 / target.delta()).ln()).sqrt() / target.epsilon(),
        lo: 0.0,
        hi: f64::INFINITY,
    };
    calibrate(|| accountant.fresh(), Event::gaussian, target, bracket)
}

/// Serialises a [`GlmLoss`] (which has no serde impl) as `"logistic"` or `{"huber": h}`.
pub fn serialize_loss<S: Serializer>(loss: &GlmLoss, s: S) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    match *loss {
        GlmLoss::Logistic => s.serialize_str("logistic"),
        GlmLoss::Huber { h } => {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("huber", &h)?;
            m.end()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::epsilon_of;
    use crate::features::FeatureMatrix;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn projection_only_shrinks_long_vectors() {
        let mut v = vec![3.0, 4.0];
        project_l2(&mut v, 10.0);
        assert_eq!(v, [3.0, 4.0]);
        project_l2(&mut v, 1.0);
        assert!((v[0] - 0.6).abs() < 1e-15 && (v[1] - 0.8).abs() < 1e-15);
    }

    #[test]
    fn uniform_start_stays_in_the_cube_and_fills_it() {
        let v = uniform_start(&mut StdRng::seed_from_u64(1), 2000, 3.0);
        assert!(v.iter().all(|x| (-3.0..3.0).contains(x)));
        let mean = v.iter().sum::<f64>() / 2000.0;
        let var = v.iter().map(|x| x * x).sum::<f64>() / 2000.0;
        assert!(mean.abs() < 0.2 && (var - 3.0).abs() < 0.3, "{mean} {var}");
    }

    #[test]
    fn partitions_cover_the_rows() {
        assert_eq!(batch_bounds(7, 3, false), [0, 3, 6, 7]);
        assert_eq!(batch_shape(7, 3, false), (3, 1));
        assert_eq!(batch_bounds(7, 3, true), [0, 4, 7]);
        assert_eq!(batch_shape(7, 3, true), (2, 3));
        assert_eq!(batch_shape(6, 3, false), (2, 3));
        assert_eq!(batch_shape(2, 3, true), (1, 2));
        // Adult: 723 batches of 50 or 51 instead of 723 of 50 and one of 26.
        assert_eq!(batch_shape(36_176, 50, false), (724, 26));
        assert_eq!(batch_shape(36_176, 50, true), (723, 50));
        assert_eq!(*batch_bounds(36_176, 50, true).last().unwrap(), 36_176);
    }

    #[test]
    fn sparse_and_dense_gradients_agree_with_the_definition() {
        let v = vec![0.5, 0.0, -0.2, 0.0, 0.3, 0.1, 0.0, 0.0, -0.4];
        let dense = FeatureMatrix::dense(v.clone(), 3, 3);
        let y = [1.0, -1.0, 1.0];
        let theta = [0.3, -1.0, 2.0];
        let rows = [2, 0, 2];
        let sparse = to_sparse(&v, 3, 3);
        for loss in [GlmLoss::Logistic, GlmLoss::huber()] {
            let mut want = [0.0; 3];
            for &i in &rows {
                let u: f64 = (0..3).map(|j| v[i * 3 + j] * theta[j]).sum();
                for j in 0..3 {
                    want[j] += 0.5 * loss.deriv(u, y[i]) * v[i * 3 + j];
                }
            }
            // 5 of 9 entries are non-zero, so GlmData keeps the dense input dense.
            let d = GlmData::new(&dense, &y).unwrap();
            let s = GlmData::new(&sparse, &y).unwrap();
            for data in [&d, &s] {
                let mut g = [9.0; 3];
                loss_gradient(data, loss, &theta, &rows, 0.5, &mut g);
                for j in 0..3 {
                    assert!((g[j] - want[j]).abs() < 1e-15, "{loss:?} {g:?} {want:?}");
                }
            }
        }
    }

    fn to_sparse(v: &[f64], n: usize, d: usize) -> FeatureMatrix {
        let mut c = crate::features::Csr {
            nrows: n,
            ncols: d,
            indptr: vec![0],
            indices: vec![],
            values: vec![],
        };
        for i in 0..n {
            for j in 0..d {
                if v[i * d + j] != 0.0 {
                    c.indices.push(j as u32);
                    c.values.push(v[i * d + j]);
                }
            }
            c.indptr.push(c.indices.len());
        }
        FeatureMatrix::Sparse(c)
    }

    #[test]
    fn row_bound_is_enforced_with_rounding_slack() {
        let x = FeatureMatrix::dense(vec![0.6, 0.8, 0.0, 0.5], 2, 2);
        let data = GlmData::new(&x, &[1.0, -1.0]).unwrap();
        assert!(check_row_bound(&data, 1.0).is_ok());
        assert!(check_row_bound(&data, 1.0 - 1e-15).is_ok());
        let err = check_row_bound(&data, 0.99).unwrap_err();
        assert!(err.to_string().contains("lipschitz"), "{err}");
        assert!(check_rows(&data, 2).is_ok() && check_rows(&data, 3).is_err());
    }

    #[test]
    fn gaussian_multiplier_is_tight_and_safe() {
        let acc = RdpAccountant::new();
        let t = Target::new(1.0, 1e-6).unwrap();
        let z = gaussian_multiplier(t, &acc).unwrap();
        let e = epsilon_of(acc.fresh(), &Event::gaussian(z).unwrap(), t.delta()).unwrap();
        assert!(e <= 1.0 && e > 0.999, "{e}");
        let e = epsilon_of(acc.fresh(), &Event::gaussian(0.99 * z).unwrap(), t.delta()).unwrap();
        assert!(e > 1.0);
    }

    #[test]
    fn losses_serialise() {
        #[derive(serde::Serialize)]
        struct W(#[serde(serialize_with = "serialize_loss")] GlmLoss);
        assert_eq!(
            serde_json::to_string(&W(GlmLoss::Logistic)).unwrap(),
            "\"logistic\""
        );
        assert_eq!(
            serde_json::to_string(&W(GlmLoss::huber())).unwrap(),
            "{\"huber\":0.1}"
        );
    }
}
