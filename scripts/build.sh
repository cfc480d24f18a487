#!/usr/bin/env bash
# Configures and builds into build/ (or $BUILD_DIR). Arguments before
# `--target` go to CMake's configure step; `--target a b ...` builds only
# those. Incremental on a second run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
configure=() targets=()
while (($#)); do
  if [[ $1 == --target ]]; then shift; targets=("$@"); break; fi
  configure+=("$1"); shift
done
if [[ ! -f "$build_dir/build.ninja" ]] || ((${#configure[@]})); then
  cmake -S . -B "$build_dir" -G Ninja -DLOOPDOCTOR_WERROR=ON "${configure[@]}" >/dev/null
fi
if ((${#targets[@]})); then
  cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
else
  cmake --build "$build_dir" -j "$(nproc)"
fi
