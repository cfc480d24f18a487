#!/usr/bin/env bash
# Faults during a run (issue 16), one per invocation: chaos.sh <case>
#   collector-kill  loopdoctor itself killed with SIGKILL mid-run: `analyze`
#                   reads the recording up to the cut
#   target-sigkill  the target killed with SIGKILL during load
#   target-oom      the target hits its heap limit during load: "out of memory
#                   (heap limit N MB), killed by SIGABRT" in every output
#   disk-full       the recording hits RLIMIT_FSIZE: a clear message, a
#                   readable recording up to there
#   agent-probes    the agent under 1000 probes connecting and disconnecting,
#                   slow probes, a 100 MB line, invalid UTF-8 (chaos_agent.js):
#                   /metrics answers within kMaxScrapeMs, the agent's RSS stays
#                   under kMaxAgentRssMb, a well-behaved process's series move
# (process.abort() during load: errors.sh aborts-mid-load.)
source "$(dirname "$0")/lib.sh"
hello=$ROOT/samples/node/hello-world/server.js

# A server that dies by `how` once it has answered 1000 requests over at
# least a second of load. The second is the event the test needs: the probe
# samples every 10 ms, so a second under load leaves samples before the
# crash whatever the machine's speed (1000 requests alone took 50 ms on a
# quiet machine at -c 10: dead before a first sample).
dying_server() {
  cat >dying.js <<JS
let n = 0, first = 0, dead = false;
const keep = [];
require('http').createServer((q, r) => {
  if (++n === 1) first = Date.now();
  if (!dead && n >= 1000 && Date.now() - first >= 1000) { dead = true; $1; }
  r.end('ok');
}).listen(0, '127.0.0.1');
JS
}

