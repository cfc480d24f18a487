'use strict';
// Protocol tests for the Node.js probe (agent/probes/node/probe.js).
// Each test runs a small target script with the probe preloaded, collects the
// probe's NDJSON over a Unix socket (endpoint mode) or an inherited socketpair
// (fd mode), and asserts on the parsed messages. Every wait is bounded.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('net');
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn } = require('child_process');

const PROBE = path.resolve(__dirname, '..', '..', 'agent', 'probes', 'node', 'probe.js');
const FIX = path.join(__dirname, 'fixtures');
const WAIT_MS = 5000;        // longest any single wait may take
const TEST_TIMEOUT_MS = 20000;
const GC_KINDS = ['minor', 'major', 'incremental', 'weak'];

let seq = 0;
function tmpSocketPath() {
  return path.join(os.tmpdir(), `ld-probe-test-${process.pid}-${seq++}.sock`);
}

// A Unix-socket server that parses every connection's NDJSON.
function startSink(sockPath = tmpSocketPath()) {
  const conns = [];
  const listeners = new Set();
  const server = net.createServer((c) => {
    const conn = { socket: c, msgs: [], closed: false };
    conns.push(conn);
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        conn.msgs.push(JSON.parse(line));
      }
      for (const l of listeners) l();
    });
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

