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
#
# It runs while ctest does, at SCHED_IDLE: it gets only the CPU the tests
# leave (a run's start and end, a test waiting on a timer, the core a
# one-core target leaves), and a test's process takes a core from it at
# once whenever it becomes runnable. First the build, then the unit tests
# that neither start processes nor wait on a clock (label unit): starved
# for a while, they only finish later. The unit-live ones (child processes,
# sockets, timeouts) run after ctest, at normal priority, where no deadline
# of theirs can be missed for want of a CPU. (`-L unit` is a regex: both.)
# LOOPDOCTOR_ASAN_AFTER_CTEST=1 does it all after ctest instead.
asan_env=(env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1)
asan_build() {
  if command -v clang++-14 > /dev/null; then export CC=clang-14 CXX=clang++-14; fi
  BUILD_DIR=build-asan phase "asan build$1" "${@:2}" scripts/build.sh \
    -DLOOPDOCTOR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 --target unit_tests
}
asan_tests() {  # asan_tests <what> <ctest label options...> [-- <prefix command...>]
  local what=$1; shift
  local args=() prefix=()
  while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
  (($#)) && { shift; prefix=("$@"); }
  phase "asan tests, $what" "${prefix[@]}" "${asan_env[@]}" \
    bash -c 'cd build-asan && ctest --output-on-failure -j2 --timeout 300 "$@"' _ "${args[@]}"
}
after=${LOOPDOCTOR_ASAN_AFTER_CTEST:-0}
mkdir -p build-asan
: >build-asan/pass.log
asan_pid=
if [[ $after != 1 ]]; then
  idle=()
  chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0)
  (
    asan_build " (beside ctest, SCHED_IDLE)" "${idle[@]}" || exit 10
    asan_tests "pure (beside ctest, SCHED_IDLE)" -L '^unit$' -- "${idle[@]}" || exit 11
  ) >build-asan/pass.log 2>&1 &
  asan_pid=$!
fi

# The npm package's tests (label npm: a static release build of its own,
# minutes on two cores the first time) and the slower second runs of what
# this one already covers (label extra: the probe's suites on Node 22, the
# .deb, the --on-port load) are left to .ci/run.
# -j3 on two cores: the tests that measure a run under load are RUN_SERIAL
# (alone, whatever -j says); the rest assert only what holds under
# contention and mostly wait (on a server, a timer, a child), so a third
# keeps the CPUs busy while one waits.
ctest_rc=0
phase ctest bash -c 'cd build && ctest --output-on-failure -j3 --timeout 300 -LE "^(npm|extra)$"' 2>&1 | tee build/ctest.log ||
  ctest_rc=${PIPESTATUS[0]}
# Once ctest is done, the rest of the sanitizer pass runs at normal priority
# again (a parent before its children: what it starts from then on inherits it).
unidle() {
  local child
  chrt --other -p 0 "$1" 2>/dev/null || true
  for child in $(pgrep -P "$1"); do unidle "$child"; done
}
asan_rc=0
if [[ -n $asan_pid ]]; then
  unidle "$asan_pid"
  phase "sanitizer pass, rest after ctest" wait "$asan_pid" || asan_rc=$?
elif ((ctest_rc == 0)); then
  (asan_build "" && asan_tests "pure" -L '^unit$') >build-asan/pass.log 2>&1 || asan_rc=$?
fi
grep '^test.sh:' build-asan/pass.log >&2 || true
if ((asan_rc)); then
  tail -60 build-asan/pass.log >&2
  echo "test.sh: the sanitizer pass failed (exit $asan_rc): build-asan/pass.log" >&2
fi

# The ten slowest tests of the ctest phase: where the next minute goes.
slowest() {
  echo "test.sh: the ten slowest tests:"
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: (.*[^ .]) \.+ *(\*\*\*)?([A-Za-z]+) +([0-9.]+) sec$/\4 \1 (\3)/p' build/ctest.log |
    sort -rn | head -10 | awk '{ printf "  %6.1f s  ", $1; $1 = ""; print substr($0, 2) }'
}
slowest >&2 || true

# Each failed test's own words, last: a long CI log is cut in its middle,
# where --output-on-failure put them. For node --test's TAP, the failing
# subtests ("not ok") with their diagnostics; for anything else, its tail.
failures() {
  awk '
    function flush(   i, n, shown) {
      if (name == "") return
      print "test.sh: failed: " name
      shown = 0
      for (i = 1; i <= len; i++) if (buf[i] ~ /^ *not ok /) { for (n = i; n <= len && n < i + 25; n++) print "    " buf[n]; shown = 1 }
      if (!shown) for (i = (len > 30 ? len - 29 : 1); i <= len; i++) print "    " buf[i]
      name = ""; len = 0
    }
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / || /^ *Start +[0-9]+: / || /^[0-9]+% tests passed/ {
      flush()
      if ($0 ~ /\*\*\*[A-Za-z]+/ || $0 ~ /\*\*\*Exception/) { name = $0; sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", name) }
      next
    }
    name != "" { buf[++len] = $0 }
    END { flush() }
  ' build/ctest.log
}
((ctest_rc == 0)) || failures >&2 || true

((ctest_rc == 0)) || exit "$ctest_rc"
((asan_rc == 0)) || exit "$asan_rc"
asan_tests "live" -L unit-live
