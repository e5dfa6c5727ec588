#!/usr/bin/env python3
"""High-precision per-step RDP of the Gaussian mechanism sampled without replacement.

Computes the table `WOR_REFERENCE` of `crates/dp-core/tests/wor_reference_values.rs`: for each
(gamma, z, alpha) below, the per-step Renyi-DP bound of Wang, Balle & Kasiviswanathan (2019,
Theorems 9 and 27) for a lot of m = gamma n records drawn uniformly without replacement,
replace-one neighbours, noise multiplier z (docs/derivations.md section 8):

    A = 1 + sum_{j=2..alpha} gamma^j C(alpha, j)
              min(4 sqrt(M_{2 floor(j/2)} M_{2 ceil(j/2)}), 2 exp((j - 1) j / (2 z^2)))
    epsilon = min(log(A) / (alpha - 1), alpha / (2 z^2))

with M_k the k-th forward difference at 0 of a_i = exp(i (i - 1) / (2 z^2)).

Nothing of the Rust crate is used, and the method differs from the crate's: M_k is the exact
alternating sum sum_i (-1)^(k-i) C(k, i) a_i, evaluated with enough digits to survive its
cancellation (the working precision doubles until the sum keeps 40 significant digits beyond
the cancellation), where the crate integrates E[(L - 1)^k] numerically. Binomial
coefficients are exact integers; the sum over j is done at 40 digits.

gamma, z and alpha are taken as the exact binary doubles the Rust test passes (mpf(float)).

Usage (from the repository root; about a minute on one core):
    python3 crates/dp-core/tests/reference/subsampled_gaussian_wor_mpmath.py > table.txt
    python3 crates/dp-core/tests/reference/subsampled_gaussian_wor_mpmath.py \\
        --check crates/dp-core/tests/wor_reference_values.rs

Requires mpmath 1.3 (`pip install mpmath==1.3.0`).
"""

import argparse
import re
import sys

import mpmath
from mpmath import mp, mpf

N_ADULT = 30956

# (gamma, z, alpha). The first four are optimal orders of Avent et al.'s reference vectors;
# the rest cover large rates, large and small z, and orders up to 1000 (including one where
# autodp's double-precision forward differences make the bound 6e-4 too small).
POINTS = [
    (32 / N_ADULT, 1.0, 13),
    (32 / N_ADULT, 8.0, 410),
    (128 / N_ADULT, 8.0, 202),
    (78 / N_ADULT, 2.655940687147833, 68),
    (93 / N_ADULT, 1.0391793771508868, 2),
    (0.1, 6.7971617105390445, 200),
    (0.3, 8.0, 200),
    (0.9, 8.0, 50),
    (0.01, 0.5, 50),
    (0.5, 3.0, 1000),
    (1e-4, 20.0, 800),
    (0.05, 1.5, 3),
]

DPS = 40


def forward_difference(z, k):
    """M_k = sum_i (-1)^(k-i) C(k, i) exp(i (i - 1) / (2 z^2)), to DPS significant digits."""
    dps = 2 * DPS
    while True:
        with mp.workdps(dps):
            c = 1 / (2 * mpf(z) ** 2)
            pos, neg = mpf(0), mpf(0)
            for i in range(k + 1):
                t = mp.binomial(k, i) * mp.exp(c * i * (i - 1))
                if (k - i) % 2 == 0:
                    pos += t
                else:
                    neg += t
            m = pos - neg
            # Digits lost to cancellation: log10((pos + neg) / m); keep DPS beyond them.
            if m > 0 and (pos + neg) / m < mpf(10) ** (dps - DPS - 5):
                return +m
        dps *= 2


def epsilon(gamma, z, alpha):
    """The per-step bound at (gamma, z, alpha), to DPS digits."""
    gamma, zf = mpf(gamma), mpf(z)
    ms = {}

    def m(k):
        if k not in ms:
            ms[k] = forward_difference(z, k)
        return ms[k]

    with mp.workdps(DPS):
        terms = []
        for j in range(2, alpha + 1):
            lo, hi = 2 * (j // 2), 2 * ((j + 1) // 2)
            delta_term = 4 * mp.sqrt(m(lo) * m(hi))
            plain = 2 * mp.exp(mpf((j - 1) * j) / (2 * zf**2))
            terms.append(gamma**j * mp.binomial(alpha, j) * min(delta_term, plain))
        a_minus_one = mp.fsum(terms)
        bound = mp.log1p(a_minus_one) / (alpha - 1)
        return min(bound, mpf(alpha) / (2 * zf**2))


def read_table(path):
    """The (gamma, z, alpha) -> epsilon of the WOR_REFERENCE table in a Rust file."""
    text = open(path, encoding="utf-8").read()
    start = text.index("WOR_REFERENCE")
    body = text[start : text.index("];", start)]
    number = r"\s*([-+0-9.eE]+)\s*"
    rows = re.findall(r"\(" + ",".join([number] * 4) + r"\)", body)
    return [(float(r[1]), int(r[2]), float(r[3])) for r in rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", metavar="FILE", help="compare with the table in this Rust file")
    parser.add_argument(
        "--tolerance", type=float, default=1e-14, help="relative tolerance of --check"
    )
    args = parser.parse_args()
    if mpmath.__version__ != "1.3.0":
        print(f"warning: mpmath {mpmath.__version__}, the table used 1.3.0", file=sys.stderr)
    results = [(g, z, a, epsilon(g, z, a)) for g, z, a in POINTS]
    if not args.check:
        for g, z, a, e in results:
            print(f"    ({g!r}, {z!r}, {a}, {float(e)!r}),")
        return 0
    table = read_table(args.check)
    if len(table) != len(results):
        print(f"{len(table)} table rows, {len(results)} points", file=sys.stderr)
        return 1
    worst = 0.0
    for (g, z, a, e), (tz, ta, te) in zip(results, table):
        if (z, a) != (tz, ta):
            print(f"row order differs at ({g!r}, {z!r}, {a})", file=sys.stderr)
            return 1
        rel = abs(float(e / mpf(te) - 1))
        worst = max(worst, rel)
    print(f"{len(results)} points compared; max relative difference {worst:.3e}")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
