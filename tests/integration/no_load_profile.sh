#!/usr/bin/env bash
# A run without load (--duration) with --profile profiles the whole run: a
# script that blocks its own loop every 300 ms gets blocked-loop, and the
# top hotspot names the blocking function and the line that calls it.
# (By default the native probe starts the profile at the first block, when
# V8 has often optimised checksum into its caller: the late profile then
# charges "(anonymous)", while block stacks name checksum.)
source "$(dirname "$0")/lib.sh"
cp "$ROOT/tests/integration/fixtures/spin.js" .
rc=0; timeout 60 "$LD" run --profile --duration 3s --json out.json -o r.html -- node spin.js > out.txt 2> err.txt || rc=$?
[[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
[[ $(json_get out.json 'j.verdict') == blocked-loop ]] || fail "verdict $(json_get out.json 'j.verdict')"
[[ $(json_get out.json 'j.issues[0].hotspots[0].function') == checksum ]] ||
  fail "top hotspot $(json_get out.json 'JSON.stringify(j.issues[0].hotspots)')"
[[ $(json_get out.json 'j.issues[0].hotspots[0].caller') == spin.js:10 ]] ||
  fail "caller $(json_get out.json 'j.issues[0].hotspots[0].caller')"
grep -q "checksum" r.html || fail "the report does not show the hotspot"
# A plain script is not a server: no "0 req/s" in the terminal figures.
grep -q "req/s" out.txt && fail "req/s shown for a script that serves nothing: $(cat out.txt)"
true
