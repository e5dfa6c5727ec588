#!/usr/bin/env python3
"""Paper-mode P-SGD's batches (b draws with replacement) against the Poisson event they are
accounted as, on one pair of datasets: ε of the pair, from its privacy-loss distribution.

    python3 scripts/with-replacement-pair.py N B T Z DELTA [H CAP KMAX]

D has n rows; D′ adds a canary whose clipped gradient C·e_j touches a coordinate no other row
does (add/remove, the event's relation). A batch of b draws from D′ holds the canary
k ~ Binomial(b, 1/(n + 1)) times, so each step's noisy sum at that coordinate is N(0, (zC)²) on
D and Σ_k w_k N(kC, (zC)²) on D′; steps are independent, T of them. Poisson sampling at
q = b/n, the event, would give (1 − q)N(0, (zC)²) + qN(C, (zC)²).

Each pair's loss is discretised on a grid of step H (default 2e-4): each cell of outputs at
its least loss rounded down, a lower bound on ε (mass above CAP, default 60, and multiplicities
above KMAX, default 8, are dropped: both lower it further; a long run needs a coarser grid and a
lower cap to fit in memory), and for the Poisson pair also at its greatest rounded up with the
tails at +inf, an upper bound; both directions, composed by FFT (exact up to its round-off,
some 1e-17 per grid point). Prints the Poisson pair's bracket, which `dp-bench privacy event`
should fall in, and the lower bound for the with-replacement pair. A lower bound above what
dp-bench certifies for the Poisson event means that certificate does not cover paper-mode
P-SGD.
"""
import sys

import numpy as np
from numpy.fft import irfft, rfft
from scipy.stats import binom, norm

H = 2e-4
CAP = 60.0
KMAX = 8


def pld(ks, ws, z, direction, up):
    """(offset, pmf, mass at +inf) of one step's loss on a grid of step H: cells between
    consecutive edges with their exact mass (CDF differences), each at the least loss over the
    cell rounded down (`up` false) or the greatest rounded up (the loss is monotone in x).
    Rounding down drops the tails beyond the edges and the losses above CAP; rounding up puts
    the tails at +inf. Either way the bound keeps its direction."""
    edges = np.linspace(-14.0, 14.0 + max(ks) / z, 800001)
    lp = np.log(np.sum([w * norm.pdf(edges, k / z) for k, w in zip(ks, ws)], axis=0) + 1e-300)
    lq = norm.logpdf(edges)
    edge_loss = lp - lq if direction == "remove" else lq - lp
    if direction == "remove":
        cdf = np.sum([w * norm.cdf(edges, k / z) for k, w in zip(ks, ws)], axis=0)
    else:
        cdf = norm.cdf(edges)
    mass = np.diff(cdf)
    loss = (np.maximum if up else np.minimum)(edge_loss[:-1], edge_loss[1:])
    keep = np.ones_like(loss, dtype=bool) if up else loss <= CAP
    idx = (np.ceil if up else np.floor)(loss[keep] / H).astype(np.int64)
    lo = idx.min()
    infinite = cdf[0] + (1.0 - cdf[-1]) if up else 0.0
    return lo, np.bincount(idx - lo, weights=mass[keep]), infinite


def compose(lo, pmf, infinite, t):
    size = 1
    while size < t * (len(pmf) - 1) + 1:
        size *= 2
    out = irfft(rfft(pmf, size) ** t, size)[: t * (len(pmf) - 1) + 1]
    return lo * t, np.maximum(out, 0.0), 1.0 - (1.0 - infinite) ** t


def eps_at(lo, pmf, infinite, delta, up):
    loss = (lo + np.arange(len(pmf))) * H

    def d(e):
        m = loss > e
        return infinite + np.sum(pmf[m] * (1.0 - np.exp(e - loss[m])))

    a, b = 0.0, 500.0
    for _ in range(60):
        mid = 0.5 * (a + b)
        a, b = (mid, b) if d(mid) > delta else (a, mid)
    return b if up else a


def epsilon(ks, ws, z, t, delta, up):
    return max(
        eps_at(*compose(*pld(ks, ws, z, d, up), t), delta, up) for d in ("remove", "add")
    )


def main():
    global H, CAP, KMAX
    if len(sys.argv) not in (6, 9):
        sys.exit(__doc__)
    if len(sys.argv) == 9:
        H, CAP, KMAX = float(sys.argv[6]), float(sys.argv[7]), int(sys.argv[8])
    n, b, t = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    z, delta = float(sys.argv[4]), float(sys.argv[5])
    if not (n > 0 and 0 < b <= n and t > 0 and z > 0 and 0 < delta < 1):
        sys.exit("need N > 0, 0 < B <= N, T > 0, Z > 0 and 0 < DELTA < 1")
    q = b / n
    ks = np.arange(0, KMAX + 1)
    ws = binom.pmf(ks, b, 1.0 / (n + 1))
    low = epsilon([0, 1], [1 - q, q], z, t, delta, False)
    high = epsilon([0, 1], [1 - q, q], z, t, delta, True)
    wr = epsilon(list(ks), list(ws), z, t, delta, False)
    print(
        f"n={n} b={b} T={t} z={z} delta={delta}: Poisson pair {low:.3f} to {high:.3f}; "
        f"with-replacement pair at least {wr:.3f}"
    )


if __name__ == "__main__":
    main()
