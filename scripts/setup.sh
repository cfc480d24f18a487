#!/usr/bin/env bash
# Installs what loopdoctor needs to build and run, from Debian packages only.
# Idempotent: a second run checks and returns in well under a second.
#   scripts/setup.sh          build + run dependencies
#   scripts/setup.sh --test   plus what the tests use (Chromium for the browser test,
#                             clang-14 for the fuzz smoke)
set -euo pipefail

pkgs=(build-essential cmake ninja-build pkg-config
      libuv1-dev prometheus-cpp-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
      catch2 libcli11-dev libkainjow-mustache-dev zlib1g-dev libhttp-parser-dev libsimdjson-dev
      wrk)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
if [[ "${1:-}" == "--test" ]]; then
  pkgs+=(chromium prometheus libcivetweb-dev clang-14)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
