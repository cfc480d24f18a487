#!/usr/bin/env bash
# The quick start: install, build, and diagnose a bundled server that blocks
# its event loop (synchronous password hashing per request) under load.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Only what the demo runs: the binary and the native probe (not the tests,
# benchmarks and their libraries).
scripts/build.sh --target loopdoctor loopdoctor_probe_native
echo
echo "== loopdoctor run: samples/node/pbkdf2-sync (hashes passwords with pbkdf2Sync per request)"
# The report and the recording go to .loopdoctor/<time>-server.js.*; a second
# demo run ends with the `loopdoctor compare` of the two.
exec build/loopdoctor run --load / -c 50 -d 5s --json .loopdoctor/demo.json \
  -- node samples/node/pbkdf2-sync/server.js
