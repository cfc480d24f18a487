#!/usr/bin/env bash
# A loop that waits for a CPU (issue 14): the target and four spinners
# pinned to one CPU, each in a session of its own (samples/node/lib/crowd.js).
#   run_queue.sh starved   crowded-cpu, a light server: cpu-starved, cause run-queue
#   run_queue.sh blocked   pbkdf2-sync beside the same spinners: still blocked-loop, cause sync-crypto
# (its code holds the loop: the part of each stall it ran is a stall itself).
#   run_queue.sh queue     blocked-queue beside them: blocked-loop, cause json, not gc-pressure
#   run_queue.sh cluster   cluster-mixed, each process with two spinners: its
#                          hashing worker (4 ms of pbkdf2Sync a request) leads,
#                          blocked-loop / sync-crypto with cpu-starved beside;
#                          its fast sibling is only starved (issue 33)
# (GC pauses stretch more than code on a crowded CPU: thresholds.h,
# kGcShareOfBusyForCauseCrowded).
# Exit 77 (ctest SKIP) where taskset is missing: nothing can be crowded.
source "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || { echo "SKIP: no taskset (util-linux) to pin the target and the spinners"; exit 77; }
want_loop=
case ${1:?starved, blocked, queue or cluster} in
  starved) target=(node "$ROOT/samples/node/crowded-cpu/server.js") want=cpu-starved want_cause=run-queue ;;
  blocked) target=(node -r "$ROOT/samples/node/lib/crowd.js" "$ROOT/samples/node/pbkdf2-sync/server.js")
           want=blocked-loop want_cause=sync-crypto ;;
  queue) target=(node -r "$ROOT/samples/node/lib/crowd.js" "$ROOT/samples/node/blocked-queue/server.js")
         want=blocked-loop want_cause=json ;;
  cluster) target=(node -r "$ROOT/samples/node/lib/crowd.js" "$ROOT/samples/node/cluster-mixed/server.js")
           want=blocked-loop want_cause=sync-crypto want_loop='cluster worker 1'
           export CROWD_SPINNERS=2 ;;  # per process: six beside the primary and its two workers
  *) fail "unknown case $1" ;;
esac
rc=0
timeout 90 "$LD" run --load / -c 50 -d 5s --json out.json -o report.html --record rec.ndjson.gz \
  -- "${target[@]}" > stdout.txt 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
verdict=$(json_get out.json 'j.verdict')
cause=$(json_get out.json '(j.issues[0]||{}).cause||""')
echo "$1: verdict $verdict, cause ${cause:-none}"
json_get out.json '(j.issues[0]||{}).summary'
json_get out.json '(j.issues[0]||{}).evidence.filter(e=>/stall|wait|elu_mean|delay_p99/.test(e.signal)).map(e=>"  "+e.signal+" "+(+e.value).toFixed(3)+": "+e.text).join("\n")'
echo "  figures: running $(json_get out.json 'j.figures.loop_running_share'), waiting for a CPU $(json_get out.json 'j.figures.loop_cpu_wait_share'), cpu $(json_get out.json 'j.figures.cpu_cores') cores, rps $(json_get out.json 'j.figures.rps')"
# No spinner outlives the run (each ends within ~50 ms of the target).
pid=$(json_get out.json 'j.target.pid')
sleep 0.5
if pgrep -f "kill -0.* spin $pid\$" >/dev/null; then fail "spinners of pid $pid left running"; fi
[[ $verdict == "$want" ]] || fail "verdict $verdict != $want"
[[ $cause == "$want_cause" ]] || fail "cause ${cause:-none} != ${want_cause:-none}"
[[ -z $want_cause ]] || grep -q "cause: $want_cause" stderr.txt || fail "the terminal does not name the cause"
if [[ -n $want_loop ]]; then
  lead=$(json_get out.json '(j.loops||[]).map(l => l.name + ": " + l.verdict).join("; ")')
  echo "  loops: $lead"
  [[ $(json_get out.json '(j.loops||[])[0].name') == *"$want_loop"* ]] || fail "the worst loop is not $want_loop: $lead"
  [[ $(json_get out.json '(j.loops||[]).some(l => l.verdict === "healthy" && /worker/.test(l.name))') == false ]] ||
    fail "a worker beside the spinners read healthy: $lead"
fi
