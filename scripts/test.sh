#!/usr/bin/env bash
# Installs, builds and runs every test through ctest; then the analyzer and
# collector unit tests again under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
scripts/build.sh
(cd build && ctest --output-on-failure -j2 --timeout 300)

# Sanitizer pass: unit tests only (the integration tests run Node targets,
# whose timing the sanitizers would only slow down).
BUILD_DIR=build-asan scripts/build.sh -DLOOPDOCTOR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j2 --timeout 300 -L unit)
