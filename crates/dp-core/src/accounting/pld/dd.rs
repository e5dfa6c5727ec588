//! Double-double ("dd") arithmetic: a value is the unevaluated sum hi + lo of two f64 with
//! |lo| ≤ ulp(hi)/2, about 106 significant bits. Used for the few spectrum values whose
//! rounding error a long self-composition amplifies (see `spectrum.rs`).
//!
//! Built on the error-free transformations TwoSum (Knuth) and TwoProduct (Dekker, with
//! Veltkamp splitting, so no FMA is needed). With u = 2⁻⁵³, the relative errors are
//! (Joldes, Muller & Popescu 2017): [`Dd::add`] ≤ 3u², [`Dd::mul`] ≤ 5u², [`Dd::div_f64`]
//! ≤ 3.5u²; hence [`CDd::mul`] has error ≤ 11u²·|a||b|. Operands stay far from overflow
//! (|values| ≤ 2⁵⁰) here, which the splitting requires.

use rustfft::num_complex::Complex64;

/// Veltkamp splitting constant 2²⁷ + 1.
const SPLITTER: f64 = 134_217_729.0;

/// π/4 as a double-double.
const FRAC_PI_4: Dd = Dd {
    hi: std::f64::consts::FRAC_PI_4,
    lo: 3.061_616_997_868_383e-17,
};

/// s + e = a + b exactly.
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// s + e = a + b exactly, provided |a| ≥ |b| (or a = 0).
#[inline]
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// hi + lo = a with both halves on 26 bits, so their products are exact.
#[inline]
pub(crate) fn split(a: f64) -> (f64, f64) {
    let t = SPLITTER * a;
    let hi = t - (t - a);
    (hi, a - hi)
}

/// p + e = a·b exactly (barring underflow), from pre-split factors.
#[inline]
pub(crate) fn two_prod_split(
    a: f64,
    (ah, al): (f64, f64),
    b: f64,
    (bh, bl): (f64, f64),
) -> (f64, f64) {
    let p = a * b;
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    two_prod_split(a, split(a), b, split(b))
}

/// A double-double number hi + lo.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Dd {
    pub(crate) hi: f64,
    pub(crate) lo: f64,
}

impl Dd {
    pub(crate) const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };
    pub(crate) const ONE: Dd = Dd { hi: 1.0, lo: 0.0 };

    /// The double-double equal to the unevaluated sum hi + lo (exact).
    pub(crate) fn renormalise(hi: f64, lo: f64) -> Dd {
        let (hi, lo) = two_sum(hi, lo);
        Dd { hi, lo }
    }

    /// Accurate sum ("AccurateDWPlusDW").
    pub(crate) fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = fast_two_sum(s, e + t);
        let (hi, lo) = fast_two_sum(s, e + f);
        Dd { hi, lo }
    }

    pub(crate) fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }

    pub(crate) fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }

    /// Product ("DWTimesDW").
    pub(crate) fn mul(self, o: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, o.hi);
        let e = e + (self.hi * o.lo + self.lo * o.hi);
        Dd::renormalise(p, e)
    }

    /// Quotient by a double ("DWDivFP").
    pub(crate) fn div_f64(self, b: f64) -> Dd {
        let q = self.hi / b;
        let (p, e) = two_prod(q, b);
        let r = ((self.hi - p) - e + self.lo) / b;
        Dd::renormalise(q, r)
    }

    pub(crate) fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
}

/// A complex double-double number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CDd {
    pub(crate) re: Dd,
    pub(crate) im: Dd,
}

impl CDd {
    pub(crate) const ONE: CDd = CDd {
        re: Dd::ONE,
        im: Dd::ZERO,
    };

    pub(crate) fn add(self, o: CDd) -> CDd {
        CDd {
            re: self.re.add(o.re),
            im: self.im.add(o.im),
        }
    }

    /// Product; error ≤ 11u²·|a||b| (5u² per real product, 3u² for each sum).
    pub(crate) fn mul(self, o: CDd) -> CDd {
        CDd {
            re: self.re.mul(o.re).sub(self.im.mul(o.im)),
            im: self.re.mul(o.im).add(self.im.mul(o.re)),
        }
    }

    /// self^k by binary powering: k − 1 products at most, so the relative error is at most
    /// (1 + 11u²)^{k−1} − 1 (each rounding's relative error is raised to the remaining
    /// power, whatever the order of the products).
    pub(crate) fn powu(self, mut k: u64) -> CDd {
        let (mut acc, mut z) = (CDd::ONE, self);
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(z);
            }
            k >>= 1;
            if k > 0 {
                z = z.mul(z);
            }
        }
        acc
    }

    /// Nearest-ish f64 value: each part rounded once, so the error is ≤ u·|self|(1 + u).
    pub(crate) fn to_complex(self) -> Complex64 {
        Complex64::new(self.re.to_f64(), self.im.to_f64())
    }
}

