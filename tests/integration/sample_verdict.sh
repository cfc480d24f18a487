#!/usr/bin/env bash
# Runs one labelled sample under load and checks that the verdict (and the
# cause, when the label names one) equals its label.
#   sample_verdict.sh <sample dir> [builtin|wrk]
source "$(dirname "$0")/lib.sh"
sample=$1
mode=${2:-builtin}
# The label: the verdict, then optionally the cause the lead issue must name
# ("io-bound connection-pool").
read -r label cause_label _ < "$sample/label" || true
# 5 s of load: long enough for a leak to show and for percentiles to settle.
if [[ $mode == wrk ]]; then
  load=(--on-port 'wrk -t1 -c50 -d5s http://127.0.0.1:{port}/')
else
  load=(--load / -c 50 -d 5s)
fi
# The built-in run's diagnosis is kept for the tests that check more of the
# same run (block stacks, the costly line, the agent's report): one run of
# the sample serves them all (ctest fixture sample-run:<name>).
kept=""
if [[ $mode == builtin && -n ${LD_SAMPLE_RUNS:-} ]]; then
  mkdir -p "$LD_SAMPLE_RUNS"
  kept="$LD_SAMPLE_RUNS/$(basename "$sample").json"
  rm -f "$kept"
fi
# The sample's entry: server.js, or the supervisor that starts the app.
entry=$sample/server.js
[[ -f $entry ]] || entry=$sample/supervisor.js
rc=0
timeout 90 "$LD" run "${load[@]}" --json out.json -o report.html --record rec.ndjson.gz \
  -- node "$entry" > stdout.txt 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
[[ -z $kept ]] || cp out.json "$kept"
verdict=$(json_get out.json 'j.verdict')
echo "sample $(basename "$sample"): label $label, verdict $verdict"
[[ -s report.html ]] || fail "no report written"
grep -q "$verdict" report.html || fail "report does not show the verdict"
if [[ $verdict != "$label" ]]; then
  json_get out.json 'j.findings.map(f=>f.signal+": "+f.note).join("\n")' >&2
  fail "verdict $verdict != label $label"
fi
if [[ -n ${cause_label:-} ]]; then
  cause=$(json_get out.json '(j.issues[0]||{}).cause')
  echo "  cause $cause: $(json_get out.json '(j.issues[0]||{}).cause_text')"
  [[ $cause == "$cause_label" ]] || fail "cause $cause != label $cause_label"
fi