case $1 in
collector-kill)
  # loopdoctor itself in the background (not under `timeout`, whose pid $!
  # would be), so the target found is its child, the node server.
  "$LD" run --load / -c 10 -d 30s --record rec.ndjson.gz -o r0.html -- node "$hello" >/dev/null 2>run.err &
  ld=$!
  # Kill it once the load has run two seconds (a recording with samples):
  # from the moment it says the load starts, however long the start took.
  for _ in $(seq 300); do grep -q "^load:" run.err && break; sleep 0.1; done
  grep -q "^load:" run.err || fail "the load never started: $(cat run.err)"
  sleep 2
  target=$(pgrep -P "$ld" -x node || true)
  kill -9 "$ld"; wait "$ld" 2>/dev/null || true
  # A SIGKILLed collector cannot stop its target (it runs in its own
  # session): the test does, or the server outlives the suite.
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
  if [[ $1 == target-oom ]]; then
    # V8's "JavaScript heap out of memory" on the target's stderr names the death.
    [[ $(json_get out.json 'j.target.exit.oom') == heap ]] || fail "the JSON does not name the OOM: $(json_get out.json 'j.target.exit')"
    limit=$(json_get out.json 'j.target.exit.heap_limit_mb')
    (( limit >= 32 && limit < 256 )) || fail "heap limit $limit MB, want the target's (--max-old-space-size=32 and V8's young generation)"
    grep -q "JavaScript heap out of memory" err.txt || fail "the target's own message did not reach the terminal: $(cat err.txt)"
    how="out of memory (heap limit $limit MB), $how"
  fi
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
agent-probes)
  # Bounds for a busy 2-core CI machine, far above a quiet one's figures
  # (bench/agent-scale: 500 probes, 33 MB, a 47 ms scrape): Prometheus times a
  # scrape out at 10 s by default, and a 100 MB line must never be held.
  kMaxScrapeMs=2000
  kMaxAgentRssMb=150
  # The hello timeout (agent/exporter/limits.h kHelloTimeoutMs), with a
  # second of sweep period and a second of slack.
  kHelloTimeoutMs=10000; kHelloSlackMs=2500
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  sock=$WORK/run/probe.sock
  "$LD" agent --listen "127.0.0.1:$port" --socket "$sock" 2>agent.log &
  agent=$!
  NODE_OPTIONS="--require $ROOT/agent/probes/node/probe.js" LOOPDOCTOR_ENDPOINT=$sock LOOPDOCTOR_INTERVAL_MS=250 \
    LOOPDOCTOR_JOB=good PORT=0 node "$hello" >good.out 2>&1 &
  good=$!
  trap 'kill -9 $agent $good 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
  # The page is read whole before grep looks: `curl | grep -q` under pipefail
  # failed when grep matched and left before curl had written the rest
  # (curl's EPIPE, exit 23), as a fresh-clone run did once.
  good_series() {
    local page
    page=$(curl -sf "http://127.0.0.1:$port/metrics" 2>/dev/null) || return 1
    grep -q '^process_cpu_seconds_total{.*job="good"' <<< "$page"
  }
  for _ in $(seq 75); do
    good_series && break
    sleep 0.2
  done
  good_series || fail "the good probe's series never appeared: $(tail -5 agent.log)"
  node "$ROOT/tests/integration/chaos_agent.js" "$sock" "$port" "$agent" >chaos.json || fail "the driver failed"
  kill -0 "$agent" 2>/dev/null || fail "the agent died: $(tail -5 agent.log)"
  get() { json_get chaos.json "$1"; }
  [[ $(get 'j.scrape_failures.length') == 0 ]] || fail "scrapes failed: $(get 'j.scrape_failures')"
  (( $(get 'j.scrapes') >= 20 )) || fail "only $(get 'j.scrapes') scrapes in the run"
  [[ $(get 'j.max_scrape_ms < '$kMaxScrapeMs) == true ]] || fail "a scrape took $(get 'j.max_scrape_ms') ms (bound $kMaxScrapeMs)"
  [[ $(get 'j.max_rss_mb < '$kMaxAgentRssMb) == true ]] || fail "the agent's RSS reached $(get 'j.max_rss_mb') MB (bound $kMaxAgentRssMb)"
  [[ $(get 'j.invalid_utf8_bodies') == 0 ]] || fail "/metrics was not valid UTF-8 $(get 'j.invalid_utf8_bodies') times"
  [[ $(get 'j.churned') == 1000 ]] || fail "only $(get 'j.churned') of 1000 churning probes finished"
  # The 100 MB line was cut off at the line limit, not read to the end.
  [[ $(get 'j.huge_closed') == true ]] || fail "the agent read the whole 100 MB line ($(get 'j.huge_sent_bytes') bytes sent)"
  grep -q "broke the protocol limit (1 MiB)" agent.log || fail "no reason logged for the 100 MB line"
  [[ $(get 'j.utf8_closed.job') == true && $(get 'j.utf8_closed.sample') == true ]] ||
    fail "a probe sending invalid UTF-8 was not disconnected: $(get 'j.utf8_closed')"
  # Slow hellos end at the hello timeout; the slow but legal ones may stay.
  [[ $(get 'j.slow_hello_open_ms.length') == 10 ]] || fail "slow hellos closed: $(get 'j.slow_hello_open_ms')"
  [[ $(get "j.slow_hello_open_ms.every(ms => ms >= $kHelloTimeoutMs - 1000 && ms <= $kHelloTimeoutMs + $kHelloSlackMs)") == true ]] ||
    fail "slow hellos were not closed at the hello timeout: $(get 'j.slow_hello_open_ms') ms"
  # The good process: present in every scrape, connected at the end, and
  # its CPU counter moved in every 3 s of the run.
  [[ $(get 'j.good_missing') == 0 ]] || fail "the good process's series were missing from $(get 'j.good_missing') scrapes"
  [[ $(get 'j.good_connected') == true ]] || fail "the good probe is not connected at the end"
  stalls=$(get 'j.good_values.filter(([t, v], i, a) => a.some(([t2, v2]) => t2 >= t + 3000) && !a.some(([t2, v2]) => t2 > t && t2 <= t + 3000 && v2 > v)).length')
  [[ $stalls == 0 ]] || fail "the good process's counter stood still for 3 s ($stalls scrapes): $(get 'j.good_values')"
  (( $(get 'j.protocol_errors') >= 3 )) || fail "protocol errors counted: $(get 'j.protocol_errors')"
  echo "agent-probes: $(get 'j.scrapes') scrapes, slowest $(get 'j.max_scrape_ms.toFixed(0)') ms; RSS max $(get 'j.max_rss_mb.toFixed(1)') MB;" \
    "100 MB line cut after $(get 'j.huge_sent_bytes') bytes sent; slow hellos closed after $(get 'Math.min(...j.slow_hello_open_ms)')-$(get 'Math.max(...j.slow_hello_open_ms)') ms;" \
    "$(get 'j.processes') processes, $(get 'j.protocol_errors') protocol errors"
  ;;
*) fail "unknown case $1" ;;
esac
