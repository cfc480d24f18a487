#!/usr/bin/env bash
# What `loopdoctor attach` refuses (issue 31): one line naming the problem
# and what to do, exit 2, and the process unchanged (alive, no inspector
# left open, no port of ours).
#   attach_refusals.sh <case>
#   not-node       a process that is not Node (sleep)
#   no-process     a pid no process has
#   own-handler    a Node app that handles SIGUSR1 itself: no inspector opens
#   disabled       Node 22 with --disable-sigusr1 (SKIP 77 without Node 22)
#   debugger       an inspector with a debugger session attached
#   other-user     another user's process, loopdoctor not root
source "$(dirname "$0")/lib.sh"
case=$1
node22=$ROOT/.tools/node22/bin/node

ports_of() { { ss -Hltnp 2>/dev/null | grep -o "[0-9.:*]*:[0-9]* .*pid=$1," || true; } | sed 's/ .*//; s/.*://' | sort -n | tr '\n' ' '; }

# refused PID PATTERN: attach exits 2 with one line matching PATTERN, and
# the process lives on.
refused() {
  local rc=0
  timeout 60 "$LD" attach -d 2s --json out.json "$1" > out.txt 2> err.txt || rc=$?
  [[ $rc == 2 ]] || fail "exit $rc, want 2: $(cat err.txt)"
  grep -q "$2" err.txt || fail "the refusal does not say '$2': $(cat err.txt)"
  (( $(grep -c . err.txt) <= 2 )) || fail "more than the attach line and one reason: $(cat err.txt)"
  [[ ! -s out.json ]] || fail "a diagnosis was written for a refused attach"
  [[ $1 == 999999999 ]] || kill -0 "$1" || fail "process $1 did not survive the refused attach"
  echo "$case: $(grep -v '^loopdoctor: attaching' err.txt | head -1)"
}

# A Node process (arguments after the script), started plainly.
start_node() {  # start_node BIN SCRIPT [node options...]
  local bin=$1 script=$2; shift 2
  env -u NODE_OPTIONS "$bin" "$@" -e "$script" > node.out 2>&1 &
  NODE_PID=$!
  trap 'kill -9 $NODE_PID ${EXTRA_PID:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
  # Node installs its SIGUSR1 handler during start-up: wait for the app's line.
  for _ in $(seq 100); do grep -q ready node.out && break; sleep 0.1; done
  grep -q ready node.out || fail "node did not start: $(cat node.out)"
}
ready="console.log('ready'); setInterval(() => {}, 1000);"

case $case in
not-node)
  sleep 60 &
  EXTRA_PID=$!
  trap 'kill -9 $EXTRA_PID 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
  refused "$EXTRA_PID" "is not a Node.js process"
  ;;
no-process)
  refused 999999999 "cannot attach to process 999999999"
  ;;
own-handler)
  start_node node "process.on('SIGUSR1', () => console.log('usr1 handled')); $ready"
  before=$(ports_of "$NODE_PID")
  refused "$NODE_PID" "no inspector opened"
  [[ $(ports_of "$NODE_PID") == "$before" ]] || fail "ports changed: '$before' -> '$(ports_of "$NODE_PID")'"
  ;;
disabled)
  [[ -x $node22 ]] || { echo "SKIP: no Node 22 in .tools/node22"; exit 77; }
  "$node22" --disable-sigusr1 -e 0 2>/dev/null || { echo "SKIP: this Node 22 has no --disable-sigusr1"; exit 77; }
  start_node "$node22" "$ready" --disable-sigusr1
  refused "$NODE_PID" "started with --disable-sigusr1"
  ;;
debugger)
  [[ -x $node22 ]] || { echo "SKIP: no Node 22 (its WebSocket client plays the debugger)"; exit 77; }
  start_node node "$ready" --inspect=127.0.0.1:0
  url=$(grep -o 'ws://[^ ]*' node.out | head -1)
  [[ -n $url ]] || fail "no inspector URL: $(cat node.out)"
  "$node22" -e "const ws = new WebSocket(process.argv[1]); ws.onopen = () => console.log('open'); setInterval(() => {}, 1000);" \
    "$url" > debugger.out 2>&1 &
  EXTRA_PID=$!
  for _ in $(seq 50); do grep -q open debugger.out && break; sleep 0.1; done
  grep -q open debugger.out || fail "the stand-in debugger did not connect: $(cat debugger.out)"
  refused "$NODE_PID" "a debugger is attached"
  kill -0 "$EXTRA_PID" || fail "the debugger's session was cut"
  ;;
other-user)
  [[ $(id -u) == 0 ]] || { echo "SKIP: needs root to run loopdoctor as another user"; exit 77; }
  start_node node "$ready"
  chmod 755 "$WORK"
  rc=0
  (cd "$WORK" && setpriv --reuid=65534 --regid=65534 --clear-groups "$LD" attach -d 2s "$NODE_PID") \
    > out.txt 2> err.txt || rc=$?
  [[ $rc == 2 ]] || fail "exit $rc, want 2: $(cat err.txt)"
  grep -q "belongs to uid 0, not to you (uid 65534)" err.txt || fail "no clear refusal: $(cat err.txt)"
  kill -0 "$NODE_PID" || fail "the process died"
  echo "other-user: $(tail -1 err.txt)"
  ;;
*) fail "unknown case $case" ;;
esac
