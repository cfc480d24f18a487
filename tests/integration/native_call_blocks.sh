#!/usr/bin/env bash
# Block stacks name the native call that held the loop, never the statement
# after it (issue 35). samples/node/parse-catalog reads and JSON.parse's a
# 7.5 MB file per request in loadCatalog(), then filters cheaply in the
# handler. V8 runs no interrupt inside JSON.parse or readFileSync's binding:
# the stack an interrupt reads after them is where JS resumed (the filter).
# With no CPU profile (--no-profile, what the agent always has) the
# blocked-loop issue's hotspots come from block stacks: the top one must be
# loadCatalog on its JSON.parse or readFileSync line, or readFileSync --
# from the probe's profiler samples of the blocks -- and the filter's line
# must hold no more than its real cost. Checked in the JSON, the terminal,
# the Markdown and the HTML report.
# Exits 77 (ctest SKIP) when the run's probe is not the native one.
source "$(dirname "$0")/lib.sh"
sample=$ROOT/samples/node/parse-catalog
server=$sample/server.js
rc=0
timeout 90 "$LD" run --no-profile --load / -c 50 -d 5s --json out.json --markdown out.md -o report.html \
  -- node "$server" > stdout.txt 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { tail -20 stderr.txt >&2; fail "loopdoctor exited $rc"; }
probe=$(json_get out.json 'j.target.probe || ""')
if [[ $probe != native ]]; then
  echo "SKIP: the probe was '${probe:-unnamed}', not native: $(json_get out.json 'j.target.probe_fallback || ""')"
  exit 77
fi
line_of() { grep -nF -- "$1" "$server" | head -1 | cut -d: -f1; }
parse=$(line_of 'return JSON.parse(text);')
read=$(line_of "const text = fs.readFileSync(file, 'utf8');")
filter=$(line_of 'catalog.items.filter(')
issue='j.issues.find(i => i.kind === "blocked-loop")'
[[ $(json_get out.json "!!$issue") == true ]] || fail "no blocked-loop issue (verdict $(json_get out.json j.verdict))"
[[ $(json_get out.json "$issue.hotspots_source") == block-stacks ]] || fail "the hotspots are not block stacks'"
echo "hotspots: $(json_get out.json "$issue.hotspots.map(h => h.function + ' ' + h.location + ' ' + h.share)")"
# The summary goes to stderr.
grep -E '^  (hotspot:|source:) ' stderr.txt || true
top="$issue.hotspots[0]"
fn=$(json_get out.json "$top.function")
location=$(json_get out.json "$top.location")
case "$fn" in
  loadCatalog) [[ $location == *"server.js:$parse" || $location == *"server.js:$read" ]] ||
                 fail "the top hotspot is loadCatalog at $location, not its JSON.parse (line $parse) or readFileSync (line $read)" ;;
  "readFileSync"|"readFileSync (in native code)") ;;
  *) fail "the top hotspot is '$fn' at $location, not loadCatalog's JSON.parse or readFileSync" ;;
esac
# The filter costs under a millisecond of a request's ~100+: a capture there
# is charged at most a capture interval (20 ms) now and then, never the
# block that came before it.
filter_share=$(json_get out.json "$issue.hotspots.filter(h => h.location.endsWith('server.js:$filter')).reduce((s, h) => s + h.share, 0)")
awk "BEGIN{exit !($filter_share < 0.1)}" || fail "the filter's line (server.js:$filter) holds $filter_share of the blocked time"
# Every output says the same.
grep -q "^  hotspot: $fn" stderr.txt || fail "the terminal's first hotspot is not $fn"
grep -q "hotspot \`$fn\`" out.md || fail "the Markdown's first hotspot is not $fn"
grep -q "<code>$fn</code>" report.html || fail "the report does not show $fn"
for out in stderr.txt out.md report.html; do
  if grep -q "(in native code, [^)]*server.js:$filter)" "$out"; then fail "$out blames the filter's line for native code"; fi
done
echo "ok: block stacks name $fn at $location; the filter's line holds $filter_share"
