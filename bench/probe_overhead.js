'use strict';
// bench/probe-overhead's engine (see that script for how to run it).
// What being diagnosed costs a server, for what a user can run:
//   default  `loopdoctor run` exactly as the README shows it (the headline:
//            allocation sampling on, the CPU profile from the first block)
//   native   `loopdoctor run --no-profile --no-alloc-sampling`, the native
//            probe alone
//   js       the same with the JS probe (LOOPDOCTOR_PROBE=js)
//   control  a plain server like the reference: how much of a figure is
//            noise and method
// plus any analysis variants named in $VARIANTS (see VARIANTS below).
// Two figures per variant, each against a plain reference server of its
// own (its twin, "none") started and measured with it (see oneRound):
//   1. req/s at saturation (wrk -c50), each server alone, A B A in turn:
//      targets default <= 3 % loss, native <= 1 %;
//   2. the target's CPU per request at a fixed rate (`loopdoctor load
//      --rate`), the variant and its twin loaded at once: nanoseconds
//      actually run, from /proc/<pid>/task/*/schedstat
//      summed over the target's threads (the watchdog and V8's profiler
//      thread included), not /proc/<pid>/stat, whose 10 ms ticks over a few
//      thousand requests quantise the figure to ~2.5 us; target <= 3 us added.
// Method (why): on a shared 2-core VM whose speed drifts +-15 % minute to
// minute, variants are measured in short phases against live servers, the
// order rotating every round, so each sees the same drift;
// servers are started fresh every set (two identical plain servers differed
// by up to 25 % for their whole life: JIT and layout luck), and every server
// of a set, plain or probed, starts with the same V8 seeds (--random-seed,
// --hash-seed: V8 draws its heap and code addresses from that generator;
// six fresh plain servers spread over a standard deviation of 7.2 us per
// request with V8's own seeds and 2.4 with one fixed), so the luck of a set
// is drawn alike for each variant and many short sets average it out.
// Servers have one CPU and the load generator the other (where the
// scheduler put a server moved its req/s by up to 40 %); the collector
// (`loopdoctor run` itself) runs beside the load generator, as on any
// machine with a core the target does not use, and its own CPU is printed
// (COLLECTOR_CPU=server puts it on the servers' CPU, where its every
// millisecond is one the target did not get). Figures are medians with
// quartiles over every round of every set.
const { spawn, execFile, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const LD = path.resolve(ROOT, process.env.LOOPDOCTOR || 'build/loopdoctor');
const [sets, rounds, secs, rate] = [12, 2, 1, 2000].map((d, i) => Number(process.argv[2 + i] || d));
const CPUS = os.cpus().length;
const SERVER_CPU = '0', LOAD_CPU = CPUS > 1 ? '1' : '0';
const COLLECTOR_CPU = process.env.COLLECTOR_CPU === 'server' ? SERVER_CPU : LOAD_CPU;
// The watchdog thread's name (agent/probes/node/native/watchdog.cc).
const WATCHDOG_COMM = 'loopdoctor-wd';

function DC_NOOP(channels) {
  return "const dc=require('diagnostics_channel');" + channels.map((c) => `dc.subscribe('${c}',()=>{});`).join('');
}

// name -> how it runs: plain (with `preamble` run first), or `loopdoctor run`
// with these flags and env.
const VARIANTS = {
  none: { plain: true, label: 'plain node (reference)' },
  control: { plain: true, label: 'control: a second plain node' },
  default: { args: [], label: 'loopdoctor run (default)' },
  native: { args: ['--no-profile', '--no-alloc-sampling'], label: '  native probe alone' },
  js: { args: ['--no-profile', '--no-alloc-sampling'], env: { LOOPDOCTOR_PROBE: 'js' }, label: '  JS probe alone' },
  // Analysis variants, for $VARIANTS ("profile-10ms no-blocks ..."):
  'profile-10ms': { args: ['--profile', '--profile-interval', '10ms'], label: '  + CPU profile 10 ms' },
  'profile-1ms': { args: ['--profile', '--profile-interval', '1ms'], label: '  + CPU profile 1 ms' },
  'profile-100ms': { args: ['--profile', '--profile-interval', '100ms'], label: '  + CPU profile 100 ms' },
  // Allocation sampling (on by default): the default without it, and at
  // V8's inspector's interval (32 KiB, four times the samples of the
  // default 128) and its C++ API's (512 KiB, a quarter).
  'no-alloc': { args: ['--no-alloc-sampling'], label: '  default, no alloc sampling' },
  'alloc-32k': { args: [], env: { LOOPDOCTOR_ALLOC_INTERVAL_BYTES: '32768' }, label: '  default, alloc every 32 KiB' },
  'alloc-512k': { args: [], env: { LOOPDOCTOR_ALLOC_INTERVAL_BYTES: '524288' }, label: '  default, alloc every 512 KiB' },
  'no-blocks': { args: ['--no-profile', '--block-threshold', '10s'], label: '  native, no block stacks' },
  'sample-100ms': { args: ['--no-profile', '--sample-interval', '100ms'], label: '  native, samples 100 ms' },
  // `run` with no probe in the target (its NODE_OPTIONS cleared): what the
  // run's own setting (session, pipes, the collector beside wrk) costs.
  'no-probe': { args: ['--no-profile'], wrap: ['env', 'NODE_OPTIONS='], label: '  run, probe kept out' },
  // What Node's own publishing costs: plain servers with no-op subscribers
  // to the HTTP server's channels (the probe's HTTP view keeps the first).
  'dc-start': { plain: true, preamble: DC_NOOP(['http.server.request.start']), label: '  plain + dc start (no-op)' },
  'dc-both': { plain: true, preamble: DC_NOOP(['http.server.request.start', 'http.server.response.finish']), label: '  plain + dc start+finish' },
};
// A loopdoctor from before `--profile` existed profiled by default.
// A loopdoctor from before --no-alloc-sampling sampled no allocations.
const runHelp = execFileSync(LD, ['run', '--help'], { encoding: 'utf8' });
if (!/--profile\b(?!-)/.test(runHelp)) {
  for (const v of Object.values(VARIANTS)) if (v.args) v.args = v.args.filter((a) => a !== '--profile');
}
if (!/--no-alloc-sampling\b/.test(runHelp)) {
  for (const v of Object.values(VARIANTS)) if (v.args) v.args = v.args.filter((a) => a !== '--no-alloc-sampling');
}
const extra = (process.env.VARIANTS || '').split(/\s+/).filter(Boolean);
for (const v of extra) if (!VARIANTS[v]) throw new Error(`unknown variant '${v}'; known: ${Object.keys(VARIANTS).join(' ')}`);
// ONLY="control native": those variants alone (a quicker look).
const only = (process.env.ONLY || '').split(/\s+/).filter(Boolean);
for (const v of only) if (!VARIANTS[v] || v === 'none') throw new Error(`unknown variant '${v}' in ONLY; known: ${Object.keys(VARIANTS).slice(1).join(' ')}`);
const names = ['none', ...(only.length ? only : ['control', 'default', 'native', 'js', ...extra])];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-overhead-'));
// WORKERS=n: every server, plain or probed, also starts n idle
// worker threads, each a loop of its own that `run` samples (with the native
// probe, a watchdog thread per worker, counted under "watchdog" below).
const WORKERS = Number(process.env.WORKERS || 0);
const SERVER = (WORKERS > 0 ? "const{Worker}=require('worker_threads');" +
  `for(let i=0;i<${WORKERS};i++)new Worker('setInterval(()=>{},1000)',{eval:true}).unref();` : '') +
  "const s=require('http').createServer((q,r)=>r.end('hello world'));" +
  "s.listen(0,'127.0.0.1',()=>console.log(s.address().port))";

function run(cmd, args) { return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }); }
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const live = new Set();  // started and not yet ended: stopped on an error

