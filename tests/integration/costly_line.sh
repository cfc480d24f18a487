#!/usr/bin/env bash
# Every blocked-loop sample's top hotspot names the line of the costly call
# (issue 15): the hot line's code when the hotspot is the application's own
# function, else the code of the application line that called it (Node's
# pbkdf2Sync, a package's function).
#   costly_line.sh <sample> <regex the line must match> [location regex]
source "$(dirname "$0")/lib.sh"
sample=$1 want=$2 want_location=${3:-}
sample_run "$sample" out.json
# The verdict is sample_verdict.sh's to check; here, the hotspots of the
# blocked-loop issue, or (on a loaded machine a sample can read as
# gc-pressure) of whichever issue lists them.
issue='(j.issues.find(i => i.kind === "blocked-loop" && (i.hotspots || []).length) ||
  j.issues.find(i => (i.hotspots || []).length))'
[[ $(json_get out.json "!!$issue") == true ]] || fail "no issue lists hotspots (verdict $(json_get out.json j.verdict))"
top="$issue.hotspots[0]"
echo "$sample: top hotspot $(json_get out.json "$top")"
# An application function: a plain path of the sample (not node:, a package
# "name version path", or native code).
app=$(json_get out.json "(h => /^[^ ()]+:\\d+\$/.test(h.location) && !h.location.startsWith('node:'))($top)")
line=$(json_get out.json "($app ? $top.hot_line_text : $top.caller_line_text) || ''")
echo "costly line: $line"
[[ $line =~ $want ]] || fail "the top hotspot's line '$line' does not match /$want/"
# Outside the application, that line is a call of the hotspot's function.
fn=$(json_get out.json "$top.function.replace(' (in native code)', '')")
if [[ $app == false && $fn != *" "* ]]; then
  calls="(^|[^A-Za-z0-9_\$])${fn}[[:space:]]*\\)?\\("
  [[ $line =~ $calls ]] || fail "the caller's line '$line' does not call $fn"
fi
if [[ -n $want_location ]]; then
  location=$(json_get out.json "$top.location")
  [[ $location =~ $want_location ]] || fail "the top hotspot's location '$location' does not match /$want_location/"
fi
echo ok
