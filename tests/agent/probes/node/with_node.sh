#!/usr/bin/env bash
# Runs a command with another Node first on PATH (the probe tests on a second
# Node major), or exits 77 - ctest's SKIP_RETURN_CODE - when that Node is not
# installed: scripts/setup.sh --test puts Node 22 in .tools/node22.
#   with_node.sh <node prefix> <command...>
set -euo pipefail
prefix=$1
shift
if [[ ! -x $prefix/bin/node ]]; then
  echo "SKIP: no Node in $prefix (scripts/setup.sh --test installs Node 22 there)"
  exit 77
fi
PATH=$prefix/bin:$PATH exec "$@"
