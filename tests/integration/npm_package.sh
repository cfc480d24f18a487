#!/usr/bin/env bash
# The npm package as a Node developer meets it: scripts/npm-pack.sh's tarball
# (the ctest fixture "npm: pack" makes it) is `npm install`ed in a scratch
# project (offline: it has no dependencies), its binary needs nothing beyond
# the C library, and `npx loopdoctor run` there diagnoses a bundled sample
# from the files the package carries, with the package's native probe.
#   npm_package.sh <folder holding loopdoctor-<version>.tgz>
source "$(dirname "$0")/lib.sh"
out_dir=${1:?usage: npm_package.sh <folder of the tarball>}
command -v npm >/dev/null || { echo "SKIP: npm is not installed"; exit 77; }
shopt -s nullglob
tarballs=("$out_dir"/loopdoctor-*.tgz)
[[ ${#tarballs[@]} == 1 ]] || fail "expected one loopdoctor-<version>.tgz in $out_dir: ${tarballs[*]:-none}"
tgz=${tarballs[0]}

# The package's manifest: the binary as bin, the platform npm checks.
tar -xzf "$tgz" package/package.json
json_get package/package.json 'j.bin.loopdoctor' | grep_q -x 'bin/loopdoctor' || fail "bin: $(json_get package/package.json 'j.bin')"
[[ $(json_get package/package.json 'j.os.join()+" "+j.cpu.join()+" "+j.libc.join()') == "linux x64 glibc" ]] ||
  fail "os/cpu/libc: $(cat package/package.json)"
[[ $(json_get package/package.json 'Object.keys(j.dependencies||{}).length') == 0 ]] || fail "the package has dependencies"

# A scratch project with its own npm cache: nothing of the user's changes.
sample=pbkdf2-sync
label=$(tr -d '[:space:]' <"$ROOT/samples/node/$sample/label")
mkdir proj
cp "$ROOT/samples/node/$sample/server.js" proj/
cd proj
export npm_config_cache=$WORK/npm-cache npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
npm init -y >/dev/null
npm install --offline --no-save "$tgz" >install.log 2>&1 || { cat install.log >&2; fail "npm install of $tgz failed"; }
bin=node_modules/loopdoctor/bin/loopdoctor
[[ -x $bin && -L node_modules/.bin/loopdoctor ]] || fail "no node_modules/.bin/loopdoctor linked to $bin"

# Only the C library: libc, libm, the loader and the vDSO.
ldd "$bin" >ldd.txt
extra=$(awk '{print $1}' ldd.txt | grep -Ev '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|/lib64/ld-linux-x86-64\.so\.2)$' || true)
[[ -z $extra ]] || fail "the installed binary needs more than the C library: $(cat ldd.txt)"
readelf -S "$bin" | grep_q '\.symtab' && fail "the installed binary is not stripped"
# The glibc README promises (2.35: Ubuntu 22.04), binary and addons alike.
glibc=$(objdump -T "$bin" node_modules/loopdoctor/share/loopdoctor/probes/node/native/*.node |
  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
[[ $(printf '%s\n' "$glibc" GLIBC_2.35 | sort -V | tail -1) == GLIBC_2.35 ]] ||
  fail "the package needs $glibc, above the GLIBC_2.35 README states: $(objdump -T "$bin" | grep "$glibc")"

# npx runs the package's binary, which uses the package's probe and templates
# (not the source tree's, nor any set by the environment).
unset LOOPDOCTOR_DATA_DIR LOOPDOCTOR_NATIVE_DIR
npx --offline loopdoctor --version >version.txt
pkg_dir=$(cd node_modules/loopdoctor && pwd -P)
grep -q "probe: *$pkg_dir/share/loopdoctor/probes/node/probe.js" version.txt || fail "npx loopdoctor uses another probe: $(cat version.txt)"
grep -q "templates: *$pkg_dir/share/loopdoctor/report_templates" version.txt || fail "npx loopdoctor uses other templates: $(cat version.txt)"

rc=0
timeout 90 npx --offline loopdoctor run --load / -d 3 --json out.json -- node server.js >stdout.txt 2>stderr.txt || rc=$?
cat stderr.txt
[[ $rc == 0 ]] || fail "npx loopdoctor run exited $rc"
verdict=$(json_get out.json 'j.verdict')
[[ $verdict == "$label" ]] || fail "npx loopdoctor's verdict on $sample is $verdict, its label $label"
# This Node's addon is in the package (20, 22, 24, 26): the run used it.
abi=$(node -p process.versions.modules)
if [[ -f $pkg_dir/share/loopdoctor/probes/node/native/loopdoctor_probe-$abi.node ]]; then
  [[ $(json_get out.json 'j.target.probe') == native ]] ||
    fail "the package's native probe was not used: $(json_get out.json 'j.target.probe_fallback')"
fi
echo "ok: npm install $(basename "$tgz"), npx loopdoctor: $verdict ($(json_get out.json 'j.target.probe') probe, Node $(node --version))"
