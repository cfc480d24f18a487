#!/usr/bin/env bash
# Error cases of `loopdoctor run` and `analyze`, one per invocation:
#   errors.sh <case>
source "$(dirname "$0")/lib.sh"
case $1 in
not-found)
  rc=0; timeout 30 "$LD" run --duration 2s -- no-such-command-xyz 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2"
  grep -q "no-such-command-xyz" err.txt || fail "message does not name the command: $(cat err.txt)"
  grep -qi "no such file" err.txt || fail "message does not say why: $(cat err.txt)"
  ;;
exits-at-once)
  rc=0; timeout 30 "$LD" run --duration 5s --json out.json -o r.html -- node -e 'process.exit(4)' 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2 (target failed)"
  [[ $(json_get out.json 'j.target.exit.code') == 4 ]] || fail "exit code not recorded"
  [[ $(json_get out.json 'j.target.exit.stopped_by_loopdoctor') == false ]] || fail "not marked as exiting by itself"
  [[ $(json_get out.json 'j.verdict') == insufficient-data ]] || fail "verdict $(json_get out.json 'j.verdict')"
  grep -q "code 4" r.html || fail "report does not say the exit code"
  ;;
aborts-mid-load)
  cat > crash.js <<'JS'
let n = 0;
require('http').createServer((q, r) => {
  if (++n === 2000) process.abort();
  r.end('ok');
}).listen(0, '127.0.0.1');
JS
  rc=0; timeout 60 "$LD" run --load / -c 10 -d 20s --json out.json -o r.html -- node crash.js 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2"
  [[ $(json_get out.json 'j.target.exit.signal') == SIGABRT ]] || fail "signal not recorded: $(json_get out.json 'j.target.exit')"
  (( $(json_get out.json 'j.window.samples') > 0 )) || fail "no samples before the crash"
  grep -q "SIGABRT" r.html || fail "report does not show the crash"
  ;;
no-probe)
  rc=0; timeout 30 "$LD" run --duration 3s --json out.json -o r.html -- sleep 30 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "exit $rc, want 0"
  [[ $(json_get out.json 'j.verdict') == insufficient-data ]] || fail "verdict $(json_get out.json 'j.verdict')"
  json_get out.json 'j.summary' | grep_q "No probe connected" || fail "no explanation: $(json_get out.json 'j.summary')"
  [[ -s r.html ]] || fail "no report"
  ;;
truncated)
  timeout 60 "$LD" run --duration 3s --record rec.ndjson -o r1.html -- node -e 'setInterval(()=>{},1000)' 2>/dev/null
  # Cut at two thirds, inside a line (a cut that fell on a line's end left
  # a complete recording, and the test failed for want of a warning).
  node -e '
    const fs = require("fs");
    const b = fs.readFileSync("rec.ndjson");
    const start = b.lastIndexOf(10, Math.floor(b.length * 2 / 3)) + 1;
    const end = b.indexOf(10, start);
    fs.writeFileSync("cut.ndjson", b.subarray(0, start + Math.floor((end - start) / 2)));'
  rc=0; "$LD" analyze cut.ndjson --json out.json -o r.html 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "analyze exit $rc"
  grep -qi "cut off" err.txt || fail "no warning about the cut: $(cat err.txt)"
  (( $(json_get out.json 'j.window.samples') > 0 )) || fail "nothing analysed before the cut"
  ;;
report-unwritable)
  # A report that cannot be written: exit 2, the reason, and no output that
  # points at the missing file (the terminal's report line, the Markdown's).
  cp "$ROOT/tests/data/pbkdf2-sync.ndjson.gz" rec.ndjson.gz
  rc=0; "$LD" analyze rec.ndjson.gz -o /proc/no-such-report.html --markdown s.md 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, expected 2"
  grep -q "cannot write '/proc/no-such-report.html'" err.txt || fail "no reason: $(cat err.txt)"
  ! grep -q "no-such-report" <(grep -v "cannot write" err.txt) || fail "the summary names the unwritten report: $(cat err.txt)"
  ! grep -q "no-such-report" s.md || fail "the Markdown names the unwritten report"
  ;;
