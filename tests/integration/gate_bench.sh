#!/usr/bin/env bash
# `loopdoctor bench` end to end, as bench/gate measures it: the same build
# against itself passes its budget; a head whose handler costs twice the
# base's (CPU per request about +60 %, well past what 5 runs a side detect
# every time here: bench/gate measures the rates) fails it (exit 3), with
# the broken budget's line, a JUnit failure and the change called worse.
# The runs alternate base and head.
#   gate_bench.sh same|regression
source "$(dirname "$0")/lib.sh"
server=$ROOT/samples/node/per-request-cost/server.js
head_cost=400
[[ $1 == regression ]] && head_cost=800
cat > budget.json <<'JSON'
{"budgets": [{"figure": "cpu_ms_per_request", "max_change": 0.10}]}
JSON
rc=0; timeout 300 "$LD" bench --base "env COST_US=400 node $server" --head "env COST_US=$head_cost node $server" \
  -n 5 --load / --rate 200 -d 3s --budget budget.json --junit j.xml --json gate.json 2> err.txt || rc=$?
# Interleaved: base 1, head 1, base 2, ... in that order on stderr.
order=$(grep -o "bench: [a-z]* run [0-9]" err.txt | awk '{print $2 $4}' | tr '\n' ' ')
[[ $order == "base1 head1 base2 head2 base3 head3 base4 head4 base5 head5 " ]] || fail "run order: $order"
[[ $(json_get gate.json 'j.base.paths.length + " " + j.head.paths.length') == "5 5" ]] ||
  fail "runs compared: $(json_get gate.json 'j.base.paths.length') / $(json_get gate.json 'j.head.paths.length')"
for p in $(json_get gate.json 'j.base.paths.concat(j.head.paths).join(" ")'); do
  [[ -s $p ]] || fail "recording $p not kept"
done
call=$(json_get gate.json 'j.changes.find(c => c.figure === "cpu_ms_per_request").call')
failures=$(python3 -c 'import sys, xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().get("failures"))' j.xml)
if [[ $1 == same ]]; then
  [[ $rc -eq 0 && $failures == 0 ]] || fail "the same build failed its budget (exit $rc, call $call): $(grep -A3 budget err.txt)"
else
  [[ $rc -eq 3 && $failures == 1 && $call == worse ]] || fail "a handler twice as costly passed (exit $rc, call $call): $(tail -5 err.txt)"
  grep -q "^budget broken: cpu_ms_per_request +" err.txt || fail "no broken budget line: $(tail -5 err.txt)"
fi
true
