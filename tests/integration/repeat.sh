#!/usr/bin/env bash
# `run --repeat N`: N sessions, every recording kept (--record's name with
# -<i>), one result: the verdict most runs reached with how many agreed,
# each figure's median and range, in the terminal, the Markdown and the
# JSON; --fail-on reads that verdict.
source "$(dirname "$0")/lib.sh"
cp "$ROOT/tests/integration/fixtures/spin.js" .
rc=0; timeout 90 "$LD" run --repeat 3 --duration 2s --record base.ndjson.gz --json out.json --markdown out.md \
  -o r.html --fail-on blocked-loop -- node spin.js 200 2> err.txt || rc=$?
[[ $rc -eq 3 ]] || fail "exit $rc, want 3 (--fail-on blocked-loop): $(cat err.txt)"
for i in 1 2 3; do [[ -s base-$i.ndjson.gz ]] || fail "no recording base-$i.ndjson.gz: $(ls)"; done
[[ $(grep -c "^loopdoctor: run [123] of 3$" err.txt) -eq 3 ]] || fail "progress lines: $(grep 'run . of' err.txt)"
[[ $(json_get out.json 'j.verdict') == blocked-loop ]] || fail "verdict $(json_get out.json 'j.verdict')"
[[ $(json_get out.json 'j.repeat.runs') == 3 ]] || fail "repeat.runs $(json_get out.json 'j.repeat.runs')"
[[ $(json_get out.json 'j.repeat.verdicts["blocked-loop"]') == 3 && $(json_get out.json 'j.repeat.agreed') == 3 ]] ||
  fail "votes $(json_get out.json 'j.repeat.verdicts')"
[[ $(json_get out.json 'j.repeat.recordings.join(" ")') == "base-1.ndjson.gz base-2.ndjson.gz base-3.ndjson.gz" ]] ||
  fail "recordings $(json_get out.json 'j.repeat.recordings')"
# The median lies within the range, and each run's own figure is one of them.
json_get out.json '(f => f.min <= f.median && f.median <= f.max && f.min < f.max + 1)(j.repeat.figures.loop_delay_p99_ms)' |
  grep_q '^true$' || fail "delay spread $(json_get out.json 'j.repeat.figures.loop_delay_p99_ms')"
for i in 1 2 3; do
  "$LD" analyze base-$i.ndjson.gz --json one-$i.json -o one-$i.html 2>/dev/null || true
done
json_get out.json "(() => { const v = [1,2,3].map(i => JSON.parse(require('fs').readFileSync('one-'+i+'.json','utf8')).figures.loop_delay_p99_ms).sort((a,b)=>a-b); return Math.abs(v[1] - j.repeat.figures.loop_delay_p99_ms.median) < 0.01 })()" |
  grep_q '^true$' || fail "the median is not the runs' median: $(json_get out.json 'j.repeat.figures.loop_delay_p99_ms')"
grep -q "blocked-loop in 3 of 3 runs; median of the runs, and their range:" err.txt || fail "terminal: $(cat err.txt)"
grep -q "^\*\*blocked-loop in 3 of 3 runs\*\*" out.md && grep -q "^| Loop delay p99 | " out.md || fail "Markdown: $(head -12 out.md)"
grep -q "Blocked event loop" r.html || fail "the report is not the typical run's"
# --json -: stdout carries the JSON alone, each run's target's stdout goes to stderr.
cat > talk.js <<'JS'
console.log('the target writes to stdout');
setInterval(() => {}, 1000);
JS
"$LD" run --repeat 2 --duration 1s --json - -- node talk.js > stdout.json 2> err.txt || true
[[ $(json_get stdout.json 'j.repeat.runs') == 2 ]] || fail "stdout is not the JSON alone: $(head -c 300 stdout.json)"
grep -q "the target writes to stdout" err.txt || fail "the target's stdout is not on stderr"
# --no-record keeps nothing to make the result from: a usage error.
rc=0; "$LD" run --repeat 2 --no-record --duration 1s -- node spin.js 200 2> err.txt || rc=$?
[[ $rc -eq 1 ]] && grep -q "\-\-repeat keeps every run's recording" err.txt || fail "--no-record: exit $rc, $(cat err.txt)"
rc=0; "$LD" run --repeat 0 --duration 1s -- node spin.js 200 2> err.txt || rc=$?
[[ $rc -eq 1 ]] && grep -q "repeat" err.txt || fail "--repeat 0: exit $rc, $(cat err.txt)"
true
