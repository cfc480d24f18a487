#!/usr/bin/env bash
# Files in the user's project (issue 35 item 6; docs/manual.md, Files): what a run
# or an attach leaves in the working directory when no path is given.
#   files.sh run      two runs of `node server.js --password=…` in a scratch
#                     project (a git repository): only .loopdoctor/ appears,
#                     with a .gitignore of `*` (git status shows nothing of
#                     it), one report and one recording per run named
#                     <time>-server.js, the recording redacted; the second
#                     run ends with a `loopdoctor compare` of the two that
#                     works as printed. Then: --no-redact keeps the secret,
#                     analyze's report goes beside them, explicit paths make
#                     no .loopdoctor/, two runs at once keep apart, and a
#                     loopdoctor killed mid-run leaves a redacted recording.
#   attach            the same names for an attached server.js, and the
#                     compare line from its second attach
source "$(dirname "$0")/lib.sh"
secret=PlantedFilesPw1
stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}(\.[0-9]+)?'
mkdir proj
cp "$ROOT/samples/node/hello-world/server.js" proj/
cd proj

# text_of FILE: a recording's text, up to where it was cut (a killed run's
# gzip stream has no end, and zcat says so).
text_of() { zcat "$1" 2> /dev/null || true; }

# said ERR WHAT: the path on the summary's "WHAT:" line of ERR.
said() { sed -n "s/^  $2: *//p" "$1" | tail -1; }

# only_loopdoctor: the project holds server.js and .loopdoctor/ alone, and
# git sees nothing of the folder.
only_loopdoctor() {
  [[ $(ls -A | grep -v '^\.git$' | sort | tr '\n' ' ') == ".loopdoctor server.js " ]] ||
    fail "the project holds more than .loopdoctor/: $(ls -A)"
  grep -qx '\*' .loopdoctor/.gitignore || fail ".loopdoctor/.gitignore does not ignore everything: $(cat .loopdoctor/.gitignore)"
  [[ $(git status --porcelain --untracked-files=all) == "?? server.js" ]] ||
    fail "git sees loopdoctor's files: $(git status --porcelain --untracked-files=all)"
}

# check_run ERR LABEL: the run's report and recording are .loopdoctor/<time>-LABEL,
# both there, the stem shared, the recording without the secret.
check_run() {
  local report recording
  report=$(said "$1" report) recording=$(said "$1" recording)
  [[ $report =~ ^\.loopdoctor/${stamp}-$2\.html$ ]] || fail "report path '$report' ($(cat "$1"))"
  [[ $recording == "${report%.html}.ndjson.gz" ]] || fail "recording '$recording' beside report '$report'"
  [[ -s $report && -s $recording ]] || fail "not written: $(ls -la .loopdoctor)"
  ! text_of "$recording" | grep_q -F "$secret" || fail "the recording $recording keeps the secret"
  text_of "$recording" | grep_q -F -- "--password=[REDACTED]" || fail "the recording $recording has no redacted argv"
  ! grep -qF "$secret" "$report" || fail "the report keeps the secret"
}

