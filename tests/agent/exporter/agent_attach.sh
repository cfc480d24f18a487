#!/usr/bin/env bash
# `loopdoctor agent --attach PID --attach-match REGEX` (issue 31): Node
# servers started plainly, with no NODE_OPTIONS, get the probe through their
# inspector and report as preloaded ones do; the agent leaves them as it
# found them when it stops.
#   agent_attach.sh <case>
#   stop       hello-world by --attach, pbkdf2-sync by --attach-match; load;
#              loop series for both pids, blocked-loop and pbkdf2Sync for
#              pbkdf2-sync; a second pbkdf2-sync started after the agent is
#              attached within a bound; while attached and after the agent's
#              SIGTERM no inspector port is open, and after it the threads
#              of before are back, the servers answer and no file is left
#   killed     the same servers, the agent SIGKILLed: the probes see their
#              socket end and detach by themselves
#   refusals   an --attach process that is not Node is observed from /proc
#              only; a non-Node process the pattern matches is skipped, with
#              one log line; a process whose preloaded probe reports here
#              already and one named by both flags are not attached twice
source "$(dirname "$0")/lib.sh"
case_name=${1:?case}
APORT=$(free_port)

# start_plain NAME SAMPLE: the sample's server with a clean environment;
# sets PLAIN_PID and PLAIN_PORT once it listens.
start_plain() {
  local out=$WORK/$1.out
  env -u NODE_OPTIONS -u LOOPDOCTOR_ENDPOINT PORT=0 node "$ROOT/samples/node/$2/server.js" >"$out" 2>&1 &
  PLAIN_PID=$!
  PIDS+=("$PLAIN_PID")
  wait_for 15 grep -q "listening on" "$out" || fail "$2 did not listen within 15 s"
  PLAIN_PORT=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$out" | head -1)
}

# A process's own listening TCP ports and its thread count, from /proc.
ports_of() { { ss -Hltnp 2>/dev/null | grep "pid=$1," || true; } | awk '{print $4}' | sed 's/.*://' | sort -n | tr '\n' ' '; }
threads_of() { ls "/proc/$1/task" | wc -l; }

# attached PID: /processes lists it with a connected probe loaded by attach.
attached() {
  curl -sf "http://127.0.0.1:$APORT/processes" >"$WORK/p-$1.json" &&
    [ "$(js "$WORK/p-$1.json" "(p => !!p && p.probe && p.connected && p.attached === true)(j.processes.find(p => p.pid === $1))")" = true ]
}

# remember PID PORT: its ports and threads before any attach.
declare -A PORTS_BEFORE THREADS_BEFORE HTTP_PORT
remember() {
  PORTS_BEFORE[$1]=$(ports_of "$1")
  THREADS_BEFORE[$1]=$(threads_of "$1")
  HTTP_PORT[$1]=$2
}

# inspector_closed PID: only the ports of before listen (the inspector
# SIGUSR1 opened is closed again once the probe runs).
inspector_closed() { [ "$(ports_of "$1")" = "${PORTS_BEFORE[$1]}" ]; }

# left_clean PID: no inspector port, the threads of before, still answering
# HTTP. Bounded: the probe stops at its loop's next turn.
left_clean() {
  local pid=$1
  wait_for 10 bash -c "[ \"\$(ls /proc/$pid/task | wc -l)\" -le ${THREADS_BEFORE[$pid]} ]" ||
    fail "process $pid has $(threads_of "$pid") threads after the detach, ${THREADS_BEFORE[$pid]} before"
  inspector_closed "$pid" || fail "process $pid listens on '$(ports_of "$pid")', before: '${PORTS_BEFORE[$pid]}'"
  local code
  code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:${HTTP_PORT[$pid]}/" || true)
  [[ $code =~ ^[1-5][0-9][0-9]$ ]] || fail "process $pid no longer answers HTTP after the detach (curl: '$code')"
}

# The private folders the agent's attaches made (agent/attach/probe_files.h).
leftover_files() { ls -d /tmp/loopdoctor-attach-"$1"-* 2>/dev/null || true; }

