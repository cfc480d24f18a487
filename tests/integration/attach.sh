#!/usr/bin/env bash
# `loopdoctor attach PID` (issue 31) on servers started plainly, with no
# flag or variable of ours, under the built-in load:
#   attach.sh <case>
#   blocked      pbkdf2-sync: blocked-loop, pbkdf2Sync named; then no trace
#                (no inspector port, the threads of before, requests
#                answered)
#   gc           alloc-churn: gc-pressure
#   worker       worker-stall: the worker thread, running before the attach,
#                is probed and its loop is the verdict's
#   cluster      cluster-blocked with --tree: a cluster worker's loop
#   esm          esm-blocked ("type": "module"): blocked-loop, rankPrices
#   sandbox      pbkdf2-sync in its own pid, network and mount namespaces
#                (unshare), attached from outside by its host pid
#   interrupt    Ctrl-C (SIGINT to loopdoctor) mid-run: the report is
#                written, the process is left clean; a second attach works
#   killed       loopdoctor SIGKILLed mid-run: the probe detaches by itself
#                (its socket ended) and closes the inspector
#   node22       pbkdf2-sync on Node 22 (SKIP 77 without .tools/node22)
#   repeat       pbkdf2-sync attached twice (--repeat 2), one result
# The refusals (one line, exit 2, nothing changed) are attach_refusals.sh's.
source "$(dirname "$0")/lib.sh"
case=$1
node_bin=node

# start_plain SAMPLE [wrapper...]: the sample's server with a clean
# environment; sets PID and PORT once it listens.
start_plain() {
  local sample=$1; shift
  : > server.out
  env -u NODE_OPTIONS PORT=0 "$@" "$node_bin" "$ROOT/samples/node/$sample/server.js" > server.out 2>&1 &
  PID=$!
  for _ in $(seq 150); do grep -q "listening on" server.out && break; sleep 0.1; done
  PORT=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' server.out | head -1)
  [[ -n $PORT ]] || fail "$sample did not listen: $(cat server.out)"
  trap 'kill -9 $PID 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
}

# The process's own listening ports and its thread count, as /proc says.
ports_of() { { ss -Hltnp 2>/dev/null | grep -o "[0-9.:*]*:[0-9]* .*pid=$1," || true; } | sed 's/ .*//; s/.*://' | sort -n | tr '\n' ' '; }
threads_of() { ls "/proc/$1/task" | wc -l; }

# attach_run OUT ARGS...: loopdoctor attach with the test's load; fails on a
# non-zero exit.
attach_run() {
  local out=$1; shift
  local rc=0
  timeout 120 "$LD" attach --load / -c 20 -d 4s --json "$out" -o "${out%.json}.html" --markdown "${out%.json}.md" \
    "$@" > attach.out 2> attach.err || rc=$?
  [[ $rc -eq 0 ]] || fail "attach exited $rc: $(cat attach.err)"
}

verdict_is() {  # verdict_is FILE VERDICT
  local v; v=$(json_get "$1" 'j.verdict')
  [[ $v == "$2" ]] || { json_get "$1" 'j.issues.map(i => i.kind + ": " + i.summary).join("\n")' >&2; fail "verdict $v, not $2"; }
  [[ $(json_get "$1" 'j.target.attached') == true ]] || fail "the JSON does not say attached: $(json_get "$1" 'j.target')"
}

# No trace: the inspector is closed (the ports of before), the threads of
# before are back, and the server still answers. Waits, bounded: the probe
# closes the inspector a moment after its session ended.
no_trace() {  # no_trace PORTS_BEFORE THREADS_BEFORE
  local ports threads
  for _ in $(seq 50); do
    ports=$(ports_of "$PID"); threads=$(threads_of "$PID")
    [[ $ports == "$1" && $threads -le $2 ]] && break
    sleep 0.1
  done
  [[ $ports == "$1" ]] || fail "listening ports after the detach: '$ports', before: '$1' (the inspector stayed open?)"
  (( threads <= $2 )) || fail "$threads threads after the detach, $2 before"
  # Any HTTP answer (pbkdf2-sync answers 401 to a wrong password).
  local code; code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/" || true)
  [[ $code =~ ^[1-5][0-9][0-9]$ ]] || fail "the server no longer answers after the detach (curl: '$code')"
}

hotspot_top() { json_get "$1" '(j.issues[0].hotspots[0] || {}).function || ""'; }

