#!/usr/bin/env bash
# Secrets stay out of every output (docs/manual.md, "Secrets in reports"). Plants a
# secret of each kind in the target's argv, in the environment (expanded
# into an argument, as a shell does), in the load URL and in a load header,
# then greps each output for each of them:
#   run:      the HTML report, the JSON, the Markdown, the terminal (stderr),
#             the recording
#   analyze:  the same four again from the recording, and from a raw one
#             (kept with --no-redact: redacted as it is read)
#   agent:    /processes, /report/<pid>, /metrics (the job label)
# A run with --no-redact keeps them in its recording, and `analyze
# --no-redact` of that and `agent --no-redact` show them: the check that the
# grep can find a secret at all. (tests/integration/files.sh: the recordings
# under .loopdoctor/, and one whose loopdoctor was killed.)
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
no_secret rec.ndjson "run: the recording"
# The load really ran against the redacted URL's server with the token.
[[ $(json_get run.json 'j.load.config.url') == "http://127.0.0.1:$port/?token=[REDACTED]" ]] ||
  fail "load.config.url is $(json_get run.json 'j.load.config.url')"
[[ $(json_get run.json 'j.target.command.join(" ")') == "node $server --password=[REDACTED] --token [REDACTED] [REDACTED] [REDACTED]" ]] ||
  fail "target.command is $(json_get run.json 'j.target.command.join(" ")')"

"$LD" analyze rec.ndjson --json an.json --markdown an.md -o an.html 2>an.err || fail "analyze failed: $(cat an.err)"
for f in an.html an.json an.md; do no_secret "$f" "analyze: $f"; done
no_secret an.err "analyze: the terminal" no-mark

# A redacted recording has nothing for --no-redact to restore.
"$LD" analyze rec.ndjson --no-redact --json an-raw.json 2>/dev/null || fail "analyze --no-redact failed"
no_secret an-raw.json "analyze --no-redact of a redacted recording"

# run --no-redact keeps the raw values in the recording (the load's URL is
# recorded without its userinfo, headers not at all); analyze redacts them
# as it reads, and --no-redact shows them.
rc=0
PORT=$port timeout 90 "$LD" run --no-redact --load "http://planteduser:$url_pw@127.0.0.1:$port/?token=$query_tok" \
  --header "Authorization: Bearer $header_tok" -c 5 -d 2s --json raw-run.json -o raw-run.html \
  --record raw.ndjson "${args[@]}" >raw-run.out 2>raw-run.err || rc=$?
[[ $rc == 0 ]] || { cat raw-run.err >&2; fail "run --no-redact exited $rc"; }
for s in "$argv_pw" "$argv_tok" "$argv_hex" "$env_val" "$query_tok"; do
  grep -qF -- "$s" raw.ndjson || fail "run --no-redact: the recording lost '$s'"
done
"$LD" analyze raw.ndjson --json an2.json --markdown an2.md -o an2.html 2>an2.err || fail "analyze of a raw recording failed: $(cat an2.err)"
for f in an2.html an2.json an2.md; do no_secret "$f" "analyze of a raw recording: $f"; done
no_secret an2.err "analyze of a raw recording: the terminal" no-mark
"$LD" analyze raw.ndjson --no-redact --json raw.json -o raw.html 2>/dev/null || fail "analyze --no-redact failed"
for s in "$argv_pw" "$argv_tok" "$argv_hex" "$env_val" "$query_tok"; do
  grep -qF -- "$s" raw.json || fail "--no-redact: the JSON lacks '$s'"
  grep -qF -- "$s" raw.html || fail "--no-redact: the report lacks '$s'"
done

# The agent: the same argv through a probe, read back over HTTP.
# agent_outputs TAG [agent options...]: an agent and a probed target with
# the planted argv; writes TAG-procs.json, TAG-report.html, TAG-metrics.txt,
# TAG-agent.err and sets target.
agent_outputs() {
  local tag=$1; shift
  local sock=$WORK/$tag/probe.sock aport
  aport=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  "$LD" agent --listen "127.0.0.1:$aport" --socket "$sock" "$@" 2>"$tag-agent.err" &
  agents+=($!)
  NODE_OPTIONS="--require $ROOT/agent/probes/node/probe.js" LOOPDOCTOR_ENDPOINT=$sock LOOPDOCTOR_INTERVAL_MS=250 \
    LOOPDOCTOR_JOB="job-$env_val" PORT=0 node "$server" --password="$argv_pw" --token "$argv_tok" "$argv_hex" "$API_SECRET" \
    >"$tag-node.out" 2>&1 &
  target=$!
  agents+=("$target")
  for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$aport/processes" >"$tag-procs.json" 2>/dev/null && grep -q "\"pid\": $target" "$tag-procs.json" && break
    sleep 0.2
  done
  grep -q "\"pid\": $target" "$tag-procs.json" || fail "$tag: the probe did not reach the agent: $(cat "$tag-agent.err")"
  sleep 1
  curl -sf "http://127.0.0.1:$aport/report/$target" >"$tag-report.html" || fail "$tag: /report/$target failed"
  curl -sf "http://127.0.0.1:$aport/metrics" >"$tag-metrics.txt" || fail "$tag: /metrics failed"
}
agents=()
trap 'kill -9 "${agents[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
agent_outputs agent
no_secret agent-procs.json "agent: /processes"
no_secret agent-report.html "agent: /report"
no_secret agent-metrics.txt "agent: /metrics" no-mark
grep -q "pid=\"$target\",job=\"job-\[REDACTED\]\"" agent-metrics.txt || fail "the job label is not redacted: $(grep "pid=\"$target\"" agent-metrics.txt | head -1)"
no_secret agent-agent.err "agent: its log" no-mark

# `agent --no-redact` keeps them in /processes and /report (the argv's
# secrets; the URL and header are not the agent's).
agent_outputs raw-agent --no-redact
for s in "$argv_pw" "$argv_tok" "$argv_hex" "$env_val"; do
  grep -qF -- "$s" raw-agent-procs.json || fail "agent --no-redact: /processes lacks '$s'"
  grep -qF -- "$s" raw-agent-report.html || fail "agent --no-redact: /report lacks '$s'"
done
grep -q "pid=\"$target\",job=\"job-$env_val\"" raw-agent-metrics.txt ||
  fail "agent --no-redact: the job label is redacted: $(grep "pid=\"$target\"" raw-agent-metrics.txt | head -1)"
echo "ok: no planted secret in any output (${#secrets[@]} secrets, 19 outputs); run, analyze and agent --no-redact keep them"