# Two servers attached by each flag, under load, with their verdicts.
attach_two() {
  start_plain hello hello-world
  HELLO=$PLAIN_PID; remember "$HELLO" "$PLAIN_PORT"
  start_plain pbkdf2 pbkdf2-sync
  PBKDF2=$PLAIN_PID; remember "$PBKDF2" "$PLAIN_PORT"
  start_agent "$APORT" --attach "$HELLO" --attach-match 'pbkdf2-sync/server\.js' --sample-interval 250ms --window 10s
  # Bounds: the first scan waits 6 s for preloaded probes to come back; a
  # refusal that reached nothing (port 9229 taken by another test's
  # inspector) is tried again every 3 s.
  wait_for 40 attached "$HELLO" || fail "--attach $HELLO: not attached within 40 s: $(cat "$WORK/p-$HELLO.json")"
  wait_for 40 attached "$PBKDF2" || fail "--attach-match: pbkdf2-sync ($PBKDF2) not attached within 40 s"
  for pid in "$HELLO" "$PBKDF2"; do
    inspector_closed "$pid" || fail "process $pid listens on '$(ports_of "$pid")' while attached, before: '${PORTS_BEFORE[$pid]}'"
  done
  "$LD" load "http://127.0.0.1:${HTTP_PORT[$HELLO]}/" -c 5 -d 4s >"$WORK/load-hello.out" 2>&1 &
  local hello_load=$!
  "$LD" load "http://127.0.0.1:${HTTP_PORT[$PBKDF2]}/" -c 20 -d 4s >"$WORK/load-pbkdf2.out" 2>&1 ||
    fail "the load failed: $(cat "$WORK/load-pbkdf2.out")"
  wait "$hello_load" || fail "the load on hello-world failed: $(cat "$WORK/load-hello.out")"
  curl -sf "http://127.0.0.1:$APORT/metrics" >"$WORK/m.txt" || fail "/metrics failed"
  for pid in "$HELLO" "$PBKDF2"; do
    for series in nodejs_eventloop_lag_p99_seconds nodejs_eventloop_lag_max_seconds loopdoctor_eventloop_utilization \
                  nodejs_heap_size_used_bytes; do
      grep -q "^$series{pid=\"$pid\",job=\"server.js\",thread=\"main\"} " "$WORK/m.txt" ||
        fail "no $series for process $pid: $(grep "pid=\"$pid\"" "$WORK/m.txt" | head -5)"
    done
  done
  # The analysis runs every 2 s over the last 10 s.
  verdict() { curl -sf "http://127.0.0.1:$APORT/processes" >"$WORK/p.json" &&
    [ "$(js "$WORK/p.json" "j.processes.find(p => p.pid === $PBKDF2).verdict")" = blocked-loop ]; }
  wait_for 6 verdict || fail "pbkdf2-sync's verdict: $(js "$WORK/p.json" "j.processes.find(p => p.pid === $PBKDF2)")"
  curl -sf "http://127.0.0.1:$APORT/report/$PBKDF2" >"$WORK/report.html" || fail "no /report/$PBKDF2"
  grep -q 'pbkdf2Sync' "$WORK/report.html" || fail "/report/$PBKDF2 does not name pbkdf2Sync"
}

case "$case_name" in
stop|killed)
  # pbkdf2Sync is named from the native probe's block stacks (the agent asks
  # for no CPU profile).
  ABI=$(node -p process.versions.modules)
  [ -f "${LOOPDOCTOR_NATIVE_DIR:-/nonexistent}/loopdoctor_probe-$ABI.node" ] ||
    { echo "SKIP: no native probe for Node ABI $ABI"; exit 77; }
  ;;
esac

case "$case_name" in
stop)
  attach_two
  # A server started after the agent, matching the pattern: attached at
  # the next scan (every 3 s), its attach included.
  start_plain late pbkdf2-sync
  LATE=$PLAIN_PID
  # It may be attached before it can be looked at (the scan after it
  # listens): a copy of the first pbkdf2-sync, it had that one's threads
  # and its own HTTP port alone before.
  PORTS_BEFORE[$LATE]="$PLAIN_PORT "
  THREADS_BEFORE[$LATE]=${THREADS_BEFORE[$PBKDF2]}
  HTTP_PORT[$LATE]=$PLAIN_PORT
  wait_for 30 attached "$LATE" || fail "a pbkdf2-sync started after the agent ($LATE) was not attached within 30 s"
  inspector_closed "$LATE" || fail "the late server listens on '$(ports_of "$LATE")' while attached"
  kill -TERM "$AGENT_PID"
  wait_for 15 bash -c "! kill -0 $AGENT_PID 2>/dev/null" || fail "the agent did not exit within 15 s of SIGTERM"
  set +e; wait "$AGENT_PID"; rc=$?; set -e
  [ "$rc" = 0 ] || fail "the agent exited with $rc after SIGTERM"
  for pid in "$HELLO" "$PBKDF2" "$LATE"; do left_clean "$pid"; done
  [ -z "$(leftover_files "$AGENT_PID")" ] || fail "files left behind: $(leftover_files "$AGENT_PID")"
  # The probe is gone from them: a second agent attaches to them again.
  APORT=$(free_port)
  start_agent "$APORT" --attach "$HELLO"
  wait_for 40 attached "$HELLO" || fail "a second agent could not attach to $HELLO"
  ;;
