#!/usr/bin/env python3
"""High-precision per-step RDP of the Poisson-subsampled Gaussian mechanism.

Computes the table `SUBSAMPLED_GAUSSIAN_REFERENCE` of
`crates/dp-core/tests/accounting_reference_values.rs`: for each (q, z, alpha) of the grids
below, the per-step Renyi-DP epsilon(alpha) = log(A_alpha) / (alpha - 1) of one step with
sampling rate q and noise multiplier z (add/remove neighbours, sensitivity 1), where

    A_alpha = E_{x ~ N(0, z^2)} [ (1 - q + q e^{(2x - 1)/(2 z^2)})^alpha ].

Nothing of the Rust crate is used: A_alpha - 1 is integrated directly with mpmath, so the
table is independent of the closed forms and series the crate implements.

Method (mpmath 1.3, 30 significant digits):
  * with u = q (e^{(2x - 1)/(2 z^2)} - 1), E[u] = 0, so
        A_alpha - 1 = E[ (1 + u)^alpha - 1 - alpha u ],
    whose integrand is non-negative (convexity of (1 + u)^alpha, 1 + u >= 1 - q > 0): the
    integral keeps its relative precision even when A_alpha - 1 is far below 1. The integrand
    is evaluated as expm1(alpha log1p(u)) - alpha u with u = q expm1(...);
  * mpmath.quad (tanh-sinh) over [-60 z - 1, alpha + 60 z + 1] (the weight times the integrand
    is a Gaussian bump of width z between 0 and alpha), split at 0, 1/2, alpha, at
    +-{1, 2, 5, 10, 20} z around 0 and around alpha, at the mixture switch
    z0 = z^2 ln(1/q - 1) + 1/2 (where q e^{(2x - 1)/(2 z^2)} = 1 - q) and +-{1, 2, 5, 10, 20} z
    around it, and at the ends of 30 equal sub-intervals of the whole range (split points
    outside the range are dropped);
  * epsilon = log1p(A_alpha - 1) / (alpha - 1), rounded to the nearest double.

q, z and alpha are taken as the exact binary doubles the Rust test passes (mpf(float)).

Checks this supports (see --help):
  * --check FILE compares the computed values with the table in FILE: how many round to the
    table's double exactly, and the largest relative difference of the 30-digit value from
    the table's double (exit status 1 if it exceeds --tolerance);
  * --binomial compares the quadrature with the exact binomial sum
        A_alpha = sum_k C(alpha, k) (1 - q)^{alpha - k} q^k e^{(k^2 - k)/(2 z^2)}
    at integer orders;
  * --dps and --subintervals redo the table at a higher precision / finer split.

Usage (from the repository root; 241 points, about three minutes on one core):
    python3 crates/dp-core/tests/reference/subsampled_gaussian_mpmath.py > table.txt
    python3 crates/dp-core/tests/reference/subsampled_gaussian_mpmath.py -j 2 \\
        --check crates/dp-core/tests/accounting_reference_values.rs

Requires mpmath 1.3 (`pip install mpmath==1.3.0`).
"""

import argparse
import itertools
import multiprocessing
import re
import sys

import mpmath
from mpmath import mp, mpf

# (rates q, noise multipliers z, orders alpha): the table is each grid's product, in this order.
GRIDS = [
    (
        (1e-05, 0.001, 0.02, 0.3, 0.5, 0.9, 0.999),
        (0.3, 1.1, 20.0, 1000.0),
        (1.01, 1.3, 1.93, 2.5, 12.7, 100.5, 1000.5),
    ),
    (
        (0.45, 0.5, 0.55, 0.99, 0.9999),
        (30.0, 300.0, 3000.0),
        (1.001, 1.7, 9.9),
    ),
]

DPS = 30
SUBINTERVALS = 30
# Half-width of the integration range, in units of z, beyond [0, alpha].
RANGE_SIGMAS = 60
# Splits at +-k z around 0, alpha and the mixture switch z0.
SPLIT_SCALES = (1, 2, 5, 10, 20)


def points():
    """The (q, z, alpha) of the table, in its order."""
    for qs, zs, alphas in GRIDS:
        yield from itertools.product(qs, zs, alphas)


def split_points(q, z, alpha, subintervals):
    """Sorted end and split points of the integration range [-60 z - 1, alpha + 60 z + 1]."""
    lo = -RANGE_SIGMAS * z - 1
    hi = alpha + RANGE_SIGMAS * z + 1
    centres = [mpf(0), alpha]
    inner = {mpf(0), mpf(1) / 2, alpha}
    if q < 1:
        z0 = z * z * mp.log(1 / q - 1) + mpf(1) / 2
        centres.append(z0)
        inner.add(z0)
    for c in centres:
        for k in SPLIT_SCALES:
            inner.add(c - k * z)
            inner.add(c + k * z)
    for i in range(1, subintervals):
        inner.add(lo + (hi - lo) * i / subintervals)
    return [lo] + sorted(p for p in inner if lo < p < hi) + [hi]


