//! DP-SGD's clipped-gradient sum over dense rows, four rows at a time.
//!
//! One row's margin `xᵢᵀθ` is a chain of dependent vector additions (four lanes, the order
//! [`crate::features::dot`] fixes), so a row at a time runs at the chain's latency, not at
//! the memory's bandwidth. Here the batch goes in groups of four rows: four chains in flight
//! and four streams for the hardware prefetchers. The pass that reads group `g` from memory
//! for its margins also adds group `g − 1`'s gradient terms into `grad` (those rows are still
//! in L2), so each row is streamed from memory once and the gradient work hides under the
//! stream. Each margin is summed exactly as `dot` sums it and each `grad[k]` receives its
//! terms in batch order, so the result is the same, bit for bit, as one row at a time. (A
//! zero coefficient adds ±0, which leaves `grad[k]` as it was: the sum starts at +0 and
//! round-to-nearest never produces −0 from it.)
//!
//! Rows may be stored as `f32` (half the bytes to stream): arithmetic stays `f64`, and the
//! row norms used for clipping are those of the `f32` rows actually used, so clipping bounds
//! every per-example gradient exactly.

use crate::learn::loss::GlmLoss;

#[cfg(target_arch = "x86_64")]
mod avx2;

/// A stored feature value, read as `f64`.
pub(crate) trait Elem: Copy {
    /// The value in `f64` (exact for both).
    fn f(self) -> f64;

    /// [`clipped_sum`] with the AVX2 kernels, or `false` (nothing done) without AVX2.
    #[allow(clippy::too_many_arguments)]
    fn clipped_sum_simd(
        x: &[Self],
        d: usize,
        batch: &[usize],
        theta: &[f64],
        y: &[f64],
        norms: &[f64],
        loss: GlmLoss,
        clip: f64,
        grad: &mut [f64],
    ) -> bool;
}

/// Implements [`Elem`] for a storage type with its AVX2 kernel module.
macro_rules! elem {
    ($t:ty, $kernels:ident) => {
        impl Elem for $t {
            #[inline(always)]
            fn f(self) -> f64 {
                f64::from(self)
            }

            #[allow(clippy::too_many_arguments)]
            fn clipped_sum_simd(
                x: &[Self],
                d: usize,
                batch: &[usize],
                theta: &[f64],
                y: &[f64],
                norms: &[f64],
                loss: GlmLoss,
                clip: f64,
                grad: &mut [f64],
            ) -> bool {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    use avx2::$kernels as k;
                    // SAFETY (all three): the CPU has AVX2, checked just above.
                    drive(
                        x,
                        d,
                        batch,
                        theta,
                        y,
                        norms,
                        loss,
                        clip,
                        grad,
                        |r, t| unsafe { k::dot4(r, t) },
                        |r, t, c, p, g| unsafe { k::dot4_axpy4(r, t, c, p, g) },
                        |c, r, g| unsafe { k::axpy4(c, r, g) },
                    );
                    return true;
                }
                let _ = (x, d, batch, theta, y, norms, loss, clip, grad);
                false
            }
        }
    };
}

elem!(f64, f64s);
elem!(f32, f32s);