// key: the server's own name for its files (a variant's plain twin is
// "none" with the variant's key).
function start(name, set, key = name) {
  const v = VARIANTS[name];
  // A set: per variant, 3 s of warming, then per round 6 s of phases.
  const runtime = `${(rounds * 6 + 3) * names.length * secs + 120}s`;
  // The set's number seeds V8 alike in every server of the set (see Method).
  const node = ['taskset', '-c', SERVER_CPU, 'node', `--random-seed=${set}`, `--hash-seed=${set}`, '-e', (v.preamble || '') + SERVER];
  const cmd = v.plain ? node
    : ['taskset', '-c', COLLECTOR_CPU, LD, 'run', ...v.args, '--duration', runtime,
      '-o', path.join(tmp, `${name}${set}.html`), '--no-record', '--', ...(v.wrap || []), ...node];
  const out = fs.openSync(path.join(tmp, `${key}.out`), 'w');
  const err = fs.openSync(path.join(tmp, `${key}.err`), 'w');
  // detached: a session of its own, as `run` gives its target. With the
  // kernel's autogroup scheduling, each session gets an equal CPU share on a
  // busy machine: plain servers sharing this script's session got a fraction
  // of what each probed target got (and came out 2x slower).
  const child = spawn(cmd[0], cmd.slice(1), {
    env: { ...process.env, ...(v.env || {}) }, stdio: ['ignore', out, err], detached: true,
  });
  const s = { name, key, child, plain: !!v.plain, set };
  live.add(s);
  child.on('exit', () => live.delete(s));
  return s;
}

