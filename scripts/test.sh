#!/usr/bin/env bash
# Installs, builds and runs every test through ctest; then the unit tests
# (analyzer, collector, load generator, renderer, agent) again under
# AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall and CPU time (its children's included) on stderr, so a
# slow run says which phase grew.
phase() {
  local TIMEFORMAT="test.sh: $1: %0R s wall, %0U s user + %0S s sys"
  shift
  time "$@"
}
phase set-up scripts/setup.sh --test
# Line tables only (-g1) in the CI builds: a quarter less compiling, and
# backtraces and sanitizer reports still name function, file and line.
# The unit-test programs are built once, in the sanitizer pass below.
phase build scripts/build.sh -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DLOOPDOCTOR_UNIT_TESTS=OFF

# Sanitizer pass: the unit tests (every Catch2 program: the `unit_tests`
# target), run here only; the sample runs measure a loop's timing, which the
# sanitizers would only distort. Built with clang (setup.sh --test installs
# it for the fuzz targets): half GCC's time for an ASan build here (4 min
# against 7.8), and a second compiler's warnings under -Werror.
# Its build runs while ctest does, at SCHED_IDLE: it gets only the CPU the
# tests leave (a run's start and end, a test waiting on a timer), and a
# test's process takes a core from it at once whenever it becomes runnable.
# LOOPDOCTOR_ASAN_AFTER_CTEST=1 builds it after ctest instead.
asan_build() {
  if command -v clang++-14 > /dev/null; then export CC=clang-14 CXX=clang++-14; fi
  BUILD_DIR=build-asan phase "asan build$1" "${@:2}" scripts/build.sh \
    -DLOOPDOCTOR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 --target unit_tests
}
after=${LOOPDOCTOR_ASAN_AFTER_CTEST:-0}
mkdir -p build-asan
: >build-asan/build.log
asan_pid=
if [[ $after != 1 ]]; then
  idle=()
  chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0)
  (asan_build " (beside ctest, SCHED_IDLE)" "${idle[@]}") >build-asan/build.log 2>&1 &
  asan_pid=$!
fi

ctest_rc=0
phase ctest bash -c 'cd build && ctest --output-on-failure -j2 --timeout 300' || ctest_rc=$?
asan_build_rc=0
# Once ctest is done, the rest of the build runs at normal priority again
# (a parent before its children: what it starts from then on inherits it).
unidle() {
  local child
  chrt --other -p 0 "$1" 2>/dev/null || true
  for child in $(pgrep -P "$1"); do unidle "$child"; done
}
if [[ -n $asan_pid ]]; then
  unidle "$asan_pid"
  phase "asan build, rest after ctest" wait "$asan_pid" || asan_build_rc=$?
elif ((ctest_rc == 0)); then
  (asan_build "") >build-asan/build.log 2>&1 || asan_build_rc=$?
fi
grep '^test.sh:' build-asan/build.log >&2 || true
if ((asan_build_rc)); then
  tail -50 build-asan/build.log >&2
  echo "test.sh: the sanitizer build failed (exit $asan_build_rc): build-asan/build.log" >&2
fi
((ctest_rc == 0)) || exit "$ctest_rc"
((asan_build_rc == 0)) || exit "$asan_build_rc"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  phase "asan tests" bash -c 'cd build-asan && ctest --output-on-failure -j2 --timeout 300 -L unit'
