#!/usr/bin/env bash
# Allocation sampling under `run` (issue 32): a run without load gets the
# probe's alloc lines in its recording, the churning and the leaking
# function named by them; --heap-snapshot writes a snapshot beside the
# recording and says where; --no-alloc-sampling leaves the lines out.
#   alloc_sampling.sh default|off
source "$(dirname "$0")/lib.sh"
cp "$ROOT/tests/agent/probes/node/fixtures/leak-and-churn.js" .
# A small heap: its snapshot takes a second or two, not ten.
export LEAK_AND_CHURN_MS=1500 LEAK_AND_CHURN_IDLE_MS=60000
case ${1:?default or off} in
  default)
    rc=0; timeout 120 "$LD" run --heap-snapshot --duration 5s --record rec.ndjson.gz -o r.html \
      -- node leak-and-churn.js > out.txt 2> err.txt || rc=$?
    [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
    zcat rec.ndjson.gz > rec.ndjson
    grep '"type":"alloc"' rec.ndjson > alloc.ndjson || fail "no alloc lines in the recording"
    grep -q '"mode":"churn"' alloc.ndjson || fail "no churn line"
    grep -q '"mode":"live"' alloc.ndjson || fail "no live point"
    grep -q '"fn":"parseOrders"' alloc.ndjson || fail "the churning function is not named"
    grep -q '"fn":"leakIntoCache"' alloc.ndjson || fail "the leaking function is not named"
    [[ -s rec.heapsnapshot ]] || fail "no heap snapshot beside the recording: $(ls)"
    grep -q "heap snapshot: $WORK/rec.heapsnapshot (" err.txt || fail "where it went is not said: $(cat err.txt)"
    head -c 20 rec.heapsnapshot | grep -q '^{"snapshot":{' || fail "not a V8 heap snapshot: $(head -c 40 rec.heapsnapshot)"
    grep -q '"type":"heap-snapshot"' rec.ndjson || fail "the answer is not recorded"
    ;;
  off)
    rc=0; timeout 120 "$LD" run --no-alloc-sampling --duration 3s --record rec.ndjson.gz -o r.html \
      -- node leak-and-churn.js > out.txt 2> err.txt || rc=$?
    [[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
    zcat rec.ndjson.gz > rec.ndjson  # whole: grep -q ending a pipe early fails it (pipefail)
    grep -q '"type":"alloc"' rec.ndjson && fail "alloc lines despite --no-alloc-sampling"
    grep -q '"type":"sample"' rec.ndjson || fail "no samples"
    [[ -e rec.heapsnapshot ]] && fail "a heap snapshot nobody asked for"
    ;;
esac
true
