#!/usr/bin/env python3
"""Cuts an Iyengar et al. config to the paper's table column: one epsilon (default 0.1, the
Fig. 1/3 column for binary data), dishonest tuning only, and optionally fewer trials. This is
how the README's KDDCup99, Huber, Synthetic-L and Synthetic-H rows were run.

Usage: python3 scripts/iyengar2019-subset.py configs/iyengar2019/kddcup99-logistic.toml \
           /tmp/kddcup99-logistic.toml [trials] [epsilon]
then:  cargo run --release -p dp-bench -- /tmp/kddcup99-logistic.toml \
           --out results/iyengar2019/kddcup99-logistic
"""
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    trials = sys.argv[3] if len(sys.argv) > 3 else None
    epsilon = sys.argv[4] if len(sys.argv) > 4 else "0.1"
    text = open(src).read()
    text = re.sub(r"(?m)^epsilons = \[.*\]", f"epsilons = [{epsilon}]", text)
    if trials:
        text = re.sub(r"(?m)^trials = \d+", f"trials = {trials}", text)
    blocks = re.split(r"(?m)^(?=\[methods\.)", text)
    kept = [b for b in blocks if 'tuning = "honest"' not in b]
    open(dst, "w").write("".join(kept))


if __name__ == "__main__":
    main()
