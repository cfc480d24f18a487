#!/usr/bin/env bash
# A leak under a container's memory limit: the time-to-limit is the
# cgroup's, not V8's heap limit, and the heap limit above it is flagged.
# The test makes a memory cgroup of its own (v2 where its memory controller
# is writable, else v1's memory hierarchy), runs loopdoctor and the target
# in it, and removes it afterwards. Where none can be made it exits 77
# (ctest SKIP) saying why: skipped, not passed.
source "$(dirname "$0")/lib.sh"

# 1 GiB: far above what unbounded-cache holds after 4 s of load at a fixed
# 500 req/s (~350 MB; unbounded, a fast machine reaches the limit in 4 s),
# so the run ends before the kernel's OOM killer would. Node 20 sizes its
# heap limit from the cgroup's (about half of it: 524 MB measured here), so
# the target is started as a misconfigured container's often is, with a
# heap limit above the container's: then the container's comes first.
LIMIT_BYTES=1073741824
HEAP_MB=2048
make_cgroup memory "memory.max=$LIMIT_BYTES" /sys/fs/cgroup/memory "memory.limit_in_bytes=$LIMIT_BYTES"
cg=$CG

rc=0
timeout 90 bash -c "echo \$\$ > '$cg/cgroup.procs' && exec \"\$0\" \"\$@\"" "$LD" run --load / -c 20 --rate 500 -d 4s \
  --json out.json -o report.html --record rec.ndjson.gz \
  -- node --max-old-space-size=$HEAP_MB "$ROOT/samples/node/unbounded-cache/server.js" > stdout.txt 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
verdict=$(json_get out.json 'j.verdict')
summary=$(json_get out.json 'j.summary')
echo "memory limit: verdict $verdict: $summary"
[[ $verdict == gc-pressure ]] || fail "verdict $verdict != gc-pressure"
[[ $summary == *"its container's memory limit (1024 MB)"* ]] || fail "the time-to-limit is not the container's: $summary"
notes=$(json_get out.json 'j.notes.join("\n")')
[[ $notes == *"--max-old-space-size="* ]] || fail "no note that V8's heap limit is above the container's: $notes"
