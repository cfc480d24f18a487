#!/usr/bin/env bash
# Installs Node <major> from the npm registry's node-linux-<arch> package
# into .tools/node<major>/ (bin/node and include/node: the headers the native
# probe is built against). Idempotent: returns at once when it is there.
#   scripts/install_node.sh 22
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
major=${1:?usage: scripts/install_node.sh <node major, e.g. 22>}
[[ $major =~ ^[0-9]+$ ]] || { echo "install_node: '$major' is not a Node major version (e.g. 22)" >&2; exit 2; }
dest=$root/.tools/node$major
# What the native probe's build needs from the headers, and the binary.
needed=(bin/node include/node/node_api.h include/node/node_version.h include/node/v8.h include/node/uv.h)

complete() {
  local f
  for f in "${needed[@]}"; do [[ -e $1/$f ]] || return 1; done
}
complete "$dest" && exit 0

case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "install_node: no node-linux package for $(uname -m); install Node $major by hand" >&2; exit 1 ;;
esac
pkg=node-linux-$arch@$major
echo "setup: installing Node $major ($pkg from the npm registry) into ${dest#"$root"/}" >&2
mkdir -p "$root/.tools"
tmp=$(mktemp -d "$root/.tools/.node$major.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# npm pack: the registry's tarball, checked against its published integrity;
# nothing is installed or run from it.
(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$tmp"
if ! complete "$tmp/package"; then
  echo "install_node: $pkg lacks one of ${needed[*]}" >&2
  exit 1
fi
rm -rf "$dest"
mv "$tmp/package" "$dest"
echo "setup: $("$dest/bin/node" --version) in ${dest#"$root"/} (ABI $("$dest/bin/node" -p process.versions.modules))" >&2
