#!/usr/bin/env bash
# Every memory sample's lead issue names the culprit as its first allocation
# hotspot (issue 32, docs/contracts.md "Memory by site"): the function that
# allocates what is kept (a leak) or what churns, with its location — the
# function's own line, as V8's sampling heap profiler places an allocation
# ("buildSession", "server.js:11"; a package's file as
# "express-session 1.19.0 session/memory.js:119"). When the first hotspot is
# Node's own code (Buffer.from's internals), its caller must be the culprit.
# <function> is a regex of the names that are right (V8 may inline one
# library function into another part-way through a run: the bytes then land
# on the caller); <pattern>, when given, is the site's recognised pattern.
#   alloc_site.sh <sample> <function regex> <location regex> [<pattern>]
source "$(dirname "$0")/lib.sh"
sample=$1 want_fn=$2 want_location=$3 want_pattern=${4:-}
sample_run "$sample" out.json

issue='j.issues[0]'
echo "$sample: verdict $(json_get out.json j.verdict), first allocation hotspots:"
json_get out.json "($issue.allocation_hotspots || []).slice(0, 3).map(h => '  ' + JSON.stringify(h)).join('\n')"
[[ $(json_get out.json "($issue.allocation_hotspots || []).length > 0") == true ]] ||
  fail "the lead issue ($(json_get out.json "$issue.kind")) lists no allocation hotspot"
top="$issue.allocation_hotspots[0]"
fn=$(json_get out.json "$top.function")
location=$(json_get out.json "$top.location")
pattern=$(json_get out.json "$top.pattern || ''")
[[ -z $want_pattern || $pattern == "$want_pattern" ]] ||
  fail "the first allocation hotspot $fn ($location) has pattern '${pattern}', not $want_pattern"
if [[ $fn =~ ^($want_fn)$ && $location =~ $want_location ]]; then
  echo "ok: $fn ($location)${pattern:+, pattern $pattern}"
  exit 0
fi
# Node's own code allocated it (node:buffer's fromStringFast for a
# Buffer.from): the culprit is the application function that called it.
caller=$(json_get out.json "$top.caller || ''")
if [[ $location == node:* && $caller =~ ^($want_fn)\ \( ]]; then
  echo "ok: $fn ($location) called from $caller"
  exit 0
fi
fail "the first allocation hotspot is $fn ($location)${caller:+, called from $caller}; want $want_fn at /$want_location/"
