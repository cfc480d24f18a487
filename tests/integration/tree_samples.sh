#!/usr/bin/env bash
# `run` on the samples of issue 13 records every loop of the target: a
# worker thread's (worker-stall), two cluster workers' (cluster-blocked),
# the app under `npm start` (npm-start): checks the recording itself (the
# contract the analyzer reads). Every sample's diagnosis is checked too: the
# loop that is named and its verdict, from the JSON.
#   tree_samples.sh <worker-stall|cluster-blocked|npm-start|supervisor|offload-saturated>
source "$(dirname "$0")/lib.sh"
name=$1
sample=$ROOT/samples/node/$name
case $name in
  npm-start) cmd=(npm --prefix "$sample" start) ;;
  supervisor) cmd=(node "$sample/supervisor.js") ;;
  *) cmd=(node "$sample/server.js") ;;
esac
rc=0
timeout 120 "$LD" run --load / -c 20 -d 4s --listen-timeout 60s --json out.json -o r.html \
  --record rec.ndjson -- "${cmd[@]}" > out.txt 2> err.txt || rc=$?
[[ $rc -eq 0 ]] || fail "exit $rc: $(cat err.txt)"
# One object per line, for the checks below: every record of the run.
check() {
  node -e "
    const recs = require('fs').readFileSync('rec.ndjson', 'utf8').trim().split('\n').map(JSON.parse);
    const of = (type, pred = () => true) => recs.filter((r) => r.type === type && pred(r));
    const root = recs[0].pid;
    const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };
    if (of('load-start').length !== 1) fail('the load did not start');
    $1
  " || fail "recording check for $name (kept in $WORK)"
}
# The diagnosis (out.json): \$1's checks, with j the JSON and top its worst
# loop (the sample's label, when it has one, is the same verdict).
verdict() {
  node -e "
    const j = JSON.parse(require('fs').readFileSync('out.json', 'utf8'));
    const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };
    if (!j.loops) fail('one loop only: ' + j.verdict);
    const top = j.loops[0];
    $1
  " || fail "diagnosis check for $name (kept in $WORK)"
}
case $name in
  worker-stall) check "
    const w = of('hello', (h) => h.thread === 1);
    if (w.length !== 1 || w[0].thread_name !== 'worker 1 (stall-worker.js)' || !(w[0].tid > 0))
      fail('worker hello: ' + JSON.stringify(w));
    if (w[0].pid !== of('hello', (h) => !h.thread)[0].pid) fail('the worker is in the first process');
    const ws = of('sample', (s) => s.thread === 1);
    if (ws.length < 50) fail(ws.length + ' worker samples');
    if (ws.some((s) => s.pid !== undefined)) fail('a first-process line with a pid');
    if (Math.max(...ws.map((s) => s.delay.max)) < 200) fail('the worker\'s 300 ms stalls are not in its delay');
    if (!of('proc', (p) => (p.loop_threads || []).some((l) => l.thread === 1 && l.tid === w[0].tid)).length)
      fail('no loop_threads CPU of the worker');
  "
  verdict "
    if (top.name !== 'worker 1 (stall-worker.js)' || top.verdict !== 'blocked-loop' || j.verdict !== 'blocked-loop')
      fail('the worst loop is ' + top.name + ': ' + top.verdict + ', run ' + j.verdict);
    if (!j.issues[0].summary.startsWith('The loop of worker 1 (stall-worker.js) was blocked')) fail('summary: ' + j.issues[0].summary);
  " ;;
  cluster-blocked) check "
    const kids = of('hello', (h) => /^cluster worker [12]\$/.test(h.process_name || ''));
    if (kids.length !== 2) fail('cluster worker hellos: ' + kids.length);
    for (const k of kids) {
      if (of('sample', (s) => s.pid === k.pid).length < 20) fail('samples of ' + k.process_name);
      if (of('proc', (p) => p.pid === k.pid).length < 20) fail('proc of ' + k.process_name);
      if (!of('sample', (s) => s.pid === k.pid && s.http && s.http.responses > 0).length)
        fail(k.process_name + ' served nothing');
    }
    if (!of('listen', (l) => kids.some((k) => k.pid === l.pid)).length) fail('no listen from a cluster worker');
  "
  verdict "
    if (!/^pid [0-9]+ \\(cluster worker [12]\\)\$/.test(top.name) || top.verdict !== 'blocked-loop' || j.verdict !== 'blocked-loop')
      fail('the worst loop is ' + top.name + ': ' + top.verdict + ', run ' + j.verdict);
    if (j.loops.find((l) => l.name === 'main').verdict === 'blocked-loop') fail('the idle primary blocked');
  " ;;
  npm-start) check "
    const app = of('hello', (h) => h.process_name === 'server.js');
    if (app.length !== 1 || app[0].pid === root) fail('app hello: ' + JSON.stringify(app));
    if (!of('listen', (l) => l.pid === app[0].pid).length) fail('the app\'s listen');
    if (of('sample', (s) => s.pid === app[0].pid).length < 50) fail('samples of the app');
    if (!of('hello', (h) => h.pid === root && h.argv.some((a) => /npm/.test(a))).length) fail('npm is the first process');
  "
  verdict "
    if (!/^pid [0-9]+ \\(server\\.js\\)\$/.test(top.name) || top.verdict !== 'blocked-loop' || j.verdict !== 'blocked-loop')
      fail('the worst loop is ' + top.name + ': ' + top.verdict + ', run ' + j.verdict);
  " ;;
  supervisor) verdict "
    const root = j.loops.find((l) => l.name === 'main');
    if (!/^pid [0-9]+ \\(app\\.js\\)\$/.test(top.name)) fail('the worst loop is ' + top.name);
    if (top.pid === root.pid) fail('the app is the supervisor\'s own process');
    if (top.verdict !== 'blocked-loop' || j.verdict !== 'blocked-loop') fail('verdicts ' + top.verdict + ', ' + j.verdict);
    if (!j.issues[0].summary.startsWith('The loop of ' + top.name + ' was blocked')) fail('summary: ' + j.issues[0].summary);
  " ;;
  offload-saturated) verdict "
    if (!/^worker [12] \\(hash-worker\\.js\\)\$/.test(top.name)) fail('the worst loop is ' + top.name);
    if (j.verdict !== 'blocked-loop' || top.verdict !== 'blocked-loop') fail('verdicts ' + top.verdict + ', ' + j.verdict);
    // The main thread waited on the workers: said when its requests waited
    // while its own loop ran free (on a loaded machine its loop may stall too).
    const s = j.issues[0].summary;
    if (!/All 2 worker threads of the process were busy/.test(s) || !/the pool is saturated/.test(s)) fail('summary: ' + s);
    if (j.loops.find((l) => l.name === 'main').verdict === 'blocked-loop') fail('the main thread blocked');
    if (!j.issues[0].recommendations.some((r) => r.includes('os.availableParallelism()'))) fail('no pool advice');
  " ;;
  *) fail "unknown sample $name" ;;
esac
echo "$name: loops $(node -e "
  const recs = require('fs').readFileSync('rec.ndjson', 'utf8').trim().split('\n').map(JSON.parse);
  console.log(recs.filter((r) => r.type === 'hello').map((h) => (h.pid) + '/' + (h.thread || 0) + ' ' + (h.thread_name || h.process_name || 'main')).join(', '))")"
echo "$name: verdicts $(node -e "
  const j = JSON.parse(require('fs').readFileSync('out.json', 'utf8'));
  console.log(j.verdict + ' (' + (j.loops || []).map((l) => l.name + ': ' + l.verdict).join(', ') + ')')")"
