#!/usr/bin/env bash
# The CI gate (issue 34): `loopdoctor compare BASE... -- HEAD...` on the real
# recordings in tests/data. A slow head (the three pbkdf2-sync recordings)
# against a fast base (hello-world, copied three times) breaks its budgets,
# and every output says so; the same runs a side hold; the one-to-one form
# still works; a bad budget file is named.
#   compare_gate.sh gate|github|one-to-one|bad-budget
source "$(dirname "$0")/lib.sh"
case_name=${1:?usage: compare_gate.sh gate|github|one-to-one|bad-budget}

data="$ROOT/tests/data"
for i in 1 2 3; do cp "$data/hello-world.ndjson.gz" "base-$i.ndjson.gz"; done
cp "$data/pbkdf2-sync.ndjson.gz" head-1.ndjson.gz
cp "$data/pbkdf2-sync-2s.ndjson.gz" head-2.ndjson.gz
cp "$data/pbkdf2-sync-5s.ndjson.gz" head-3.ndjson.gz
# Three broken (the head's p99 is ~250 ms, its throughput ~1 % of the
# base's, its CPU per request ~100x), one held (its GC share is ~1 %).
cat > budgets.json <<'JSON'
{"budgets": [{"figure": "loop_delay_p99_ms", "max": 100},
             {"figure": "gc_time_share", "max": 0.20},
             {"figure": "rps", "min_change": -0.05},
             {"figure": "cpu_ms_per_request", "max_change": 0.10}]}
JSON

# run_compare ARGS...: the exit status in $rc, stdout in out.txt, stderr in err.txt.
run_compare() {
  rc=0
  "$LD" compare "$@" >out.txt 2>err.txt || rc=$?
}

case $case_name in
gate)
  # Options after the head's runs, as a CI script appends them to a glob.
  run_compare base-*.ndjson.gz -- head-*.ndjson.gz --budget budgets.json --junit j.xml --json c.json \
    --markdown m.md -o c.html
  [ "$rc" = 3 ] || { cat err.txt >&2; fail "broken budgets: exit $rc, expected 3 (the CI failure exit)"; }
  grep_q -F 'budget broken: cpu_ms_per_request +' err.txt || fail "no broken CPU-per-request line: $(cat err.txt)"
  grep_q -E 'budget broken: cpu_ms_per_request \+[0-9]+ % \(95 % interval \+[0-9]+ % … \+[0-9]+ %\) > \+10 %$' err.txt ||
    fail "the broken budget's line is not as documented: $(grep 'budget broken' err.txt)"
  [ "$(grep -c '^budget broken: ' err.txt)" = 3 ] || fail "expected 3 broken-budget lines: $(cat err.txt)"
  grep_q -F 'blocked-loop in 3 of 3' err.txt || fail "the head's verdicts are not tallied"
  grep_q -E 'loop delay p99 +56\.2 ms' err.txt || fail "the base median of the p99 is not hello-world's 56.2 ms"
  # The JUnit file parses, one test case per budget, three failures.
  python3 - j.xml <<'PY' || fail "JUnit: $(cat j.xml)"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
failures = [c for c in cases if c.find("failure") is not None]
assert len(cases) == 4, len(cases)
assert len(failures) == 3 and suite.get("failures") == "3", suite.attrib
assert any("cpu_ms_per_request" in f.find("failure").get("message") for f in failures)
assert all(c.find("failure") is None for c in cases if c.get("name").startswith("gc_time_share"))
PY
  [ "$(json_get c.json 'j.schema')" = loopdoctor.compare/1 ] || fail "schema"
  [ "$(json_get c.json 'j.base.paths.length + "," + j.head.verdicts.join(" ")')" = "3,blocked-loop blocked-loop blocked-loop" ] ||
    fail "base/head in the JSON: $(json_get c.json 'j.head')"
  [ "$(json_get c.json 'j.changes.find(c => c.figure === "loop_delay_p99_ms").call')" = worse ] || fail "p99 not worse"
  [ "$(json_get c.json 'j.changes.find(c => c.figure === "loop_delay_p99_ms").interval_low > 0.05')" = true ] ||
    fail "the p99's interval does not lie beyond the noise floor"
  [ "$(json_get c.json 'j.budgets_broken')" = 3 ] || fail "budgets_broken"
  [ "$(json_get c.json '"before" in j')" = false ] || fail "before/after are the one-to-one form's only"
  grep_q -F '| loop delay p99 |' m.md || fail "the Markdown has no figures table: $(cat m.md)"
  grep_q -F '❌ 3 of 4 budgets broken' m.md || fail "the Markdown's headline: $(head -1 m.md)"
  grep_q -F '95 % interval' c.html || fail "the HTML has no interval column"
  # The same runs on each side: every call is noise, a relative budget holds: exit 0.
  echo '{"budgets": [{"figure": "cpu_ms_per_request", "max_change": 0.10}, {"figure": "rps", "min_change": -0.05}]}' > rel.json
  run_compare base-*.ndjson.gz -- base-*.ndjson.gz --budget rel.json --json same.json
  [ "$rc" = 0 ] || fail "budgets held: exit $rc: $(cat err.txt)"
  [ "$(json_get same.json '[...new Set(j.changes.filter(c => c.base_median !== null).map(c => c.call))].join()')" = noise ] ||
    fail "identical sides are not noise: $(json_get same.json 'j.changes.map(c => c.call)')"
  ;;
