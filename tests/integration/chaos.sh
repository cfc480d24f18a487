#!/usr/bin/env bash
# Faults during a run (issue 16), one per invocation: chaos.sh <case>
#   collector-kill  loopdoctor itself killed with SIGKILL mid-run: `analyze`
#                   reads the recording up to the cut
#   target-sigkill  the target killed with SIGKILL during load
#   target-oom      the target hits its heap limit during load
#   disk-full       the recording hits RLIMIT_FSIZE: a clear message, a
#                   readable recording up to there
# (process.abort() during load: errors.sh aborts-mid-load.)
source "$(dirname "$0")/lib.sh"
hello=$ROOT/samples/node/hello-world/server.js

# A server that dies by `how` once it has answered 1000 requests.
dying_server() {
  cat >dying.js <<JS
let n = 0;
const keep = [];
require('http').createServer((q, r) => {
  if (++n === 1000) $1;
  r.end('ok');
}).listen(0, '127.0.0.1');
JS
}

case $1 in
collector-kill)
  timeout 60 "$LD" run --load / -c 10 -d 30s --record rec.ndjson.gz -o r0.html -- node "$hello" >/dev/null 2>run.err &
  ld=$!
  # Kill it once the load has run a few seconds (a recording with samples).
  sleep 5
  target=$(pgrep -P "$ld" -f hello-world || true)
  kill -9 "$ld"; wait "$ld" 2>/dev/null || true
  [[ -n $target ]] && kill -9 "$target" 2>/dev/null || true
  [[ -s rec.ndjson.gz ]] || fail "no recording left by the killed collector"
  rc=0; "$LD" analyze rec.ndjson.gz --json out.json -o r.html 2>err.txt || rc=$?
  [[ $rc == 0 ]] || fail "analyze exit $rc: $(cat err.txt)"
  (( $(json_get out.json 'j.window.samples') > 0 )) || fail "nothing analysed before the cut"
  grep -qi "cut off\|ends abruptly\|truncated" err.txt || fail "no warning about the cut: $(cat err.txt)"
  [[ $(json_get out.json 'j.target.exit') == *"ends abruptly"* || $(json_get out.json 'JSON.stringify(j.warnings)') == *cut* ]] ||
    fail "the JSON does not say the recording was cut: $(json_get out.json 'j.warnings')"
  echo "collector-kill: analyze read $(json_get out.json 'j.window.samples') samples; $(head -1 err.txt)"
  ;;
target-sigkill|target-oom)
  if [[ $1 == target-sigkill ]]; then
    dying_server "process.kill(process.pid, 'SIGKILL')"; node_args=(node dying.js); want=SIGKILL
  else
    # Each request past the 1000th keeps 1 MB: a 32 MB heap fills in ~30.
    dying_server "setInterval(() => { for (let i = 0; i < 64; i++) keep.push(new Array(16384).fill(i)); }, 1)"
    node_args=(node --max-old-space-size=32 dying.js); want=SIGABRT
  fi
  rc=0; timeout 90 "$LD" run --load / -c 10 -d 20s --json out.json --markdown out.md -o r.html -- "${node_args[@]}" \
    >/dev/null 2>err.txt || rc=$?
  [[ $rc == 2 ]] || fail "exit $rc, want 2 (the target failed): $(cat err.txt)"
  sig=$(json_get out.json 'j.target.exit.signal')
  code=$(json_get out.json 'j.target.exit.code')
  [[ $sig == "$want" || ($1 == target-oom && $code != 0 && $code != null) ]] ||
    fail "exit not recorded: $(json_get out.json 'j.target.exit')"
  (( $(json_get out.json 'j.window.samples') > 0 )) || fail "no samples before the crash"
  how=$([[ $sig != null ]] && echo "killed by $sig" || echo "code $code")
  grep -q "$how.*the target crashed or failed by itself" err.txt ||
    fail "the terminal does not say the target crashed ($how): $(cat err.txt)"
  grep -q "$how" r.html || fail "the report does not say how it ended ($how)"
  grep -q "$how at [0-9.]* s, before loopdoctor stopped it" out.md || fail "the Markdown does not say how it ended ($how)"
  echo "$1: exit $(json_get out.json 'j.target.exit'); verdict $(json_get out.json 'j.verdict'); $(grep "$how" err.txt | head -1)"
  ;;
disk-full)
  # 200 KiB: the recording starts, then every write fails with EFBIG.
  rc=0
  ( ulimit -f 200; timeout 60 "$LD" run --load / -c 10 -d 8s --record rec.ndjson -o r.html --json out.json \
      -- node "$hello" >/dev/null 2>err.txt ) || rc=$?
  [[ $rc != 153 && $rc != 137 ]] || fail "loopdoctor was killed (exit $rc): $(tail -3 err.txt)"
  grep -q "writing the recording 'rec.ndjson' failed: File too large; the report covers the run up to this point" err.txt ||
    fail "no clear message for the full recording: $(cat err.txt)"
  (( $(stat -c %s rec.ndjson) <= 204800 )) || fail "the recording outgrew the limit"
  rc2=0; "$LD" analyze rec.ndjson --json cut.json -o cut.html 2>cut.err || rc2=$?
  [[ $rc2 == 0 ]] || fail "the recording up to the limit is unreadable (exit $rc2): $(cat cut.err)"
  (( $(json_get cut.json 'j.window.samples') > 0 )) || fail "nothing analysed from the cut recording"
  echo "disk-full: run exit $rc; $(grep 'File too large' err.txt | head -1); analyze: $(json_get cut.json 'j.window.samples') samples"
  ;;
*) fail "unknown case $1" ;;
esac
