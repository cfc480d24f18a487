#!/usr/bin/env bash
# Lays a sample report out in headless Chromium at 1400 and 800 px wide and
# checks what a reader sees (issue 35, item 7): the page uses the window's
# width (not a fixed ~960 px column), nothing overflows sideways, the key
# figures fill their rows (no card alone on a last row under a full one), and
# no function name in a hotspot table wraps inside itself.
#   layout_test.sh WRITE_SAMPLE_REPORT_BIN WORK_DIR
# The report itself runs no script (its CSP allows none); a copy with its CSP
# removed and a measuring script appended is what is opened, and
# --dump-dom prints the figures the script wrote into the page.
set -euo pipefail

writer=${1:?path to write_sample_report}
work=${2:?work dir}
chromium=${CHROMIUM:-/usr/bin/chromium}
chromium_timeout_s=100  # generous: the CI machine may be loaded
# The content's width, inside the gutters. At 1400 px the old fixed column
# held 924 px; the page now grows to its 1400 px maximum less the gutters
# (2 × 35 px): anything under 1250 px is still a column in a wide window.
min_width_at_1400=1250
# At 800 px the gutters shrink to 20 px a side.
min_width_at_800=740

rm -rf "$work" && mkdir -p "$work"
"$writer" "$work/report.html" blocked >/dev/null
sed -e '/Content-Security-Policy/d' "$work/report.html" >"$work/probe.html"
cat >>"$work/probe.html" <<'JS'
<script>
(function () {
  const r = {};
  const page = document.querySelector('.page'), ps = getComputedStyle(page);
  r.page = Math.round(page.getBoundingClientRect().width - parseFloat(ps.paddingLeft) - parseFloat(ps.paddingRight));
  r.overflow = document.documentElement.scrollWidth > window.innerWidth;
  const rows = {};
  for (const f of document.querySelectorAll('section.figures > .figure')) {
    const top = Math.round(f.getBoundingClientRect().top);
    rows[top] = (rows[top] || 0) + 1;
  }
  r.card_rows = Object.keys(rows).sort((a, b) => a - b).map((k) => rows[k]);
  r.wrapped_names = [];
  for (const c of document.querySelectorAll('.hotspots code.fn')) {
    const lh = parseFloat(getComputedStyle(c).lineHeight) || 20;
    if (c.getBoundingClientRect().height > 1.6 * lh) r.wrapped_names.push(c.textContent);
  }
  const out = document.createElement('pre');
  out.id = 'layout';
  out.textContent = 'LAYOUT ' + JSON.stringify(r);
  document.body.appendChild(out);
})();
</script>
JS

fail=0
for width in 1400 800; do
  dom=$(timeout "$chromium_timeout_s" "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
          --no-first-run --disable-extensions --disable-background-networking --disable-component-update \
          --user-data-dir="$work/profile-$width" --window-size="$width,2000" \
          --dump-dom "file://$work/probe.html" 2>"$work/chromium-$width.log") || {
    echo "chromium failed at $width px; log:"; cat "$work/chromium-$width.log"; exit 1; }
  line=$(grep -o 'LAYOUT {.*}' <<<"$dom" | head -1)
  [[ -n "$line" ]] || { echo "FAIL: no layout figures at $width px"; exit 1; }
  echo "$width px: ${line#LAYOUT }"
  min=$([[ $width == 1400 ]] && echo $min_width_at_1400 || echo $min_width_at_800)
  python3 - "$width" "$min" "${line#LAYOUT }" <<'PY' || fail=1
import json, sys
width, min_width, r = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
bad = []
if r["page"] < min_width: bad.append(f"page {r['page']} px wide, want >= {min_width}")
if r["overflow"]: bad.append("the page scrolls sideways")
rows = r["card_rows"]
if len(rows) > 1 and rows[-1] == 1: bad.append(f"a key-figure card alone on the last row: {rows}")
if len(rows) > 1 and max(rows) - min(rows) > 1: bad.append(f"key-figure rows uneven: {rows}")
if r["wrapped_names"]: bad.append(f"function names wrapped: {r['wrapped_names']}")
for b in bad: print(f"FAIL at {width} px: {b}")
sys.exit(1 if bad else 0)
PY
done
[[ $fail == 0 ]] && echo "PASS: layout at 1400 and 800 px"
exit $fail
