#!/usr/bin/env python3
"""Checks that two results folders agree bit for bit on what a refactor must not change.

Usage: scripts/compare-cells.py BEFORE_DIR AFTER_DIR

For every cell of BEFORE (matched by method, epsilon, trial) the AFTER folder must have the same
accuracy and the same noise (σ or z) as floats, exactly; λ too where BEFORE has it. Both the
old flat layout (`noise`, `lambda` columns) and the current one (`details` JSON) are read.
The rows of BEFORE's summary.csv must appear byte-identical in AFTER's (AFTER may have more
methods). Prints what differs and exits 1, or prints a one-line report and exits 0.
"""
import csv
import json
import sys


def cells(path):
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            details = json.loads(row["details"]) if "details" in row else {}
            def num(key):
                v = row.get(key)
                if v not in (None, ""):
                    return float(v)
                v = details.get(key)
                return float("nan") if v is None else float(v)
            key = (row["method"], float(row["epsilon"]), int(row["trial"]))
            out[key] = {k: num(k) for k in ("accuracy", "noise", "lambda")}
    return out


def same(a, b):
    return (a != a and b != b) or a == b  # NaN equals NaN here


def main(before, after):
    old, new = cells(f"{before}/cells.csv"), cells(f"{after}/cells.csv")
    bad = []
    for key, o in sorted(old.items()):
        n = new.get(key)
        if n is None:
            bad.append(f"{key}: missing after")
            continue
        for col in ("accuracy", "noise", "lambda"):
            if o[col] == o[col] and not same(o[col], n[col]):
                bad.append(f"{key} {col}: {o[col]!r} -> {n[col]!r}")
    with open(f"{before}/summary.csv") as f:
        old_rows = f.read().splitlines()
    with open(f"{after}/summary.csv") as f:
        new_rows = set(f.read().splitlines())
    missing = [r for r in old_rows if r not in new_rows]
    bad += [f"summary row changed or missing: {r}" for r in missing]
    if bad:
        print("\n".join(bad[:50]))
        print(f"{len(bad)} differences")
        return 1
    print(f"identical: {len(old)} cells (accuracy, noise, lambda) and {len(old_rows) - 1} summary rows")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
