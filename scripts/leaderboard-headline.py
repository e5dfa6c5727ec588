#!/usr/bin/env python3
"""The leaderboard's headline, generated from docs/figures/benchmark/leaderboard.csv into the
pages that quote it (README.md, docs/benchmark.md), between the markers

    <!-- leaderboard-headline EPS -->
    ...
    <!-- /leaderboard-headline -->

where EPS is the target epsilon of the table. Per dataset: the ranked learner with the highest
mean test accuracy, the ranked learners not shown worse than it (Holm-adjusted one-sided Welch
at 0.05, as the leaderboard decides; the first three by mean, then how many more), and the non-private reference.

    python3 scripts/leaderboard-headline.py           # rewrite the generated parts
    python3 scripts/leaderboard-headline.py --check   # exit 1 if any is not current (CI)
"""

import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs/figures/benchmark/leaderboard.csv"
PAGES = [ROOT / "README.md", ROOT / "docs/benchmark.md"]
BLOCK = re.compile(
    r"(<!-- leaderboard-headline (?P<eps>[0-9.]+) -->\n)(?P<body>.*?)(<!-- /leaderboard-headline -->)",
    re.S,
)

NAMES = {
    "alg1": "Algorithm 1",
    "dpsgd": "DP-SGD",
    "amp": "AMP",
    "amp_hf": "H-F AMP",
    "psgd": "P-SGD",
    "ppsgd": "P-PSGD",
    "pscpsgd": "P-SCPSGD",
    "pfw": "P-FW",
    "opdisc": "OPDisc",
    "external numpy_dpsgd": "NumPy DP-SGD",
    "external diffprivlib_logreg": "diffprivlib",
}


def short(label):
    """'dpsgd (certified), honest' -> 'DP-SGD (honest)'; the calibration is always certified
    for ranked learners, and an outside learner's is its declaration."""
    base, _, tuning = label.partition(", ")
    kind = re.sub(r" \((certified|declared|paper|chi)\)$", "", base)
    name = NAMES.get(kind, kind)
    return f"{name} ({tuning})" if tuning else name


def table(rows, eps):
    here = [r for r in rows if float(r["epsilon"]) == eps]
    datasets = sorted({r["dataset"] for r in here}, key=lambda d: [r["dataset"] for r in rows].index(d))
    out = [
        f"| dataset | best at ε = {eps:g} (test accuracy %, mean ± 95 % t) | not shown worse | non-private |",
        "|---|---|---|---|",
    ]
    for d in datasets:
        mine = [r for r in here if r["dataset"] == d]
        ranked = [r for r in mine if r["role"] == "ranked" and r["rank"] not in ("", "NaN")]
        best = [r for r in ranked if r["vs_best"] == "best"]
        ties = sorted(
            (r for r in ranked if r["vs_best"] == "indistinguishable"),
            key=lambda r: float(r["rank"]),
        )
        np_ = [r for r in mine if r["role"].startswith("non-private")]
        if not best:
            continue
        b = best[0]
        cell = lambda r: f"{short(r['learner'])} {float(r['mean_accuracy']):.2f}"
        tie_text = ", ".join(cell(r) for r in ties[:3]) if ties else "none"
        if len(ties) > 3:
            tie_text += f" and {len(ties) - 3} more"
        npv = f"{float(np_[0]['mean_accuracy']):.2f}" if np_ else "–"
        out.append(
            f"| {d} | {short(b['learner'])} {float(b['mean_accuracy']):.2f} ± "
            f"{float(b['ci95_t']):.2f} ({b['trials']} trials) | {tie_text} | {npv} |"
        )
    return "\n".join(out) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    rows = list(csv.DictReader(SOURCE.open(encoding="utf-8")))
    stale = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        new = BLOCK.sub(
            lambda m: m.group(1) + table(rows, float(m.group("eps"))) + m.group(4), text
        )
        if new != text:
            stale.append(page.relative_to(ROOT))
            if not check:
                page.write_text(new, encoding="utf-8")
    if check and stale:
        print(
            "leaderboard headline not current in "
            + ", ".join(map(str, stale))
            + ": run python3 scripts/leaderboard-headline.py",
            file=sys.stderr,
        )
        sys.exit(1)
    if not check:
        for p in stale:
            print(f"rewrote the headline in {p}")


if __name__ == "__main__":
    main()
