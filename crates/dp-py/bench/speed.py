"""dpbench's accountants beside dp_accounting's and Opacus', timed in one Python process.

1. ε by RDP of dp_accounting's DP-SGD example event (SelfComposed(PoissonSampled(q,
   Gaussian(z)), T)): dpbench.accounting.epsilon(accountant="rdp") vs dp_accounting's
   RdpAccountant.compose(event).get_epsilon(δ), and dpbench's PLD and best beside them.
2. DP-SGD noise calibration: dpbench.accounting.dpsgd_noise_multiplier(accountant="rdp") vs
   Opacus' get_noise_multiplier(accountant="rdp") (its default tolerance 0.01 in ε).

Opacus is loaded from its wheel without PyTorch (its accountants need only numpy and scipy):
pass --opacus-wheel-dir DIR, a folder holding the unpacked wheel (`opacus/` inside); without
it the second comparison is left out. Writes one CSV row per measurement to --out.

Usage: python speed.py --out speed.csv [--opacus-wheel-dir DIR] [--repeat 20]
"""

import argparse
import csv
import datetime
import os
import platform
import sys
import time
import types


def per_call(fn, repeat):
    fn()  # warm: first calls build caches
    start = time.perf_counter()
    for _ in range(repeat):
        value = fn()
    return value, (time.perf_counter() - start) / repeat


def load_opacus(folder):
    sys.path.insert(0, folder)
    pkg = types.ModuleType("opacus")
    pkg.__path__ = [os.path.join(folder, "opacus")]
    sys.modules["opacus"] = pkg
    optimizers = types.ModuleType("opacus.optimizers")
    optimizers.DPOptimizer = object
    sys.modules["opacus.optimizers"] = optimizers
    from opacus.accountants.utils import get_noise_multiplier

    return get_noise_multiplier


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--opacus-wheel-dir")
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()

    import dp_accounting
    from dp_accounting import dp_event as E
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    from dpbench import accounting as A

    q, z, steps, delta = 0.01, 1.1, 1000, 1e-5
    event = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(z)), steps)
    rows = []
    machine = f"{platform.machine()}, {os.cpu_count()} logical cores, {platform.python_implementation()} {platform.python_version()}"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")

    def row(task, tool, value, seconds, reference_seconds=None):
        rows.append({"task": task, "tool": tool, "value": f"{value:.6g}",
                     "ms_per_call": f"{seconds * 1e3:.3f}",
                     "speedup_vs_reference": "" if reference_seconds is None
                     else f"{reference_seconds / seconds:.1f}",
                     "machine": machine, "measured_utc": when})

    task = f"epsilon of DP-SGD q={q} z={z} T={steps} at delta={delta}"
    theirs, t_ref = per_call(
        lambda: rdp.RdpAccountant().compose(event).get_epsilon(delta), a.repeat)
    row(task, f"dp_accounting {dp_accounting.__version__ if hasattr(dp_accounting, '__version__') else '0.6.0'} RdpAccountant", theirs, t_ref)
    # "best" remembers what it certified (a grid repeats its events): every timed call here
    # asks about a new event (z moved by 1e-12 per call), so nothing is answered from memory.
    fresh = iter(range(10**9))
    for acc in ["rdp", "pld", "best"]:
        ours, t = per_call(
            lambda: A.epsilon(A.dpsgd_event(q, z + 1e-12 * next(fresh), steps), delta,
                              accountant=acc), a.repeat)
        row(task, f"dpbench accountant={acc}", ours, t, t_ref)

    if a.opacus_wheel_dir:
        get_noise_multiplier = load_opacus(a.opacus_wheel_dir)
        task = f"noise multiplier of DP-SGD q={q} T={steps} for (epsilon=2, delta={delta})"
        theirs, t_ref = per_call(
            lambda: get_noise_multiplier(target_epsilon=2.0, target_delta=delta, sample_rate=q,
                                         steps=steps, accountant="rdp"), max(3, a.repeat // 4))
        row(task, "Opacus get_noise_multiplier (rdp, epsilon_tolerance 0.01)", theirs, t_ref)
        for acc in ["rdp", "best"]:
            ours, t = per_call(
                lambda: A.dpsgd_noise_multiplier(q, steps, 2.0 + 1e-9 * next(fresh), delta,
                                                 accountant=acc),
                max(3, a.repeat // 4))
            row(task, f"dpbench accountant={acc}", ours, t, t_ref)

    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(f"{r['task'][:40]:40} {r['tool']:58} {r['value']:>10} {r['ms_per_call']:>10} ms  x{r['speedup_vs_reference'] or '-'}")


if __name__ == "__main__":
    main()