function waitPort(s) {
  for (let i = 0; i < 300; i++) {
    const text = fs.readFileSync(path.join(tmp, `${s.key}.out`), 'utf8');
    if (/^\d+\n/.test(text)) {
      s.port = Number(text.split('\n')[0]);
      // taskset execs, so the child's pid is loopdoctor's (or the plain node's).
      s.pid = s.plain ? s.child.pid : Number(run('pgrep', ['-P', String(s.child.pid), 'node']).split('\n')[0]);
      s.collector = s.plain ? 0 : s.child.pid;
      return;
    }
    sleep(100);
  }
  throw new Error(`${s.key} did not start: see ${tmp}/${s.key}.err`);
}

// ns of CPU run by every thread of pid, by thread: main, watchdog, other.
function cpuNs(pid) {
  const by = { main: 0, watchdog: 0, other: 0 };
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let ns, comm;
    try {
      ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch (_) { continue; }  // the thread ended between the listing and the read
    by[tid === String(pid) ? 'main' : comm === WATCHDOG_COMM ? 'watchdog' : 'other'] += ns;
  }
  return by;
}

// ns of CPU run by every thread of pid (0: no process).
function totalNs(pid) {
  if (!pid) return 0;
  const by = cpuNs(pid);
  return by.main + by.watchdog + by.other;
}

// req/s of one server under wrk -c50 alone, and its collector's CPU
// meanwhile (ms a second).
async function saturation(s) {
  const c0 = totalNs(s.collector), t0 = process.hrtime.bigint();
  const { rps } = await load(s, 'saturation');
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  return { rps, collectorMs: (totalNs(s.collector) - c0) / 1e6 / wallS };
}

function runAsync(cmd, args) {
  return new Promise((resolve, reject) => execFile(cmd, args, { encoding: 'utf8' },
    (err, out) => (err ? reject(err) : resolve(out))));
}

// The load of one phase against one server: wrk -c50 (saturation) or
// `loopdoctor load --rate` (the fixed rate); resolves to requests served.
function load(s, mode) {
  const url = `http://127.0.0.1:${s.port}/`;
  if (mode === 'saturation') {
    return runAsync('taskset', ['-c', LOAD_CPU, 'wrk', '-t1', '-c50', `-d${secs}s`, url])
      .then((out) => ({ requests: Number(/(\d+) requests in/.exec(out)[1]), rps: Number(/Requests\/sec:\s*([\d.]+)/.exec(out)[1]) }));
  }
  return runAsync('taskset', ['-c', LOAD_CPU, LD, 'load', '--rate', String(rate), '-c', '20', '-d', `${secs}s`,
    '--json', '-', url]).then((out) => ({ requests: JSON.parse(out).requests }));
}

