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
# sanitizers would only distort. Built with clang (setup.sh --test installs
# it for the fuzz targets): half GCC's time for an ASan build here (4 min
# against 7.8), and a second compiler's warnings under -Werror.
if command -v clang++-14 > /dev/null; then export CC=clang-14 CXX=clang++-14; fi
BUILD_DIR=build-asan scripts/build.sh -DLOOPDOCTOR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  --target unit_tests
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j2 --timeout 300 -L unit)