case $1 in
run)
  git init -q .
  ld_run() {  # ld_run ERR [options]: a 2 s load on server.js
    local err=$1 rc=0; shift
    timeout 90 "$LD" run --load / -c 5 -d 2s "$@" -- node server.js "--password=$secret" > /dev/null 2> "$err" || rc=$?
    [[ $rc == 0 ]] || fail "run exited $rc: $(cat "$err")"
  }
  ld_run "$WORK/run1.err"
  only_loopdoctor
  check_run "$WORK/run1.err" server.js
  ! grep -q "compare:" "$WORK/run1.err" || fail "a compare line without an earlier run: $(said "$WORK/run1.err" compare)"
  sleep 1  # a later second: the order is the names' as well
  ld_run "$WORK/run2.err"
  only_loopdoctor
  check_run "$WORK/run2.err" server.js
  [[ $(ls .loopdoctor | grep -c '\.html$') == 2 && $(ls .loopdoctor | grep -c '\.ndjson\.gz$') == 2 ]] ||
    fail "two runs, not two reports and two recordings: $(ls .loopdoctor)"
  line=$(said "$WORK/run2.err" compare)
  want="loopdoctor compare $(said "$WORK/run1.err" recording) $(said "$WORK/run2.err" recording)"
  [[ $line == "$want" ]] || fail "compare line '$line', want '$want'"
  # As printed, with this binary.
  rc=0; eval "\"\$LD\" ${line#loopdoctor } --json $WORK/compare.json" > /dev/null 2> "$WORK/compare.err" || rc=$?
  [[ $rc == 0 && -s $WORK/compare.json ]] || fail "the printed compare exited $rc: $(cat "$WORK/compare.err")"
  echo "second run: $line"

  # --no-redact keeps the raw values in the recording.
  ld_run "$WORK/raw.err" --no-redact
  text_of "$(said "$WORK/raw.err" recording)" | grep_q -F -- "--password=$secret" || fail "--no-redact: the recording lost the secret"
  rm "$(said "$WORK/raw.err" recording)" "$(said "$WORK/raw.err" report)"
  # analyze's report of a kept recording goes beside it, as the run's did.
  rec1=$(said "$WORK/run1.err" recording)
  rm "${rec1%.ndjson.gz}.html"
  "$LD" analyze "$rec1" > /dev/null 2> "$WORK/an.err" || fail "analyze: $(cat "$WORK/an.err")"
  [[ $(said "$WORK/an.err" report) == "${rec1%.ndjson.gz}.html" && -s ${rec1%.ndjson.gz}.html ]] ||
    fail "analyze's report: $(said "$WORK/an.err" report)"
  only_loopdoctor

  # Paths the user gives are where the files go; no .loopdoctor/ then.
  mkdir "$WORK/explicit" && cp server.js "$WORK/explicit/"
  (cd "$WORK/explicit" && timeout 90 "$LD" run --duration 1s -o r.html --record r.ndjson.gz --json r.json \
    -- node server.js > /dev/null 2> run.err) || fail "explicit paths: $(cat "$WORK/explicit/run.err")"
  [[ $(ls -A "$WORK/explicit" | sort | tr '\n' ' ') == "r.html r.json r.ndjson.gz run.err server.js " ]] ||
    fail "explicit paths: $(ls -A "$WORK/explicit")"

  # Two runs at once: two names, each run's own files.
  rm -r .loopdoctor
  timeout 60 "$LD" run --duration 1s -- node server.js 2> "$WORK/a.err" > /dev/null & a=$!
  timeout 60 "$LD" run --duration 1s -- node server.js 2> "$WORK/b.err" > /dev/null & b=$!
  wait $a || fail "run a: $(cat "$WORK/a.err")"
  wait $b || fail "run b: $(cat "$WORK/b.err")"
  [[ $(said "$WORK/a.err" recording) != "$(said "$WORK/b.err" recording)" ]] || fail "two runs, one name"
  [[ $(ls .loopdoctor | grep -c '\.ndjson\.gz$') == 2 && $(ls .loopdoctor | grep -c '\.html$') == 2 ]] ||
    fail "two runs at once: $(ls .loopdoctor)"

  # A loopdoctor killed mid-run leaves a recording as redacted as a finished one.
  rm -r .loopdoctor
  "$LD" run --load / -c 2 -d 30s -- node server.js "--password=$secret" 2> "$WORK/killed.err" > /dev/null & ld=$!
  for _ in $(seq 300); do grep -q "^load:" "$WORK/killed.err" && break; sleep 0.1; done
  sleep 1
  children=$(pgrep -P $ld || true)
  kill -9 $ld; wait $ld 2> /dev/null || true
  [[ -n $children ]] && kill -9 $children 2> /dev/null || true
  rec=$(ls .loopdoctor/*.ndjson.gz)
  [[ $rec =~ ^\.loopdoctor/${stamp}-server\.js\.ndjson\.gz$ ]] || fail "killed run's recording: $rec"
  text_of "$rec" | grep_q -F -- "--password=[REDACTED]" || fail "the killed run's recording has no redacted argv"
  ! text_of "$rec" | grep_q -F "$secret" || fail "the killed run's recording keeps the secret"
  echo "ok: .loopdoctor/ only, ignored by git; $(ls -A "$WORK/explicit" | tr '\n' ' ')with explicit paths"
  ;;
attach)
  env -u NODE_OPTIONS PORT=0 node server.js "--password=$secret" > "$WORK/server.out" 2>&1 &
  PID=$!
  trap 'kill -9 $PID 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
  for _ in $(seq 150); do grep -q "listening on" "$WORK/server.out" && break; sleep 0.1; done
  grep -q "listening on" "$WORK/server.out" || fail "server.js did not listen: $(cat "$WORK/server.out")"
  for i in 1 2; do
    rc=0; timeout 90 "$LD" attach --load / -c 5 -d 2s "$PID" > /dev/null 2> "$WORK/attach$i.err" || rc=$?
    [[ $rc == 0 ]] || fail "attach $i exited $rc: $(cat "$WORK/attach$i.err")"
    check_run "$WORK/attach$i.err" server.js
    [[ $(ls -A | sort | tr '\n' ' ') == ".loopdoctor server.js " ]] || fail "attach left: $(ls -A)"
    sleep 1
  done
  ! grep -q "compare:" "$WORK/attach1.err" || fail "a compare line after the first attach"
  want="loopdoctor compare $(said "$WORK/attach1.err" recording) $(said "$WORK/attach2.err" recording)"
  [[ $(said "$WORK/attach2.err" compare) == "$want" ]] || fail "compare line '$(said "$WORK/attach2.err" compare)', want '$want'"
  echo "second attach: $want"
  ;;
*) fail "unknown case '$1'" ;;
esac
