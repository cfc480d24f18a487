# Helpers for the agent's end-to-end tests (sourced). Every wait is bounded
# and every process started here is killed on exit.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../../shell_helpers.sh"
LD=${LOOPDOCTOR:?set LOOPDOCTOR to the binary}
ROOT=${LOOPDOCTOR_ROOT:?set LOOPDOCTOR_ROOT to the source tree}
WORK=$(mktemp -d /tmp/ld-agent.XXXXXX)
SOCK=$WORK/run/probe.sock
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  if [ -f "$WORK/agent.log" ]; then echo "--- agent log (last lines)" >&2; tail -25 "$WORK/agent.log" >&2; fi
  exit 1
}

# promtool_check FILE: `promtool check metrics` on an exposition, accepting
# one finding only: prom-client names its handle-count gauge
# nodejs_active_handles_total, and we keep its name and its type (issue 17),
# which promtool's suffix lint flags. promtool exits 3 for lint findings.
promtool_check() {
  local out rc=0
  out=$(promtool check metrics <"$1" 2>&1) || rc=$?
  local rest
  rest=$(printf '%s\n' "$out" | grep -v '^nodejs_active_handles_total non-counter metrics should not have "_total" suffix$' | grep -v '^$' || true)
  if [ -n "$rest" ] || { [ "$rc" != 0 ] && [ "$rc" != 3 ]; }; then
    printf 'promtool (exit %s):\n%s\n' "$rc" "$out" >&2
    return 1
  fi
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# wait_for SECONDS COMMAND...: retries COMMAND every 0.2 s until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

# start_agent PORT [agent options...]: sets AGENT_PID.
start_agent() {
  local port=$1; shift
  "$LD" agent --listen "127.0.0.1:$port" --socket "$SOCK" "$@" 2>>"$WORK/agent.log" &
  AGENT_PID=$!
  PIDS+=("$AGENT_PID")
  wait_for 15 curl -sf "http://127.0.0.1:$port/" || fail "the agent did not serve HTTP within 15 s"
}

# start_node NAME SAMPLE JOB: a sample server with the probe in agent mode;
# sets NODE_PID and NODE_PORT.
start_node() {
  local out=$WORK/$1.out
  NODE_OPTIONS="--require $ROOT/agent/probes/node/probe.js" LOOPDOCTOR_ENDPOINT=$SOCK \
    LOOPDOCTOR_INTERVAL_MS=${PROBE_INTERVAL_MS:-250} LOOPDOCTOR_JOB=$3 PORT=0 \
    node "$ROOT/samples/node/$2/server.js" >"$out" 2>&1 &
  NODE_PID=$!
  PIDS+=("$NODE_PID")
  wait_for 15 grep -q "listening on" "$out" || fail "$2 did not listen within 15 s"
  NODE_PORT=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$out" | head -1)
}

# jq-like: js FILE EXPR evaluates EXPR with the parsed JSON of FILE as `j`.
js() {
  node -e "const j=JSON.parse(require('fs').readFileSync(process.argv[1],'utf8')); const v=($2); console.log(typeof v==='object'?JSON.stringify(v):v)" "$1"
}
