#!/usr/bin/env bash
# The CPU a process did not get, through a real agent (issue 14): a server
# in a cgroup of its own with a tenth of a core, under load, shows throttled
# periods and seconds; a server outside it has schedstat series but no
# throttling ones (its cgroup has no quota); the exposition passes promtool.
# The cgroup comes from tests/integration/lib.sh's make_cgroup (v2, else
# v1; exit 77, ctest SKIP, saying why where none can be made).
HERE=$(cd "$(dirname "$0")" && pwd)  # the first lib.sh changes folder
source "$HERE/../../integration/lib.sh"
IT_WORK=$WORK
source "$HERE/lib.sh"

QUOTA_US=10000 PERIOD_US=100000
make_cgroup cpu "cpu.max=$QUOTA_US $PERIOD_US" "/sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpu" \
  "cpu.cfs_period_us=$PERIOD_US cpu.cfs_quota_us=$QUOTA_US"
# make_cgroup's trap removes only the cgroup: kill this test's processes
# first (a cgroup with members cannot be removed), then remove both folders.
trap 'cleanup; rmdir "$CG" 2>/dev/null; rm -rf "$IT_WORK"' EXIT

PORT=$(free_port)
start_agent "$PORT"
start_node free hello-world free
FREE_PID=$NODE_PID

# In the cgroup from its first instruction, as in a container.
NODE_OPTIONS="--require $ROOT/agent/probes/node/probe.js" LOOPDOCTOR_ENDPOINT=$SOCK \
  LOOPDOCTOR_INTERVAL_MS=250 LOOPDOCTOR_JOB=quota PORT=0 \
  bash -c 'echo $$ > "$0/cgroup.procs" && exec node "$1"' "$CG" "$ROOT/samples/node/hello-world/server.js" \
  >"$WORK/quota.out" 2>&1 &
QUOTA_PID=$!
PIDS+=("$QUOTA_PID")
wait_for 15 grep -q "listening on" "$WORK/quota.out" || fail "the server in the cgroup did not listen within 15 s"
QUOTA_PORT=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/quota.out" | head -1)

# The agent reads the counters every 5 s: its verdict weighs the change
# between two readings, so one comes before the load (and one after, below).
read_once() { curl -sf "http://127.0.0.1:$PORT/metrics" | grep_q "^loopdoctor_cpu_cfs_periods_total{pid=\"$QUOTA_PID\""; }
wait_for 12 read_once || fail "the agent read no cfs counters of pid $QUOTA_PID within 12 s"
# hello-world under 20 connections wants a whole core: it gets a tenth.
"$LD" load "http://127.0.0.1:$QUOTA_PORT/" -c 20 -d 4s >"$WORK/load.out" 2>&1 || fail "load: $(cat "$WORK/load.out")"
value() {  # value METRIC PID: the series' value in the last scrape, or nothing
  sed -n "s/^$1{pid=\"$2\",job=\"[a-z]*\"} \\(.*\\)/\\1/p" "$WORK/m.txt"
}
# The agent reads these every 5 s (kCpuWaitPeriodMs): a read after the load.
throttled_now() {
  curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/m.txt" &&
    node -e "process.exit(+process.argv[1] > 0 ? 0 : 1)" "$(value loopdoctor_cpu_cfs_throttled_seconds_total "$QUOTA_PID")"
}
wait_for 12 throttled_now || true
throttled_s=$(value loopdoctor_cpu_cfs_throttled_seconds_total "$QUOTA_PID")
throttled=$(value loopdoctor_cpu_cfs_throttled_periods_total "$QUOTA_PID")
periods=$(value loopdoctor_cpu_cfs_periods_total "$QUOTA_PID")
wait_s=$(value loopdoctor_cpu_schedstat_runqueue_seconds_total "$QUOTA_PID")
echo "in the cgroup: throttled ${throttled_s:-?} s in ${throttled:-?} of ${periods:-?} periods; run-queue wait ${wait_s:-?} s"
[ -n "$throttled_s" ] || fail "no loopdoctor_cpu_cfs_throttled_seconds_total for pid $QUOTA_PID: $(grep cfs "$WORK/m.txt")"
node -e "process.exit(+process.argv[1] > 0 && +process.argv[2] > 0 && +process.argv[3] >= +process.argv[2] ? 0 : 1)" \
  "$throttled_s" "$throttled" "$periods" || fail "throttled $throttled_s s, $throttled of $periods periods: expected > 0"
