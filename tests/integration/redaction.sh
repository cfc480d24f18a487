#!/usr/bin/env bash
# Secrets stay out of every output (README, "Secrets in reports"). Plants a
# secret of each kind in the target's argv, in the environment (expanded
# into an argument, as a shell does), in the load URL and in a load header,
# then greps each output for each of them:
#   run:      the HTML report, the JSON, the Markdown, the terminal (stderr)
#   analyze:  the same four again from the recording
#   agent:    /processes, /report/<pid>, /metrics (the job label)
# The recording keeps them (the user's own file) and `analyze --no-redact`
# shows them: the check that the grep can find a secret at all.
source "$(dirname "$0")/lib.sh"
argv_pw=PlantedArgvPw1            # --password=...
argv_tok=PlantedArgvTok2          # --token ...
argv_hex=0123456789abcdef0123456789abcdef01234567   # a 40-digit hex key
env_val=PlantedEnvSecret3         # API_SECRET=..., passed as "$API_SECRET"
url_pw=PlantedUrlPw4              # http://user:...@host
query_tok=PlantedQueryTok5        # ?token=...
header_tok=PlantedHeaderTok6      # --header 'Authorization: Bearer ...'
secrets=("$argv_pw" "$argv_tok" "$argv_hex" "$env_val" "$url_pw" "$query_tok" "$header_tok")

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
server=$ROOT/samples/node/hello-world/server.js
export API_SECRET=$env_val
args=(-- node "$server" --password="$argv_pw" --token "$argv_tok" "$argv_hex" "$API_SECRET")

# no_secret FILE WHAT: none of the planted secrets is in FILE.
no_secret() {
  for s in "${secrets[@]}"; do
    if grep -qF -- "$s" "$1"; then fail "$2 shows the planted secret '$s': $(grep -oF -- "$s" "$1" | head -1)"; fi
  done
  grep -qF '[REDACTED]' "$1" || [[ $3 == no-mark ]] || fail "$2 shows no [REDACTED] mark"
}

rc=0
PORT=$port timeout 90 "$LD" run --load "http://planteduser:$url_pw@127.0.0.1:$port/?token=$query_tok" \
  --header "Authorization: Bearer $header_tok" -c 5 -d 2s --json run.json --markdown run.md -o run.html \
  --record rec.ndjson "${args[@]}" >run.out 2>run.err || rc=$?
[[ $rc == 0 ]] || { cat run.err >&2; fail "run exited $rc"; }
[[ $(json_get run.json 'j.verdict') != insufficient-data ]] || fail "the run has no data: $(cat run.err)"
no_secret run.html "run: the HTML report"
no_secret run.json "run: the JSON"
no_secret run.md "run: the Markdown"
no_secret run.err "run: the terminal"
# The load really ran against the redacted URL's server with the token.
[[ $(json_get run.json 'j.load.config.url') == "http://127.0.0.1:$port/?token=[REDACTED]" ]] ||
  fail "load.config.url is $(json_get run.json 'j.load.config.url')"
[[ $(json_get run.json 'j.target.command.join(" ")') == "node $server --password=[REDACTED] --token [REDACTED] [REDACTED] [REDACTED]" ]] ||
  fail "target.command is $(json_get run.json 'j.target.command.join(" ")')"

"$LD" analyze rec.ndjson --json an.json --markdown an.md -o an.html 2>an.err || fail "analyze failed: $(cat an.err)"
for f in an.html an.json an.md; do no_secret "$f" "analyze: $f"; done
no_secret an.err "analyze: the terminal" no-mark

# The recording keeps the raw values, and --no-redact shows them.
for s in "$argv_pw" "$argv_tok" "$argv_hex" "$env_val" "$query_tok"; do
  grep -qF -- "$s" rec.ndjson || fail "the recording lost '$s'"
done
"$LD" analyze rec.ndjson --no-redact --json raw.json -o raw.html 2>/dev/null || fail "analyze --no-redact failed"
for s in "$argv_pw" "$argv_tok" "$argv_hex" "$env_val" "$query_tok"; do
  grep -qF -- "$s" raw.json || fail "--no-redact: the JSON lacks '$s'"
  grep -qF -- "$s" raw.html || fail "--no-redact: the report lacks '$s'"
done

# The agent: the same argv through a probe, read back over HTTP.
sock=$WORK/agent/probe.sock
aport=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$LD" agent --listen "127.0.0.1:$aport" --socket "$sock" 2>agent.err &
agent=$!
NODE_OPTIONS="--require $ROOT/agent/probes/node/probe.js" LOOPDOCTOR_ENDPOINT=$sock LOOPDOCTOR_INTERVAL_MS=250 \
  LOOPDOCTOR_JOB="job-$env_val" PORT=0 node "$server" --password="$argv_pw" --token "$argv_tok" "$argv_hex" "$API_SECRET" \
  >node.out 2>&1 &
target=$!
trap 'kill -9 $agent $target 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$aport/processes" >procs.json 2>/dev/null && grep -q "\"pid\": $target" procs.json && break
  sleep 0.2
done
grep -q "\"pid\": $target" procs.json || fail "the probe did not reach the agent: $(cat agent.err)"
sleep 1
curl -sf "http://127.0.0.1:$aport/report/$target" >report.html || fail "/report/$target failed"
curl -sf "http://127.0.0.1:$aport/metrics" >metrics.txt || fail "/metrics failed"
no_secret procs.json "agent: /processes"
no_secret report.html "agent: /report"
no_secret metrics.txt "agent: /metrics" no-mark
grep -q "pid=\"$target\",job=\"job-\[REDACTED\]\"" metrics.txt || fail "the job label is not redacted: $(grep "pid=\"$target\"" metrics.txt | head -1)"
no_secret agent.err "agent: its log" no-mark
echo "ok: no planted secret in any output (${#secrets[@]} secrets, 13 outputs)"
