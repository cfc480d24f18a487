#!/usr/bin/env bash
# Installs what loopdoctor needs to build and run, from Debian packages only;
# with --test, also a second Node major and the samples' packages from the
# npm registry.
# Idempotent: a second run checks and returns in well under a second.
#   scripts/setup.sh          build + run dependencies
#   scripts/setup.sh --test   plus what the tests use (Chromium for the browser
#                             test, Prometheus, clang-14 for the fuzz smoke, Node 22
#                             in .tools/node22, python3 for two test scripts,
#                             PostgreSQL, the real-framework samples' npm
#                             packages in samples/node/node_modules)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
testing=0
[[ "${1:-}" == "--test" ]] && testing=1

pkgs=(build-essential cmake ninja-build pkg-config
      libuv1-dev prometheus-cpp-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
      catch2 libcli11-dev libkainjow-mustache-dev zlib1g-dev libhttp-parser-dev libsimdjson-dev
      wrk
      # Boost.Beast and Asio for the DevTools WebSocket client (agent/attach/):
      # header-only, so the binary gains no runtime library.
      libboost-dev)
# The native probe is built against the running Node's headers (node_api.h,
# node_version.h, v8.h). NodeSource's nodejs ships them in /usr/include/node;
# Debian's own nodejs keeps them in libnode-dev. A node that no package owns
# (nvm, a tarball) brings its own <prefix>/include/node, which CMake finds.
if ! command -v node >/dev/null 2>&1; then
  pkgs+=(nodejs libnode-dev)
elif [[ ! -f /usr/include/node/node_api.h ]] &&
     dpkg-query -S "$(readlink -f "$(command -v node)")" 2>/dev/null | grep -q '^nodejs:'; then
  pkgs+=(libnode-dev)
fi
if ((testing)); then
  pkgs+=(chromium prometheus libcivetweb-dev clang-14 python3)  # python3: the layout and README tests
  pkgs+=(postgresql)  # the pg-pool sample's server: its test starts a cluster of its own
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi

# One dpkg-query for all: a second run stays well under a second on a busy machine.
declare -A installed=()
while read -r name status; do
  [[ $status == 'install ok installed' ]] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null || true)
missing=()
for p in "${pkgs[@]}"; do
  [[ -n ${installed[$p]:-} ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tests run the probe on a second Node major too (V8's API changes with
# each major; the native probe is built once per ABI). Installed only here,
# in the project: nothing on the system changes.
if ((testing)); then
  "$root/scripts/install_node.sh" 22
fi

# The real-framework samples (Express, Fastify, Koa, React, ejs, pino, pg)
# resolve their packages from samples/node/node_modules: exactly the
# versions its package-lock.json pins (npm ci), never installed globally. A
# copy of the lockfile beside them says which lockfile they were installed
# from: a second run compares it and returns.
if ((testing)); then
  samples=$root/samples/node
  stamp=$samples/node_modules/.loopdoctor-installed-lock.json
  if ! cmp -s "$samples/package-lock.json" "$stamp"; then
    echo "setup: installing the samples' npm packages (npm ci in samples/node)" >&2
    (cd "$samples" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$samples/package-lock.json" "$stamp"
  fi
fi
