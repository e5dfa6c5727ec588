# Sourced: `with_dpbench_wheel CMD…` runs CMD (a pip install that builds crates/dp-py) with the
# wheel compiled in crates/dp-py's `ci` profile into target/dp-py, so that every such install
# of one checkout reuses one build. DPBENCH_WHEEL_PROFILE=release builds what a plain
# `pip install crates/dp-py` builds.
with_dpbench_wheel() {
  CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/dp-py" \
    MATURIN_PEP517_ARGS="--profile ${DPBENCH_WHEEL_PROFILE:-ci} --locked" "$@"
}