/// e^{−2πi r/n} in double-double, with error ≤ 16u² (integer argument reduction is exact;
/// the Taylor series runs on an angle in [0, π/4] and is truncated far below u²).
pub(crate) fn unit_root(r: u64, n: u64) -> CDd {
    debug_assert!((1..1 << 52).contains(&n));
    let r = r % n;
    // θ = 2πr/n = (π/4)(o + ρ/n) with octant o ∈ 0..8 and 0 ≤ ρ < n, all exact integers.
    let eight_r = 8 * r as u128;
    let o = (eight_r / n as u128) as u64;
    let rho = (eight_r - o as u128 * n as u128) as u64;
    // Write θ = j·π/2 + s·ψ with ψ ∈ [0, π/4]: odd octants count back from the next one.
    let (j, s, num) = if o.is_multiple_of(2) {
        (o / 2, 1.0, rho)
    } else {
        (o.div_ceil(2), -1.0, n - rho)
    };
    let psi = FRAC_PI_4.mul(ratio(num, n));
    let (c, sn) = sin_cos_small(psi);
    let sn = Dd {
        hi: s * sn.hi,
        lo: s * sn.lo,
    };
    // cos/sin of θ by quarter turns j, then conjugate for e^{−iθ}.
    let (cos, sin) = match j % 4 {
        0 => (c, sn),
        1 => (sn.neg(), c),
        2 => (c.neg(), sn.neg()),
        _ => (sn, c.neg()),
    };
    CDd {
        re: cos,
        im: sin.neg(),
    }
}

/// a/n as a double-double for integers 0 ≤ a ≤ n < 2⁵².
fn ratio(a: u64, n: u64) -> Dd {
    let (a, n) = (a as f64, n as f64);
    let q = a / n;
    let (p, e) = two_prod(q, n);
    // a − p is exact (Sterbenz: p is within a factor 2 of a).
    Dd::renormalise(q, ((a - p) - e) / n)
}

/// (cos x, sin x) for 0 ≤ x ≤ π/4 by Taylor series; the first omitted term is below 1e-34.
fn sin_cos_small(x: Dd) -> (Dd, Dd) {
    let x2 = x.mul(x);
    let (mut cos, mut sin) = (Dd::ONE, x);
    let (mut tc, mut ts) = (Dd::ONE, x);
    for n in 1..=14u32 {
        let (a, b) = (2.0 * n as f64, 2.0 * n as f64 + 1.0);
        tc = tc.mul(x2).div_f64((a - 1.0) * a);
        ts = ts.mul(x2).div_f64(a * b);
        if n % 2 == 1 {
            cos = cos.sub(tc);
            sin = sin.sub(ts);
        } else {
            cos = cos.add(tc);
            sin = sin.add(ts);
        }
    }
    (cos, sin)
}

#[cfg(test)]
mod tests {
    use super::*;

    const U2: f64 = f64::EPSILON * f64::EPSILON / 4.0;

    fn dd(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    fn err(a: Dd, b: Dd) -> f64 {
        a.sub(b).to_f64().abs()
    }

    #[test]
    fn unit_roots_hit_exact_values() {
        let half = dd(0.5);
        let r2 = Dd::ONE.div_f64(2.0);
        // sqrt(1/2) in dd: check s² = 1/2 instead of a constant.
        for (r, n, cos, sin) in [
            (1u64, 12u64, None, Some(half)), // θ = π/6
            (1, 6, Some(half), None),        // θ = π/3
            (5, 12, None, Some(half)),       // θ = 5π/6
            (3, 4, Some(Dd::ZERO), Some(Dd::ONE.neg())),
            (2, 4, Some(Dd::ONE.neg()), Some(Dd::ZERO)),
            (7, 12, None, Some(half.neg())), // θ = 7π/6
        ] {
            let w = unit_root(r, n);
            if let Some(c) = cos {
                assert!(err(w.re, c) <= 4.0 * U2, "cos r={r} n={n}: {w:?}");
            }
            if let Some(s) = sin {
                // e^{−iθ} has imaginary part −sin θ.
                assert!(err(w.im.neg(), s) <= 4.0 * U2, "sin r={r} n={n}: {w:?}");
            }
        }
        let w = unit_root(1, 8);
        assert!(err(w.re.mul(w.re), r2) <= 8.0 * U2);
        assert!(err(w.im, w.re.neg()) <= 4.0 * U2);
    }

    #[test]
    fn unit_roots_are_consistent_across_octants() {
        // |w| = 1, and w_r · w_s = w_{r+s} for many residues, to dd accuracy.
        let n = 3 * 1024u64;
        for r in (0..n).step_by(37) {
            let w = unit_root(r, n);
            let norm = w.re.mul(w.re).add(w.im.mul(w.im));
            assert!(err(norm, Dd::ONE) <= 32.0 * U2, "r={r}");
            let s = (r * 7 + 11) % n;
            let prod = w.mul(unit_root(s, n));
            let direct = unit_root(r + s, n);
            assert!(err(prod.re, direct.re) <= 64.0 * U2, "r={r} s={s}");
            assert!(err(prod.im, direct.im) <= 64.0 * U2, "r={r} s={s}");
            let f = w.to_complex();
            let t = -2.0 * std::f64::consts::PI * r as f64 / n as f64;
            assert!((f.re - t.cos()).abs() < 1e-15 && (f.im - t.sin()).abs() < 1e-15);
        }
    }

    #[test]
    fn powu_matches_repeated_products() {
        let z = unit_root(5, 97).mul(CDd {
            re: dd(0.999),
            im: Dd::ZERO,
        });
        let mut acc = CDd::ONE;
        for k in 0..40u64 {
            let p = z.powu(k);
            assert!(
                err(p.re, acc.re) <= 1e3 * U2 && err(p.im, acc.im) <= 1e3 * U2,
                "k={k}"
            );
            acc = acc.mul(z);
        }
    }
}
