#!/usr/bin/env bash
# The Python package's tests (crates/dp-py): builds the wheel with pip (maturin from PyPI) into
# a fresh virtual environment, installs pytest and dp_accounting 0.6.0 beside it, and runs
# crates/dp-py/tests, including one run of the harness on a learner written on dpbench.worker.
#
# Usage: scripts/python-test.sh [DP_BENCH_BINARY]   (default target/debug/dp-bench)
# Set DPBENCH_WHEEL_PROFILE=release for a release build (what `pip install crates/dp-py`
# gives without it; the default here, `ci`, compiles in a fraction of the time).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "${1:-${CARGO_TARGET_DIR:-target}/debug/dp-bench}")"
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet pytest numpy scipy dp-accounting==0.6.0
# Its own target folder: the package is a workspace of its own (crates/dp-py/Cargo.toml).
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/dp-py" \
  MATURIN_PEP517_ARGS="--profile ${DPBENCH_WHEEL_PROFILE:-ci} --locked" \
  "$venv/bin/python" -m pip install --quiet ./crates/dp-py
"$venv/bin/python" -c "import dpbench; print('dpbench', dpbench.__version__, 'imported')"
DPBENCH_BIN="$bin" "$venv/bin/python" -m pytest -q crates/dp-py/tests
