'use strict';
// Shared by the probe's protocol tests: a Unix-socket sink standing in for the
// collector, the target launcher with the probe preloaded, bounded waits and
// the shape checks of a sample message.
const assert = require('node:assert/strict');
const net = require('net');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn } = require('child_process');

const PROBE = path.resolve(__dirname, '..', '..', '..', '..', 'agent', 'probes', 'node', 'probe.js');
const FIX = path.join(__dirname, 'fixtures');
const WAIT_MS = 5000;        // longest any single wait may take
const TEST_TIMEOUT_MS = 20000;
const GC_KINDS = ['minor', 'major', 'incremental', 'weak'];

let seq = 0;
function tmpSocketPath() {
  return path.join(os.tmpdir(), `ld-probe-test-${process.pid}-${seq++}.sock`);
}

// Calls onLine(line) for each newline-ended line of a text stream's data,
// then afterChunk() once a chunk's lines are read: the probe speaks NDJSON.
function onLines(stream, onLine, afterChunk = () => {}) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onLine(line);
    }
    afterChunk();
  });
}

// A Unix-socket server that parses every connection's NDJSON.
function startSink(sockPath = tmpSocketPath()) {
  const conns = [];
  const listeners = new Set();
  const server = net.createServer((c) => {
    const conn = { socket: c, msgs: [], closed: false };
    conns.push(conn);
    onLines(c, (line) => conn.msgs.push(JSON.parse(line)), () => { for (const l of listeners) l(); });
    c.on('close', () => { conn.closed = true; for (const l of listeners) l(); });
    c.on('error', () => {});
    for (const l of listeners) l();
  });
  const ready = new Promise((resolve) => server.listen(sockPath, resolve));
  const all = () => conns.flatMap((c) => c.msgs);
  // Resolves with pred's first truthy result, rejects after ms.
  const waitFor = (pred, what, ms = WAIT_MS) => new Promise((resolve, reject) => {
    const check = () => {
      let v;
      try { v = pred(); } catch (e) { v = undefined; }
      if (v) { done(); resolve(v); }
    };
    const timer = setTimeout(() => { done(); reject(new Error(`timed out waiting for ${what}`)); }, ms);
    const done = () => { clearTimeout(timer); listeners.delete(check); };
    listeners.add(check);
    check();
  });
  const close = () => new Promise((resolve) => {
    for (const c of conns) c.socket.destroy();
    server.close(() => resolve());
  });
  return { path: sockPath, server, conns, all, waitFor, ready, close };
}

