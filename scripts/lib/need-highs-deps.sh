# Sourced by scripts/test.sh (and so by .ci/run): makes sure the `mip` feature of dp-bench can
# build. highs-sys builds HiGHS from C++ source with cmake and runs bindgen, which needs
# libclang; both come from Debian's apt when missing (with sudo when not root). When they are
# missing and cannot be installed, it stops the script at once (exit 1) with the command to run.
need_highs_deps() {
  local need=() sudo=""
  command -v cmake >/dev/null 2>&1 || need+=(cmake)
  # bindgen also finds libclang through LIBCLANG_PATH (a non-Debian install).
  ls /usr/lib/llvm-*/lib/libclang.so* >/dev/null 2>&1 || [[ -n "${LIBCLANG_PATH:-}" ]] ||
    need+=(libclang-dev)
  [[ ${#need[@]} -eq 0 ]] && return 0
  if [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  if ! command -v apt-get >/dev/null 2>&1 || [[ "$(id -u)" -ne 0 && -z "$sudo" ]]; then
    echo "error: building dp-bench's \`mip\` feature (HiGHS) needs ${need[*]}, which this" \
      "script cannot install here (no apt-get, or not root and no sudo): run" \
      "\`sudo apt-get install -y ${need[*]}\` (Debian/Ubuntu) and try again" >&2
    exit 1
  fi
  echo "== installing ${need[*]} (HiGHS build for the \`mip\` feature)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
}