fail-on)
  rc=0; timeout 60 "$LD" run --duration 2s --fail-on healthy,insufficient-data --json out.json -o r.html -- sleep 10 2>/dev/null || rc=$?
  [[ $rc -eq 3 ]] || fail "exit $rc, want 3"
  rc=0; "$LD" run --fail-on nonsense -- true 2> err.txt || rc=$?
  [[ $rc -eq 1 ]] || fail "bad --fail-on: exit $rc, want 1"
  grep -q nonsense err.txt || fail "message does not name the bad value"
  ;;
json-stdout)
  # --json -: stdout is the JSON alone; the target's console.log goes to stderr.
  cat > logs.js <<'JS'
const s = require('http').createServer((q, r) => { console.log('request', q.url); r.end('ok'); });
s.listen(0, '127.0.0.1', () => console.log('listening on', s.address().port));
JS
  rc=0; timeout 60 "$LD" run --load / -c 2 -d 2s --json - -o r.html -- node logs.js > out.json 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
  [[ $(json_get out.json 'j.verdict') != "" ]] || fail "stdout is not the JSON alone: $(head -c 300 out.json)"
  grep -q "^listening on" err.txt || fail "the target's stdout is not on stderr"
  # A load under the useful length is named before the verdict.
  limit=$(grep -n "the load ran only 2 s" err.txt | cut -d: -f1)
  # The verdict's line: its name alone, or with its severity after it.
  verdict=$(grep -nE "^  $(json_get out.json 'j.verdict')( |\$)" err.txt | head -1 | cut -d: -f1 || true)
  [[ -n $limit && -n $verdict && $limit -lt $verdict ]] || fail "no short-load line before the verdict: $(grep -v '^request' err.txt)"
  ;;
never-listens)
  rc=0; timeout 60 "$LD" run --load / -d 2s --listen-timeout 1s --json out.json --markdown out.md -o r.html -- node -e 'setInterval(() => {}, 1000)' 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2: $(cat err.txt)"
  # One state in every output, as the exit status says: no verdict, and why.
  [[ $(json_get out.json 'j.verdict') == insufficient-data ]] || fail "JSON verdict $(json_get out.json 'j.verdict') with exit 2"
  json_get out.json 'j.summary' | grep_q "^No verdict on the server: no load ran, as --load asked, because the target did not listen on a port within 1 s" ||
    fail "JSON summary: $(json_get out.json 'j.summary')"
  grep -q "insufficient-data" out.md && grep -q "no load ran" out.md && ! grep -qi "healthy" out.md || fail "Markdown: $(head -5 out.md)"
  grep -q "No verdict on the server: no load ran" r.html || fail "the report does not say no load ran"
  grep -q "insufficient-data" err.txt && grep -q "no load ran" err.txt || fail "terminal: $(cat err.txt)"
  # On a crowded machine Node may not even have loaded the probe within 1 s: the
  # line then adds that the probe never connected, which is true; the rest holds.
  [[ $(head -1 err.txt) == "loopdoctor: the target did not listen on a port within 1 s; --load needs a server: raise --listen-timeout if it starts slowly, or check that it listens"* ]] || fail "first line: $(head -1 err.txt)"
  ! grep -q "healthy" err.txt || fail "a verdict about load that never ran: $(cat err.txt)"
  [[ -s out.json && -s r.html ]] || fail "report or JSON not written"
  # The collector's warning record reaches the JSON and the report.
  json_get out.json 'j.warnings.join("|")' | grep_q "did not report a listening port within 1 s" || fail "JSON warnings: $(json_get out.json 'j.warnings')"
  grep -q "did not report a listening port within 1 s" r.html || fail "report warnings"
  # No probe: the line says why it may be, Node or not.
  rc=0; timeout 60 "$LD" run --load / -d 2s --listen-timeout 1s -o r.html -- env NODE_OPTIONS= node -e 'setInterval(() => {}, 1000)' 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] && grep -q "its probe never connected, yet Node.js runs: it may still have been starting, or NODE_OPTIONS, which preloads the probe, did not reach it" err.txt || fail "Node without the probe: exit $rc, $(cat err.txt)"
  rc=0; timeout 60 "$LD" run --load / -d 2s --listen-timeout 1s -o r.html -- sleep 20 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] && grep -q "its probe never connected: is it a Node.js program?" err.txt || fail "not Node: exit $rc, $(cat err.txt)"
  rc=0; "$LD" run --load / --listen-timeout 0s -- true 2> err.txt || rc=$?
  [[ $rc -eq 1 ]] && grep -q "'0s'" err.txt || fail "--listen-timeout 0s: exit $rc, $(cat err.txt)"
  ;;