// Spawns a target (a fixture name or an absolute path); `exited` resolves with {code, signal, ms, stdout, stderr}.
function startTarget(script, env, opts = {}) {
  const started = Date.now();
  const child = spawn(process.execPath, [path.resolve(FIX, script)], {
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

function assertSample(s) {
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
  assert.ok(Number.isInteger(s.handles.total));
  const byType = Object.values(s.handles.by_type).reduce((a, b) => a + b, 0);
  assert.equal(byType, s.handles.total, 'handles.by_type sums to total');
  for (const k of ['requests', 'responses', 'inflight']) {
    assert.ok(Number.isInteger(s.http[k]) && s.http[k] >= 0, `http.${k}`);
  }
  assertNumber(s.http.latency_mean_ms, 'latency_mean_ms');
  assert.ok(s.http.latency_max_ms >= s.http.latency_mean_ms);
  assert.ok(Number.isInteger(s.dropped));
}

test('hello, listen, samples, http view and end -> bye (endpoint mode)', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('http-server.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_INTERVAL_MS: '20' }));
  try {
    const port = Number(await target.firstLine());
    assert.ok(port > 0);
    const hello = await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    assert.equal(hello.v, 1);
    assert.equal(hello.pid, target.child.pid);
    assert.equal(hello.runtime, 'node');
    assert.equal(hello.versions.node, process.versions.node);
    assert.equal(hello.versions.v8, process.versions.v8);
    assert.equal(hello.versions.uv, process.versions.uv);
    assert.deepEqual(hello.argv, [process.execPath, path.join(FIX, 'http-server.js')]);
    assert.equal(hello.interval_ms, 20);
    assert.ok(hello.heap_limit > 16 * 1024 * 1024);
    assert.equal(hello.job, 'http-server.js');
    assertNumber(hello.t, 'hello.t');

    const listen = await sink.waitFor(() => sink.all().find((m) => m.type === 'listen'), 'listen');
    assert.equal(listen.port, port);
    assert.equal(listen.address, '127.0.0.1');
    assertNumber(listen.t, 'listen.t');

    // A bounded amount of traffic, including slow responses.
    const REQUESTS = 10;
    for (let i = 0; i < REQUESTS; i++) assert.equal(await get(port, i % 2 ? '/slow' : '/'), 200);
    const served = () => sink.all().filter((m) => m.type === 'sample')
      .reduce((a, s) => ({ req: a.req + s.http.requests, res: a.res + s.http.responses, max: Math.max(a.max, s.http.latency_max_ms) }), { req: 0, res: 0, max: 0 });
    await sink.waitFor(() => served().res >= REQUESTS, 'all responses counted');
    const totals = served();
    assert.equal(totals.req, REQUESTS);
    assert.equal(totals.res, REQUESTS);
    assert.ok(totals.max >= 25, `slow responses seen as slow (max ${totals.max} ms)`);

    const samples = sink.all().filter((m) => m.type === 'sample');
    assert.ok(samples.length >= 3);
    samples.forEach(assertSample);
    for (let i = 1; i < samples.length; i++) assert.ok(samples[i].t > samples[i - 1].t, 'sample times increase');
    const last = samples[samples.length - 1];
    assert.equal(last.http.inflight, 0);
    assert.ok((last.handles.by_type.TCPServerWrap || 0) >= 1, 'the listening server is a handle');
    // An idle loop has (almost) no excess delay.
    const idleP50 = samples.map((s) => s.delay.p50).sort((a, b) => a - b)[Math.floor(samples.length / 2)];
    assert.ok(idleP50 < 50, `idle delay p50 ${idleP50} ms`);

    // Unknown and malformed control input is ignored.
    sink.conns[0].socket.write('{"type":"something-new","x":1}\nnot json\n');
    const before = sink.all().filter((m) => m.type === 'sample').length;
    await sink.waitFor(() => sink.all().filter((m) => m.type === 'sample').length >= before + 2, 'sampling continues');

    sink.conns[0].socket.write('{"type":"end"}\n');
    const bye = await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
    assert.equal(bye.dropped, 0);
    const msgs = sink.all();
    const byeIndex = msgs.indexOf(bye);
    assert.equal(msgs[byeIndex - 1].type, 'sample', 'a last sample just before bye');
    // Sampling has stopped: nothing after bye, even after a few intervals.
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(sink.all().length, byeIndex + 1);
    assert.equal(target.child.exitCode, null, 'the target keeps running after end');
    assert.equal(sink.all().filter((m) => m.type === 'bye').length, 1);
  } finally {
    target.child.kill('SIGTERM');
    await withTimeout(target.exited, WAIT_MS, 'target exit');
    await sink.close();
  }
});

test('a 200 ms busy loop shows as delay and full utilisation', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('busy.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path }));
  try {
    const r = await withTimeout(target.exited, WAIT_MS, 'busy target exit');
    assert.equal(r.code, 0);
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye at exit');
    const samples = sink.all().filter((m) => m.type === 'sample');
    samples.forEach(assertSample);
    const maxDelay = Math.max(...samples.map((s) => s.delay.max));
    assert.ok(maxDelay >= 150, `delay.max ${maxDelay} >= 150`);
    assert.ok(maxDelay < 1000, `delay.max ${maxDelay} is not absurd`);
    const busy = samples.filter((s) => s.interval_ms >= 150);
    assert.ok(busy.length >= 1, 'one interval spans the busy loop');
    assert.ok(busy.some((s) => s.elu >= 0.9), `elu in the busy interval: ${busy.map((s) => s.elu)}`);
    // CPU time depends on how busy the machine is; only its presence is certain.
    assert.ok(busy.some((s) => s.cpu.user_us + s.cpu.system_us > 0), 'the busy interval used CPU');
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('forced allocation produces gc messages', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('alloc.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path }));
  try {
    const r = await withTimeout(target.exited, WAIT_MS, 'alloc target exit');
    assert.equal(r.code, 0);
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye at exit');
    const msgs = sink.all();
    const gcs = msgs.filter((m) => m.type === 'gc');
    assert.ok(gcs.length >= 1, 'at least one gc message');
    const bye = msgs.find((m) => m.type === 'bye');
    for (const g of gcs) {
      assert.ok(GC_KINDS.includes(g.kind), `gc kind ${g.kind}`);
      assertNumber(g.duration_ms, 'duration_ms');
      assert.ok(g.duration_ms >= 0 && g.duration_ms < 5000);
      assert.ok(g.t >= 0 && g.t <= bye.t, 'gc time on the probe clock');
    }
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('fd mode: inherited socketpair, end -> bye', { timeout: TEST_TIMEOUT_MS }, async () => {
  // stdio 'pipe' on fd 3 is a Unix stream socketpair, as the collector passes.
  const target = startTarget('http-server.js', probeEnv({ LOOPDOCTOR_FD: '3' }),
    { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  const sock = target.child.stdio[3];
  const msgs = [];
  let buf = '';
  sock.setEncoding('utf8');
  const waiters = new Set();
  sock.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) { msgs.push(JSON.parse(buf.slice(0, nl))); buf = buf.slice(nl + 1); }
    for (const w of waiters) w();
  });
  const waitType = (type) => new Promise((resolve, reject) => {
    const t = setTimeout(() => { waiters.delete(check); reject(new Error(`no ${type}`)); }, WAIT_MS);
    const check = () => { const m = msgs.find((x) => x.type === type); if (m) { clearTimeout(t); waiters.delete(check); resolve(m); } };
    waiters.add(check);
    check();
  });
  try {
    const port = Number(await target.firstLine());
    const hello = await waitType('hello');
    assert.equal(hello.pid, target.child.pid);
    assert.equal((await waitType('listen')).port, port);
    assertSample(await waitType('sample'));
    sock.write('{"type":"end"}\n');
    const bye = await waitType('bye');
    assert.equal(bye.dropped, 0);
  } finally {
    target.child.kill('SIGTERM');
    const r = await withTimeout(target.exited, WAIT_MS, 'target exit');
    assert.equal(r.signal, 'SIGTERM', 'the probe does not change how SIGTERM ends the target');
    sock.destroy();
  }
});

test('a script that does nothing exits promptly', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  try {
    const target = startTarget('noop.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path }));
    const r = await withTimeout(target.exited, WAIT_MS, 'noop exit');
    assert.equal(r.code, 0);
    assert.ok(r.ms < 3000, `exited after ${r.ms} ms`);
    // fd mode too: the inherited socket must not keep it alive either.
    const t2 = startTarget('noop.js', probeEnv({ LOOPDOCTOR_FD: '3' }), { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    t2.child.stdio[3].resume();
    const r2 = await withTimeout(t2.exited, WAIT_MS, 'noop exit (fd)');
    assert.equal(r2.code, 0);
    t2.child.stdio[3].destroy();
    // And with the endpoint absent (collector gone): no retry keeps it alive.
    const t3 = startTarget('noop.js', probeEnv({ LOOPDOCTOR_ENDPOINT: tmpSocketPath() }));
    const r3 = await withTimeout(t3.exited, WAIT_MS, 'noop exit (no endpoint)');
    assert.equal(r3.code, 0);
  } finally {
    await sink.close();
  }
});

test('exit codes and uncaught exceptions are unchanged', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  try {
    const t1 = startTarget('throws.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path }));
    const r1 = await withTimeout(t1.exited, WAIT_MS, 'throws exit');
    assert.equal(r1.code, 1);
    assert.match(r1.stderr, /boom from target/);
    const t2 = startTarget('exit-code.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path }));
    const r2 = await withTimeout(t2.exited, WAIT_MS, 'exit-code exit');
    assert.equal(r2.code, 7);
    // Both ran with the probe connected.
    assert.equal(sink.all().filter((m) => m.type === 'hello').length, 2);
  } finally {
    await sink.close();
  }
});

test('children of the target are not probed', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  try {
    const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path });
    env.NODE_OPTIONS = `--max-old-space-size=300 --require ${PROBE}`;
    const t = startTarget('spawn-children.js', env);
    const r = await withTimeout(t.exited, WAIT_MS, 'spawner exit');
    assert.equal(r.code, 0, `both children exited 0 (${r.stderr})`);
    const seen = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(seen.length, 2);
    const [inherited, clean] = seen;
    assert.equal(inherited.NODE_OPTIONS, '--max-old-space-size=300', 'other NODE_OPTIONS kept');
    assert.equal(inherited.fd, null);
    assert.equal(inherited.endpoint, null);
    assert.equal(clean.NODE_OPTIONS, null);
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye of the parent');
    assert.equal(sink.conns.length, 1, 'only the target connected');
    const hellos = sink.all().filter((m) => m.type === 'hello');
    assert.equal(hellos.length, 1);
    assert.equal(hellos[0].pid, t.child.pid);
  } finally {
    await sink.close();
  }
});

test('endpoint mode reconnects when the collector comes (back)', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sockPath = tmpSocketPath();
  const target = startTarget('http-server.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sockPath }));
  let sink = null;
  try {
    const port = Number(await target.firstLine());
    await new Promise((r) => setTimeout(r, 250));  // the first attempts fail
    sink = startSink(sockPath);
    await sink.ready;
    const hello = await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello after late start');
    assert.equal(hello.pid, target.child.pid);
    // listen happened before the connection; it is replayed.
    assert.equal((await sink.waitFor(() => sink.all().find((m) => m.type === 'listen'), 'replayed listen')).port, port);
    // Drop the connection: the probe comes back with a new hello.
    sink.conns[0].socket.destroy();
    await sink.waitFor(() => sink.conns.length >= 2 && sink.conns[1].msgs.some((m) => m.type === 'hello'), 'hello after drop');
    await sink.waitFor(() => sink.conns[1].msgs.some((m) => m.type === 'sample'), 'samples after drop');
    sink.conns[1].msgs.filter((m) => m.type === 'sample').forEach(assertSample);
  } finally {
    target.child.kill('SIGTERM');
    await withTimeout(target.exited, WAIT_MS, 'target exit');
    if (sink) await sink.close();
  }
});

test('without LOOPDOCTOR_FD or LOOPDOCTOR_ENDPOINT the probe does nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
  const env = probeEnv({});
  delete env.LOOPDOCTOR_FD;
  delete env.LOOPDOCTOR_ENDPOINT;
  const t = startTarget('spawn-children.js', env);
  const r = await withTimeout(t.exited, WAIT_MS, 'exit');
  assert.equal(r.code, 0);
  const [inherited] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(inherited.NODE_OPTIONS, null, 'its own --require is removed even when idle');
});

test('endpoint (agent) mode samples once a second unless told otherwise', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path });
  delete env.LOOPDOCTOR_INTERVAL_MS;
  const target = startTarget('http-server.js', env);
  try {
    const hello = await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    assert.equal(hello.interval_ms, 1000);
  } finally {
    target.child.kill('SIGKILL');
    await target.exited;
    await sink.close();
  }
});

// profile-start ... end: the probe sends one V8 cpuprofile, trimmed to the
// nodes its samples reach, before bye; the inspector does not keep the
// target alive afterwards.
test('profile-start then end -> profile before bye, naming the busy function', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('profiled.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_PROFILE_INTERVAL_US: '500' }));
  try {
    await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    sink.conns[0].socket.write('{"type":"profile-start"}\n');
    await new Promise((r) => setTimeout(r, 400));
    sink.conns[0].socket.write('{"type":"end"}\n');
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
    const msgs = sink.all();
    const pi = msgs.findIndex((m) => m.type === 'profile');
    assert.ok(pi >= 0, 'a profile message');
    assert.ok(pi < msgs.findIndex((m) => m.type === 'bye'), 'profile before bye');
    const m = msgs[pi];
    assertNumber(m.t, 't');
    assertNumber(m.t_end, 't_end');
    assert.ok(m.t_end > m.t && m.t_end - m.t < 2000, `profile spans ${m.t}..${m.t_end}`);
    assert.equal(m.interval_us, 500);
    const p = m.profile;
    assert.ok(p.samples.length > 20, `${p.samples.length} samples`);
    assert.equal(p.samples.length, p.timeDeltas.length);
    const ids = new Set(p.nodes.map((n) => n.id));
    for (const id of p.samples) assert.ok(ids.has(id), 'every sample names a kept node');
    for (const n of p.nodes) for (const c of n.children || []) assert.ok(ids.has(c), 'children are kept nodes');
    const spin = p.nodes.filter((n) => n.callFrame.functionName === 'spinForProfile');
    assert.ok(spin.length >= 1, 'the busy function is in the profile');
    assert.ok(spin[0].callFrame.url.endsWith('profiled.js'));
    const r = await withTimeout(target.exited, WAIT_MS, 'exit after the profile');
    assert.equal(r.code, 0);
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('LOOPDOCTOR_PROFILE=0: profile-start is ignored, bye still comes', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('profiled.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_PROFILE: '0' }));
  try {
    await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    sink.conns[0].socket.write('{"type":"profile-start"}\n');
    await new Promise((r) => setTimeout(r, 100));
    sink.conns[0].socket.write('{"type":"end"}\n');
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
    assert.equal(sink.all().filter((m) => m.type === 'profile').length, 0);
    const r = await withTimeout(target.exited, WAIT_MS, 'exit');
    assert.equal(r.code, 0);
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

// The probe as `cmake --install` lays it out (probe.js and lib/, *.js only),
// copied under dir; returns the copied probe.js.
function copyProbe(dir) {
  const src = path.dirname(PROBE);
  fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
  fs.copyFileSync(PROBE, path.join(dir, 'probe.js'));
  for (const f of fs.readdirSync(path.join(src, 'lib'))) {
    if (f.endsWith('.js')) fs.copyFileSync(path.join(src, 'lib', f), path.join(dir, 'lib', f));
  }
  return path.join(dir, 'probe.js');
}

test('an installed copy works for an ESM target with lookalike modules on NODE_PATH', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-probe-layout-'));
  const sink = startSink();
  await sink.ready;
  let target = null;
  try {
    const probe = copyProbe(path.join(dir, 'share', 'probes', 'node'));
    // The target's folder says "type": "module"; its NODE_PATH holds modules
    // named like the probe's parts that break anything that loads them.
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), '{"type":"module"}\n');
    fs.writeFileSync(path.join(app, 'server.js'),
      "import http from 'node:http';\n" +
      "const server = http.createServer((req, res) => res.end('ok\\n'));\n" +
      "server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));\n");
    const decoy = path.join(dir, 'decoy');
    fs.mkdirSync(path.join(decoy, 'lib'), { recursive: true });
    for (const f of fs.readdirSync(path.join(path.dirname(probe), 'lib'))) {
      fs.writeFileSync(path.join(decoy, f), 'throw new Error("decoy loaded");\n');
      fs.writeFileSync(path.join(decoy, 'lib', f), 'throw new Error("decoy loaded");\n');
    }
    const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, NODE_PATH: decoy });
    env.NODE_OPTIONS = `--require ${probe}`;
    target = startTarget(path.join(app, 'server.js'), env, { cwd: app });
    const port = Number(await target.firstLine());
    const hello = await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    assert.equal(hello.pid, target.child.pid);
    assert.equal((await sink.waitFor(() => sink.all().find((m) => m.type === 'listen'), 'listen')).port, port);
    assert.equal(await get(port, '/'), 200);
    const s = await sink.waitFor(() => sink.all().find((m) => m.type === 'sample' && m.http.responses >= 1), 'sample with the response');
    assertSample(s);
    sink.conns[0].socket.write('{"type":"end"}\n');
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
  } finally {
    if (target) {
      target.child.kill('SIGKILL');
      await withTimeout(target.exited, WAIT_MS, 'target exit');
    }
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a part of the probe that fails to load leaves the target running and unprobed', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-probe-broken-'));
  try {
    const breakages = [
      ['config.js', (f) => fs.writeFileSync(f, 'throw new Error("broken part");\n')],
      ['sampler.js', (f) => fs.rmSync(f)],                        // a partial install
      ['transport.js', (f) => fs.writeFileSync(f, 'function (\n')], // a syntax error
    ];
    for (const [name, breakIt] of breakages) {
      const probe = copyProbe(path.join(dir, name));
      breakIt(path.join(path.dirname(probe), 'lib', name));
      const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path });
      env.NODE_OPTIONS = `--require ${probe}`;
      const t = startTarget('spawn-children.js', env);
      const r = await withTimeout(t.exited, WAIT_MS, `exit with a broken ${name}`);
      assert.equal(r.code, 0, `broken ${name}: exit code`);
      assert.equal(r.stderr, '', `broken ${name}: nothing on stderr`);
      const [inherited] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(inherited.fd, null, `broken ${name}: children do not see the collector`);
      assert.equal(inherited.endpoint, null, `broken ${name}: children do not see the collector`);
    }
    assert.equal(sink.conns.length, 0, 'no broken probe connected');
  } finally {
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