github)
  echo "# the job's own summary" > summary.md
  rc=0
  GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$WORK/summary.md" "$LD" compare base-*.ndjson.gz -- head-*.ndjson.gz \
    --budget budgets.json >out.txt 2>err.txt || rc=$?
  [ "$rc" = 3 ] || fail "exit $rc, expected 3"
  [ "$(grep -c '^::error title=loopdoctor budget::budget broken: ' out.txt)" = 3 ] ||
    fail "expected an ::error per broken budget: $(cat out.txt)"
  # %25 is '%' as the runner reads a workflow command.
  grep_q -F '::error title=loopdoctor budget::budget broken: cpu_ms_per_request +' out.txt || fail "CPU budget"
  grep_q -F '> +10 %25' out.txt || fail "the message's '%' is not escaped: $(cat out.txt)"
  # The head's blocking hotspot (pbkdf2Sync) named on the application line that called it.
  grep_q -E '^::error file=([^,]*/)?server\.js,line=[0-9]+,title=loopdoctor%3A blocked loop::pbkdf2Sync ' out.txt ||
    fail "no annotation on the app's line: $(cat out.txt)"
  ! grep_q 'file=node:' out.txt || fail "annotated a node: frame"
  [ "$(head -1 summary.md)" = "# the job's own summary" ] || fail "the step summary was overwritten, not appended to"
  grep_q -F '### loopdoctor compare: ❌ 3 of 4 budgets broken' summary.md || fail "no summary appended: $(cat summary.md)"
  # Not on Actions: no workflow commands, no summary.
  run_compare base-*.ndjson.gz -- head-*.ndjson.gz --budget budgets.json
  ! grep_q '^::' out.txt || fail "workflow commands without GITHUB_ACTIONS=true"
  ;;
one-to-one)
  run_compare "$data/hello-world.ndjson.gz" "$data/pbkdf2-sync.ndjson.gz" --json c.json
  [ "$rc" = 0 ] || fail "compare A B: exit $rc: $(cat err.txt)"
  grep_q -F 'verdict: healthy  →  blocked-loop' err.txt || fail "the one-to-one table: $(cat err.txt)"
  grep_q -E 'throughput \(req/s\) +5212 +72\.4 +72× slower' err.txt || fail "the one-to-one figures: $(cat err.txt)"
  grep_q -F 'one run per side: no interval' err.txt || fail "no word that one run a side has no interval"
  [ "$(json_get c.json 'j.before.verdict + " " + j.after.verdict')" = "healthy blocked-loop" ] || fail "before/after"
  [ "$(json_get c.json 'j.changes.find(c => c.figure === "rps").interval_low')" = null ] || fail "an interval from one run"
  [ "$(json_get c.json 'j.changes.find(c => c.figure === "rps").call')" = worse ] || fail "the point comparison's call"
  # A diagnosis JSON on one side, a recording on the other.
  "$LD" analyze "$data/pbkdf2-sync.ndjson.gz" -o a.html --json after.json 2>/dev/null || true
  run_compare "$data/hello-world.ndjson.gz" after.json
  [ "$rc" = 0 ] || fail "compare recording diagnosis.json: exit $rc: $(cat err.txt)"
  grep_q -F 'verdict: healthy  →  blocked-loop' err.txt || fail "a diagnosis JSON side: $(cat err.txt)"
  # Three runs and no `--`: which side is which is unknown.
  run_compare base-1.ndjson.gz base-2.ndjson.gz head-1.ndjson.gz
  [ "$rc" = 1 ] || fail "three runs without --: exit $rc"
  grep_q -F "compare A1 A2 ... -- B1 B2 ..." err.txt || fail "the usage is not given: $(cat err.txt)"
  ;;
bad-budget)
  # expect_bad FILE TEXT: exit 1, the message names the file and TEXT.
  expect_bad() {
    run_compare base-1.ndjson.gz -- head-1.ndjson.gz --budget "$1"
    [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1"
    grep_q -F -- "--budget '$1'" err.txt || grep_q -F "$1" err.txt || fail "$1 is not named: $(cat err.txt)"
    grep_q -F -- "$2" err.txt || fail "$1: '$2' not said: $(cat err.txt)"
  }
  echo '{"budgets": [{"figure": "rps", "max": 1}' > truncated.json
  expect_bad truncated.json "not valid JSON"
  echo '{"budgets": [{"figure": "loop_delay_p95_ms", "max": 50}]}' > unknown.json
  expect_bad unknown.json "budgets[0]: unknown figure 'loop_delay_p95_ms' (one of loop_delay_p50_ms"
  echo '{"budgets": [{"figure": "rps", "max_chnage": 0.1}]}' > typo.json
  expect_bad typo.json 'unknown key "max_chnage"'
  expect_bad missing.json "missing.json"
  # bench reads it before its first run: the error at once, no run made.
  rc=0; timeout 20 "$LD" bench --base "node -e 0" --head "node -e 0" --load / --budget typo.json 2> err.txt || rc=$?
  [ "$rc" = 1 ] && grep_q -F 'unknown key "max_chnage"' err.txt || fail "bench --budget typo.json: exit $rc, $(cat err.txt)"
  ! grep -q "base run 1" err.txt || fail "bench ran before checking its budget: $(cat err.txt)"
  ;;
*) fail "unknown case $case_name" ;;
esac
echo "ok: compare gate: $case_name"
