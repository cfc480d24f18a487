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

# The one-shot run's block-stack hotspots (its blocked-loop issue lists them
# beside the profile's, or as its own without one): the run of ctest
# 'sample: <sample>' when it kept one (fixture), else a run here.
kept="${LD_SAMPLE_RUNS:-/nonexistent}/$sample.json"
if [[ -s $kept ]]; then
  cp "$kept" "$WORK/run.json"
else
  "$LD" run --load / -c 50 -d 5s --no-profile --json "$WORK/run.json" -- \
    node "$ROOT/samples/node/$sample/server.js" >"$WORK/run.out" 2>&1 || true
fi
js "$WORK/run.json" '(i => (i.hotspots_source === "block-stacks" ? i.hotspots : i.block_hotspots) || [])(j.issues.find(i=>i.kind==="blocked-loop")||{}).map(h => ({function: h.function, location: h.location || "", caller: h.caller || "", share: h.share}))' >"$WORK/run-hotspots.json"
[[ $(cat "$WORK/run-hotspots.json") != "[]" ]] ||
  fail "the one-shot run named no block-stack hotspot: $(js "$WORK/run.json" 'j.verdict')"

APORT=$(free_port)
start_agent "$APORT" --window 5s
PROBE_INTERVAL_MS=100 start_node target "$sample" blocked
wrk -t1 -c50 -d5s "http://127.0.0.1:$NODE_PORT/" >"$WORK/wrk.out" 2>&1 || true
curl -sf "http://127.0.0.1:$APORT/report/$NODE_PID" >"$WORK/report.html" || fail "no /report/$NODE_PID"
grep -q 'From block stacks' "$WORK/report.html" || fail "the agent's report has no block-stack hotspots"
# The rows of the report's first hotspot table: function, where, called from.
node -e '
  const html = require("fs").readFileSync(process.argv[1], "utf8");
  const table = html.slice(html.indexOf("class=\"data hotspots\""));
  const text = (s) => s.replace(/<wbr>/g, "").replace(/<br>.*$/s, "").replace(/<[^>]*>/g, "")
    .replace(/&#39;|&apos;/g, "\x27").replace(/&amp;/g, "&").trim();
  const rows = [];
  for (const m of table.slice(0, table.indexOf("</table>")).matchAll(/<tr><td[^>]*>(.*?)<\/tr>/gs)) {
    const cells = [...("<td>" + m[1]).matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => c[1]);
    rows.push({ function: text(cells[0]), location: text(cells[1] || ""), caller: text(cells[2] || "") });
  }
  console.log(JSON.stringify(rows));' "$WORK/report.html" >"$WORK/agent-hotspots.json"
# Both name the same call, or not. The first hotspot of each that names one:
# "(native code, entered from an unknown call)" and the probe's own rows
# say what could not be seen, and the agent's window holds the target's
# start, blocks before the probe's block profiler ran. The same call may
# be named on either side of one call edge: V8's profiler has no frame for
# a callee it inlined (the hash.update of json-hash inside its handler), so
# the caller at the line that calls it is the same work; and whether most
# of a function's time was caught inside its binding can differ between two
# runs. A near tie in the run (json-hash: its loop's header 46 %, the
# hash.update the loop calls 44 %: one loop, caught at its stack check or in
# its call) may go either way in the agent: any of the run's hotspots within
# NEAR_TIE of its first counts as its first. Names that differ beyond that fail.
verdict=$(node -e '
  const [run, agent] = process.argv.slice(1).map((f) => JSON.parse(require("fs").readFileSync(f, "utf8")));
  const named = (rows) => rows.find((h) => !h.function.startsWith("(native code") && h.function !== "(loopdoctor\x27s probe)");
  const NEAR_TIE = 0.10;  // share of blocked time between the first and a runner-up of the run
  const a = named(agent), r = named(run);
  if (!a || !r) { console.log("no named hotspot: agent " + JSON.stringify(agent[0]) + ", run " + JSON.stringify(r)); process.exit(); }
  const firsts = run.filter((h) => named([h]) && h.share >= r.share - NEAR_TIE);
  const fn = (h) => h.function.replace(/ \(in native code\)$/, "");
  const callerLoc = (h) => (/\(([^()]*:\d+)\)$/.exec(h.caller) || [, h.caller])[1];
  // A capture taken where JS resumed after a short binding call (well
  // under kPromptInterruptMs) sees the caller at its next stack check: the
  // loop header above the call (json-hash: line 28 for the update on 29).
  const NEAR_LINES = 2;
  const near = (a, b) => { const x = /^(.*):(\d+)$/.exec(a), y = /^(.*):(\d+)$/.exec(b);
    return x && y && x[1] === y[1] && Math.abs(x[2] - y[2]) <= NEAR_LINES; };
  const calls = (callee, caller) => callee.caller && (near(callerLoc(callee), caller.location) || callee.caller.startsWith(fn(caller) + " ("));
  const same = firsts.some((r) => fn(a) === fn(r) || calls(a, r) || calls(r, a));
  console.log((same ? "same: " : "differ: ") + "agent " + JSON.stringify(a) + ", run " + JSON.stringify(r));
' "$WORK/run-hotspots.json" "$WORK/agent-hotspots.json")
echo "$sample: $verdict"
[[ $verdict == same:* ]] || fail "the agent's report and the one-shot run name different code: $verdict"
if [ -n "$want_location" ]; then
  row=$(js "$WORK/agent-hotspots.json" 'j[0]')
  echo "first row: $row"
  [[ $row == *"$want_location"* ]] || fail "the agent's first hotspot row does not name '$want_location'"
fi
