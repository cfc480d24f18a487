#!/usr/bin/env bash
# loopdoctor end to end on the Node first on PATH (ctest puts Node 22 there
# through with_node.sh): pbkdf2-sync under load is diagnosed blocked-loop
#   native     with the native probe built for that Node's ABI
#   other-abi  with the JS probe when the only addon for its ABI was built for
#              another (a copy of the system Node's): the run still diagnoses
#              and says why
#   other_node_run.sh native|other-abi
source "$(dirname "$0")/../../../integration/lib.sh"
case_name=${1:?usage: other_node_run.sh native|other-abi}
abi=$(node -p process.versions.modules)
version=$(node -p process.versions.node)
native_dir=$(dirname "$LD")/probes/node/native
[[ -f $native_dir/loopdoctor_probe-$abi.node ]] ||
  fail "no addon for Node $version (ABI $abi) in $native_dir: re-run cmake (scripts/build.sh) so it finds the headers"

ld_env=()
if [[ $case_name == other-abi ]]; then
  other=
  for f in "$native_dir"/loopdoctor_probe-*.node; do
    [[ -f $f && $f != */loopdoctor_probe-$abi.node ]] && { other=$(basename "$f"); break; }
  done
  [[ -n $other ]] || { echo "SKIP: no addon for an ABI other than $abi in $native_dir"; exit 77; }
  # An installed layout whose native/ holds the other ABI's addon under this one's name.
  mkdir -p data/probes
  cp -r "$ROOT/agent/probes/node" data/probes/node
  cp -r "$ROOT/report_templates" data/report_templates
  mkdir -p data/probes/node/native
  cp "$native_dir/$other" "data/probes/node/native/loopdoctor_probe-$abi.node"
  ld_env=(LOOPDOCTOR_DATA_DIR="$WORK/data")
fi

rc=0
env "${ld_env[@]}" timeout 90 "$LD" run --load / -c 20 -d 3s --json - -o report.html \
  -- node "$ROOT/samples/node/pbkdf2-sync/server.js" > out.json 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
verdict=$(json_get out.json 'j.verdict')
probe=$(json_get out.json 'j.target.probe')
fallback=$(json_get out.json 'j.target.probe_fallback')
echo "Node $version (ABI $abi), $case_name: verdict $verdict, probe $probe, fallback: $fallback"
[[ $(json_get out.json 'j.target.versions.node') == "$version" ]] ||
  fail "the target ran on Node $(json_get out.json 'j.target.versions.node'), not $version"
[[ $verdict == blocked-loop ]] || fail "verdict $verdict, not blocked-loop"
if [[ $case_name == native ]]; then
  [[ $probe == native ]] || fail "probe $probe, not native: $fallback"
else
  [[ $probe == js ]] || fail "probe $probe, not js"
  [[ $fallback == *"was built for Node ABI ${other//[^0-9]/}, not for Node $version (ABI $abi): not loaded"* ]] ||
    fail "fallback does not say the addon was built for another ABI: $fallback"
fi
