#!/usr/bin/env bash
# Static libraries for the release binary (-DLOOPDOCTOR_STATIC=ON, used by
# scripts/npm-pack.sh) that Debian ships only as shared objects: simdjson and
# civetweb, compiled here from Debian's own source packages, at the version of
# the -dev package installed (its headers are the ones the project compiles
# against), into .tools/static/lib. spdlog and fmt need nothing here (the
# static build uses them header-only), nor libuv, zlib and http-parser
# (Debian ships their .a).
#
# `apt-get source` reads a sources list of this script's own (deb-src for
# the release Debian's archive, checked against Debian's archive keyring) in
# .tools/static/apt: nothing on the system changes. Nothing here runs at CMake
# time. Idempotent: returns at once when the libraries of the installed
# versions are there.
#   scripts/setup_static.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/.tools/static
cxx=${CXX:-c++} cc=${CC:-cc}

# package -> the -dev package whose headers the project uses
declare -A dev=([simdjson]=libsimdjson-dev [civetweb]=libcivetweb-dev)
declare -A version=()
for src in "${!dev[@]}"; do
  v=$(dpkg-query -W -f='${Version}' "${dev[$src]}" 2>/dev/null) ||
    { echo "setup_static: ${dev[$src]} is not installed (scripts/setup.sh --test installs it)" >&2; exit 1; }
  version[$src]=$v
done
stamp="simdjson=${version[simdjson]} civetweb=${version[civetweb]}"
if [[ -f $dest/lib/libsimdjson.a && -f $dest/lib/libcivetweb.a && $(cat "$dest/stamp" 2>/dev/null) == "$stamp" ]]; then
  exit 0
fi

echo "setup_static: building $stamp from Debian's source packages into ${dest#"$root"/}" >&2
. /etc/os-release
apt_dir=$dest/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dest/lib"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian ${VERSION_CODENAME:?} main" \
  >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
          -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update -qq
tmp=$(mktemp -d "$dest/.src.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get "${apt_opts[@]}" source --download-only -qq \
  "simdjson=${version[simdjson]}" "civetweb=${version[civetweb]}" >/dev/null)
for src in simdjson civetweb; do
  # dpkg-source applies Debian's patches; apt-get already checked the files'
  # hashes against the signed index.
  (cd "$tmp" && dpkg-source -q -x "$src"_*.dsc "$src" >/dev/null 2>&1) ||
    { echo "setup_static: dpkg-source -x $src failed" >&2; exit 1; }
done

# simdjson: the amalgamated source, built as Debian's is (threads on, the
# runtime dispatch to the CPU's best kernel).
"$cxx" -O2 -DNDEBUG -std=c++17 -DSIMDJSON_THREADS_ENABLED=1 -I "$tmp/simdjson/singleheader" \
  -c "$tmp/simdjson/singleheader/simdjson.cpp" -o "$tmp/simdjson.o"
# civetweb: only what the agent's HTTP server uses (agent/exporter/http_server.cc):
# plain HTTP, no TLS (it would dlopen OpenSSL), no CGI, no IPv6 (as Debian's).
"$cc" -O2 -DNDEBUG -DNO_SSL -DNO_CGI -I "$tmp/civetweb/include" \
  -c "$tmp/civetweb/src/civetweb.c" -o "$tmp/civetweb.o"
rm -f "$dest/lib/libsimdjson.a" "$dest/lib/libcivetweb.a"
ar rcs "$dest/lib/libsimdjson.a" "$tmp/simdjson.o"
ar rcs "$dest/lib/libcivetweb.a" "$tmp/civetweb.o"
echo "$stamp" >"$dest/stamp"
echo "setup_static: $dest/lib/libsimdjson.a, $dest/lib/libcivetweb.a" >&2