// One phase at the fixed rate against the reference and a variant at once,
// both on the servers' CPU: whatever the VM's speed does in that second (drift, a
// neighbour, the host taking the vCPU away, which the guest still counts as
// run time) it does to both, so their ratio keeps only what differs between
// them. Per server: us of CPU per request by thread, requests, req/s; and
// the variant's collector's CPU (ms a second).
async function together(ref, v, mode) {
  const pair = [ref, v];
  const before = pair.map((s) => cpuNs(s.pid));
  const c0 = totalNs(v.collector), t0 = process.hrtime.bigint();
  const served = (await Promise.all(pair.map((s) => load(s, mode)))).map((x) => x.requests);
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const collectorMs = (totalNs(v.collector) - c0) / 1e6 / wallS;
  const after = pair.map((s) => cpuNs(s.pid));
  const per = pair.map((s, i) => {
    const us = {};
    for (const k of Object.keys(before[i])) us[k] = (after[i][k] - before[i][k]) / 1e3 / served[i];
    us.total = us.main + us.watchdog + us.other;
    return { us, requests: served[i], rps: served[i] / wallS };
  });
  return { ref: per[0], v: per[1], collectorMs };
}

function stop(s) {
  return new Promise((resolve) => {
    s.child.on('exit', (code) => resolve(code));
    // SIGINT ends a run and writes its report, as a user's Ctrl-C; 130 is that exit.
    s.child.kill(s.plain ? 'SIGTERM' : 'SIGINT');
  });
}

const quantile = (xs, q) => {
  const v = [...xs].sort((a, b) => a - b);
  const p = (v.length - 1) * q, i = Math.floor(p);
  return i + 1 < v.length ? v[i] + (p - i) * (v[i + 1] - v[i]) : v[i];
};
const mq = (xs) => [0.5, 0.25, 0.75].map((q) => quantile(xs, q));

const results = Object.fromEntries(names.map((n) => [n, { ratio: [], rps: [], dus: [], us: [], threads: [], collectorMs: [] }]));

// Every variant has a plain twin of its own, started with it and measured
// in the same phases, so the two share their whole history: with one
// reference for all, the reference was loaded in every variant's phases
// and the variants sat idle through the others', and a plain second server
// (the control) read as a 1.1-1.3 % loss and +0.7 us a request in two runs
// (an idle V8 shrinks its young generation and the busy one keeps it).
// Each round, per variant: a second of saturation of each of the pair, not
// measured, to wake them (a server left idle for the rest of a round, ~20 s,
// came back ~15 % slower for a second: V8 shrinks an idle heap and ages
// its code); then the pair together at the fixed rate; then the pair
// saturated alone in turn, A B A, the B compared with the mean of the two
// A (a drift of the VM's speed over the three seconds cancels), the twin
// and the variant taking the A's turn by round: the first A follows the
// fixed-rate phase, the others a second of someone else's load, so
// neither is favoured. (Saturated together, two servers on one CPU
// interfere: V8's GC helper threads of one wait behind the other server,
// and a plain server's CPU per request came out 1x to 2x its twin's.)
async function oneRound(pair, r, set) {
  const { twin, v } = pair;
  await load(twin, 'saturation');
  await load(v, 'saturation');
  const fixed = await together(twin, v, 'rate');
  const variantFirst = (r + set) % 2 === 1;
  const [a, b] = variantFirst ? [v, twin] : [twin, v];
  const a1 = await saturation(a);
  const bs = await saturation(b);
  const a2 = await saturation(a);
  const aRps = (a1.rps + a2.rps) / 2;
  const [vRps, twinRps] = variantFirst ? [aRps, bs.rps] : [bs.rps, aRps];
  const collectorMs = variantFirst ? (a1.collectorMs + a2.collectorMs) / 2 : bs.collectorMs;
  return { ratio: vRps / twinRps, twinRps, fixed, collectorMs };
}