crash-on-start)
  rc=0; timeout 60 "$LD" run --load / -d 2s -o r.html -- node -e 'require("loopdoctor-no-such-module")' 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2"
  first=$(grep -m1 "^loopdoctor:" err.txt)
  [[ $first == *"(exited with code 1 at "*") before it listened"* ]] || fail "first message is not the cause: $first"
  # No verdict, for that reason: not the short run's "run for at least ...".
  grep -q "no load ran, as --load asked, because the target ended (exited with code 1 at .*) before it listened" err.txt ||
    fail "the verdict does not say why no load ran: $(cat err.txt)"
  ! grep -q "run for at least" err.txt || fail "a verdict advising a longer run: $(cat err.txt)"
  ;;
port-taken)
  node -e 'const s = require("net").createServer().listen(0, () => console.log(s.address().port))' > port.txt & holder=$!
  for _ in $(seq 50); do [[ -s port.txt ]] && break; sleep 0.1; done
  rc=0; PORT=$(cat port.txt) timeout 60 "$LD" run --load / -d 2s -o r.html -- node -e 'require("http").createServer().listen(Number(process.env.PORT))' 2> err.txt || rc=$?
  kill $holder
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2"
  grep -q EADDRINUSE err.txt || fail "no EADDRINUSE: $(cat err.txt)"
  ! grep -q "agent/probes" err.txt || fail "a probe frame in the target's stack: $(grep agent/probes err.txt)"
  [[ $(grep -m1 "^loopdoctor:" err.txt) == *"exited with code 1"* ]] || fail "first message is not the cause"
  ;;
load-url)
  # A full URL on another port than the target's is loaded as given, and said so.
  node -e 'const s = require("http").createServer((q, r) => r.end("other")).listen(0, "127.0.0.1", () => console.log(s.address().port))' > port.txt & other=$!
  for _ in $(seq 50); do [[ -s port.txt ]] && break; sleep 0.1; done
  url="http://127.0.0.1:$(cat port.txt)/slow"
  rc=0; PORT=0 timeout 60 "$LD" run --load "$url" -c 3 -d 1s --record rec.ndjson -o r.html -- node -e 'require("http").createServer((q, r) => r.end()).listen(0, "127.0.0.1")' 2> err.txt || rc=$?
  kill $other
  [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
  grep -Eq "^load: GET $url \(as given; the target listens on port [0-9]+\), 3 connections, 1 s\$" err.txt || fail "no load line: $(cat err.txt)"
  # The outputs say which load ran (the recording's load config), in the one wording.
  "$LD" analyze rec.ndjson --json out.json --markdown out.md -o r2.html 2> /dev/null
  [[ $(json_get out.json 'j.load.config.url+" "+j.load.config.connections+" "+j.load.config.duration_s') == "$url 3 1" ]] || fail "JSON load.config: $(json_get out.json 'j.load')"
  said="GET $url, 3 connections, 1 thread, no pipelining, as fast as it goes, 1 s planned"
  grep -qF -- "- load: \`$said\`" out.md || fail "Markdown load: $(grep -- '- load' out.md)"
  # (<wbr>: where the report lets a long URL wrap; the text shown is the same)
  grep -qF "Load configuration" r2.html && sed 's/<wbr>//g' r2.html | grep_q -F "$said" || fail "report does not say which load ran"
  grep '"type":"load-summary"' rec.ndjson | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const c=JSON.parse(d).config; if(c.url!==process.argv[1]||c.connections!==3||c.duration_s!==1) {console.error(JSON.stringify(c)); process.exit(1)}})' "$url" || fail "load-summary config"
  ;;
bad-load-options)
  for opt in "-p 0" "-t 0" "-c 0" "--rate -1" "-d 0s" "--timeout soon"; do
    rc=0; "$LD" run --load / $opt -- true 2> err.txt || rc=$?
    [[ $rc -eq 1 ]] || fail "$opt: exit $rc, want 1"
    grep -q -- "${opt#* }" err.txt || fail "$opt: message does not name the value: $(cat err.txt)"
  done
  ;;
