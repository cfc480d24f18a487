#!/usr/bin/env bash
# Renders a sample report, opens it in headless Chromium with every request
# forced through a local proxy that only records and drops connections, and
# checks that the page made no network request and painted a non-trivial
# screenshot.
#   browser_test.sh WRITE_SAMPLE_REPORT_BIN WORK_DIR [scenario]
#
# Chromium itself phones home even with every "quiet" flag (component
# updater, network time, and accounts.google.com ListAccounts, which no flag
# disables — chromiumembedded/cef#4276). Those exact service hosts are
# recorded but not counted; any other connection counts as a page request. A
# control page that loads one remote image must be caught, proving the proxy
# sees what the page asks for.
set -euo pipefail

writer=${1:?path to write_sample_report}
work=${2:?work dir}
scenario=${3:-blocked}
chromium=${CHROMIUM:-/usr/bin/chromium}
# A screenshot of a blank or unstyled page compresses to a few KB; the styled
# report with charts is far larger.
min_png_bytes=40000
chromium_timeout_s=100  # generous: the CI machine may be loaded
browser_hosts='^(clients[0-9]*\.google\.com|update\.googleapis\.com|accounts\.google\.com|redirector\.gvt1\.com|optimizationguide-pa\.googleapis\.com|safebrowsingohttpgateway\.googleapis\.com|content-autofill\.googleapis\.com|www\.google\.com)$'

rm -rf "$work" && mkdir -p "$work"
report="$work/report.html"
shot="$work/report.png"
"$writer" "$report" "$scenario"

proxy_pid=""
cleanup() { [[ -n "$proxy_pid" ]] && kill "$proxy_pid" 2>/dev/null || true; }
trap cleanup EXIT

# Starts the recording proxy on an ephemeral 127.0.0.1 port; one host per
# line in $1.log, the port in $1.port.
start_proxy() {
  rm -f "$1.port" "$1.log"
  python3 - "$1" <<'PY' &
import socket, sys, threading
base = sys.argv[1]
lock = threading.Lock()
def log(line):
    with lock, open(base + ".log", "a") as f: f.write(line + "\n")
# Each connection gets its own thread and waits for its first line as long as
# the browser lives: Chromium opens speculative connections to the proxy and
# may send a request on one seconds later, or close it unused. A connection
# closed without a byte carried no request and is logged as "(unused)".
def serve(c):
    data = b""
    try:
        while b"\r\n" not in data and len(data) < 8192:
            chunk = c.recv(4096)
            if not chunk: break
            data += chunk
    except OSError:
        pass
    c.close()
    if not data:
        log("(unused)"); return
    parts = data.split(b"\r\n")[0].decode("latin-1").split()
    target = parts[1] if len(parts) > 1 else ""
    if "://" in target: target = target.split("://", 1)[1]
    host = target.split("/", 1)[0].rsplit(":", 1)[0]
    # Unparseable bytes still count as a request, shown as they came.
    log(host or "?" + repr(data[:80]))
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(64); s.settimeout(120)
open(base + ".log", "w").close()
open(base + ".port", "w").write(str(s.getsockname()[1]))
try:
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
except socket.timeout:
    pass
PY
  proxy_pid=$!
  for _ in $(seq 50); do [[ -s "$1.port" ]] && return 0; sleep 0.1; done
  echo "proxy did not start"; exit 1
}

# Opens $1 (a file) in headless Chromium through the proxy; screenshot to $2.
open_page() {
  local page=$1 png=$2 tag=$3
  start_proxy "$work/$tag"
  timeout "$chromium_timeout_s" "$chromium" --headless --no-sandbox --disable-gpu \
    --disable-background-networking --disable-component-update --disable-sync \
    --no-first-run --disable-default-apps --disable-extensions --no-pings \
    --disable-domain-reliability --disable-client-side-phishing-detection \
    --disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter \
    --user-data-dir="$work/profile-$tag" --proxy-server="127.0.0.1:$(cat "$work/$tag.port")" \
    --proxy-bypass-list='<-loopback>' \
    --window-size=1100,3900 --hide-scrollbars \
    --screenshot="$png" "file://$page" >"$work/chromium-$tag.log" 2>&1 || {
    echo "chromium failed; log:"; cat "$work/chromium-$tag.log"; exit 1; }
  sleep 0.5  # lets the proxy log what arrived just before the browser exited
  kill "$proxy_pid" 2>/dev/null || true
  wait "$proxy_pid" 2>/dev/null || true
  proxy_pid=""
}

page_requests() { grep -Ev "$browser_hosts|^\(unused\)$" "$work/$1.log" || true; }

# Control: a page that loads one remote image must be seen by the proxy.
control="$work/control.html"
echo '<!DOCTYPE html><title>control</title><img src="http://loopdoctor-control.invalid/x.png">' >"$control"
open_page "$control" "$work/control.png" control
if [[ -z "$(page_requests control)" ]]; then
  echo "FAIL: the control page's request was not seen; the proxy does not observe page traffic"
  exit 1
fi

open_page "$report" "$shot" report
requests=$(page_requests report)
size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
echo "screenshot: $shot ($size bytes)"
echo "browser's own connections (not counted): $(grep -Ec "$browser_hosts" "$work/report.log" || true)"
echo "connections closed unused (not counted): $(grep -Ec '^\(unused\)$' "$work/report.log" || true)"
if [[ -n "$requests" ]]; then
  echo "FAIL: the report made network requests to:"; echo "$requests"; exit 1
fi
[[ "$size" -ge "$min_png_bytes" ]] || { echo "FAIL: screenshot too small ($size bytes)"; exit 1; }
echo "PASS: zero page requests"
