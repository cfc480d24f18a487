#!/usr/bin/env bash
# Installs, builds and runs every test through ctest; then the unit tests
# (analyzer, collector, load generator, renderer, agent) again under
# AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
# Line tables only (-g1) in the CI builds: a quarter less compiling, and
# backtraces and sanitizer reports still name function, file and line.
# The unit-test programs are built once, in the sanitizer pass below.
scripts/build.sh -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DLOOPDOCTOR_UNIT_TESTS=OFF
(cd build && ctest --output-on-failure -j2 --timeout 300)

# Sanitizer pass: the unit tests (every Catch2 program: the `unit_tests`
# target), run here only; the sample runs measure a loop's timing, which the
# sanitizers would only distort.
BUILD_DIR=build-asan scripts/build.sh -DLOOPDOCTOR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  --target unit_tests
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j2 --timeout 300 -L unit)