bad-block-options)
  for opt in "--block-threshold 4ms" "--block-threshold 11s" "--block-interval 0s" "--block-threshold soon"; do
    rc=0; "$LD" run --duration 1s $opt -- true 2> err.txt || rc=$?
    [[ $rc -eq 1 ]] || fail "$opt: exit $rc, want 1"
    grep -q -- "${opt% *}" err.txt && grep -q -- "${opt#* }" err.txt || fail "$opt: message does not name the option and value: $(cat err.txt)"
  done
  grep -qx "loopdoctor run: --block-threshold: .*" err.txt || fail "an unparsable duration: $(cat err.txt)"
  rc=0; "$LD" run --duration 1s --block-threshold 4ms -- true 2> err.txt || rc=$?
  [[ $(cat err.txt) == "loopdoctor run: --block-threshold must be between 5ms and 10s, not '4ms'" ]] || fail "range message: $(cat err.txt)"
  ;;
block-options)
  # The flags reach the native probe: a 600 ms spin seen from 200 ms, then at 300, 400, 500 ms.
  # The spin counts its CPU time, 1 ms of wall time at a time: a stall the
  # thread spends waiting for a CPU is no block (the probe checks it ran),
  # and a wall-clock spin under ctest -j3 ran 17 % of its 600 ms once.
  timeout 60 "$LD" run --duration 5s --block-threshold 200ms --block-interval 100ms --record rec.ndjson -o r.html \
    -- node -e 'const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
      setTimeout(() => { const e = cpu() + 600; while (cpu() < e) { const w = Date.now() + 1; while (Date.now() < w) {} } }, 300)' \
    2> err.txt || fail "run: $(cat err.txt)"
  if grep -q '"probe":"native"' rec.ndjson; then
    grep -q '"type":"block"' rec.ndjson || fail "no block line recorded"
    # Start-up (loading the main module) can be a block of its own on a loaded machine: its start is before hello.
    # One line at the threshold, then one per interval for as long as the spin's wall time lasts.
    node -e 'const L=require("fs").readFileSync("rec.ndjson","utf8").trim().split("\n").map(JSON.parse); const h=L.find(m=>m.type==="hello");
      const d=L.filter(m=>m.type==="block"&&m.start>h.t&&m.in==="js").map(b=>b.duration_ms);
      if (d.length < 2 || d.length > 40 || d.some((x,i)=>x < 200 + 100*i)) { console.error(d); process.exit(1) }' || fail "block durations"
  fi
  ;;
interrupt)
  for sig in INT TERM; do
    timeout 60 "$LD" run --load / -c 2 -d 30s --json out.json -o r.html -- node -e 'require("http").createServer((q, r) => r.end()).listen(0)' 2> err.txt & ld=$!
    for _ in $(seq 300); do grep -q "^load:" err.txt && break; sleep 0.1; done
    sleep 1
    kill -$sig $ld
    rc=0; wait $ld || rc=$?
    want=$([[ $sig == INT ]] && echo 130 || echo 143)
    name=$([[ $sig == INT ]] && echo Ctrl-C || echo SIGTERM)
    [[ $rc -eq $want ]] || fail "SIG$sig: exit $rc, want $want"
    grep -Eq "^loopdoctor: run interrupted at [0-9.]+ s \($name\): the report covers the run up to then\$" err.txt || fail "SIG$sig: $(cat err.txt)"
    [[ -s out.json && -s r.html ]] || fail "SIG$sig: report not written"
  done
  ;;
