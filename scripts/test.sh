#!/usr/bin/env bash
# The project's test command (see README): every unit, integration and CLI test, offline,
# with datasets read from the mirror beside the checkout unless DPBENCH_DATA_MIRROR is set.
# Everything is built with dp-bench's `mip` feature (Neel et al.'s MIP oracle on HiGHS),
# installing its cmake and libclang first when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export DPBENCH_DATA_MIRROR="${DPBENCH_DATA_MIRROR:-$(cd .. && pwd)/shared/datasets/raw}"
# dp-bench's modules import only downwards (no circles): seconds, before any build.
python3 scripts/check-layers.py
# The benchmark configs are generated: they must match their generator.
python3 scripts/gen-benchmark-configs.py --check
# The leaderboard headline quoted by README.md and docs/benchmark.md is generated from the
# committed leaderboard.csv: it must be current.
python3 scripts/leaderboard-headline.py --check
source scripts/lib/need-highs-deps.sh
need_highs_deps
# The external-learner tests run the Python workers of examples/python: install their
# requirements (diffprivlib, and dpbench.worker from crates/dp-py) when one is missing (a
# no-op afterwards).
source scripts/lib/dpbench-wheel.sh
python3 -c "import diffprivlib, numpy, dpbench.worker" 2>/dev/null ||
  with_dpbench_wheel python3 -m pip install --quiet -r examples/python/requirements.txt
# One build for everything below: the workspace's tests also build the dp-bench binary and the
# examples, with the MIP feature and the workspace's feature unification. The runs below call
# those files directly; a `cargo run -p dp-bench` would unify features for one package and
# rebuild much of the dependency tree (a fresh CI run spent 12 minutes on that).
cargo test --workspace --locked --features dp-bench/mip "$@"
target="${CARGO_TARGET_DIR:-target}/debug"
bin="$target/dp-bench"
# The README's "Adding your own learner" example, end to end: it must keep compiling and running.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$target/examples/output_perturbation" "$out/output-perturbation"
# Iyengar et al. 2019 end to end on real Adult (cut-down grids), then its figures from that run.
"$bin" configs/iyengar2019/smoke.toml \
  --out "$out/iyengar2019/adult-logistic" --quiet
# Its multi-class path (one-vs-all over MNIST's 10 digits), cut down alike.
"$bin" configs/iyengar2019/smoke-mnist.toml \
  --out "$out/iyengar2019/mnist-logistic" --quiet
"$bin" figures iyengar2019 \
  --results "$out/iyengar2019" --out "$out/figures-iyengar2019"
test -s "$out/figures-iyengar2019/fig1.csv" && test -s "$out/figures-iyengar2019/fig2.png"
grep -q '^mnist,logistic,1,' "$out/figures-iyengar2019/fig1.csv"
# Avent et al. 2020: a cut-down DPareto study on real a1a, then its figures.
"$bin" configs/avent2020/smoke.toml \
  --out "$out/avent2020/adult-lr-sgd-dpareto-fast" --quiet
test "$(wc -l < "$out/avent2020/adult-lr-sgd-dpareto-fast/points.jsonl")" -eq 10
# Its illustrative problems (Figs. 1-4): a cut-down logistic one and the full SVT one.
"$bin" configs/avent2020/illustrative-smoke.toml \
  --out "$out/avent2020/illustrative-logistic" --quiet
"$bin" configs/avent2020/illustrative-svt.toml \
  --out "$out/avent2020/illustrative-svt" --quiet
"$bin" figures avent2020 \
  --results "$out/avent2020" --out "$out/figures-avent2020"
test -s "$out/figures-avent2020/fig5.png" && test -s "$out/figures-avent2020/fig7.csv"
test -s "$out/figures-avent2020/fig1.png" && test -s "$out/figures-avent2020/fig4.csv"
# Neel et al. 2019: every method kind on real balanced Adult (n = 300) with the MIP oracle,
# then Figure 1 from that run.
"$bin" configs/neel2019/smoke.toml \
  --out "$out/neel2019/adult-n1000" --quiet
"$bin" figures neel2019 \
  --results "$out/neel2019" --out "$out/figures-neel2019"
test -s "$out/figures-neel2019/fig1.png"
head -1 "$out/figures-neel2019/fig1.csv" | grep -q '^method,epsilon,n,calibration,mean_accuracy,std,runs,solver_certified,median_seconds'
grep -q '^RSPM (ε as stated by NRW18),1,300,paper,' "$out/figures-neel2019/fig1.csv"
# The committed tables and figures (docs/figures/) against their SOURCES.md, and the cheap runs
# behind them (docs/figures/runs.txt) re-run and compared row for row (3–5 min), with the
# binary of the runs above.
bash scripts/check-snapshots.sh --bin "$bin"
# The Python package (crates/dp-py): its wheel built into a fresh virtual environment, pytest
# against dp_accounting, and a learner on dpbench.worker run by this binary.
bash scripts/python-test.sh "$bin"
# Last, as it rebuilds dp-bench without the feature (two crates: the same workspace
# unification): the default build refuses a Neel config at validation with how to rebuild.
# The run above compiles this file to nothing. It leaves target/debug/dp-bench without the
# MIP oracle, which the scripts/slurm-test.sh and scripts/report-test.sh that .ci/run calls
# next do not need.
cargo test --workspace --locked --quiet --test without_mip
