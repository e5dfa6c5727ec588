#!/usr/bin/env bash
# Runs the runs behind the committed snapshots, as docs/figures/runs.txt lists them (config,
# and for Iyengar et al.'s table rows the epsilon = 0.1 dishonest cut of
# scripts/iyengar2019-subset.py), each into RESULTS/<paper>/<run>/, and writes there
# snapshot-recipe.txt (the config, its sha256, the cut) for scripts/snapshot-sources.py.
# A run already finished in its folder is resumed, i.e. skipped cell by cell.
#
# Usage: scripts/snapshot-runs.sh [--bin PATH] [--results DIR] [--ci] [--list] [--quiet] [PAPER | PAPER/RUN]...
#   --bin PATH     the dp-bench binary (default: `cargo run --release`, with `--features mip`
#                  for neel2019; a --bin must have it to run Neel et al.'s lines)
#   --results DIR  where the run folders go (default: results)
#   --ci           only the cheap runs (check column "ci"), as scripts/check-snapshots.sh does
#   --list         print the selected lines instead of running them
#   --quiet        each run's output (its summary table) into RESULTS/<paper>/<run>.log instead
#   PAPER, PAPER/RUN  only these (default: every line)
# Set DPBENCH_DATA_MIRROR to a folder of raw files to work offline.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

bin=""
results="$repo/results"
ci=0
list=0
quiet=0
only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) shift; bin="$(abs "$1")" ;;
    --results) shift; results="$(abs "$1")" ;;
    --ci) ci=1 ;;
    --list) list=1 ;;
    --quiet) quiet=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    *) only+=("$1") ;;
  esac
  shift
done
cd "$repo"

dp_bench() { # paper, then dp-bench's arguments
  local paper="$1"
  shift
  if [[ -n "$bin" ]]; then
    "$bin" "$@"
  elif [[ "$paper" == neel2019 ]]; then # the MIP oracle's kinds need the `mip` feature
    cargo run --release --locked --quiet -p dp-bench --features mip -- "$@"
  else
    cargo run --release --locked --quiet -p dp-bench -- "$@"
  fi
}

selected() { # paper run check
  if [[ "$ci" -eq 1 && "$3" != "ci" ]]; then return 1; fi
  if [[ ${#only[@]} -eq 0 ]]; then return 0; fi
  local o
  for o in "${only[@]}"; do
    if [[ "$o" == "$1" || "$o" == "$1/$2" ]]; then return 0; fi
  done
  return 1
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
found=0
while read -r -u 3 paper run config cut check _gives; do
  [[ -z "$paper" || "$paper" == \#* ]] && continue
  selected "$paper" "$run" "$check" || continue
  found=1
  if [[ "$list" -eq 1 ]]; then
    printf '%s/%s\t%s\t%s\t%s\n' "$paper" "$run" "$config" "$cut" "$check"
    continue
  fi
  cfg="$config"
  case "$cut" in
    -) ;;
    subset | subset:*)
      trials=""
      if [[ "$cut" == subset:* ]]; then trials="${cut#subset:}"; fi
      cfg="$tmp/$run.toml"
      python3 scripts/iyengar2019-subset.py "$config" "$cfg" ${trials:+"$trials"}
      ;;
    *) echo "docs/figures/runs.txt: $paper/$run: unknown cut '$cut'" >&2; exit 2 ;;
  esac
  out="$results/$paper/$run"
  echo "== $(date -u +%FT%TZ) $paper/$run: $config (cut: $cut)" >&2
  start="$(date +%s)"
  if [[ "$quiet" -eq 1 ]]; then
    mkdir -p "$results/$paper"
    if ! dp_bench "$paper" run "$cfg" --out "$out" --quiet < /dev/null > "$out.log" 2>&1; then
      cat "$out.log" >&2
      exit 1
    fi
  else
    dp_bench "$paper" run "$cfg" --out "$out" --quiet < /dev/null
  fi
  {
    echo "config $config"
    echo "config_sha256 $(sha256sum "$config" | cut -d' ' -f1)"
    echo "cut $cut"
  } > "$out/snapshot-recipe.txt"
  echo "   $paper/$run: $(($(date +%s) - start)) s" >&2
done 3< docs/figures/runs.txt
if [[ "$found" -eq 0 ]]; then
  echo "no line of docs/figures/runs.txt matches ${only[*]:-(--ci)}" >&2
  exit 2
fi
