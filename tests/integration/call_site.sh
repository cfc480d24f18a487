#!/usr/bin/env bash
# The first view of a blocked loop on a real framework (issue 33): the
# user's own line and the library it called there, the library's time all
# gathered at that line (ejs-template: its compiled template and escapeXML
# are ejs's work, called from the app's ejs.render line).
#   call_site.sh <sample> <line regex> <into regex> <least share>
source "$(dirname "$0")/lib.sh"
sample=$1 want_line=$2 want_into=$3 least=$4
sample_run "$sample" out.json
issue='j.issues.find(i => i.kind === "blocked-loop")'
[[ $(json_get out.json "!!$issue") == true ]] || fail "no blocked-loop issue (verdict $(json_get out.json j.verdict))"
[[ $(json_get out.json "($issue.call_sites || []).length > 0") == true ]] || fail "the blocked-loop issue has no call_sites"
top="$issue.call_sites[0]"
echo "$sample: first call site $(json_get out.json "JSON.stringify($top)")"
line=$(json_get out.json "$top.line_text || ''")
into=$(json_get out.json "$top.into || ''")
share=$(json_get out.json "$top.share")
[[ $line =~ $want_line ]] || fail "the first call site's line '$line' does not match /$want_line/"
[[ $into =~ $want_into ]] || fail "the first call site calls into '$into', not /$want_into/"
awk -v s="$share" -v l="$least" 'BEGIN { exit !(s >= l) }' || fail "the first call site has $share of the time, under $least"
echo ok
