#!/usr/bin/env bash
# A TypeScript server (tsc, maps beside dist/) and an esbuild bundle (inline
# map) under load: the top hotspot must name the original file, function and
# line, with that line's code from the source, and keep where it ran.
# ts-pricing-blocks: the same from the native probe's block stacks alone
# (--no-profile); exits 77 (SKIP) when the probe sent no block line.
#   source_map_samples.sh ts-pricing|bundled|ts-pricing-blocks
source "$(dirname "$0")/lib.sh"
sample=$1 options=()
case $1 in
  ts-pricing) want_file=src/pricing.ts want_fn=priceQuote want_generated=dist/pricing.js ;;
  ts-pricing-blocks) sample=ts-pricing options=(--no-profile)
    want_file=src/pricing.ts want_fn=priceQuote want_generated=dist/pricing.js ;;
  bundled) want_file=src/report.js want_fn=scoreInventory want_generated=server.js ;;
  *) fail "unknown sample $1" ;;
esac
dir=samples/node/$sample
rc=0
(cd "$ROOT" && timeout 90 "$LD" run --load / -c 20 -d 3s "${options[@]}" --json - -- node "$dir/server.js") \
  > out.json 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
if [[ $1 == ts-pricing-blocks ]]; then
  blocks=$(json_get out.json '(j.block_stacks || {}).blocks || 0')
  [[ $blocks -gt 0 ]] || { echo "SKIP: no block stacks (probe '$(json_get out.json 'j.target.probe || ""')')"; exit 77; }
  [[ $(json_get out.json 'j.issues[0].hotspots_source') == block-stacks ]] || fail "the hotspots are not the block stacks'"
fi
top=$(json_get out.json 'j.issues[0].hotspots[0]')
echo "$1: top hotspot $top"
check() { [[ $(json_get out.json "$1") == true ]] || fail "$2 (top hotspot: $top)"; }
check "j.issues[0].hotspots[0].function === '$want_fn'" "the function is not $want_fn"
check "j.issues[0].hotspots[0].location.startsWith('$dir/$want_file:')" "the location is not in $want_file"
check "j.issues[0].hotspots[0].generated_location.startsWith('$dir/$want_generated:')" \
  "generated_location is not in $want_generated"
# The hot line is a line of the original source, and its text is that line.
check "(() => { const h = j.issues[0].hotspots[0]; if (!h.hot_line || !h.hot_line.startsWith('$dir/$want_file:')) return false;
  const n = Number(h.hot_line.split(':').pop());
  const src = require('fs').readFileSync('$ROOT/$dir/$want_file', 'utf8').split('\n')[n - 1].trim();
  return h.hot_line_text === src && src.length > 0; })()" "the hot line is not a line of $want_file with its text"
echo "ok"
