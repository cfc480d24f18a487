'use strict';
// What `loopdoctor attach` costs a running server, and how soon it sees it.
// A plain hello-world server (no flag, no NODE_OPTIONS) gets the same wrk
// load before the attach, while attached (loopdoctor attach with no load of
// its own: wrk is the load, as a production server's traffic would be) and
// after the detach. Phases are interleaved (before, during, after, then
// again) on one server per round, so a noisy machine moves all three alike;
// the ratios are medians over rounds. Also: the time from starting
// `loopdoctor attach` to the first probe sample (the recording's first
// sample, on loopdoctor's clock, which starts as the attach begins), and
// whether the server is left as it was (listening ports, threads).
//   node bench/attach_overhead.js [rounds=5] [seconds=3]
// Needs wrk; LOOPDOCTOR=path/to/loopdoctor (default build/loopdoctor).
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const ROOT = path.join(__dirname, '..');
const LD = process.env.LOOPDOCTOR || path.join(ROOT, 'build', 'loopdoctor');
const ROUNDS = Number(process.argv[2] || 5);
const SECONDS = Number(process.argv[3] || 3);
// The attach outlasts the phase measured inside it: it starts, settles for
// SETTLE_S (the inspector opening, the probe loading), then wrk runs.
const SETTLE_S = 1;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

function startServer() {
  const env = Object.assign({}, process.env, { PORT: '0' });
  delete env.NODE_OPTIONS;
  const child = spawn('node', [path.join(ROOT, 'samples/node/hello-world/server.js')], { env });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', () => reject(new Error('server exited: ' + out)));
  });
}

function wrk(port) {
  const out = execFileSync('wrk', ['-t1', '-c20', `-d${SECONDS}s`, `http://127.0.0.1:${port}/`]).toString();
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
}

function footprint(pid) {
  const ports = execFileSync('ss', ['-Hltnp']).toString().split('\n')
    .filter((l) => l.includes(`pid=${pid},`)).map((l) => l.trim().split(/\s+/)[3]).sort().join(' ');
  return { ports, threads: fs.readdirSync(`/proc/${pid}/task`).length };
}

function firstSampleMs(record) {
  const lines = zlib.gunzipSync(fs.readFileSync(record)).toString().split('\n');
  for (const l of lines) {
    if (!l.includes('"type":"sample"')) continue;
    const r = JSON.parse(l);
    if (r.pid === undefined) return r.rt;
  }
  return NaN;
}

async function round(i, dir) {
  const { child, port } = await startServer();
  const pid = child.pid;
  try {
    await sleep(500);
    const before = footprint(pid);
    const rpsBefore = wrk(port);
    const record = path.join(dir, `attach-${i}.ndjson.gz`);
    const ld = spawn(LD, ['attach', '-d', `${SECONDS + SETTLE_S + 1}s`, '--record', record,
      '-o', path.join(dir, `r${i}.html`), String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    ld.stderr.on('data', (d) => { err += d; });
    const done = new Promise((r) => ld.on('exit', r));
    await sleep(SETTLE_S * 1000);
    const rpsDuring = wrk(port);
    const code = await done;
    if (code !== 0) throw new Error(`attach exited ${code}: ${err}`);
    await sleep(500);  // the probe closes the inspector a moment after the detach
    const rpsAfter = wrk(port);
    const after = footprint(pid);
    return { rpsBefore, rpsDuring, rpsAfter, firstMs: firstSampleMs(record),
             clean: before.ports === after.ports && after.threads <= before.threads };
  } finally {
    child.kill('SIGKILL');
  }
}

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-attach-bench-'));
  const rows = [];
  for (let i = 0; i < ROUNDS; i++) {
    const r = await round(i, dir);
    rows.push(r);
    console.log(`round ${i + 1}: ${r.rpsBefore.toFixed(0)} / ${r.rpsDuring.toFixed(0)} / ${r.rpsAfter.toFixed(0)} req/s ` +
                `(before / attached / after), first sample ${r.firstMs.toFixed(0)} ms, ${r.clean ? 'left clean' : 'NOT CLEAN'}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const during = median(rows.map((r) => r.rpsDuring / r.rpsBefore));
  const after = median(rows.map((r) => r.rpsAfter / r.rpsBefore));
  console.log(`attach-overhead: ${ROUNDS} rounds of ${SECONDS} s, wrk -c20, hello-world`);
  console.log(`  req/s attached / before: ${during.toFixed(3)} (median), after detach / before: ${after.toFixed(3)}`);
  console.log(`  attach to first sample: median ${median(rows.map((r) => r.firstMs)).toFixed(0)} ms ` +
              `(min ${Math.min(...rows.map((r) => r.firstMs)).toFixed(0)}, max ${Math.max(...rows.map((r) => r.firstMs)).toFixed(0)})`);
  console.log(`  left clean (same listening ports, no more threads): ${rows.filter((r) => r.clean).length} of ${ROUNDS}`);
})().catch((e) => { console.error(e); process.exit(1); });
