#!/usr/bin/env bash
# Builds the npm package from the release build and writes
# build/npm/loopdoctor-<version>.tgz: `npm install` it, then `npx loopdoctor …`.
#
# The package holds the prebuilt linux-x64 binary as its `bin` (no JS shim:
# npm links node_modules/.bin/loopdoctor to it, so npx runs it directly and
# signals and the exit code are the binary's own), the probe's JS files and
# its native addon for every supported Node major, and the report templates,
# laid out as an installed tree (bin/, share/loopdoctor/: cli/paths.cc finds
# them from the binary's own path). package.json's os/cpu/libc fields make npm
# refuse other platforms with EBADPLATFORM. No dependencies, no install
# scripts.
#
# The release build (build-npm/, -DLOOPDOCTOR_STATIC=ON, see
# packaging/static_deps.cmake) links libstdc++ and every third-party library
# statically and is stripped: `ldd` shows only libc, libm and the loader.
# Incremental: a second run rebuilds only what changed.
#
#   scripts/npm-pack.sh
#   LOOPDOCTOR_NPM_BUILD_DIR=...   the release build's folder (build-npm)
#   LOOPDOCTOR_NPM_OUT=...         where the tarball goes (build/npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${LOOPDOCTOR_NPM_BUILD_DIR:-$root/build-npm}
out_dir=${LOOPDOCTOR_NPM_OUT:-$root/build/npm}
# The Node majors whose addon the package carries: the native probe uses V8's
# C++ API besides Node-API, so it is built once per Node ABI
# (agent/probes/node/native/); any other Node runs the JS probe.
node_majors=(${LOOPDOCTOR_NPM_NODE_MAJORS:-20 22 24 26})

if [[ $(uname -s) != Linux || $(uname -m) != x86_64 ]]; then
  echo "npm-pack: the package is linux-x64; build it on Linux x86_64 (this is $(uname -s) $(uname -m))" >&2
  exit 1
fi
command -v npm >/dev/null || { echo "npm-pack: npm is not installed (scripts/setup.sh --test installs it)" >&2; exit 1; }

scripts/setup.sh
scripts/setup_static.sh
include_dirs=() abis=()
for major in "${node_majors[@]}"; do
  scripts/install_node.sh "$major"
  include_dirs+=("$root/.tools/node$major/include/node")
  abis+=("$("$root/.tools/node$major/bin/node" -p process.versions.modules)")
done

# Release flags without debug info (stripped anyway): the same -O2 as the dev build.
BUILD_DIR=$build_dir scripts/build.sh -DLOOPDOCTOR_STATIC=ON -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" \
  -DLOOPDOCTOR_TESTS=OFF "-DLOOPDOCTOR_NODE_INCLUDE_DIRS=$(IFS=';'; echo "${include_dirs[*]}")" \
  --target loopdoctor loopdoctor_probe_native
for abi in "${abis[@]}"; do
  [[ -f $build_dir/probes/node/native/loopdoctor_probe-$abi.node ]] ||
    { echo "npm-pack: no addon for Node ABI $abi in $build_dir/probes/node/native" >&2; exit 1; }
done

# The installed tree, stripped, then only bin/ and share/loopdoctor of it.
stage=$build_dir/npm-stage
rm -rf "$stage"
cmake --install "$build_dir" --prefix "$stage/prefix" --strip >/dev/null
pkg=$stage/package
mkdir -p "$pkg/share"
mv "$stage/prefix/bin" "$pkg/bin"
mv "$stage/prefix/share/loopdoctor" "$pkg/share/loopdoctor"
cp README.md "$pkg/README.md"
mkdir -p "$pkg/docs"
cp docs/*.md "$pkg/docs/"   # the manual README.md links to

# Refuse to pack a binary that needs more than the C library.
extra=$(ldd "$pkg/bin/loopdoctor" | awk '{print $1}' |
  grep -Ev '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|/lib64/ld-linux-x86-64\.so\.2)$' || true)
[[ -z $extra ]] || { echo "npm-pack: the binary needs more than libc: $(echo $extra)" >&2; exit 1; }
glibc=$(objdump -T "$pkg/bin/loopdoctor" "$pkg"/share/loopdoctor/probes/node/native/*.node |
  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
version=$(env -u LOOPDOCTOR_DATA_DIR "$pkg/bin/loopdoctor" --version | sed -n '1s/^loopdoctor \([^ ]*\).*/\1/p')
[[ -n $version ]] || { echo "npm-pack: the binary printed no version" >&2; exit 1; }

cat >"$pkg/package.json" <<EOF
{
  "name": "loopdoctor",
  "version": "$version",
  "description": "Diagnoses the event loop of a Node.js server under load: blocked loop, GC pressure, I/O bound, with the line to blame and an HTML report",
  "keywords": ["event loop", "diagnostics", "performance", "profiling", "load testing"],
  "bin": { "loopdoctor": "bin/loopdoctor" },
  "files": ["bin/", "share/", "docs/"],
  "os": ["linux"],
  "cpu": ["x64"],
  "libc": ["glibc"],
  "preferUnplugged": true,
  "loopdoctor": {
    "glibc": ">=${glibc#GLIBC_}",
    "nativeProbeNodeAbis": [$(IFS=,; echo "${abis[*]}")]
  }
}
EOF
mkdir -p "$out_dir"
rm -f "$out_dir"/loopdoctor-*.tgz
tarball=$(cd "$out_dir" && npm pack --silent --ignore-scripts "$pkg")
echo "npm-pack: $out_dir/$tarball ($(du -h "$out_dir/$tarball" | cut -f1); binary $(du -h "$pkg/bin/loopdoctor" | cut -f1), needs $glibc or later; Node addons for ABI ${abis[*]})" >&2