no-record)
  # The recording lives in a private temporary folder until the outputs are written.
  mkdir tmp
  server='require("http").createServer((q, r) => r.end()).listen(0, "127.0.0.1")'
  rc=0; TMPDIR=$PWD/tmp timeout 60 "$LD" run --no-record --load / -c 2 -d 1s --json out.json -o r.html -- node -e "$server" 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
  [[ -n $(json_get out.json 'j.verdict') && -s r.html ]] || fail "outputs not written"
  [[ ! -e .loopdoctor ]] || fail "a recording was kept in .loopdoctor: $(ls .loopdoctor)"
  [[ -z $(ls -A tmp) ]] || fail "temporary recording left behind: $(ls -AR tmp)"
  ! grep -q "recording:" err.txt || fail "names a recording that is gone: $(grep recording: err.txt)"
  # Outputs that cannot be written: the recording is kept, and its path said.
  touch a-file  # a report path under a file cannot be written
  rc=0; TMPDIR=$PWD/tmp timeout 60 "$LD" run --no-record --duration 1s -o a-file/r.html -- node -e 'setTimeout(() => {}, 5000)' 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "unwritable report: exit $rc, want 2: $(cat err.txt)"
  kept=$(sed -n 's/^loopdoctor: kept the recording \([^ ]*\) despite --no-record.*/\1/p' err.txt)
  [[ $kept == "$PWD/tmp/loopdoctor-"*/recording.ndjson.gz && -s $kept ]] || fail "kept recording not said or absent: $(cat err.txt)"
  [[ $(stat -c %a "$(dirname "$kept")") == 700 ]] || fail "temporary folder not private"
  rc=0; "$LD" run --no-record --record x.ndjson -- true 2> err.txt || rc=$?
  [[ $rc -eq 1 ]] && grep -q -- "--record 'x.ndjson' and --no-record both given" err.txt || fail "both: exit $rc, $(cat err.txt)"
  ;;
load-404)
  # Issue 35 item 2: an app with no `/` route (Express's "Cannot GET /") under
  # --load /. Every output says first that every response was 404, and none
  # calls the run healthy.
  cat > app.js <<'JS'
const s = require('http').createServer((q, r) => { r.statusCode = 404; r.end(`Cannot GET ${q.url}`); });
s.listen(0, '127.0.0.1');
JS
  rc=0; timeout 60 "$LD" run --load / -c 10 -d 3s --json out.json --markdown out.md -o r.html -- node app.js 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
  [[ $(json_get out.json 'j.verdict') == insufficient-data ]] || fail "verdict $(json_get out.json 'j.verdict'): $(json_get out.json 'j.summary')"
  said=$(json_get out.json 'j.load.failure ? j.load.failure.text : ""')
  [[ $said == "Every response to GET / was 404 Not Found ("*" of "*" requests) — check the --load path." ]] ||
    fail "JSON load.failure: $(json_get out.json 'j.load')"
  [[ $(json_get out.json 'j.load.failure.share') == 1 && $(json_get out.json 'j.load.failure.top') == 404 ]] ||
    fail "JSON load.failure: $(json_get out.json 'j.load.failure')"
  [[ $(json_get out.json 'j.warnings[0]') == "$said" ]] || fail "JSON warnings: $(json_get out.json 'j.warnings')"
  json_get out.json 'j.summary' | grep_q "^No verdict on the server's health: 100 % of the load's requests failed, so the run measured the server answering 404" ||
    fail "JSON summary: $(json_get out.json 'j.summary')"
  # The terminal says it before the verdict; the Markdown right under its title.
  said_at=$(grep -n -m1 -F -- "  $said" err.txt | cut -d: -f1)
  verdict_at=$(grep -n -m1 -x "  insufficient-data" err.txt | cut -d: -f1)
  [[ -n $said_at && -n $verdict_at && $said_at -lt $verdict_at ]] || fail "terminal: $(cat err.txt)"
  [[ $(sed -n 3p out.md) == "**$said**" ]] || fail "Markdown: $(head -5 out.md)"
  grep -qF "<strong>The load failed:</strong> $said" r.html || fail "report: $(grep -o 'The load failed.\{0,200\}' r.html)"
  ! grep -q "No problem found" err.txt out.md r.html || fail "called healthy: $(grep 'No problem found' err.txt out.md)"
  ! grep -qx "  healthy" err.txt || fail "terminal verdict healthy"
  ;;
crash-mid-run)
  # Issue 35 item 3: a server that throws 1.5 s after it listens, under load:
  # exit 2, and no output calls it healthy.
  cat > app.js <<'JS'
