#!/usr/bin/env bash
# The Python package's tests (crates/dp-py): builds the wheel with pip (maturin from PyPI) into
# a fresh virtual environment, installs pytest and dp_accounting 0.6.0 beside it, and runs
# crates/dp-py/tests, including one run of the harness on a learner written on dpbench.worker.
#
# Usage: scripts/python-test.sh [DP_BENCH_BINARY]   (default target/debug/dp-bench)
# The wheel is built as scripts/lib/dpbench-wheel.sh says (DPBENCH_WHEEL_PROFILE).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "${1:-${CARGO_TARGET_DIR:-target}/debug/dp-bench}")"
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
# Debian's python3 has no venv module without python3-venv: virtualenv from PyPI then.
python3 -m venv "$venv" 2>/dev/null ||
  { python3 -m pip install --quiet virtualenv && python3 -m virtualenv -q "$venv"; }
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet pytest numpy scipy dp-accounting==0.6.0
# Its own target folder (target/dp-py): the package is a workspace of its own.
source scripts/lib/dpbench-wheel.sh
with_dpbench_wheel "$venv/bin/python" -m pip install --quiet ./crates/dp-py
"$venv/bin/python" -c "import dpbench; print('dpbench', dpbench.__version__, 'imported')"
DPBENCH_BIN="$bin" "$venv/bin/python" -m pytest -q crates/dp-py/tests
