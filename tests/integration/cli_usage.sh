#!/usr/bin/env bash
# Usage errors a new user meets first: a mistyped command is named, with the
# command it most likely meant, and exits 1 (issue 17 item 4).
source "$(dirname "$0")/lib.sh"

# expect_usage WORD SUGGESTION: `loopdoctor WORD x` exits 1 and says so.
expect_usage() {
  local rc=0
  "$LD" "$1" x 2>err.txt >out.txt || rc=$?
  [ "$rc" = 1 ] || fail "loopdoctor $1: exit $rc, expected 1"
  grep -q "unknown command '$1'" err.txt || fail "loopdoctor $1: the word is not named: $(cat err.txt)"
  if [ -n "$2" ]; then
    grep -q "Did you mean '$2'?" err.txt || fail "loopdoctor $1: no suggestion of $2: $(cat err.txt)"
  elif grep -q "Did you mean" err.txt; then
    fail "loopdoctor $1: suggested something for an unrelated word: $(cat err.txt)"
  fi
  grep -q "Commands: run, attach, analyze, compare, bench, load, agent, env" err.txt || fail "the commands are not listed"
  [ ! -s out.txt ] || fail "loopdoctor $1 wrote to stdout"
}

expect_usage rn run
expect_usage analyse analyze
expect_usage comapre compare
expect_usage agnet agent
expect_usage frobnicate ""
# analyze --path-map names what it expects (exit 1, nothing analysed).
rec="$ROOT/tests/data/hello-world.ndjson.gz"
for spec in "no-equals" "=/tmp" "/old=/nonexistent-dir-ld"; do
  rc=0
  "$LD" analyze "$rec" -o x.html --path-map "$spec" 2>err.txt >out.txt || rc=$?
  [ "$rc" = 1 ] || fail "analyze --path-map '$spec': exit $rc, expected 1"
  grep -q "\-\-path-map '$spec'" err.txt || fail "analyze --path-map '$spec': not named: $(cat err.txt)"
  [ ! -e x.html ] || fail "analyze --path-map '$spec' wrote a report"
done
grep -q "is not a directory" err.txt || fail "a missing NEW folder is not said: $(cat err.txt)"
# A bare `loopdoctor` lists the commands with one example (issue 35 item 5).
rc=0; "$LD" 2>err.txt >out.txt || rc=$?
[ "$rc" = 1 ] || fail "bare loopdoctor: exit $rc, expected 1"
for c in run attach analyze compare load agent env; do grep -q "^  $c " err.txt || fail "bare loopdoctor does not list $c: $(cat err.txt)"; done
grep -q "loopdoctor run --load / -d 10s -- node server.js" err.txt || fail "bare loopdoctor gives no example"
# A mistyped option is named with the one meant, not "arguments were not
# expected: server.js node"; nothing runs.
rc=0; "$LD" run --laod / -- node server.js 2>err.txt >out.txt || rc=$?
[ "$rc" = 1 ] || fail "run --laod: exit $rc, expected 1"
grep -q "unknown option '--laod'. Did you mean '--load'?" err.txt || fail "run --laod: $(cat err.txt)"
rc=0; "$LD" run -c 5 --duration=1s --fial-on blocked-loop -- node x.js 2>err.txt >out.txt || rc=$?
[ "$rc" = 1 ] && grep -q "unknown option '--fial-on'. Did you mean '--fail-on'?" err.txt || fail "run --fial-on: $rc $(cat err.txt)"
# env -- COMMAND sets the probe's environment for that command only.
out=$("$LD" env --job checkout -- sh -c 'echo "$LOOPDOCTOR_JOB|$NODE_OPTIONS|$LOOPDOCTOR_ENDPOINT"')
[[ $out == "checkout|"*"--require "*"probe.js|"* ]] || fail "env -- sh: the command did not get the probe's environment: $out"
[ -z "${LOOPDOCTOR_JOB:-}" ] || fail "env leaked into the caller"
rc=0; "$LD" env -- no-such-program-ld 2>err.txt || rc=$?
[ "$rc" = 127 ] && grep -q "cannot run 'no-such-program-ld'" err.txt || fail "env -- missing: $rc $(cat err.txt)"
# Known commands still parse as before.
"$LD" analyze --help >/dev/null || fail "analyze --help failed"
echo "cli usage: ok"