killed)
  attach_two
  kill -9 "$AGENT_PID"
  wait "$AGENT_PID" 2>/dev/null || true
  for pid in "$HELLO" "$PBKDF2"; do left_clean "$pid"; done
  # The probe removes its folder when it stops (at its loop's next turn
  # after the socket's end; 10 s for a crowded machine).
  wait_for 10 test -z "$(leftover_files "$AGENT_PID")" || fail "files left behind: $(leftover_files "$AGENT_PID")" \
    "($(for d in $(leftover_files "$AGENT_PID"); do
          echo "$d holds: $(cd "$d" && find . -maxdepth 2 | tr '\n' ' ');" \
            "mapped by: $(grep -l "$d" /proc/[0-9]*/maps 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')"
        done))"
  ;;
refusals)
  # Not Node: a sleep, named by --attach, and one the pattern matches.
  sleep 300 &
  NAMED=$!; PIDS+=("$NAMED")
  bash -c 'exec -a "hello-world/server.js-lookalike" sleep 301' &
  LOOKALIKE=$!; PIDS+=("$LOOKALIKE")
  start_plain plain hello-world
  PLAIN=$PLAIN_PID; remember "$PLAIN" "$PLAIN_PORT"
  start_agent "$APORT" --attach "$NAMED" --attach "$PLAIN" --attach-match 'hello-world/server\.js'
  # A process with the probe preloaded for this agent, matched by the pattern.
  start_node preloaded hello-world preloaded
  PRELOADED=$NODE_PID; remember "$PRELOADED" "$NODE_PORT"
  wait_for 40 attached "$PLAIN" || fail "--attach $PLAIN: not attached"
  wait_for 10 bash -c "curl -sf http://127.0.0.1:$APORT/metrics | grep -q '^process_resident_memory_bytes{pid=\"$NAMED\",'" ||
    fail "no /proc series for the --attach process that is not Node"
  curl -sf "http://127.0.0.1:$APORT/processes" >"$WORK/p.json"
  [ "$(js "$WORK/p.json" "j.processes.find(p => p.pid === $NAMED).probe")" = false ] ||
    fail "the non-Node --attach process: $(js "$WORK/p.json" "j.processes.find(p => p.pid === $NAMED)")"
  grep -q "^.* warning --attach $NAMED: process $NAMED (sleep 300) is not a Node.js process.*It is observed from /proc only" \
    "$WORK/agent.log" || fail "no log line for the refused --attach"
  # Two scans after the first: the lookalike was refused once, and never
  # attached; the preloaded process was left alone.
  sleep 8
  n=$(grep -c "warning --attach-match: process $LOOKALIKE .*is not a Node.js process" "$WORK/agent.log" || true)
  [ "$n" = 1 ] || fail "the matched non-Node process was logged $n times, not once"
  grep -q "attaching to process $PRELOADED" "$WORK/agent.log" && fail "the preloaded process was attached to"
  [ "$(ports_of "$PRELOADED")" = "${PORTS_BEFORE[$PRELOADED]}" ] || fail "the preloaded process was signalled"
  curl -sf "http://127.0.0.1:$APORT/processes" >"$WORK/p.json"
  [ "$(js "$WORK/p.json" "j.processes.filter(p => p.pid === $PRELOADED).map(p => p.connected && !p.attached).join()")" = true ] ||
    fail "the preloaded process: $(js "$WORK/p.json" "j.processes.filter(p => p.pid === $PRELOADED)")"
  n=$(grep -c "attached to process $PLAIN " "$WORK/agent.log" || true)
  [ "$n" = 1 ] || fail "process $PLAIN, named and matched, was attached $n times"
  [ "$(js "$WORK/p.json" "j.processes.filter(p => p.pid === $PLAIN).length")" = 1 ] || fail "process $PLAIN listed twice"
  # It exits: its attach is released, its series go.
  kill -9 "$PLAIN"
  wait_for 10 grep -q "attached process $PLAIN is gone" "$WORK/agent.log" || fail "the exit of $PLAIN was not noticed"
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
echo "ok: $case_name"