function probeEnv(extra) {
  // Endpoint (agent) mode samples once a second by default; these tests want
  // the one-shot run's 10 ms unless they say otherwise.
  const env = Object.assign({}, process.env,
                            { NODE_OPTIONS: `--require ${PROBE}`, LOOPDOCTOR_INTERVAL_MS: '10' }, extra);
  delete env.NODE_TEST_CONTEXT;  // node --test sets it; children must not act as test runners
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

// Spawns a target (a fixture name or an absolute path; opts.nodeArgs go
// before it); `exited` resolves with {code, signal, ms, stdout, stderr}.
function startTarget(script, env, opts = {}) {
  const started = Date.now();
  const child = spawn(process.execPath, [...(opts.nodeArgs || []), path.resolve(FIX, script)], {
    env, stdio: opts.stdio || ['ignore', 'pipe', 'pipe'], cwd: opts.cwd,
  });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started, get stdout() { return stdout; }, stderr }));
  });
  const firstLine = () => new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('no output from target')), WAIT_MS);
    const check = () => {
      const nl = stdout.indexOf('\n');
      if (nl >= 0) { clearTimeout(t); resolve(stdout.slice(0, nl)); } else child.stdout.once('data', check);
    };
    check();
  });
  return { child, exited, firstLine };
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timed out: ${what}`)), ms); })])
    .finally(() => clearTimeout(t));
}

// A fixture started as the collector starts it: a socketpair on fd 3, and
// only the probe settings the test names (not the runner's own choice of
// probe). Returns the target and its end of the pair.
function startFdTarget(script, extraEnv) {
  const env = probeEnv(Object.assign({ LOOPDOCTOR_FD: '3' }, extraEnv));
  for (const k of ['LOOPDOCTOR_NATIVE_DIR', 'LOOPDOCTOR_PROBE']) {
    delete env[k];
    if (extraEnv[k]) env[k] = extraEnv[k];
  }
  const target = startTarget(script, env, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  return { target, sock: target.child.stdio[3] };
}

// Runs a fixture in fd mode until it exits (within exitMs); returns its
// exit and every message it sent.
async function runFd(script, extraEnv, exitMs = 3 * WAIT_MS) {
  const { target, sock } = startFdTarget(script, extraEnv);
  const msgs = [];
  onLines(sock, (line) => msgs.push(JSON.parse(line)));
  const closed = new Promise((resolve) => sock.on('close', resolve));
  const r = await withTimeout(target.exited, exitMs, `${script} exit`);
  await withTimeout(closed, WAIT_MS, 'socket closed');
  return { r, msgs, samples: msgs.filter((m) => m.type === 'sample') };
}

// A target in fd mode (the collector's socketpair on fd 3) whose messages
// are kept with their raw sizes; `send` writes a control line.
function startFd(script, extraEnv) {
  const { target, sock } = startFdTarget(script, extraEnv);
  const msgs = [];
  const waiters = new Set();
  onLines(sock, (line) => {
    const m = JSON.parse(line);
    Object.defineProperty(m, 'rawBytes', { value: Buffer.byteLength(line) });
    msgs.push(m);
  }, () => { for (const w of waiters) w(); });
  sock.on('error', () => {});
  const waitFor = (pred, what, ms = WAIT_MS) => new Promise((resolve, reject) => {
    const check = () => { const v = pred(msgs); if (v) { done(); resolve(v); } };
    const timer = setTimeout(() => { done(); reject(new Error(`timed out waiting for ${what}`)); }, ms);
    const done = () => { clearTimeout(timer); waiters.delete(check); };
    waiters.add(check);
    check();
  });
  const send = (obj) => sock.write(JSON.stringify(obj) + '\n');
  return { target, msgs, waitFor, send };
}

function get(port, urlPath) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.setTimeout(WAIT_MS, () => req.destroy(new Error('request timeout')));
    req.on('error', reject);
  });
}

function assertNumber(v, what) {
  assert.equal(typeof v, 'number', `${what} is a number`);
  assert.ok(Number.isFinite(v), `${what} is finite`);
}

function assertSample(s, opts = {}) {
  assertNumber(s.t, 't');
  assertNumber(s.interval_ms, 'interval_ms');
  assert.ok(s.interval_ms > 0);
  for (const k of ['min', 'mean', 'max', 'p50', 'p90', 'p99', 'count']) {
    assertNumber(s.delay[k], `delay.${k}`);
    assert.ok(s.delay[k] >= 0, `delay.${k} >= 0`);
  }
  assert.ok(s.delay.min <= s.delay.max);
  assert.ok(Number.isInteger(s.delay.count));
  assertNumber(s.elu, 'elu');
  assert.ok(s.elu >= 0 && s.elu <= 1, `elu ${s.elu} in [0,1]`);
  assert.ok(Number.isInteger(s.cpu.user_us) && s.cpu.user_us >= 0);
  assert.ok(Number.isInteger(s.cpu.system_us) && s.cpu.system_us >= 0);
  for (const k of ['rss', 'heap_used', 'heap_total', 'external', 'array_buffers']) {
    assertNumber(s.mem[k], `mem.${k}`);
    assert.ok(s.mem[k] >= 0);
  }
  assert.ok(s.mem.rss > 1024 * 1024, 'rss is at least a MiB');
  assert.ok(s.mem.heap_used > 0 && s.mem.heap_used <= s.mem.heap_total);
  // The heap's spaces ride with the heap (docs/contracts.md, issue 32).
  if (s.spaces !== undefined) {
    for (const k of ['new', 'old', 'code', 'large_object']) {
      assertNumber(s.spaces[k], `spaces.${k}`);
      assert.ok(s.spaces[k] >= 0);
    }
  }
  assert.ok(Number.isInteger(s.handles.total));
  const byType = Object.values(s.handles.by_type).reduce((a, b) => a + b, 0);
  assert.equal(byType, s.handles.total, 'handles.by_type sums to total');
  // The native probe sends a sample without the HTTP view while JS blocks
  // (the view's counts go out once, with the next sample after the block).
  if (!(opts.httpOptional && s.http === undefined)) {
    for (const k of ['requests', 'responses', 'inflight']) {
      assert.ok(Number.isInteger(s.http[k]) && s.http[k] >= 0, `http.${k}`);
    }
    assertNumber(s.http.latency_mean_ms, 'latency_mean_ms');
    assert.ok(s.http.latency_max_ms >= s.http.latency_mean_ms);
  }
  assert.ok(Number.isInteger(s.dropped));
}

// The http fixture under the probe, reporting to `sink` every intervalMs
// (endpoint mode); resolves once its port is known and a first sample is in.
// `since(n)` is the samples after the first n.
async function startHttpTarget(sink, intervalMs) {
  const target = startTarget('http-server.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_INTERVAL_MS: String(intervalMs) }));
  const samples = () => sink.all().filter((m) => m.type === 'sample');
  const port = Number(await target.firstLine());
  await sink.waitFor(() => samples()[0], 'first sample');
  return { target, port, samples, since: (n) => samples().slice(n) };
}

// Runs a fixture under the probe (endpoint mode) until it exits by itself
// with code 0 and its bye is in; resolves with the probe's messages and the
// target's stdout.
async function runToExit(script) {
  const sink = startSink();
  await sink.ready;
  const target = startTarget(script, probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path }));
  try {
    const r = await withTimeout(target.exited, WAIT_MS, `${script} exit`);
    assert.equal(r.code, 0, `${script} exit code; stderr: ${r.stderr}`);
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye at exit');
    return { msgs: sink.all(), stdout: r.stdout };
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
}

// The http view summed over samples: requests, responses, timed, worst latency.
function httpTotals(samples) {
  return samples.reduce((a, s) => ({
    req: a.req + s.http.requests, res: a.res + s.http.responses, timed: a.timed + s.http.timed,
    max: Math.max(a.max, s.http.latency_max_ms), timedMs: a.timedMs + s.http.latency_mean_ms * s.http.timed,
  }), { req: 0, res: 0, timed: 0, max: 0, timedMs: 0 });
}

module.exports = {
  onLines, PROBE, FIX, WAIT_MS, TEST_TIMEOUT_MS, GC_KINDS, tmpSocketPath, startSink, probeEnv, startTarget, startHttpTarget, httpTotals, runToExit,
  runFd, startFd,
  withTimeout, get, assertNumber, assertSample,
};
