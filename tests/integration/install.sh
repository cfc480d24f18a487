#!/usr/bin/env bash
# `cmake --install` lays out bin/ and share/loopdoctor; the installed binary
# finds its probe and templates there (not in the source tree) and works.
source "$(dirname "$0")/lib.sh"
build_dir=$(dirname "$LD")
cmake --install "$build_dir" --prefix "$WORK/prefix" > /dev/null
bin=$WORK/prefix/bin/loopdoctor
[[ -x $bin ]] || fail "no installed binary"
[[ -f $WORK/prefix/share/loopdoctor/probes/node/probe.js ]] || fail "probe not installed"
# attach.js beside probe.js (`loopdoctor attach`), and the lifecycle both share.
for f in attach.js lib/lifecycle.js; do
  [[ -f $WORK/prefix/share/loopdoctor/probes/node/$f ]] || fail "probe's $f not installed"
done
[[ -f $WORK/prefix/share/loopdoctor/report_templates/report.html.mustache ]] || fail "templates not installed"
"$bin" --version > v.txt
grep -q "^loopdoctor [0-9]" v.txt || fail "no version line: $(cat v.txt)"
grep -q "probe: *$WORK/prefix/share/loopdoctor/probes/node/probe.js" v.txt || fail "installed binary uses another probe: $(cat v.txt)"
grep -q "templates: *$WORK/prefix/share/loopdoctor/report_templates" v.txt || fail "installed binary uses other templates"
# And the build-tree binary finds the source tree's files.
"$LD" --version | grep_q "probe: *$ROOT/agent/probes/node/probe.js" || fail "build binary does not find the source probe"
# The installed binary runs a diagnosis end to end.
timeout 60 "$bin" run --duration 2s --json out.json -o r.html -- node -e 'setInterval(()=>{}, 100)' 2>/dev/null
[[ $(json_get out.json 'j.target.runtime') == node ]] || fail "the installed probe did not connect"
[[ -s r.html ]] || fail "no report from the installed binary"
echo "ok: install"
