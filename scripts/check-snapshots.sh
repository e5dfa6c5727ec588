#!/usr/bin/env bash
# Checks that the committed tables and figures (docs/figures/<paper>/) are what the code
# produces: every file must have the sha256 its SOURCES.md records (so a number edited by hand
# fails); the cheap runs of docs/figures/runs.txt (check column "ci", 3–5 min on 2 cores
# in the dev profile) are re-run from scratch, their figures drawn, and every row drawn must
# equal the committed one byte for byte; the runs whose producing commit is not HEAD are
# listed (stale unless their code and config did not change since). CI runs it from
# scripts/test.sh. Exits 1 on any difference.
#
# Usage: scripts/check-snapshots.sh [--bin PATH] [--all] [--keep DIR]
#   --bin PATH  dp-bench binary (default: `cargo build -p dp-bench`, the dev profile CI uses;
#               with `--features mip` for --all)
#   --all       re-run every run of docs/figures/runs.txt, not only the cheap ones (hours)
#   --keep DIR  leave the re-runs and figures in DIR, a new folder (default: a temporary one)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

bin=""
all=0
keep=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) shift; bin="$(abs "$1")" ;;
    --all) all=1 ;;
    --keep) shift; keep="$(abs "$1")" ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
cd "$repo"
export DPBENCH_DATA_MIRROR="${DPBENCH_DATA_MIRROR:-$(cd .. && pwd)/shared/datasets/raw}"

# The committed bytes against SOURCES.md first: instant, and the likeliest failure.
python3 scripts/snapshot-check.py --hashes-only --require-sources

if [[ -z "$bin" ]]; then
  # --all re-runs Neel et al.'s lines too, whose kinds need the MIP oracle.
  features=()
  if [[ "$all" -eq 1 ]]; then features=(--features mip); fi
  cargo build --locked --quiet -p dp-bench "${features[@]}"
  bin="${CARGO_TARGET_DIR:-$repo/target}/debug/dp-bench"
fi
if [[ -n "$keep" ]]; then
  work="$keep"
  if [[ -e "$work/results" ]]; then
    echo "--keep $work: holds results already (a re-run would resume them); give a new folder" >&2
    exit 2
  fi
  mkdir -p "$work"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi

which=(--ci)
if [[ "$all" -eq 1 ]]; then which=(); fi
start="$(date +%s)"
scripts/snapshot-runs.sh --quiet --bin "$bin" --results "$work/results" "${which[@]}"
for dir in "$work"/results/*/; do
  paper="$(basename "$dir")"
  # Notes about the figures a partial set of runs cannot draw go to the log, errors out.
  if ! "$bin" figures "$paper" --results "$dir" --out "$work/figures/$paper" \
    > "$work/figures-$paper.log" 2>&1; then
    cat "$work/figures-$paper.log" >&2
    exit 1
  fi
done
python3 scripts/snapshot-check.py --regen "$work/figures" --reran "$work/results"
echo "check-snapshots: re-runs and comparison took $(($(date +%s) - start)) s"