async function oneSet(set) {
  const others = names.slice(1);
  const pairs = Object.fromEntries(others.map((n) => [n, { twin: start('none', set, `none-${n}`), v: start(n, set) }]));
  for (const n of others) { waitPort(pairs[n].twin); waitPort(pairs[n].v); }
  for (const n of others) {  // warm: JIT, connections
    await load(pairs[n].twin, 'saturation');
    await load(pairs[n].v, 'saturation');
    await together(pairs[n].twin, pairs[n].v, 'rate');
  }
  for (let r = 0; r < rounds; r++) {
    let line = `set ${set} round ${r + 1}:`;
    for (let k = 0; k < others.length; k++) {  // every variant goes first in turn
      const n = others[(k + r + set) % others.length];
      const { ratio, twinRps, fixed, collectorMs } = await oneRound(pairs[n], r, set);
      const res = results[n];
      const dus = fixed.v.us.total - fixed.ref.us.total;
      res.ratio.push(ratio);
      res.dus.push(dus);
      res.threads.push(fixed.v.us);
      res.collectorMs.push(collectorMs);
      results.none.rps.push(twinRps);
      results.none.us.push(fixed.ref.us.total);
      results.none.threads.push(fixed.ref.us);
      line += `  ${n} ${ratio.toFixed(3)} ${dus >= 0 ? '+' : ''}${dus.toFixed(2)}us`;
    }
    console.log(line);
  }
  for (const n of others) {
    const { twin, v } = pairs[n];
    await stop(twin);
    const code = await stop(v);
    if (!v.plain && code !== 130 && code !== 0) throw new Error(`${n}: loopdoctor run exited ${code}: ${fs.readFileSync(path.join(tmp, `${n}.err`), 'utf8')}`);
    if (!v.plain && !fs.existsSync(path.join(tmp, `${n}${set}.html`))) throw new Error(`${n} run wrote no report`);
  }
}

function report() {
  const [rps] = mq(results.none.rps), [us] = mq(results.none.us);
  const f = (x, d) => (x >= 0 ? '+' : '') + x.toFixed(d);
  if (WORKERS > 0) console.log(`\nevery server (plain and probed) with ${WORKERS} idle worker thread(s)`);
  console.log(`\n${sets} sets x ${rounds} rounds of ${secs} s phases; load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${CPUS} CPUs`);
  console.log(`${'variant'.padEnd(32)} ${'req/s vs plain at saturation'.padEnd(36)} target CPU per request at ${rate} req/s, added (quartiles)`);
  console.log(`${VARIANTS.none.label.padEnd(32)} ${(rps.toFixed(0) + ' req/s').padEnd(36)} ${us.toFixed(2)} us`);
  for (const n of names.slice(1)) {
    const [r, r1, r3] = mq(results[n].ratio), [d, d1, d3] = mq(results[n].dus);
    console.log(`${VARIANTS[n].label.padEnd(32)} ${`${r.toFixed(3)} (${r1.toFixed(3)}-${r3.toFixed(3)}) ${((1 - r) * 100).toFixed(1)} % loss`.padEnd(36)} ` +
      `${f(d, 2)} us (${f(d1, 2)} to ${f(d3, 2)})  x${((us + d) / us).toFixed(3)}`);
  }
  console.log('targets: default <= 3 % loss, native <= 1 % loss, <= 3 us added per request; control shows the noise');
  console.log('\nwhere the target\'s CPU goes at the fixed rate, us per request (medians): main thread, watchdog, other threads');
  for (const n of names) {
    const t = results[n].threads;
    const m = (k) => mq(t.map((x) => x[k]))[0];
    console.log(`${VARIANTS[n].label.padEnd(32)} main ${m('main').toFixed(2)}  watchdog ${m('watchdog').toFixed(2)}  other ${m('other').toFixed(2)}`);
  }
  const where = COLLECTOR_CPU === SERVER_CPU ? 'on the servers\' CPU' : 'beside the load generator';
  console.log(`\nthe collector (loopdoctor run itself, ${where}) at saturation, ms of CPU a second (medians)`);
  for (const n of names) {
    if (results[n].collectorMs.length && !VARIANTS[n].plain) {
      console.log(`${VARIANTS[n].label.padEnd(32)} ${mq(results[n].collectorMs)[0].toFixed(1)} ms/s`);
    }
  }
}

function cleanUp() {
  for (const s of live) s.child.kill(s.plain ? 'SIGTERM' : 'SIGINT');  // a run then ends its target
  fs.rmSync(tmp, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { cleanUp(); process.exit(130); });

(async () => {
  try {
    for (let s = 1; s <= sets; s++) await oneSet(s);
    report();
  } finally {
    cleanUp();
  }
})().catch((e) => { console.error('probe-overhead: ' + e.message); process.exit(1); });
