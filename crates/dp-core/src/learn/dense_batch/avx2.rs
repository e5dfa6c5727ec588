//! The four-row kernels in AVX2 intrinsics, one `f64` lane per column of a group of four, so
//! each lane adds exactly what the portable kernels add, in the same order: a multiply, then
//! an add (never a fused multiply-add, which would round once instead of twice).
//!
//! Written out because LLVM, left to vectorise the portable loops, transposes the sixteen
//! sums across rows and spends its time shuffling.

/// Loads four stored values as four `f64` lanes.
macro_rules! load_f64 {
    ($p:expr) => {
        _mm256_loadu_pd($p)
    };
}
macro_rules! load_f32 {
    ($p:expr) => {
        _mm256_cvtps_pd(_mm_loadu_ps($p))
    };
}

/// The three group kernels for one storage type.
macro_rules! kernels {
    ($name:ident, $t:ty, $load:ident) => {
        pub(super) mod $name {
            use std::arch::x86_64::*;

            const PF: usize = 64;

            /// Lanes summed as `features::dot` sums its four accumulators.
            #[inline(always)]
            unsafe fn reduce(v: __m256d) -> f64 {
                let mut a = [0.0f64; 4];
                // SAFETY: `a` holds four f64.
                unsafe { _mm256_storeu_pd(a.as_mut_ptr(), v) };
                (a[0] + a[1]) + (a[2] + a[3])
            }

            /// The margins of four rows of length `theta.len()`.
            ///
            /// # Safety
            /// AVX2 must be available.
            #[target_feature(enable = "avx2")]
            pub unsafe fn dot4(r: [&[$t]; 4], theta: &[f64]) -> [f64; 4] {
                let n = theta.len();
                assert!(r.iter().all(|x| x.len() >= n));
                let (t, p) = (theta.as_ptr(), r.map(|x| x.as_ptr()));
                let mut acc = [_mm256_setzero_pd(); 4];
                let body = n - n % 4;
                let mut i = 0;
                while i < body {
                    // SAFETY: i + 4 <= n, within every row and theta.
                    unsafe {
                        let tv = _mm256_loadu_pd(t.add(i));
                        for j in 0..4 {
                            acc[j] = _mm256_add_pd(acc[j], _mm256_mul_pd($load!(p[j].add(i)), tv));
                        }
                    }
                    i += 4;
                }
                let mut out = [0.0; 4];
                for j in 0..4 {
                    // SAFETY: AVX2 is available.
                    let mut s = unsafe { reduce(acc[j]) };
                    for k in body..n {
                        s += f64::from(r[j][k]) * theta[k];
                    }
                    out[j] = s;
                }
                out
            }

            /// `grad += Σ c[j]·r[j]`, each element receiving its four terms in order.
            ///
            /// # Safety
            /// AVX2 must be available.
            #[target_feature(enable = "avx2")]
            pub unsafe fn axpy4(c: [f64; 4], r: [&[$t]; 4], grad: &mut [f64]) {
                let n = grad.len();
                assert!(r.iter().all(|x| x.len() >= n));
                let (g, p) = (grad.as_mut_ptr(), r.map(|x| x.as_ptr()));
                let cv = c.map(|v| _mm256_set1_pd(v));
                let body = n - n % 4;
                let mut i = 0;
                while i < body {
                    // SAFETY: i + 4 <= n, within grad and every row.
                    unsafe {
                        let mut gv = _mm256_loadu_pd(g.add(i));
                        for j in 0..4 {
                            gv = _mm256_add_pd(gv, _mm256_mul_pd(cv[j], $load!(p[j].add(i))));
                        }
                        _mm256_storeu_pd(g.add(i), gv);
                    }
                    i += 4;
                }
                for k in body..n {
                    let mut v = grad[k];
                    for j in 0..4 {
                        v += c[j] * f64::from(r[j][k]);
                    }
                    grad[k] = v;
                }
            }

            /// [`dot4`] of `next` and [`axpy4`] of `prev` in one pass.
            ///
            /// # Safety
            /// AVX2 must be available.
            #[target_feature(enable = "avx2")]
            pub unsafe fn dot4_axpy4(
                next: [&[$t]; 4],
                theta: &[f64],
                c: [f64; 4],
                prev: [&[$t]; 4],
                grad: &mut [f64],
            ) -> [f64; 4] {
                let n = theta.len();
                assert!(grad.len() == n);
                assert!(next.iter().chain(&prev).all(|x| x.len() >= n));
                let (t, g) = (theta.as_ptr(), grad.as_mut_ptr());
                let (pn, pp) = (next.map(|x| x.as_ptr()), prev.map(|x| x.as_ptr()));
                let cv = c.map(|v| _mm256_set1_pd(v));
                let mut acc = [_mm256_setzero_pd(); 4];
                let body = n - n % 4;
                let mut i = 0;
                while i < body {
                    // SAFETY: i + 4 <= n, within theta, grad and every row.
                    unsafe {
                        for j in 0..4 {
                            _mm_prefetch::<_MM_HINT_T0>(pn[j].wrapping_add(i + PF) as *const i8);
                        }
                        let tv = _mm256_loadu_pd(t.add(i));
                        for j in 0..4 {
                            acc[j] = _mm256_add_pd(acc[j], _mm256_mul_pd($load!(pn[j].add(i)), tv));
                        }
                        let mut gv = _mm256_loadu_pd(g.add(i));
                        for j in 0..4 {
                            gv = _mm256_add_pd(gv, _mm256_mul_pd(cv[j], $load!(pp[j].add(i))));
                        }
                        _mm256_storeu_pd(g.add(i), gv);
                    }
                    i += 4;
                }
                for k in body..n {
                    let mut v = grad[k];
                    for j in 0..4 {
                        v += c[j] * f64::from(prev[j][k]);
                    }
                    grad[k] = v;
                }
                let mut out = [0.0; 4];
                for j in 0..4 {
                    // SAFETY: AVX2 is available.
                    let mut s = unsafe { reduce(acc[j]) };
                    for k in body..n {
                        s += f64::from(next[j][k]) * theta[k];
                    }
                    out[j] = s;
                }
                out
            }
        }
    };
}

kernels!(f64s, f64, load_f64);
kernels!(f32s, f32, load_f32);
