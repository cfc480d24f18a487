#!/usr/bin/env bash
# Error cases of `loopdoctor run` and `analyze`, one per invocation:
#   errors.sh <case>
source "$(dirname "$0")/lib.sh"
case $1 in
not-found)
  rc=0; timeout 30 "$LD" run --duration 2s -- no-such-command-xyz 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2"
  grep -q "no-such-command-xyz" err.txt || fail "message does not name the command: $(cat err.txt)"
  grep -qi "no such file" err.txt || fail "message does not say why: $(cat err.txt)"
  ;;
exits-at-once)
  rc=0; timeout 30 "$LD" run --duration 5s --json out.json -o r.html -- node -e 'process.exit(4)' 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2 (target failed)"
  [[ $(json_get out.json 'j.target.exit.code') == 4 ]] || fail "exit code not recorded"
  [[ $(json_get out.json 'j.target.exit.stopped_by_loopdoctor') == false ]] || fail "not marked as exiting by itself"
  [[ $(json_get out.json 'j.verdict') == insufficient-data ]] || fail "verdict $(json_get out.json 'j.verdict')"
  grep -q "code 4" r.html || fail "report does not say the exit code"
  ;;
aborts-mid-load)
  cat > crash.js <<'JS'
let n = 0;
require('http').createServer((q, r) => {
  if (++n === 2000) process.abort();
  r.end('ok');
}).listen(0, '127.0.0.1');
JS
  rc=0; timeout 60 "$LD" run --load / -c 10 -d 20s --json out.json -o r.html -- node crash.js 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2"
  [[ $(json_get out.json 'j.target.exit.signal') == SIGABRT ]] || fail "signal not recorded: $(json_get out.json 'j.target.exit')"
  (( $(json_get out.json 'j.window.samples') > 0 )) || fail "no samples before the crash"
  grep -q "SIGABRT" r.html || fail "report does not show the crash"
  ;;
no-probe)
  rc=0; timeout 30 "$LD" run --duration 3s --json out.json -o r.html -- sleep 30 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "exit $rc, want 0"
  [[ $(json_get out.json 'j.verdict') == insufficient-data ]] || fail "verdict $(json_get out.json 'j.verdict')"
  json_get out.json 'j.summary' | grep -q "No probe connected" || fail "no explanation: $(json_get out.json 'j.summary')"
  [[ -s r.html ]] || fail "no report"
  ;;
truncated)
  timeout 60 "$LD" run --duration 3s --record rec.ndjson -o r1.html -- node -e 'setInterval(()=>{},1000)' 2>/dev/null
  size=$(stat -c %s rec.ndjson)
  head -c $((size * 2 / 3)) rec.ndjson > cut.ndjson
  rc=0; "$LD" analyze cut.ndjson --json out.json -o r.html 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "analyze exit $rc"
  grep -qi "cut off" err.txt || fail "no warning about the cut: $(cat err.txt)"
  (( $(json_get out.json 'j.window.samples') > 0 )) || fail "nothing analysed before the cut"
  ;;
fail-on)
  rc=0; timeout 60 "$LD" run --duration 2s --fail-on healthy,insufficient-data --json out.json -o r.html -- sleep 10 2>/dev/null || rc=$?
  [[ $rc -eq 3 ]] || fail "exit $rc, want 3"
  rc=0; "$LD" run --fail-on nonsense -- true 2> err.txt || rc=$?
  [[ $rc -eq 1 ]] || fail "bad --fail-on: exit $rc, want 1"
  grep -q nonsense err.txt || fail "message does not name the bad value"
  ;;
*) fail "unknown case $1" ;;
esac
echo "ok: $1"