case $case in
blocked|node22|esm)
  sample=pbkdf2-sync want_fn=pbkdf2Sync
  [[ $case == esm ]] && sample=esm-blocked want_fn=rankPrices
  if [[ $case == node22 ]]; then
    node_bin=$ROOT/.tools/node22/bin/node
    [[ -x $node_bin ]] || { echo "SKIP: no Node 22 in .tools/node22 (scripts/setup.sh --test)"; exit 77; }
  fi
  start_plain $sample
  ports=$(ports_of "$PID"); threads=$(threads_of "$PID")
  attach_run a1.json "$PID"
  verdict_is a1.json blocked-loop
  top=$(hotspot_top a1.json)
  # Or the callback it hands a builtin: rankPrices' sort comparator, on its
  # own line, and rankPrices' own time (slice and the sort builtin, which
  # have no frame) are a near tie (54 % / 43 % one run, the other way the
  # next) -- the same work, named from either side of one call.
  top_caller=$(json_get a1.json '(j.issues[0].hotspots[0] || {}).caller || ""')
  [[ $top == "$want_fn"* || $top_caller == "$want_fn ("* ]] ||
    fail "top hotspot '$top', not $want_fn: $(json_get a1.json 'j.issues[0].hotspots')"
  [[ $(json_get a1.json 'j.target.probe') == native ]] || fail "probe $(json_get a1.json 'j.target.probe'): $(json_get a1.json 'j.target.probe_fallback')"
  grep -q "attaching to process $PID" attach.err || fail "no attach line: $(cat attach.err)"
  grep -q "attached to process $PID, already running: not restarted; it ran on after loopdoctor detached at" a1.md ||
    fail "the Markdown does not say it was an attach that detached: $(cat a1.md)"
  no_trace "$ports" "$threads"
  echo "$case: $(json_get a1.json 'j.verdict'), top $top; no trace after the detach (ports '$ports', $threads threads)"
  ;;
repeat)
  # --repeat 2: attached twice in a row to the same process, each time
  # detached without a trace; one result for both.
  start_plain pbkdf2-sync
  ports=$(ports_of "$PID"); threads=$(threads_of "$PID")
  rc=0; timeout 120 "$LD" attach --repeat 2 --load / -c 20 -d 2s --json a1.json -o a1.html "$PID" 2> attach.err || rc=$?
  [[ $rc -eq 0 ]] || fail "attach exited $rc: $(cat attach.err)"
  verdict_is a1.json blocked-loop
  [[ $(json_get a1.json 'j.repeat.runs + " " + j.repeat.verdicts["blocked-loop"]') == "2 2" ]] ||
    fail "repeat: $(json_get a1.json 'j.repeat')"
  [[ $(json_get a1.json 'new Set(j.repeat.recordings).size') == 2 ]] || fail "recordings $(json_get a1.json 'j.repeat.recordings')"
  [[ $(grep -c "attaching to process $PID" attach.err) -eq 2 ]] || fail "not attached twice: $(cat attach.err)"
  no_trace "$ports" "$threads"
  echo "repeat: $(json_get a1.json 'j.repeat.verdicts')"
  ;;
gc)
  start_plain alloc-churn
  attach_run a1.json "$PID"
  verdict_is a1.json gc-pressure
  echo "gc: $(json_get a1.json 'j.verdict')"
  ;;
worker)
  start_plain worker-stall
  attach_run a1.json "$PID"
  verdict_is a1.json blocked-loop
  name=$(json_get a1.json '(j.loops || [])[0] ? j.loops[0].name : ""')
  [[ $name == "worker 1 (stall-worker.js)" ]] || fail "the worst loop is '$name': $(json_get a1.json 'j.loops')"
  echo "worker: $(json_get a1.json 'j.verdict') in $name"
  ;;
cluster)
  start_plain cluster-blocked
  attach_run a1.json --tree "$PID"
  verdict_is a1.json blocked-loop
  name=$(json_get a1.json '(j.loops || [])[0] ? j.loops[0].name : ""')
  [[ $name =~ cluster\ worker\ [12] ]] || fail "the worst loop is '$name': $(json_get a1.json 'j.loops')"
  for k in $(pgrep -P "$PID"); do
    [[ -z $(ports_of "$k") ]] || fail "cluster worker $k still listens on $(ports_of "$k") (its inspector?)"
  done
  echo "cluster: $(json_get a1.json 'j.verdict') in $name"
  ;;
