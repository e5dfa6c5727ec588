#!/usr/bin/env bash
# Reproduces Redberg, Koskela & Wang (2023), "Improving the Privacy and Practicality of
# Objective Perturbation for Differentially Private Linear Learners":
#   1. runs the Section 5 experiment grids configs/redberg2023/{adult,adult-iyengar,synthetic-l,synthetic-h,gisette}.toml
#      (results in results/redberg2023/<config>/; an interrupted run resumes where it stopped);
#   2. regenerates Figures 1-5 and Tables 1-2 into results/figures/redberg2023/.
# Gisette needs a large download: if it cannot be fetched, its run is skipped with a message and
# Figure 2 / the tables are made from the other datasets. Set DPBENCH_DATA_MIRROR to a folder of
# raw files to work offline.
#
# Usage: scripts/reproduce-redberg2023.sh [--figures-only] [-- extra `dp-bench figures` args]
set -euo pipefail
cd "$(dirname "$0")/.."

figures_only=0
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --figures-only) figures_only=1 ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

dp_bench() { cargo run --release --quiet -p dp-bench -- "$@"; }

if [[ $figures_only -eq 0 ]]; then
    for config in adult adult-iyengar synthetic-l synthetic-h gisette; do
        if [[ $config == gisette ]] && ! dp_bench data fetch gisette; then
            echo "skipping gisette: its data could not be fetched (see the error above)." >&2
            echo "  Retry online, or set DPBENCH_DATA_MIRROR to a folder holding gisette's raw files." >&2
            continue
        fi
        echo "== running configs/redberg2023/$config.toml" >&2
        dp_bench "configs/redberg2023/$config.toml"
    done
fi

echo "== figures and tables" >&2
dp_bench figures redberg2023 "${extra[@]}"
