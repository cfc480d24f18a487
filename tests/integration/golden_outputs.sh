#!/usr/bin/env bash
# Pins what every output says about the real recordings in tests/data: the
# diagnosis JSON and the Markdown summary of `loopdoctor analyze` must equal
# the files in tests/data/golden/. A refactor must leave them unchanged; a
# change that means to alter them regenerates them with
#   tests/integration/golden_outputs.sh --update
# and says in its commit which figure or sentence changed, and why.
set -euo pipefail
LD=$(realpath "${LOOPDOCTOR:?set LOOPDOCTOR to the binary}")
ROOT=$(realpath "${LOOPDOCTOR_ROOT:?set LOOPDOCTOR_ROOT to the source tree}")
update=0
[[ ${1:-} == --update ]] && update=1
work=$(mktemp -d /tmp/ld-golden.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

# The checkout roots a recording's script URLs name in front of <dir>/.
recorded_roots() {
  zcat "$2" | grep -o "\"url\":\"\\(file://\\)\\?/[^\"]*/$1/" |
    sed "s|^\"url\":\"||; s|^file://||; s|/$1/\$||" | sort -u
}
for rec in "$ROOT"/tests/data/*.ndjson.gz; do
  name=$(basename "$rec" .ndjson.gz)
  # Run from the work folder with a fixed relative path: outputs that name
  # the recording or the report then do not depend on where the tree is.
  cp "$rec" "$work/$name.ndjson.gz"
  # The recordings were made in other checkouts (/work/main, a worktree):
  # the samples' sources (the hot line's text, the caller's call line) are
  # read from this tree, as a user reads a colleague's recording in their
  # own (--path-map). The probe's own files are not read at all (an empty
  # folder stands in): they change with loopdoctor, the recordings do not.
  mkdir -p "$work/no-probe-sources"
  maps=()
  while read -r prefix; do
    [ -n "$prefix" ] && maps+=(--path-map "$prefix/agent/probes=$work/no-probe-sources")
  done < <(recorded_roots agent/probes "$rec")
  while read -r prefix; do
    [ -n "$prefix" ] && maps+=(--path-map "$prefix=$ROOT")
  done < <(recorded_roots samples/node "$rec")
  (cd "$work" && "$LD" analyze "$name.ndjson.gz" -o "$name.html" --json "$name.json" \
      --markdown "$name.md" "${maps[@]}" 2>/dev/null) || { rc=$?; [[ $rc == 3 ]] || { echo "FAIL: analyze $name exited $rc" >&2; status=1; continue; }; }
  for ext in json md; do
    want="$ROOT/tests/data/golden/$name.$ext"
    if ((update)); then
      cp "$work/$name.$ext" "$want"
    elif ! diff -u "$want" "$work/$name.$ext"; then
      echo "FAIL: $name.$ext differs from tests/data/golden (see the diff above)" >&2
      status=1
    fi
  done
done
((update && status == 0)) && echo "golden outputs written to tests/data/golden/"
exit $status