/// `xᵀθ` summed as [`crate::features::dot`] sums it.
#[inline(always)]
fn dot1<T: Elem>(x: &[T], theta: &[f64]) -> f64 {
    let n = x.len().min(theta.len());
    let (x, t) = (&x[..n], &theta[..n]);
    let mut acc = [0.0f64; 4];
    for (xc, tc) in x.chunks_exact(4).zip(t.chunks_exact(4)) {
        for k in 0..4 {
            acc[k] += xc[k].f() * tc[k];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    let tail = 4 * (n / 4);
    for i in tail..n {
        s += x[i].f() * t[i];
    }
    s
}

/// Four margins in one pass, each summed as [`dot1`] sums it.
#[inline(always)]
fn dot4<T: Elem>(r: [&[T]; 4], theta: &[f64]) -> [f64; 4] {
    let n = theta.len();
    let (a, b, c, d) = (&r[0][..n], &r[1][..n], &r[2][..n], &r[3][..n]);
    let mut acc = [[0.0f64; 4]; 4];
    let chunks = a
        .chunks_exact(4)
        .zip(b.chunks_exact(4))
        .zip(c.chunks_exact(4).zip(d.chunks_exact(4)))
        .zip(theta.chunks_exact(4));
    for (((ac, bc), (cc, dc)), tc) in chunks {
        for k in 0..4 {
            acc[0][k] += ac[k].f() * tc[k];
            acc[1][k] += bc[k].f() * tc[k];
            acc[2][k] += cc[k].f() * tc[k];
            acc[3][k] += dc[k].f() * tc[k];
        }
    }
    let tail = 4 * (n / 4);
    let mut out = [0.0; 4];
    for (j, rows) in [a, b, c, d].iter().enumerate() {
        let mut s = (acc[j][0] + acc[j][1]) + (acc[j][2] + acc[j][3]);
        for i in tail..n {
            s += rows[i].f() * theta[i];
        }
        out[j] = s;
    }
    out
}

/// `grad += c·x`, as [`crate::features::Row::axpy`] adds.
#[inline(always)]
fn axpy1<T: Elem>(c: f64, x: &[T], grad: &mut [f64]) {
    for (g, &v) in grad.iter_mut().zip(x) {
        *g += c * v.f();
    }
}

/// Four axpys in one pass over `grad`, each element receiving its terms in order.
#[inline(always)]
fn axpy4<T: Elem>(c: [f64; 4], r: [&[T]; 4], grad: &mut [f64]) {
    let n = grad.len();
    let (a, b, cc, d) = (&r[0][..n], &r[1][..n], &r[2][..n], &r[3][..n]);
    for k in 0..n {
        let mut g = grad[k];
        g += c[0] * a[k].f();
        g += c[1] * b[k].f();
        g += c[2] * cc[k].f();
        g += c[3] * d[k].f();
        grad[k] = g;
    }
}

/// Margins of four rows (`next`) and, in the same pass, `grad += Σ c[j]·prev[j]`.
#[inline(always)]
fn dot4_axpy4<T: Elem>(
    next: [&[T]; 4],
    theta: &[f64],
    c: [f64; 4],
    prev: [&[T]; 4],
    grad: &mut [f64],
) -> [f64; 4] {
    let n = theta.len();
    let (a, b, cc, d) = (&next[0][..n], &next[1][..n], &next[2][..n], &next[3][..n]);
    let (p, q, r, s) = (&prev[0][..n], &prev[1][..n], &prev[2][..n], &prev[3][..n]);
    let grad = &mut grad[..n];
    let mut acc = [[0.0f64; 4]; 4];
    let next_chunks = a
        .chunks_exact(4)
        .zip(b.chunks_exact(4))
        .zip(cc.chunks_exact(4).zip(d.chunks_exact(4)));
    let prev_chunks = p
        .chunks_exact(4)
        .zip(q.chunks_exact(4))
        .zip(r.chunks_exact(4).zip(s.chunks_exact(4)));
    for ((((ac, bc), (ccc, dc)), tc), (((pc, qc), (rc, sc)), gc)) in next_chunks
        .zip(theta.chunks_exact(4))
        .zip(prev_chunks.zip(grad.chunks_exact_mut(4)))
    {
        for k in 0..4 {
            acc[0][k] += ac[k].f() * tc[k];
            acc[1][k] += bc[k].f() * tc[k];
            acc[2][k] += ccc[k].f() * tc[k];
            acc[3][k] += dc[k].f() * tc[k];
            let mut g = gc[k];
            g += c[0] * pc[k].f();
            g += c[1] * qc[k].f();
            g += c[2] * rc[k].f();
            g += c[3] * sc[k].f();
            gc[k] = g;
        }
    }
    let tail = 4 * (n / 4);
    for k in tail..n {
        let mut g = grad[k];
        g += c[0] * p[k].f();
        g += c[1] * q[k].f();
        g += c[2] * r[k].f();
        g += c[3] * s[k].f();
        grad[k] = g;
    }
    let mut out = [0.0; 4];
    for (j, rows) in [a, b, cc, d].iter().enumerate() {
        let mut sum = (acc[j][0] + acc[j][1]) + (acc[j][2] + acc[j][3]);
        for i in tail..n {
            sum += rows[i].f() * theta[i];
        }
        out[j] = sum;
    }
    out
}

/// Overwrites `grad` with the sum over `batch` of each example's loss gradient clipped to
/// norm `clip`, on the row-major rows `x` (`d` columns) with norms `norms`.
///
/// Uses the AVX2 kernels where the CPU has them (the build targets baseline x86-64), the
/// portable ones elsewhere; both give the same bits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn clipped_sum<T: Elem>(
    x: &[T],
    d: usize,
    batch: &[usize],
    theta: &[f64],
    y: &[f64],
    norms: &[f64],
    loss: GlmLoss,
    clip: f64,
    grad: &mut [f64],
) {
    if !T::clipped_sum_simd(x, d, batch, theta, y, norms, loss, clip, grad) {
        clipped_sum_portable(x, d, batch, theta, y, norms, loss, clip, grad);
    }
}

/// [`clipped_sum`] with the portable kernels.
#[allow(clippy::too_many_arguments)]
fn clipped_sum_portable<T: Elem>(
    x: &[T],
    d: usize,
    batch: &[usize],
    theta: &[f64],
    y: &[f64],
    norms: &[f64],
    loss: GlmLoss,
    clip: f64,
    grad: &mut [f64],
) {
    drive(
        x, d, batch, theta, y, norms, loss, clip, grad, dot4, dot4_axpy4, axpy4,
    );
}

/// The batch in groups of four, the margins of one group computed in the pass that adds the
/// previous group's gradient terms, then the leftover rows one at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn drive<T: Elem>(
    x: &[T],
    d: usize,
    batch: &[usize],
    theta: &[f64],
    y: &[f64],
    norms: &[f64],
    loss: GlmLoss,
    clip: f64,
    grad: &mut [f64],
    dot4: impl Fn([&[T]; 4], &[f64]) -> [f64; 4],
    dot4_axpy4: impl Fn([&[T]; 4], &[f64], [f64; 4], [&[T]; 4], &mut [f64]) -> [f64; 4],
    axpy4: impl Fn([f64; 4], [&[T]; 4], &mut [f64]),
) {
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let coef = |i: usize, margin: f64| loss.clipped_deriv(margin, y[i], norms[i], clip);
    grad.fill(0.0);
    let mut groups = batch.chunks_exact(4);
    let mut pending: Option<([&[T]; 4], [f64; 4])> = None;
    for g in &mut groups {
        let rows = [row(g[0]), row(g[1]), row(g[2]), row(g[3])];
        let m = match pending {
            None => dot4(rows, theta),
            Some((prev, c)) => dot4_axpy4(rows, theta, c, prev, grad),
        };
        pending = Some((rows, [0, 1, 2, 3].map(|j| coef(g[j], m[j]))));
    }
    if let Some((prev, c)) = pending {
        axpy4(c, prev, grad);
    }
    for &i in groups.remainder() {
        let c = coef(i, dot1(row(i), theta));
        axpy1(c, row(i), grad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureMatrix, dot};

    /// The grouped kernel equals the one-row-at-a-time loop bit for bit, for batches of every
    /// length mod 4, zero gradients (Huber beyond 1 + h) included.
    #[test]
    fn four_at_a_time_is_one_at_a_time_bit_for_bit() {
        let (n, d) = (23, 37);
        let data: Vec<f64> = (0..n * d)
            .map(|k| ((k * 7919 % 1000) as f64 / 250.0 - 2.0) * 0.37)
            .collect();
        let x = FeatureMatrix::dense(data.clone(), n, d);
        let norms = x.row_norms();
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let theta: Vec<f64> = (0..d).map(|j| (j as f64 * 0.31).sin() * 0.2).collect();
        for loss in [GlmLoss::Logistic, GlmLoss::Huber { h: 0.1 }] {
            for len in 0..15 {
                let batch: Vec<usize> = (0..len).map(|k| (k * 5 + 3) % n).collect();
                let mut want = vec![0.0; d];
                for &i in &batch {
                    let r = x.row(i);
                    let dz = loss.margin_deriv(y[i] * r.dot(&theta));
                    let g_norm = -dz * norms[i];
                    let scale = if g_norm > 0.7 { 0.7 / g_norm } else { 1.0 };
                    if dz != 0.0 {
                        r.axpy(y[i] * dz * scale, &mut want);
                    }
                }
                let mut got = vec![1.0; d];
                clipped_sum(&data, d, &batch, &theta, &y, &norms, loss, 0.7, &mut got);
                let bits = |v: &[f64]| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{loss:?}, batch of {len}");
                // The portable build of the kernel (what runs without AVX2) as well.
                let mut portable = vec![1.0; d];
                clipped_sum_portable(
                    &data,
                    d,
                    &batch,
                    &theta,
                    &y,
                    &norms,
                    loss,
                    0.7,
                    &mut portable,
                );
                assert_eq!(bits(&portable), bits(&want), "{loss:?}, batch of {len}");
                // f32 rows: the dispatched kernels and the portable ones agree too.
                let x32: Vec<f32> = data.iter().map(|&v| v as f32).collect();
                let (mut a, mut b) = (vec![0.5; d], vec![0.5; d]);
                clipped_sum(&x32, d, &batch, &theta, &y, &norms, loss, 0.7, &mut a);
                clipped_sum_portable(&x32, d, &batch, &theta, &y, &norms, loss, 0.7, &mut b);
                assert_eq!(bits(&a), bits(&b), "f32 {loss:?}, batch of {len}");
            }
        }
        // The margins themselves, against features::dot.
        let rows: Vec<&[f64]> = (0..4).map(|i| &data[i * d..(i + 1) * d]).collect();
        let m = dot4([rows[0], rows[1], rows[2], rows[3]], &theta);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(m[i].to_bits(), dot(r, &theta).to_bits());
            assert_eq!(dot1(r, &theta).to_bits(), dot(r, &theta).to_bits());
        }
    }
}
