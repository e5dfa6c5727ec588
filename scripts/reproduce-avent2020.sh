#!/usr/bin/env bash
# Reproduces Avent et al. (2020), "Automatic Discovery of Privacy-Utility Pareto Fronts":
#   1. runs the study configs in configs/avent2020/ (results in results/avent2020/<config>/; a
#      killed study resumes at its next point), cheapest first so figures fill in early:
#      --fast: the scaled-down *-fast configs (about 25 min in all on 2 cores);
#      default: the paper's budgets (DPareto, random, 3^5 grid, the MNIST -fast studies, then
#      Table 2's 4,864 random points and the 4^5 grid per setting: about 5 h on 2 cores);
#   2. regenerates Figures 1-8 and Table 2 into results/figures/avent2020/.
# Set DPBENCH_DATA_MIRROR to a folder of raw files to work offline.
#
# Usage: scripts/reproduce-avent2020.sh [--fast] [--figures-only] [--bin PATH]
#   --bin PATH: use this dp-bench binary instead of `cargo run --release` (for a queue that
#   must not pick up a rebuild half-way).
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
figures_only=0
bin=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --fast) fast=1 ;;
        --figures-only) figures_only=1 ;;
        --bin) shift; bin="$1" ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

dp_bench() {
    if [[ -n $bin ]]; then "$bin" "$@"; else cargo run --release --quiet -p dp-bench -- "$@"; fi
}

settings=(adult-lr-sgd adult-lr-adam adult-svm-sgd)
mnist=(mnist-mlp2-dpareto-fast mnist-mlp2-random-fast mnist-mlp1-dpareto-fast mnist-mlp1-random-fast)
configs=()
if [[ $fast -eq 1 ]]; then
    for s in "${settings[@]}"; do configs+=("$s-dpareto-fast" "$s-random-fast"); done
    configs+=("${mnist[@]}")
    for s in "${settings[@]}"; do configs+=("$s-table2-fast"); done
else
    for kind in dpareto random grid3; do
        for s in "${settings[@]}"; do configs+=("$s-$kind"); done
    done
    configs+=("${mnist[@]}")
    for kind in table2 grid4; do
        for s in "${settings[@]}"; do configs+=("$s-$kind"); done
    done
fi

if [[ $figures_only -eq 0 ]]; then
    for c in "${configs[@]}"; do
        echo "== $(date -u +%FT%TZ) running configs/avent2020/$c.toml" >&2
        dp_bench run --quiet "configs/avent2020/$c.toml"
    done
fi
dp_bench figures avent2020
