#!/usr/bin/env bash
# Opens the report page in headless Chromium (Debian's chromium, installed with apt when
# missing) and checks what a reader sees: the rendered DOM must hold the inlined figures and
# the tables, and the page must need no network. With --screenshot FILE it also saves a
# screenshot of the rendered page (the README's is docs/report.png).
#
# Usage: scripts/report-test.sh [--screenshot FILE] [--results DIR] [DP_BENCH_BINARY]
#   --results DIR: report these results (default: a fresh smoke run, plus results/ if present)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
export DPBENCH_DATA_MIRROR="${DPBENCH_DATA_MIRROR:-$(cd .. && pwd)/shared/datasets/raw}"
export DPBENCH_OFFLINE=1

shot=""
results=()
bin=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --screenshot) shift; shot="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
    --results) shift; results+=("$(cd "$1" && pwd)") ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
  esac
  shift
done

browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "== installing chromium"
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  browser="$(command -v chromium)"
fi
if [ -z "$bin" ]; then
  cargo build --locked --quiet -p dp-bench
  bin="$repo/target/debug/dp-bench"
fi

work="$(mktemp -d /tmp/dpbench-report.XXXXXX)"
trap 'rm -rf "$work"' EXIT
if [ ${#results[@]} -eq 0 ]; then
  "$bin" run configs/smoke.toml --out "$work/results/smoke" --quiet >/dev/null
  results=("$work/results")
fi
"$bin" report "${results[@]}" --out "$work/report"

# The flags keep Chromium off the network (this machine has none) and out of the home folder.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$work/profile")
url="file://$work/report/index.html"
timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" > "$work/dom.html" 2> "$work/chromium.log"

svgs="$(grep -o '<svg' "$work/dom.html" | wc -l)"
tables="$(grep -o '<table' "$work/dom.html" | wc -l)"
figures="$(grep -o '<figure' "$work/dom.html" | wc -l)"
echo "rendered page: $figures figures ($svgs inline SVGs), $tables tables"
fail=0
[ "$svgs" -ge 4 ] || { echo "FAIL: expected at least 4 inline SVG figures" >&2; fail=1; }
[ "$tables" -ge 2 ] || { echo "FAIL: expected at least 2 tables" >&2; fail=1; }
grep -q 'id="paper-redberg2023"' "$work/dom.html" || { echo "FAIL: no Redberg et al. section" >&2; fail=1; }
grep -q '<h3>smoke</h3>\|<h3>' "$work/dom.html" || { echo "FAIL: no run listed" >&2; fail=1; }
if grep -q 'src="http\|href="http' "$work/dom.html"; then
  echo "FAIL: the page loads something from the network" >&2; fail=1
fi
if [ $fail -ne 0 ]; then
  cat "$work/chromium.log" >&2
  exit 1
fi

if [ -n "$shot" ]; then
  timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1400,2400 \
    --screenshot="$shot" "$url" 2>> "$work/chromium.log"
  test -s "$shot" || { echo "FAIL: no screenshot" >&2; exit 1; }
  echo "wrote $shot"
fi
echo "report-test: OK"
