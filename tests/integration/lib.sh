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
