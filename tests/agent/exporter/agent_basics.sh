#!/usr/bin/env bash
# The agent without Prometheus: hostile probes, clean shutdown, `env`, the
# native probe, each loop thread's CPU.
source "$(dirname "$0")/lib.sh"
case_name=${1:?case}
PORT=$(free_port)

case "$case_name" in
hostile-probes)
  start_agent "$PORT"
  start_node good hello-world good
  wait_for 10 bash -c "curl -sf http://127.0.0.1:$PORT/processes | grep -q '\"job\": \"good\"'" ||
    fail "the good probe did not appear in /processes"
  for mode in oversized badjson wrongtypes nohello flood; do
    out=$(node "$ROOT/tests/agent/exporter/hostile_probe.js" "$mode" "$SOCK") || fail "$mode: the agent left the connection open"
    [ "$out" = closed ] || fail "$mode: $out"
  done
  # Each was disconnected with a logged reason...
  grep -q "broke the protocol limit (1 MiB)" "$WORK/agent.log" || fail "no reason logged for the oversized line"
  grep -q "is not valid JSON" "$WORK/agent.log" || fail "no reason logged for bad JSON"
  grep -q "delay.p99 is a string, expected a number" "$WORK/agent.log" || fail "no reason logged for wrong types"
  grep -q "the first message was not hello" "$WORK/agent.log" || fail "no reason logged for a missing hello"
  grep -q "flood" "$WORK/agent.log" || fail "no reason logged for the flood"
  # ...and the agent and the good probe carried on.
  kill -0 "$AGENT_PID" || fail "the agent died"
  curl -sf "http://127.0.0.1:$PORT/processes" >"$WORK/p.json" || fail "/processes failed"
  [ "$(js "$WORK/p.json" 'j.processes.filter(p=>p.job==="good"&&p.connected).length')" = 1 ] ||
    fail "the good probe is no longer connected: $(cat "$WORK/p.json")"
  curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/m.txt"
  errors=$(sed -n 's/^loopdoctor_agent_probe_protocol_errors_total \(.*\)/\1/p' "$WORK/m.txt")
  [ "$errors" = 5 ] || fail "protocol errors counted: '$errors', expected 5"
  grep -q '^nodejs_eventloop_lag_p99_seconds{pid="[0-9]*",job="good",thread="main"}' "$WORK/m.txt" ||
    fail "the good probe's series are missing"
  if command -v promtool >/dev/null; then
    promtool_check "$WORK/m.txt" || fail "promtool check metrics failed"
  fi
  ;;
shutdown)
  start_agent "$PORT"
  [ "$(stat -c %a "$(dirname "$SOCK")")" = 700 ] || fail "socket directory mode $(stat -c %a "$(dirname "$SOCK")"), expected 700"
  [ "$(stat -c %a "$SOCK")" = 660 ] || fail "socket mode $(stat -c %a "$SOCK"), expected 660"
  start_node s1 hello-world s1
  wait_for 10 bash -c "curl -sf http://127.0.0.1:$PORT/processes | grep -q '\"connected\": true'" ||
    fail "the probe did not connect"
  # A second agent on the same socket refuses to start instead of stealing it.
  if "$LD" agent --listen 127.0.0.1:0 --socket "$SOCK" 2>"$WORK/second.log"; then fail "a second agent started on the same socket"; fi
  grep -q "another agent is already listening" "$WORK/second.log" || fail "second agent: $(cat "$WORK/second.log")"
  kill -TERM "$AGENT_PID"
  wait_for 10 bash -c "! kill -0 $AGENT_PID 2>/dev/null" || fail "the agent did not exit within 10 s of SIGTERM"
  set +e; wait "$AGENT_PID"; rc=$?; set -e
  [ "$rc" = 0 ] || fail "the agent exited with $rc after SIGTERM"
  [ ! -e "$SOCK" ] || fail "the socket file is still there after shutdown"
  grep -q "received SIGTERM" "$WORK/agent.log" || fail "no shutdown line in the log"
  kill -0 "$NODE_PID" || fail "the target died with the agent"
  # A stale socket (agent killed with -9) is replaced on the next start.
  start_agent "$PORT"
  kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
  [ -S "$SOCK" ] || fail "expected the killed agent's socket file to remain"
  start_agent "$PORT"
  grep -q "removing the stale socket" "$WORK/agent.log" || fail "the stale socket was not reported"
  ;;