[ -n "$wait_s" ] || fail "no run-queue wait for pid $QUOTA_PID"
grep -q "^loopdoctor_eventloop_schedstat_runqueue_seconds_total{pid=\"$QUOTA_PID\",job=\"quota\",thread=\"main\"} " \
  "$WORK/m.txt" || fail "no run-queue wait of the main thread's loop"

# Outside the cgroup: its wait is there; without a quota (as on a host's
# root cgroup) it has no throttling series, as cAdvisor.
quota_of() {  # the quota of pid $1's cpu cgroup: v1 cfs_quota_us ("-1": none), v2 cpu.max ("max ...": none)
  local p
  p=$(sed -n 's/^[0-9]*:[^:]*\bcpu\b[^:]*:\(.*\)/\1/p' "/proc/$1/cgroup" | head -1)
  if [ -n "$p" ]; then
    cat "/sys/fs/cgroup/cpu,cpuacct$p/cpu.cfs_quota_us" 2>/dev/null || cat "/sys/fs/cgroup/cpu$p/cpu.cfs_quota_us"
  else
    cat "/sys/fs/cgroup$(sed -n 's/^0::\(.*\)/\1/p' "/proc/$1/cgroup")/cpu.max"
  fi
}
[ -n "$(value loopdoctor_cpu_schedstat_runqueue_seconds_total "$FREE_PID")" ] || fail "no run-queue wait for pid $FREE_PID"
free_quota=$(quota_of "$FREE_PID" 2>/dev/null || echo unknown)
case "$free_quota" in
  -1*|max*) [ -z "$(value loopdoctor_cpu_cfs_periods_total "$FREE_PID")" ] ||
              fail "pid $FREE_PID has throttling series without a quota ($free_quota)" ;;
  *) echo "(pid $FREE_PID's own cgroup has a quota, '$free_quota': the absence is not checked)" ;;
esac

# The agent's own verdict reads the same counters (its window gets them as
# proc records): cpu-starved, cause cpu-quota, in /processes and the report.
verdict_of() {  # verdict_of PID: the run's verdict /processes gives it
  curl -sf "http://127.0.0.1:$PORT/processes" >"$WORK/p.json" &&
    js "$WORK/p.json" "(j.processes.find(p => p.pid == $1) || {}).verdict"
}
starved_now() { [ "$(verdict_of "$QUOTA_PID")" = cpu-starved ]; }
if ! wait_for 10 starved_now; then
  # What the agent weighed: its report's evidence, as text.
  curl -sf "http://127.0.0.1:$PORT/report/$QUOTA_PID" | sed -e 's/<[^>]*>/ /g' | tr -s ' ' |
    grep -iE 'throttl|waited|stall|busy|window' | head -20 >&2 || true
  fail "the agent's verdict for pid $QUOTA_PID is $(verdict_of "$QUOTA_PID"), not cpu-starved"
fi
curl -sf "http://127.0.0.1:$PORT/report/$QUOTA_PID" >"$WORK/report.html" || fail "no /report/$QUOTA_PID"
cause=$(sed -n 's/.*cause: <b>\([^<]*\)<.*/\1/p' "$WORK/report.html" | head -1)
echo "agent verdict: cpu-starved, cause $cause"
[[ $cause == cpu-quota* ]] || fail "/report/$QUOTA_PID names cause '$cause', not cpu-quota"

promtool_check "$WORK/m.txt" || fail "promtool check metrics failed"
echo "ok: agent cpu quota"
