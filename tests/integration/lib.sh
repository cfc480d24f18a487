# Helpers for the integration tests (sourced). Every wait is bounded.
set -euo pipefail
LD=${LOOPDOCTOR:?set LOOPDOCTOR to the binary}
ROOT=${LOOPDOCTOR_ROOT:?set LOOPDOCTOR_ROOT to the source tree}
WORK=$(mktemp -d /tmp/ld-it.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }

# json_get FILE EXPR: evaluates a JS expression on the parsed file as `j`.
json_get() { node -e "const j=JSON.parse(require('fs').readFileSync('$1','utf8')); const v=($2); console.log(typeof v==='object'?JSON.stringify(v):v)"; }

# sample_run SAMPLE OUT: the diagnosis of `run --load / -c 50 -d 5s` (the
# defaults) on samples/node/SAMPLE into OUT. The `sample: SAMPLE` test's run
# when it kept one ($LD_SAMPLE_RUNS, a ctest fixture), else a run of its own.
sample_run() {
  local kept="${LD_SAMPLE_RUNS:-/nonexistent}/$1.json" rc=0
  if [[ -s $kept ]]; then
    echo "(the run of ctest 'sample: $1')"
    cp "$kept" "$2"
    return 0
  fi
  timeout 90 "$LD" run --load / -c 50 -d 5s --json "$2" -- node "$ROOT/samples/node/$1/server.js" \
    > run.out 2> stderr.txt || rc=$?
  [[ $rc -eq 0 ]] || { tail -20 stderr.txt >&2; fail "loopdoctor exited $rc"; }
}