env)
  start_agent "$PORT"
  out=$(env -u NODE_OPTIONS "$LD" env --socket "$SOCK" --job "my app")
  echo "$out" | grep_q "^export LOOPDOCTOR_ENDPOINT='$SOCK'$" || fail "env output: $out"
  # From a build tree, the native probe's addon is named for the probe to find.
  if [ -d "$(dirname "$LD")/probes/node/native" ]; then
    echo "$out" | grep_q "^export LOOPDOCTOR_NATIVE_DIR=.*/probes/node/native'\?$" || fail "env names no addon folder: $out"
  fi
  ( eval "$out"
    # Evaluated twice, the probe is still required once.
    eval "$("$LD" env --socket "$SOCK" --job "my app")"
    [ "$(grep -o -- --require <<<"$NODE_OPTIONS" | wc -l)" = 1 ] || fail "NODE_OPTIONS=$NODE_OPTIONS"
    PORT=0 LOOPDOCTOR_INTERVAL_MS=250 exec node "$ROOT/samples/node/hello-world/server.js" ) >"$WORK/envnode.out" 2>&1 &
  PIDS+=($!)
  wait_for 15 bash -c "curl -sf http://127.0.0.1:$PORT/processes | grep -q '\"job\": \"my app\"'" ||
    fail "a process started with \$(loopdoctor env) did not reach the agent"
  ;;
attach)
  # A process the probe cannot enter (not Node), observed from /proc only.
  # (Node processes get the probe: agent_attach.sh.)
  sleep 300 &
  plain=$!
  PIDS+=("$plain")
  start_agent "$PORT" --attach "$plain"
  wait_for 5 bash -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q '^process_resident_memory_bytes{pid=\"$plain\",job=\"300\"}'" ||
    fail "no /proc series for the attached process"
  curl -sf "http://127.0.0.1:$PORT/processes" >"$WORK/p.json"
  [ "$(js "$WORK/p.json" "j.processes.find(p=>p.pid===$plain).probe")" = false ] || fail "attached: $(cat "$WORK/p.json")"
  kill -9 "$plain"
  wait_for 5 bash -c "! curl -sf http://127.0.0.1:$PORT/metrics | grep -q 'pid=\"$plain\"'" ||
    fail "the attached process's series outlived it"
  grep -q "attached process $plain exited" "$WORK/agent.log" || fail "no log line for the exit"
  ;;
lying-probe)
  # A probe's claimed pid is checked against the connection's peer
  # (SO_PEERCRED): a process cannot write another process's series.
  start_agent "$PORT"
  grep -q "is 0700: only this user's processes can connect" "$WORK/agent.log" ||
    fail "the start did not say who may connect"
  start_node victim hello-world victim
  wait_for 10 bash -c "curl -sf http://127.0.0.1:$PORT/processes | grep -q '\"job\": \"victim\"'" ||
    fail "the honest probe did not appear"
  lie() {  # lie CLAIMED_PID JOB: starts a lying probe, sets LIAR_PID
    node "$ROOT/tests/agent/exporter/lying_probe.js" "$SOCK" "$1" "$2" >"$WORK/liar-$2.out" 2>&1 &
    PIDS+=($!)
    wait_for 5 test -s "$WORK/liar-$2.out" || fail "the lying probe did not start"
    LIAR_PID=$(head -1 "$WORK/liar-$2.out")
  }
  # 1. It claims pid 1, a process no probe speaks for.
  lie 1 init-liar
  wait_for 10 bash -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q '^nodejs_eventloop_lag_max_seconds{pid=\"$LIAR_PID\",job=\"init-liar\",thread=\"main\"} 9.999'" ||
    fail "the lying probe's series are not under its own pid $LIAR_PID: $(curl -s http://127.0.0.1:$PORT/metrics | grep init-liar)"
  curl -sf "http://127.0.0.1:$PORT/metrics" | grep_q 'pid="1",' && fail "a series is labelled with the claimed pid 1"
  grep -q "probe job init-liar: the probe claims pid 1 but the connection comes from pid $LIAR_PID; its series are labelled pid $LIAR_PID" \
    "$WORK/agent.log" || fail "no logged reason for the re-keyed pid"
  # 2. It claims the honest probe's pid and job: the victim keeps its window.
  lie "$NODE_PID" victim
  wait_for 10 bash -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q '^nodejs_eventloop_lag_max_seconds{pid=\"$LIAR_PID\",job=\"victim\",thread=\"main\"} 9.999'" ||
    fail "the impostor's series are not under its own pid"
  curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/m.txt"
  victim_max=$(sed -n "s/^nodejs_eventloop_lag_max_seconds{pid=\"$NODE_PID\",job=\"victim\",thread=\"main\"} \(.*\)/\1/p" "$WORK/m.txt")
  [ -n "$victim_max" ] || fail "the victim's series are gone"
  node -e 'process.exit(Number(process.argv[1]) < 1 ? 0 : 1)' "$victim_max" || fail "the victim's lag max is $victim_max: written by the impostor"
  curl -sf "http://127.0.0.1:$PORT/processes" >"$WORK/p.json"
  [ "$(js "$WORK/p.json" "j.processes.filter(p=>p.pid===$NODE_PID&&p.connected).length")" = 1 ] ||
    fail "the victim lost its connection: $(cat "$WORK/p.json")"
  grep -q "replaced by a new connection" "$WORK/agent.log" && fail "the impostor replaced the victim's connection"
  ;;
