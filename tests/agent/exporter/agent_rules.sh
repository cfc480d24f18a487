#!/usr/bin/env bash
# The shipped Prometheus files: config, rules and the rules' unit tests.
set -euo pipefail
ROOT=${LOOPDOCTOR_ROOT:?}
command -v promtool >/dev/null || { echo "promtool missing (Debian package prometheus)"; exit 77; }
cd "$ROOT/samples/prometheus"
promtool check config prometheus.yml
promtool check rules loopdoctor.rules.yml
promtool test rules loopdoctor.rules.test.yml
node -e 'JSON.parse(require("fs").readFileSync("grafana-dashboard.json","utf8"))'
echo "ok: prometheus rules"