def a_minus_one(q, z, alpha, subintervals=SUBINTERVALS):
    """A_alpha - 1 by quadrature; returns (value, quad's error estimate)."""
    q, z, alpha = mpf(q), mpf(z), mpf(alpha)
    two_z2 = 2 * z * z
    norm = 1 / (z * mp.sqrt(2 * mp.pi))

    def integrand(x):
        u = q * mp.expm1((2 * x - 1) / two_z2)
        excess = mp.expm1(alpha * mp.log1p(u)) - alpha * u
        return excess * mp.exp(-x * x / two_z2) * norm

    return mp.quad(integrand, split_points(q, z, alpha, subintervals), error=True)


def epsilon(q, z, alpha, subintervals=SUBINTERVALS):
    """Per-step RDP epsilon(alpha) and the relative error estimate of A_alpha - 1."""
    am1, err = a_minus_one(q, z, alpha, subintervals)
    return mp.log1p(am1) / (mpf(alpha) - 1), err / am1


def a_binomial_minus_one(q, z, alpha):
    """Exact A_alpha - 1 at an integer order alpha (binomial sum).

    Summed with 60 extra digits: A_alpha - 1 can be ~1e-16 of A_alpha, so the subtraction
    would otherwise cost that many digits of the reference itself.
    """
    with mp.extradps(60):
        q, z = mpf(q), mpf(z)
        n = int(alpha)
        a = mp.fsum(
            mp.binomial(n, k) * (1 - q) ** (n - k) * q**k * mp.exp(mpf(k * k - k) / (2 * z * z))
            for k in range(n + 1)
        )
        return +(a - 1)


def _work(args):
    q, z, alpha, dps, subintervals = args
    mp.dps = dps
    eps, rel_err = epsilon(q, z, alpha, subintervals)
    return q, z, alpha, eps, rel_err


def read_table(path):
    """The (q, z, alpha) -> epsilon of the SUBSAMPLED_GAUSSIAN_REFERENCE table in a Rust file."""
    text = open(path, encoding="utf-8").read()
    start = text.index("SUBSAMPLED_GAUSSIAN_REFERENCE")
    body = text[start : text.index("];", start)]
    number = r"\s*([-+0-9.eE]+)\s*"
    rows = re.findall(r"\(" + ",".join([number] * 4) + r"\)", body)
    return {tuple(float(v) for v in row[:3]): float(row[3]) for row in rows}


def run_binomial_check(dps):
    mp.dps = dps
    worst = mpf(0)
    for q, z in itertools.product((1e-05, 0.02, 0.5, 0.999), (0.3, 1.1, 20.0, 1000.0)):
        for alpha in (2.0, 3.0, 13.0, 100.0):
            am1, _ = a_minus_one(q, z, alpha)
            exact = a_binomial_minus_one(q, z, alpha)
            rel = abs(am1 / exact - 1)
            worst = max(worst, rel)
            print(f"q {q} z {z} alpha {alpha}: rel diff {mpmath.nstr(rel, 3)}", file=sys.stderr)
    print(f"binomial check: max relative difference of A - 1: {mpmath.nstr(worst, 3)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dps", type=int, default=DPS, help="decimal digits (default 30)")
    parser.add_argument(
        "--subintervals", type=int, default=SUBINTERVALS, help="equal sub-intervals (default 30)"
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--check", metavar="FILE", help="compare with the table in this Rust file")
    parser.add_argument(
        "--tolerance", type=float, default=1e-12, help="relative tolerance of --check"
    )
    parser.add_argument(
        "--binomial", action="store_true", help="check the quadrature at integer orders only"
    )
    args = parser.parse_args()
    if mpmath.__version__ != "1.3.0":
        print(f"warning: mpmath {mpmath.__version__}, the table used 1.3.0", file=sys.stderr)
    if args.binomial:
        run_binomial_check(args.dps)
        return 0

    tasks = [(q, z, a, args.dps, args.subintervals) for q, z, a in points()]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(_work, tasks, chunksize=1)
    else:
        results = [_work(t) for t in tasks]

    mp.dps = args.dps
    worst_err = max(r[4] for r in results)
    print(f"max quad relative error estimate of A - 1: {mpmath.nstr(worst_err, 3)}", file=sys.stderr)
    if not args.check:
        for q, z, alpha, eps, _ in results:
            print(f"    ({q!r}, {z!r}, {alpha!r}, {float(eps)!r}),")
        return 0

    table = read_table(args.check)
    worst, worst_at, missing, identical = 0.0, None, 0, 0
    for q, z, alpha, eps, _ in results:
        if (q, z, alpha) not in table:
            missing += 1
            print(f"not in the table: ({q!r}, {z!r}, {alpha!r})", file=sys.stderr)
            continue
        identical += float(eps) == table[(q, z, alpha)]
        # Relative difference of the full-precision value from the table's double.
        rel = abs(float(eps / mpf(table[(q, z, alpha)]) - 1))
        if rel > args.tolerance:
            print(
                f"differs: ({q!r}, {z!r}, {alpha!r}): computed {float(eps)!r}, "
                f"table {table[(q, z, alpha)]!r}, rel {rel:.3e}",
                file=sys.stderr,
            )
        if rel >= worst:
            worst, worst_at = rel, (q, z, alpha)
    extra = len(table) - (len(results) - missing)
    print(
        f"{len(results) - missing} points compared, {identical} identical as doubles, "
        f"{missing} missing from the table, {extra} table rows not computed; "
        f"max relative difference {worst:.3e} at {worst_at}"
    )
    return 0 if worst <= args.tolerance and missing == 0 and extra == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