remote-clients)
  # Bound to every interface: /metrics for anyone, /processes and /report
  # for this host's clients only, and the start says so.
  ip=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v '^127\.' | grep -v ':' | head -1 || true)
  "$LD" agent --listen "0.0.0.0:$PORT" --socket "$SOCK" 2>>"$WORK/agent.log" &
  AGENT_PID=$!; PIDS+=("$AGENT_PID")
  wait_for 15 curl -sf "http://127.0.0.1:$PORT/" || fail "the agent did not serve HTTP"
  grep -q "warning: serving /metrics on 0.0.0.0:$PORT to anyone who can reach it; /processes and /report/<pid> answer clients on this host only (--public-reports to serve them there too)" \
    "$WORK/agent.log" || fail "no warning line for a public address"
  curl -sf "http://127.0.0.1:$PORT/processes" >/dev/null || fail "/processes refused a local client"
  [ -n "$ip" ] || { echo "no non-loopback address on this host: the remote half is not run"; exit 0; }
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ip:$PORT/metrics")" = 200 ] || fail "/metrics refused $ip"
  code=$(curl -s -o "$WORK/body" -w '%{http_code}' "http://$ip:$PORT/processes")
  [ "$code" = 403 ] || fail "/processes answered $code to $ip"
  grep -q "served to clients on this host only" "$WORK/body" || fail "403 body: $(cat "$WORK/body")"
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ip:$PORT/report/1")" = 403 ] || fail "/report answered $ip"
  kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
  "$LD" agent --listen "0.0.0.0:$PORT" --socket "$SOCK" --public-reports 2>>"$WORK/agent.log" &
  AGENT_PID=$!; PIDS+=("$AGENT_PID")
  wait_for 15 curl -sf "http://127.0.0.1:$PORT/" || fail "the agent did not serve HTTP again"
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ip:$PORT/processes")" = 200 ] || fail "--public-reports: /processes refused $ip"
  ;;
