#!/usr/bin/env bash
# The agent, always on (issue 12): with no CPU profile, /report/<pid> names
# what blocked the loop from the native probe's block stacks, on a blocked
# sample under load -- the same function a one-shot `loopdoctor run` of the
# same sample names from its block stacks.
# With a second argument, the first hotspot row must also contain it (ts-pricing:
# the .ts file, read through the source map by the agent on the same host).
#   agent_block_report.sh <sample> [text of the first row's location]
# Skipped (77) when no native probe is built for this Node.
source "$(dirname "$0")/lib.sh"
sample=$1 want_location=${2:-}
ABI=$(node -p process.versions.modules)
[ -f "${LOOPDOCTOR_NATIVE_DIR:-/nonexistent}/loopdoctor_probe-$ABI.node" ] ||
  { echo "SKIP: no native probe for Node ABI $ABI"; exit 77; }
export LOOPDOCTOR_NATIVE_DIR

# The one-shot run's top function from block stacks (its blocked-loop issue
# lists them beside the profile's, or as its own without one): the run of
# ctest 'sample: <sample>' when it kept one (fixture), else a run here.
kept="${LD_SAMPLE_RUNS:-/nonexistent}/$sample.json"
if [[ -s $kept ]]; then
  cp "$kept" "$WORK/run.json"
else
  "$LD" run --load / -c 50 -d 5s --no-profile --json "$WORK/run.json" -- \
    node "$ROOT/samples/node/$sample/server.js" >"$WORK/run.out" 2>&1 || true
fi
expected=$(js "$WORK/run.json" '(i => (i.hotspots_source === "block-stacks" ? i.hotspots : i.block_hotspots) || [{}])(j.issues.find(i=>i.kind==="blocked-loop")||{})[0].function || ""')
[ -n "$expected" ] || fail "the one-shot run named no block-stack hotspot: $(js "$WORK/run.json" 'j.verdict')"

APORT=$(free_port)
start_agent "$APORT" --window 10s
PROBE_INTERVAL_MS=100 start_node target "$sample" blocked
wrk -t1 -c50 -d5s "http://127.0.0.1:$NODE_PORT/" >"$WORK/wrk.out" 2>&1 || true
curl -sf "http://127.0.0.1:$APORT/report/$NODE_PID" >"$WORK/report.html" || fail "no /report/$NODE_PID"
grep -q 'From block stacks' "$WORK/report.html" || fail "the agent's report has no block-stack hotspots"
# The first row of the report's first hotspot table: <tr><td><code>FUNCTION</code>
got=$(sed -n '/class="data hotspots"/,$p' "$WORK/report.html" | grep -o '<tr><td><code>[^<]*</code>' | head -1 |
  sed 's/<tr><td><code>//; s/<\/code>//')
got=${got//&#39;/\'}
echo "$sample: the agent's /report names '$got' first; the one-shot run '$expected'"
# Whether most of a function's time was caught inside its binding can differ
# between two runs; the function cannot.
[ "${got% (in native code)}" = "${expected% (in native code)}" ] ||
  fail "the agent's report names '$got', the one-shot run '$expected'"
if [ -n "$want_location" ]; then
  row=$(sed -n '/class="data hotspots"/,$p' "$WORK/report.html" | grep -o '<tr><td><code>.*</tr>' | head -1)
  echo "first row: $row"
  [[ $row == *"$want_location"* ]] || fail "the agent's first hotspot row does not name '$want_location'"
fi
