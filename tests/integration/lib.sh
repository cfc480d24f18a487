# Helpers for the integration tests (sourced). Every wait is bounded.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../shell_helpers.sh"
LD=${LOOPDOCTOR:?set LOOPDOCTOR to the binary}
ROOT=${LOOPDOCTOR_ROOT:?set LOOPDOCTOR_ROOT to the source tree}
WORK=$(mktemp -d /tmp/ld-it.XXXXXX)
# A failed test keeps its files to read (a pass or a skip removes them).
drop_work() {
  local rc=$?
  if [[ $rc -eq 0 || $rc -eq 77 ]]; then rm -rf "$WORK"; else echo "(files kept in $WORK)" >&2; fi
}
trap drop_work EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }

# json_get FILE EXPR: evaluates a JS expression on the parsed file as `j`.
json_get() { node -e "const j=JSON.parse(require('fs').readFileSync('$1','utf8')); const v=($2); console.log(typeof v==='object'?JSON.stringify(v):v)"; }

# A sample's entry: server.js, or the supervisor that starts its app.
#   sample_entry <sample dir>
sample_entry() {
  if [[ -f $1/server.js ]]; then echo "$1/server.js"; else echo "$1/supervisor.js"; fi
}

# sample_run SAMPLE OUT: the diagnosis of `run --load / -c 50 -d 5s` (the
# defaults) on samples/node/SAMPLE into OUT. The `sample: SAMPLE` test's run
# when it kept one ($LD_SAMPLE_RUNS, a ctest fixture), else a run of its own.
sample_run() {
  local kept="${LD_SAMPLE_RUNS:-/nonexistent}/$1.json" rc=0
  if [[ -s $kept ]]; then
    echo "(the run of ctest 'sample: $1')"
    cp "$kept" "$2"
    return 0
  fi
  timeout 90 "$LD" run --load / -c 50 -d 5s --json "$2" -- node "$(sample_entry "$ROOT/samples/node/$1")" \
    > run.out 2> stderr.txt || rc=$?
  [[ $rc -eq 0 ]] || { tail -20 stderr.txt >&2; fail "loopdoctor exited $rc"; }
}

# A cgroup of this test's own with one controller's limit set, in CG: v2
# (/sys/fs/cgroup with <controller> delegated) or else v1
# (/sys/fs/cgroup/<v1 dir>...). Exits 77 (ctest SKIP), saying why, where
# none can be made: skipped, not passed. Removed when the test ends (after
# its processes are gone), then the work folder.
#   make_cgroup <controller> "<v2 file>=<value>" "<v1 dirs>" "<v1 file>=<value> ..."
make_cgroup() {
  local controller=$1 v2=$2 v1_dirs=$3 v1_files=$4 kv dir
  local name=loopdoctor-test-$controller-$$
  CG=""
  if [[ -w /sys/fs/cgroup/cgroup.subtree_control ]] &&
     grep -qw "$controller" /sys/fs/cgroup/cgroup.controllers 2>/dev/null && mkdir "/sys/fs/cgroup/$name" 2>/dev/null; then
    CG=/sys/fs/cgroup/$name
    echo "+$controller" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
    echo "${v2#*=}" > "$CG/${v2%%=*}" || { rmdir "$CG"; CG=""; }
  fi
  if [[ -z $CG ]]; then
    for dir in $v1_dirs; do
      [[ -d $dir ]] && mkdir "$dir/$name" 2>/dev/null || continue
      CG=$dir/$name
      for kv in $v1_files; do echo "${kv#*=}" > "$CG/${kv%%=*}" || { rmdir "$CG"; CG=""; continue 2; }; done
      break
    done
  fi
  if [[ -z $CG ]]; then
    echo "SKIP: no writable $controller cgroup (v2 /sys/fs/cgroup with the $controller controller, or v1 $v1_dirs): run as root on a host that delegates one"
    exit 77
  fi
  trap 'rc=$?; rmdir "$CG" 2>/dev/null; (exit $rc); drop_work' EXIT
}