native)
  # The native probe in agent mode (issue 12): the addon connects to the
  # agent itself, says hello again after the agent restarts and keeps
  # serving meanwhile; block lines move the block counters.
  abi=$(node -p process.versions.modules)
  [ -f "${LOOPDOCTOR_NATIVE_DIR:-}/loopdoctor_probe-$abi.node" ] ||
    { echo "no native probe built for Node ABI $abi in '${LOOPDOCTOR_NATIVE_DIR:-}'"; exit 77; }
  export LOOPDOCTOR_NATIVE_DIR
  start_agent "$PORT"
  start_node nat hello-world nat
  nat_up() {
    curl -sf "http://127.0.0.1:$PORT/processes" >"$WORK/p.json" &&
      [ "$(js "$WORK/p.json" "(j.processes.find(p=>p.pid===$NODE_PID&&p.connected)||{}).probe_kind")" = native ]
  }
  wait_for 10 nat_up || fail "no native probe of pid $NODE_PID in /processes: $(cat "$WORK/p.json")"
  metric() {  # metric NAME JOB: the value for JOB, empty when absent
    curl -sf "http://127.0.0.1:$PORT/metrics" | sed -n "s/^$1{pid=\"[0-9]*\",job=\"$2\",thread=\"main\"} \(.*\)/\1/p"
  }
  has_samples() { [ -n "$(metric nodejs_heap_size_used_bytes nat)" ]; }
  wait_for 10 has_samples || fail "no samples from the native probe"
  [ "$(metric loopdoctor_eventloop_blocks_total nat)" = 0 ] || fail "an idle server has blocks: $(metric loopdoctor_eventloop_blocks_total nat)"
  [ "$(metric loopdoctor_eventloop_blocked_seconds_total nat)" = 0 ] || fail "an idle server was blocked"
  # Block lines as the native probe sends them: two blocks, 90 + 60 ms.
  node "$ROOT/tests/agent/exporter/fake_block_probe.js" "$SOCK" fakeblocks >"$WORK/fake.out" 2>&1 &
  PIDS+=($!)
  fake_counted() { [ "$(metric loopdoctor_eventloop_blocks_total fakeblocks)" = 2 ]; }
  wait_for 10 fake_counted || fail "block lines not counted: '$(metric loopdoctor_eventloop_blocks_total fakeblocks)'"
  node -e 'process.exit(Math.abs(process.argv[1] - 0.15) < 1e-9 ? 0 : 1)' "$(metric loopdoctor_eventloop_blocked_seconds_total fakeblocks)" ||
    fail "blocked seconds $(metric loopdoctor_eventloop_blocked_seconds_total fakeblocks), expected 0.15"
  curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/m.txt"
  grep -q 'loopdoctor_eventloop_block.*function=' "$WORK/m.txt" && fail "a function label on the block counters"
  promtool_check "$WORK/m.txt" || fail "promtool check metrics failed"
  # The agent goes away and comes back: the target serves meanwhile, the
  # addon reconnects with a new hello, and its series continue.
  kill -TERM "$AGENT_PID"
  wait "$AGENT_PID" 2>/dev/null || true
  for _ in 1 2 3; do
    curl -sf -m 2 "http://127.0.0.1:$NODE_PORT/" >/dev/null || fail "the target stopped serving while the agent was away"
    sleep 0.3
  done
  start_agent "$PORT"
  wait_for 15 nat_up || fail "the native probe did not reconnect: $(cat "$WORK/p.json")"
  wait_for 10 has_samples || fail "no samples after the reconnect"
  dropped_counted() { [ "$(metric loopdoctor_probe_dropped_samples_total nat)" != 0 ]; }
  wait_for 5 dropped_counted || fail "the lines of the agent's absence were not counted as dropped"
  kill -0 "$NODE_PID" || fail "the target died"
  ! grep -qi "error" "$WORK/nat.out" || fail "the target printed: $(cat "$WORK/nat.out")"
  ;;
worker-cpu)
  # Each loop's own thread's CPU (issue 14): the native probe sends a
  # worker's tid, so worker 1, which spins ~300 ms every 500 ms, has run
  # seconds of its own, well over its idle main thread's.
  abi=$(node -p process.versions.modules)
  [ -f "${LOOPDOCTOR_NATIVE_DIR:-}/loopdoctor_probe-$abi.node" ] ||
    { echo "no native probe built for Node ABI $abi in '${LOOPDOCTOR_NATIVE_DIR:-}'"; exit 77; }
  export LOOPDOCTOR_NATIVE_DIR
  start_agent "$PORT"
  start_node ws worker-stall ws
  run_s() {  # run_s THREAD: the loop thread's run seconds, empty when absent
    sed -n "s/^loopdoctor_eventloop_schedstat_run_seconds_total{pid=\"$NODE_PID\",job=\"ws\",thread=\"$1\"} \(.*\)/\1/p" "$WORK/m.txt"
  }
  worker_ran() {  # read every 5 s (kCpuWaitPeriodMs): a read after 1 s of spinning
    curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/m.txt" &&
      node -e 'process.exit(+process.argv[1] > 0.5 ? 0 : 1)' "$(run_s worker-1)"
  }
  wait_for 15 worker_ran || fail "worker-1's thread: run '$(run_s worker-1)' s: $(grep schedstat "$WORK/m.txt")"
  node -e 'process.exit(+process.argv[1] > 2 * +process.argv[2] ? 0 : 1)' "$(run_s worker-1)" "$(run_s main)" ||
    fail "worker-1 ran $(run_s worker-1) s, the idle main thread $(run_s main) s"
  grep -q "^loopdoctor_eventloop_schedstat_runqueue_seconds_total{pid=\"$NODE_PID\",job=\"ws\",thread=\"worker-1\"} " \
    "$WORK/m.txt" || fail "no run-queue wait for worker-1's thread"
  promtool_check "$WORK/m.txt" || fail "promtool check metrics failed"
  ;;
*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "ok: agent $case_name"
