#!/usr/bin/env bash
# The Debian package: cpack builds the .deb, its metadata names its Debian
# dependencies, it holds the binary, the probe with an addon for every Node
# ABI built, the templates, the agent's systemd unit and user; extracted into
# a scratch root (dpkg -x, never installed on this shared machine), its
# binary diagnoses a sample from the files it carries.
source "$(dirname "$0")/lib.sh"
build_dir=$(cd "$(dirname "$LD")" && pwd)
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$WORK/pkg" >cpack.log 2>&1 || { cat cpack.log >&2; fail "cpack failed"; }
debs=("$WORK"/pkg/loopdoctor_*.deb)
[[ -f ${debs[0]} ]] || fail "no .deb in $WORK/pkg: $(ls "$WORK/pkg")"
deb=${debs[0]}
dpkg-deb -f "$deb" Package Version Depends Recommends >control.txt
grep -q '^Package: loopdoctor$' control.txt || fail "control: $(cat control.txt)"
for dep in libuv1 libstdc\\+\\+6 libc6 zlib1g; do
  grep -Eq "^Depends:.*\\b$dep\\b" control.txt || fail "Depends lacks $dep: $(grep Depends control.txt)"
done
grep -q '^Recommends: nodejs$' control.txt || fail "Recommends: $(grep Recommends control.txt)"
dpkg-deb -I "$deb" postinst | grep_q "systemd-sysusers loopdoctor.conf" || fail "no postinst creating the agent's user"

dpkg-deb -x "$deb" root
r=$WORK/root
for f in usr/bin/loopdoctor usr/share/loopdoctor/probes/node/probe.js usr/share/loopdoctor/probes/node/lib/native.js \
         usr/share/loopdoctor/probes/node/attach.js usr/share/loopdoctor/probes/node/lib/lifecycle.js \
         usr/share/loopdoctor/report_templates/report.html.mustache usr/lib/systemd/system/loopdoctor-agent.service \
         usr/lib/sysusers.d/loopdoctor.conf usr/share/doc/loopdoctor/README.md; do
  [[ -e $r/$f ]] || fail "the package lacks /$f"
done
# Every addon the build made (one per Node ABI) is in the package.
shopt -s nullglob
for addon in "$build_dir"/probes/node/native/loopdoctor_probe-*.node; do
  [[ -f $r/usr/share/loopdoctor/probes/node/native/$(basename "$addon") ]] || fail "the package lacks the addon $(basename "$addon")"
done
unit=$r/usr/lib/systemd/system/loopdoctor-agent.service
for line in 'User=loopdoctor' 'RuntimeDirectory=loopdoctor' 'RuntimeDirectoryMode=0750' 'Restart=on-failure' \
            'ExecStart=/usr/bin/loopdoctor agent --listen 127.0.0.1:9464 --socket /run/loopdoctor/probe.sock'; do
  grep -qx "$line" "$unit" || fail "the unit lacks '$line'"
done
grep -q '^u loopdoctor ' "$r/usr/lib/sysusers.d/loopdoctor.conf" || fail "no user in the sysusers file"

# The extracted binary uses the extracted files, not the source tree's.
bin=$r/usr/bin/loopdoctor
env -u LOOPDOCTOR_DATA_DIR "$bin" --version >v.txt
grep -q "probe: *$r/usr/share/loopdoctor/probes/node/probe.js" v.txt || fail "the extracted binary uses another probe: $(cat v.txt)"
grep -q "templates: *$r/usr/share/loopdoctor/report_templates" v.txt || fail "the extracted binary uses other templates"
sample=$ROOT/samples/node/pbkdf2-sync
label=$(tr -d '[:space:]' <"$sample/label")
rc=0
env -u LOOPDOCTOR_DATA_DIR -u LOOPDOCTOR_NATIVE_DIR timeout 90 "$bin" run --load / -c 50 -d 5s --json out.json \
  -o report.html --no-record -- node "$sample/server.js" >stdout.txt 2>stderr.txt || rc=$?
[[ $rc == 0 ]] || { cat stderr.txt >&2; fail "the packaged loopdoctor exited $rc"; }
verdict=$(json_get out.json 'j.verdict')
[[ $verdict == "$label" ]] || fail "the packaged loopdoctor's verdict is $verdict, the sample's label $label"
# With an addon for this Node in the package, the run used it.
abi=$(node -p process.versions.modules)
if [[ -f $r/usr/share/loopdoctor/probes/node/native/loopdoctor_probe-$abi.node ]]; then
  [[ $(json_get out.json 'j.target.probe') == native ]] ||
    fail "the packaged native probe was not used: $(json_get out.json 'j.target.probe_fallback')"
fi
echo "ok: package $(basename "$deb"), verdict $verdict"