const s = require('http').createServer((q, r) => r.end('ok'));
s.listen(0, '127.0.0.1', () => setTimeout(() => { throw new Error('boom, 1.5 s after listening'); }, 1500));
JS
  rc=0; timeout 60 "$LD" run --load / -c 10 -d 6s --json out.json --markdown out.md -o r.html -- node app.js 2> err.txt || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc, want 2: $(cat err.txt)"
  verdict=$(json_get out.json 'j.verdict')
  [[ $verdict != healthy ]] || fail "verdict healthy: $(json_get out.json 'j.summary')"
  [[ $(json_get out.json 'j.target.exit.code') == 1 && $(json_get out.json 'j.target.exit.died') == true ]] ||
    fail "exit: $(json_get out.json 'j.target.exit')"
  # With nothing else wrong in its 1.5 s, the crash is the reason in every output.
  if [[ $verdict == insufficient-data ]]; then
    summary=$(json_get out.json 'j.summary')
    [[ $summary == "The target exited with code 1 at "*", before loopdoctor stopped it, with "*" s observed: a server that dies under load is not healthy"* ]] ||
      fail "JSON summary: $summary"
    grep -qxF "  $summary" err.txt || fail "terminal: $(cat err.txt)"
    grep -qxF "> $summary" out.md || fail "Markdown: $(cat out.md)"
  fi
  ! grep -qx "  healthy" err.txt || fail "terminal verdict healthy"
  ! grep -q "^### loopdoctor: \`healthy\`" out.md || fail "Markdown verdict healthy"
  ! grep -qi "No problem found\|keep this report as a baseline" err.txt out.md r.html || fail "a healthy sentence: $(grep -i 'No problem found\|baseline' err.txt out.md)"
  ! grep -q "<h1>Healthy</h1>" r.html || fail "report headline healthy"
  grep -q "The target crashed:" r.html || fail "report does not show the crash"
  ;;
saturated)
  # Issue 35 item 4: a handler that burns ~5 ms of CPU per request under -c 50
  # saturates the loop. Blocked-loop or healthy, never a plain "No problem
  # found": a healthy verdict leads with the saturation; a loop busy ~100 %
  # is said saturated in every output; the server's request figure is not
  # "normal" beside a client p99 of seconds.
  cat > app.js <<'JS'
const s = require('http').createServer((q, r) => { const end = Date.now() + 5; while (Date.now() < end); r.end('ok'); });
s.listen(0, '127.0.0.1');
JS
  rc=0; timeout 60 "$LD" run --load / -c 50 -d 5s --json out.json --markdown out.md -o r.html -- node app.js 2> err.txt || rc=$?
  [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
  verdict=$(json_get out.json 'j.verdict') elu=$(json_get out.json 'j.figures.elu_mean')
  p99=$(json_get out.json 'j.load.latency_ms.p99') http=$(json_get out.json 'j.findings.find(f => f.signal === "http").outcome')
  echo "verdict $verdict, loop busy $elu, client p99 $p99 ms, http finding $http"
  ! grep -q "No problem found" err.txt out.md r.html || fail "a plain healthy: $(grep 'No problem found' err.txt out.md)"
  sat=$(json_get out.json 'j.load.saturation ? j.load.saturation.text : ""')
  if [[ $verdict == healthy ]]; then
    [[ -n $sat && $(json_get out.json 'j.summary') == "$sat"* ]] || fail "healthy without the saturation first: $(json_get out.json 'j.summary')"
  fi
  if node -e "process.exit($elu >= 0.9 ? 0 : 1)"; then
    [[ $sat == "The load saturated the server: its loop was busy "*" req/s is its capacity at this load (50 connections)"*'`--rate R`'* ]] ||
      fail "JSON load.saturation: $(json_get out.json 'j.load')"
    grep -qF -- "$sat" err.txt || fail "terminal does not say the saturation: $(cat err.txt)"
    grep -qF -- "$sat" out.md || fail "Markdown does not say the saturation: $(cat out.md)"
  fi
  if node -e "process.exit($p99 >= 1000 ? 0 : 1)"; then
    [[ $http == abnormal ]] || fail "http $http beside a client p99 of $p99 ms: $(json_get out.json 'j.findings.find(f => f.signal === "http")')"
    grep -q "Requests queued before the server saw them: clients waited p99 " r.html || fail "report's http finding"
  fi
  ;;
*) fail "unknown case $1" ;;
esac
echo "ok: $1"
