#!/usr/bin/env bash
# A light server under a small CPU quota: loopdoctor says cpu-starved, cause
# cpu-quota. The test makes a cpu cgroup of its own (v2 where its cpu
# controller is writable, else v1's cpu hierarchy), puts only the target in
# it (with loopdoctor; the load tool stays outside), and removes it afterwards. Where no
# cgroup can be made it exits 77 (ctest SKIP) saying why: skipped, not passed.
source "$(dirname "$0")/lib.sh"

# A tenth of a core: hello-world under 20 connections wants a whole one.
QUOTA_US=10000 PERIOD_US=100000
make_cgroup cpu "cpu.max=$QUOTA_US $PERIOD_US" "/sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpu" \
  "cpu.cfs_period_us=$PERIOD_US cpu.cfs_quota_us=$QUOTA_US"
cg=$CG

parent=$(dirname "$cg")
rc=0
if [[ ${1:-start} == start ]]; then
  # loopdoctor starts inside the cgroup, so the target is in it from its
  # first instruction, as in a container (the /proc sampler finds a target's
  # cgroup when it spawns it); the load tool moves itself back out, so only
  # the target and loopdoctor's light sampler share the quota.
  timeout 90 bash -c "echo \$\$ > '$cg/cgroup.procs' && exec \"\$0\" \"\$@\"" "$LD" run \
    --on-port "echo \$\$ > '$parent/cgroup.procs' && exec wrk -t1 -c20 -d5s http://127.0.0.1:{port}/" \
    --json out.json -o report.html --record rec.ndjson.gz \
    -- node "$ROOT/samples/node/hello-world/server.js" > stdout.txt 2> stderr.txt || rc=$?
else
  # late: the server joins the quota once it listens (as systemd or
  # cgclassify move a running service): the load command finds it by its
  # port and moves it in before the load starts. ancestor: it joins a child
  # group of the quota's (a unit's group under its slice): the child
  # counts no throttling, its parent does.
  into=$cg
  if [[ $1 == ancestor ]]; then
    into=$cg/child
    mkdir "$into" || fail "cannot make $into"
    trap 'rc=$?; rmdir "$cg/child" "$cg" 2>/dev/null; (exit $rc); drop_work' EXIT
  fi
  move="pid=\$(ss -Hltnp 'sport = :{port}' | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1) && echo \$pid > '$into/cgroup.procs'"
  timeout 90 "$LD" run --on-port "$move && exec wrk -t1 -c20 -d5s http://127.0.0.1:{port}/" \
    --json out.json -o report.html --record rec.ndjson.gz \
    -- node "$ROOT/samples/node/hello-world/server.js" > stdout.txt 2> stderr.txt || rc=$?
fi
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
verdict=$(json_get out.json 'j.verdict')
cause=$(json_get out.json '(j.issues[0]||{}).cause')
echo "cpu-starved: verdict $verdict, cause $cause: $(json_get out.json '(j.issues[0]||{}).cause_text')"
[[ $verdict == cpu-starved ]] || { json_get out.json 'j.summary' >&2; fail "verdict $verdict != cpu-starved"; }
[[ $cause == cpu-quota ]] || fail "cause $cause != cpu-quota"
grep -q "cause: cpu-quota" stderr.txt || fail "the terminal does not name the cause"