sandbox)
  command -v unshare > /dev/null || { echo "SKIP: no unshare"; exit 77; }
  # Its own pid, network and mount namespaces, loopback up, as a container
  # runtime makes them; the server prints its port inside.
  # A /tmp of its own, as a container's filesystem is: the probe is copied
  # there through /proc/PID/root, and must be gone after the detach. The
  # sample is bound at /mnt first: a source tree under /tmp (a clone in
  # /tmp) is hidden by that /tmp.
  unshare --pid --net --mount --fork --mount-proc sh -c \
    "mount --bind '$ROOT/samples/node/pbkdf2-sync' /mnt && mount -t tmpfs tmpfs /tmp && { ip link set lo up 2>/dev/null || ifconfig lo up; } && exec env -u NODE_OPTIONS PORT=0 node /mnt/server.js" \
    > server.out 2>&1 &
  outer=$!
  trap 'pkill -9 -P $outer 2>/dev/null; kill -9 $outer 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
  for _ in $(seq 150); do grep -q "listening on" server.out && break; sleep 0.1; done
  grep -q "listening on" server.out || fail "the sandboxed server did not start: $(cat server.out)"
  PID=$(pgrep -P "$outer" -x node || pgrep -f "node /mnt/server.js" | grep -v "^$outer$" | head -1)
  [[ -n $PID ]] || fail "no node process in the sandbox"
  attach_run a1.json "$PID"
  verdict_is a1.json blocked-loop
  [[ $(json_get a1.json 'j.target.container') == true ]] || fail "not seen as a container: $(json_get a1.json 'j.target')"
  [[ $(json_get a1.json 'j.target.pid') == "$PID" ]] || fail "host pid $(json_get a1.json 'j.target.pid'), not $PID"
  [[ $(json_get a1.json 'j.target.ns_pid') == 1 ]] || fail "its own pid $(json_get a1.json 'j.target.ns_pid'), not 1"
  top=$(hotspot_top a1.json)
  [[ $top == pbkdf2Sync* ]] || fail "top hotspot '$top'"
  [[ -z $(ls "/proc/$PID/root/tmp") ]] || fail "the probe's copy is left in the sandbox's /tmp: $(ls "/proc/$PID/root/tmp")"
  echo "sandbox: $(json_get a1.json 'j.verdict'), top $top, host pid $PID, its own $(json_get a1.json 'j.target.ns_pid')"
  ;;
interrupt|killed)
  start_plain pbkdf2-sync
  ports=$(ports_of "$PID"); threads=$(threads_of "$PID")
  : > attach.err
  "$LD" attach --load / -c 20 -d 60s --json i.json -o i.html "$PID" > attach.out 2> attach.err &
  ld=$!
  for _ in $(seq 300); do grep -q "^load:" attach.err && break; sleep 0.1; done
  grep -q "^load:" attach.err || fail "the load never started: $(cat attach.err)"
  sleep 1
  if [[ $case == killed ]]; then
    kill -9 "$ld"; wait "$ld" 2>/dev/null || true
    no_trace "$ports" "$threads"
    # The attach's private folder (its socket) went with the probe.
    for _ in $(seq 30); do compgen -G "/tmp/loopdoctor-attach-$ld-*" > /dev/null || break; sleep 0.1; done
    ! compgen -G "/tmp/loopdoctor-attach-$ld-*" > /dev/null || fail "left behind: $(compgen -G "/tmp/loopdoctor-attach-$ld-*")"
    echo "killed: the probe left by itself, no trace"
    exit 0
  fi
  kill -INT "$ld"
  rc=0; wait "$ld" || rc=$?
  [[ $rc == 130 ]] || fail "exit $rc after Ctrl-C, want 130: $(cat attach.err)"
  [[ -s i.html && -s i.json ]] || fail "no report after Ctrl-C"
  no_trace "$ports" "$threads"
  # Attached again, the same process gets a diagnosis again, and is left as clean.
  rc=0; timeout 60 "$LD" attach -d 1s --json again.json "$PID" > again.out 2> again.err || rc=$?
  [[ $rc == 0 ]] || fail "a second attach exited $rc: $(cat again.err)"
  [[ $(json_get again.json 'j.target.attached') == true && $(json_get again.json 'j.window.samples') -gt 0 ]] ||
    fail "the second attach saw nothing: $(json_get again.json 'j.window')"
  no_trace "$ports" "$threads"
  echo "interrupt: report written, exit 130, no trace; a second attach works"
  ;;
*) fail "unknown case $case" ;;
esac
