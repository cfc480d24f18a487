'use strict';
// `loopdoctor attach`'s probe side (attach.js), driven the way loopdoctor
// drives it: a plain server (no NODE_OPTIONS) gets SIGUSR1, the test speaks
// the DevTools protocol to its inspector and evaluates the attach
// expression with a sink as the collector. The probe must report as under
// `run` and, once detached (or its connection gone), leave the target as
// it found it: the census below is taken before the attach, and after the
// detach it must hold nothing more (leftovers()). Needs a global WebSocket
// (Node 22; Node 20 runs this with --experimental-websocket) and, for the
// native cases, the addon (LOOPDOCTOR_NATIVE_DIR, set by ctest).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const net = require('net');
const path = require('path');
const { TEST_TIMEOUT_MS, WAIT_MS, startSink, startTarget, withTimeout, get } = require('./helpers.js');
const { ATTACH_KEY, DETACH, attachExpression, openInspector, Cdp } = require('./inspector.js');

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${ABI}.node`));
const skipNative = haveNative ? false : `no addon for ABI ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`;

// Every diagnostics channel the probe subscribes to, and every process
// event it listens to.
const PROBE_CHANNELS = [
  'http.server.request.start', 'tracing:net.server.listen:asyncEnd', 'http.client.request.start',
  'http.client.response.finish', 'undici:client:sendHeaders', 'undici:request:trailers',
  'undici:client:connected', 'net.client.socket', 'tracing:module.require:end',
];
const PROBE_EVENTS = ['exit', 'warning', 'beforeExit', 'uncaughtException', 'SIGINT', 'SIGTERM'];

// What a probe could leave in the target, read in the target: its loop's
// libuv handles (every one, unref()'d ones too: the report lists them all;
// not the timers: V8 makes and closes its own for delayed tasks, such as
// its memory reducer's 8 s one after a busy spell, and all JS timers share
// one), the process's threads (the watchdog's named loopdoctor-wd) and fds,
// the probe's channels with a subscriber, its events' listener counts, the
// attach global, and net.Server.prototype.listen. census() adds the JS
// timers still scheduled and the PerformanceObservers alive.
const CENSUS = `(() => {
  const fs = process.getBuiltinModule('fs');
  const dc = process.getBuiltinModule('diagnostics_channel');
  const net = process.getBuiltinModule('net');
  const tasks = fs.readdirSync('/proc/self/task');
  return {
    handles: process.report.getReport().libuv.filter((h) => h.type !== 'loop' && h.type !== 'timer')
      .map((h) => h.type + (h.is_active ? ' active' : ' idle') + (h.is_referenced ? ' ref' : ' unref')).sort(),
    threads: tasks.length,
    watchdogs: tasks.filter((t) => fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim() === 'loopdoctor-wd').length,
    fds: fs.readdirSync('/proc/self/fd').length,
    channels: ${JSON.stringify(PROBE_CHANNELS)}.filter((c) => dc.hasSubscribers(c)),
    events: ${JSON.stringify(PROBE_EVENTS)}.map((e) => e + ' ' + process.listenerCount(e)),
    attached: ${ATTACH_KEY} !== undefined,
    listen: net.Server.prototype.listen.toString().length,
  };
})()`;

let seq = 0;

// The target's environment without the probe's: a process started plainly.
function plainEnv(extra = {}) {
  const env = Object.assign({}, process.env, extra);
  for (const k of Object.keys(env)) if (k.startsWith('LOOPDOCTOR_')) delete env[k];
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  return env;
}

// The settings loopdoctor passes (every field), for this sink.
function settingsFor(sink, extra = {}) {
  return Object.assign({
    endpoint: sink.path, intervalMs: 20, job: 'attach-test', profile: 'on-block', profileIntervalUs: 1000,
    nativeDir: NATIVE_DIR || '', blockThresholdMs: 50, blockIntervalMs: 20, closeInspector: false,
    token: `tok-${process.pid}-${seq++}`,
  }, extra);
}

function abstractName() {
  return `\0loopdoctor-attach-test-${process.pid}-${seq++}`;
}

// A plain target with its inspector open and a session on it. Its
// inspector port is chosen when SIGUSR1 opens it (--inspect-port=0: no
// clash with another test's target on 9229).
async function startAttachable(script, env = {}) {
  const target = startTarget(script, plainEnv(env), { nodeArgs: ['--inspect-port=0'] });
  const port = Number(await target.firstLine());
  // A server that has served already: Node's http server starts its
  // connections-checking interval (an unref()'d timer) at its first
  // connection, which would otherwise show in the census as the probe's.
  assert.equal(await get(port, '/'), 200);
  const inspector = await openInspector(target);
  const cdp = await Cdp.connect(inspector.url);
  return {
    target, port, inspector, cdp,
    attach(settings, sessionId) { return this.cdp.evaluate(attachExpression(settings), sessionId); },
    async census(sessionId) {
      const c = await this.cdp.evaluate(CENSUS, sessionId);
      c.timers = await liveObjects(this.cdp, sessionId, TIMEOUT_PROTO, ACTIVE_TIMERS);
      c.observers = await liveObjects(this.cdp, sessionId, 'PerformanceObserver.prototype', 'function () { return this.length; }');
      return c;
    },
    end() {
      try { this.cdp.ws.close(); } catch (_) { /* gone */ }
      target.child.kill('SIGKILL');
    },
  };
}

// The JS timers scheduled (Node's Timeout objects: a cleared one has
// _idleTimeout -1), named by their callback and period.
const TIMEOUT_PROTO = '(() => { const t = setTimeout(() => {}, 1e6); clearTimeout(t); return Object.getPrototypeOf(t); })()';
// Node's http keeps the Date header's text for a second after a response
// (a timeout named resetCache): the app's, and there or not by chance.
const ACTIVE_TIMERS = `function () {
  return this.filter((t) => t._idleTimeout !== -1 && !t._destroyed)
    .map((t) => (t._onTimeout && t._onTimeout.name) + ' ' + t._idleTimeout + (t._repeat ? ' repeat' : ''))
    .filter((name) => !name.startsWith('resetCache ')).sort();
}`;

// fn's value on the live objects whose prototype `protoExpr` names
// (Runtime.queryObjects, which collects garbage first: an object only the
// probe held is gone once it has let go).
async function liveObjects(cdp, sessionId, protoExpr, fn) {
  const group = 'census';
  const proto = await cdp.call('Runtime.evaluate', { expression: protoExpr, objectGroup: group }, sessionId);
  const found = await cdp.call('Runtime.queryObjects', { prototypeObjectId: proto.result.objectId, objectGroup: group }, sessionId);
  const r = await cdp.call('Runtime.callFunctionOn', {
    objectId: found.objects.objectId, functionDeclaration: fn, returnByValue: true, objectGroup: group,
  }, sessionId);
  await cdp.call('Runtime.releaseObjectGroup', { objectGroup: group }, sessionId);
  return r.result.value;
}

// The census once two in a row agree (a request's socket closes a turn
// or two after its response): the target before the attach.
async function settledCensus(t, sessionId) {
  const deadline = Date.now() + WAIT_MS;
  let last = await t.census(sessionId);
  for (;;) {
    const now = await t.census(sessionId);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    assert.ok(Date.now() < deadline, 'the target settles');
    last = now;
  }
}

// What the target has now that it did not have before the attach: handles,
// timers, channels beyond `before`'s (the app's own may have gone
// meanwhile: a request's socket closing, its Date header timer), more
// threads, fds or observers, a watchdog thread, and any change of the
// listener counts, the attach global or net.Server.prototype.listen.
function leftovers(before, now) {
  const out = [];
  const more = (key) => {
    const left = [...before[key]];
    for (const x of now[key]) {
      const i = left.indexOf(x);
      if (i >= 0) left.splice(i, 1); else out.push(key + ': ' + x);
    }
  };
  for (const key of ['handles', 'timers', 'channels']) if (key in before) more(key);
  for (const key of ['threads', 'fds', 'observers']) {
    if (key in before && now[key] > before[key]) out.push(`${key}: ${now[key]}, ${before[key]} before`);
  }
  if (now.watchdogs > 0) out.push('watchdog threads: ' + now.watchdogs);
  for (const key of ['events', 'attached', 'listen']) {
    if (key in before && JSON.stringify(now[key]) !== JSON.stringify(before[key])) {
      out.push(`${key}: ${JSON.stringify(now[key])}, ${JSON.stringify(before[key])} before`);
    }
  }
  return out;
}

// Nothing of the probe's left in the target (handles close on a later turn
// of the loop: the census is read again until then, within WAIT_MS).
// `pick` keeps what is compared.
async function assertCensusBack(t, before, sessionId, pick = (c) => c) {
  const deadline = Date.now() + WAIT_MS;
  let left;
  for (;;) {
    left = leftovers(pick(before), pick(await t.census(sessionId)));
    if (left.length === 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(left, [], 'left in the target after the detach');
}

// Resolves once nothing listens on the inspector's port any more.
async function assertPortClosed(port) {
  const refused = () => new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.on('connect', () => { c.destroy(); resolve(false); });
    c.on('error', (e) => resolve(e.code === 'ECONNREFUSED'));
  });
  const deadline = Date.now() + WAIT_MS;
  while (!(await refused())) {
    assert.ok(Date.now() < deadline, `the inspector still listens on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The sink's connection with this token's hello.
function connOf(sink, token) {
  return sink.conns.find((c) => c.msgs[0] && c.msgs[0].type === 'hello' && c.msgs[0].attach_token === token);
}

// The main thread's connection once its hello and the listen line after it are in.
function helloAndListen(sink, token) {
  return sink.waitFor(() => { const c = connOf(sink, token); return c && c.msgs.length >= 2 && c; }, 'hello and listen');
}

// Requests one after another until stop(): the server is under load.
function load(port) {
  let on = true;
  let count = 0;
  const done = (async () => {
    while (on) { await get(port, '/'); count++; }
  })();
  return { stop: async () => { on = false; await done; return count; } };
}

test('a CommonJS server under load: attach, hello, its listen, samples, a block and its profile; detach leaves nothing', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sink = startSink();
  await sink.ready;
  const t = await startAttachable('attach-server.js');
  try {
    const before = await settledCensus(t);
    assert.equal(before.watchdogs, 0);
    const traffic = load(t.port);
    const settings = settingsFor(sink);
    const r = await t.attach(settings);
    assert.deepEqual(r, { ok: true, probe: 'native', listens: [{ address: '127.0.0.1', port: t.port }] });
    assert.equal(await t.cdp.evaluate(`typeof ${ATTACH_KEY}.detach`), 'function');

    const conn = await helloAndListen(sink, settings.token);
    conn.socket.write('{"type":"profile-start"}\n');  // as the collector does after hello
    const [hello, listen] = conn.msgs;
    assert.equal(hello.attached, true);
    assert.equal(hello.probe, 'native', hello.probe_fallback);
    assert.equal(hello.pid, t.target.child.pid);
    assert.equal(hello.interval_ms, 20);
    assert.equal(hello.job, 'attach-test');
    assert.equal(hello.thread, undefined, 'the main thread names no thread');
    assert.deepEqual([listen.type, listen.address, listen.port], ['listen', '127.0.0.1', t.port], 'the listen line right after hello');
    const samples = () => conn.msgs.filter((m) => m.type === 'sample');
    await sink.waitFor(() => samples().some((s) => s.http && s.http.requests > 0), 'a sample that counts the load');

    assert.equal(await get(t.port, '/block?ms=300'), 200);
    const block = await sink.waitFor(() => conn.msgs.find((m) => m.type === 'block' && m.in === 'js'), 'a block line');
    const named = block.frames.find((f) => f.function === 'blockFor');
    assert.ok(named, JSON.stringify(block.frames));
    assert.match(named.url, /attach-server\.js$/);
    // The profile starts at the first block after the probe read
    // profile-start; the first block's request and profile-start can arrive
    // in one poll, the request handled first. A second block, 200 ms on,
    // comes after it whatever that order was.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await get(t.port, '/block?ms=300'), 200);
    await traffic.stop();

    assert.deepEqual(await t.cdp.evaluate(DETACH), { ok: true });
    await sink.waitFor(() => conn.closed, 'the connection closed by the detach');
    const types = conn.msgs.map((m) => m.type);
    // Without a profile: the blocks the probe saw and when, beside the
    // lines' types, say whether the block came before the profiler was armed.
    const seen = JSON.stringify({ blocks: conn.msgs.filter((m) => m.type === 'block').map((b) => [b.t, b.start, b.duration_ms, b.in, b.by]),
      types: [...new Set(types)] }).slice(0, 2000);
    assert.deepEqual(types.slice(-2), ['profile', 'bye'], `the profile (the block started it), then bye, last: ${seen}`);
    assert.ok(conn.msgs.at(-2).profile.samples.length > 0, 'the profile has samples');
    assert.equal(types.filter((x) => x === 'hello').length, 1, 'one connection, one hello');
    await assertCensusBack(t, before);
    // The inspector stays open: closeInspector was false.
    assert.equal(await t.cdp.evaluate('1 + 1'), 2);
  } finally {
    t.end();
    await sink.close();
  }
});

test('an ES module server on an abstract socket: attach, detach, and the inspector closed behind it', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sink = startSink(abstractName());
  await sink.ready;
  const t = await startAttachable('attach-esm/server.js');
  try {
    assert.equal(await t.cdp.evaluate('typeof process.mainModule'), 'undefined', 'an ES module app: no main module');
    const before = await settledCensus(t);
    const settings = settingsFor(sink, { closeInspector: true });
    const r = await t.attach(settings);
    assert.equal(r.ok, true, r.error);
    assert.equal(r.probe, 'native');
    const conn = await helloAndListen(sink, settings.token);
    assert.equal(conn.msgs[1].port, t.port);
    assert.equal(await get(t.port, '/block?ms=200'), 200);
    const block = await sink.waitFor(() => conn.msgs.find((m) => m.type === 'block' && m.in === 'js'), 'a block line');
    assert.ok(block.frames.some((f) => f.function === 'blockFor' && /attach-esm\/server\.js$/.test(f.url)), JSON.stringify(block.frames));
    await sink.waitFor(() => conn.msgs.filter((m) => m.type === 'sample').length >= 3, 'samples');

    assert.deepEqual(await t.cdp.evaluate(DETACH), { ok: true });
    await sink.waitFor(() => conn.closed, 'the connection closed by the detach');
    assert.equal(conn.msgs.at(-1).type, 'bye');
    await t.cdp.close();  // as loopdoctor does once detach() answered
    await assertPortClosed(t.inspector.port);
    assert.equal(await get(t.port, '/'), 200, 'the server still serves');
    // A new SIGUSR1 opens it again, and the target is as it was.
    t.inspector = await openInspector(t.target);
    t.cdp = await Cdp.connect(t.inspector.url);
    await assertCensusBack(t, before);
  } finally {
    t.end();
    await sink.close();
  }
});

test('the collector closing the connection detaches the probe by itself (and closes the inspector)', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sink = startSink();
  await sink.ready;
  const t = await startAttachable('attach-server.js');
  try {
    const before = await settledCensus(t);
    const settings = settingsFor(sink, { closeInspector: true });
    assert.equal((await t.attach(settings)).ok, true);
    const conn = await sink.waitFor(() => connOf(sink, settings.token), 'hello');
    await sink.waitFor(() => conn.msgs.some((m) => m.type === 'sample'), 'a sample');
    conn.socket.destroy();  // loopdoctor Ctrl-C'd or killed
    // The inspector goes too, though this session is still connected: Node
    // closes it (our WebSocket answers the close at once).
    await withTimeout(t.cdp.closed, WAIT_MS, 'the inspector to close our session');
    await assertPortClosed(t.inspector.port);
    t.inspector = await openInspector(t.target);
    t.cdp = await Cdp.connect(t.inspector.url);
    await assertCensusBack(t, before);
  } finally {
    t.end();
    await sink.close();
  }
});

test('attach while attached is refused; after a detach a second attach works, even in the middle of the app\'s own synchronous JS, and the collector\'s end detaches it', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sink = startSink();
  await sink.ready;
  const t = await startAttachable('attach-server.js');
  try {
    const before = await settledCensus(t);
    const first = settingsFor(sink);
    assert.equal((await t.attach(first)).ok, true);
    const again = await t.attach(settingsFor(sink));
    assert.equal(again.ok, false);
    assert.match(again.error, /^already attached: .*attach token "tok-/);
    await sink.waitFor(() => connOf(sink, first.token), 'the first hello');
    assert.deepEqual(await t.cdp.evaluate(DETACH), { ok: true });
    await sink.waitFor(() => connOf(sink, first.token).closed, 'the first connection closed');

    // The second attach is evaluated while the app spins in blockFor():
    // the inspector runs it at an interrupt, and it answers before the block ends.
    const blocking = new Promise((resolve) => t.target.child.stdout.on('data', (d) => { if (/blocking/.test(d)) resolve(); }));
    const blocked = get(t.port, '/block?ms=500&say');
    let blockDone = false;
    blocked.then(() => { blockDone = true; });
    await withTimeout(blocking, WAIT_MS, 'the app to start blocking');
    const second = settingsFor(sink);
    const r = await t.attach(second);
    assert.equal(blockDone, false, 'the attach answered while the app still blocked');
    assert.equal(r.ok, true, r.error);
    assert.equal(r.probe, 'native');
    await blocked;
    const conn = await helloAndListen(sink, second.token);
    assert.equal(conn.msgs[0].attached, true);
    assert.equal(conn.msgs[1].port, t.port);
    await sink.waitFor(() => conn.msgs.some((m) => m.type === 'sample'), 'samples on the second connection');
    // The collector's "end" (its run is over) detaches as detach() does.
    conn.socket.write('{"type":"end"}\n');
    await sink.waitFor(() => conn.closed, 'the second connection closed by the probe');
    assert.equal(conn.msgs.at(-1).type, 'bye');
    assert.equal(sink.conns.length, 2);
    await assertCensusBack(t, before);
  } finally {
    t.end();
    await sink.close();
  }
});

// A worker paused at its start (NodeWorker.enable's waitForDebuggerOnStart)
// has not run Node's bootstrap for it yet: no process.argv, and require()
// throws (Node 20: "testEnabled is not a function"). So, as loopdoctor must,
// the test enables the Debugger in its session, lets it run to the break
// Node makes on its script's first line ("Break on start"), attaches
// there, and resumes it: the probe is in before any of its script runs.
async function attachAtStart(t, worker, settings) {
  const paused = new Promise((resolve) => t.cdp.on('Debugger.paused', (p, sessionId) => {
    if (sessionId === worker.sessionId) resolve(p);
  }));
  await t.cdp.call('Debugger.enable', {}, worker.sessionId);
  await t.cdp.call('Runtime.runIfWaitingForDebugger', {}, worker.sessionId);
  const at = await withTimeout(paused, WAIT_MS, 'the new worker to break on its first line');
  assert.equal(at.reason, 'Break on start');
  const r = await t.attach(settings, worker.sessionId);
  await t.cdp.call('Debugger.resume', {}, worker.sessionId);
  await t.cdp.call('Debugger.disable', {}, worker.sessionId);
  return r;
}

test('worker threads: an existing worker and a new one paused at its start each attach on their own connection', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sink = startSink();
  await sink.ready;
  const t = await startAttachable('attach-server.js', { WORKERS: '1' });
  try {
    const workers = [];
    t.cdp.on('NodeWorker.attachedToWorker', (p) => workers.push(p));
    await t.cdp.call('NodeWorker.enable', { waitForDebuggerOnStart: true });
    const existing = await sink.waitFor(() => workers[0], 'the existing worker');
    assert.equal(existing.waitingForDebugger, false);
    const before = await settledCensus(t, existing.sessionId);
    const ofLoop = (c) => ({ handles: c.handles, channels: c.channels, events: c.events, attached: c.attached,
      timers: c.timers, observers: c.observers, watchdogs: 0 });

    // closeInspector is for the main thread only: a worker never closes it.
    const s1 = settingsFor(sink, { closeInspector: true });
    const r1 = await t.attach(s1, existing.sessionId);
    assert.equal(r1.ok, true, r1.error);
    assert.deepEqual(r1.listens, []);

    const started = get(t.port, '/worker');  // answers once the new worker runs
    const fresh = await sink.waitFor(() => workers[1], 'the new worker, paused at its start');
    assert.equal(fresh.waitingForDebugger, true);
    const s2 = settingsFor(sink);
    const r2 = await attachAtStart(t, fresh, s2);
    assert.equal(r2.ok, true, r2.error);
    await started;

    const c1 = await sink.waitFor(() => connOf(sink, s1.token), 'the existing worker\'s hello');
    const c2 = await sink.waitFor(() => connOf(sink, s2.token), 'the new worker\'s hello');
    for (const [c, w] of [[c1, existing], [c2, fresh]]) {
      const hello = c.msgs[0];
      assert.equal(hello.attached, true);
      assert.equal(hello.probe, 'native', hello.probe_fallback);
      assert.equal(hello.thread, Number(w.workerInfo.workerId));
      assert.match(hello.thread_name, /^worker \d+ \(attach-worker\.js\)$/);
      assert.ok(hello.tid > 0);
      await sink.waitFor(() => c.msgs.some((m) => m.type === 'sample'), 'a worker sample');
    }
    const during = await t.census();
    assert.equal(during.watchdogs, 2, 'one watchdog thread per attached worker');
    assert.equal(during.attached, false, 'the main thread is not attached');

    for (const w of [existing, fresh]) assert.deepEqual(await t.cdp.evaluate(DETACH, w.sessionId), { ok: true });
    await sink.waitFor(() => c1.closed && c2.closed, 'both worker connections closed');
    for (const c of [c1, c2]) assert.equal(c.msgs.at(-1).type, 'bye');
    // The existing worker's loop is as before; no watchdog thread is left
    // in the process (the new worker brought threads and fds of its own).
    await assertCensusBack(t, before, existing.sessionId, ofLoop);
    assert.equal((await t.census()).watchdogs, 0, 'no watchdog thread left');
    assert.equal(await t.cdp.evaluate(`${ATTACH_KEY} === undefined`, fresh.sessionId), true);
    // The inspector stayed open: the worker's closeInspector was ignored.
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(await t.cdp.evaluate('1 + 1'), 2);
  } finally {
    t.end();
    await sink.close();
  }
});

test('the JS probe (probe: "js") attaches, samples and detaches without a trace', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const t = await startAttachable('attach-server.js');
  try {
    const before = await settledCensus(t);
    const settings = settingsFor(sink, { probe: 'js' });
    const r = await t.attach(settings);
    assert.deepEqual(r, { ok: true, probe: 'js', probe_fallback: 'the JS probe was asked for (probe: "js")',
      listens: [{ address: '127.0.0.1', port: t.port }] });
    const conn = await sink.waitFor(() => connOf(sink, settings.token), 'hello');
    conn.socket.write('{"type":"profile-start"}\n');  // the JS probe profiles at once
    assert.equal(conn.msgs[0].probe, 'js');
    await sink.waitFor(() => conn.msgs.filter((m) => m.type === 'sample').length >= 3, 'JS samples');
    assert.deepEqual(await t.cdp.evaluate(DETACH), { ok: true });
    await sink.waitFor(() => conn.closed, 'the connection closed by the detach');
    assert.deepEqual(conn.msgs.slice(-2).map((m) => m.type), ['profile', 'bye']);
    await assertCensusBack(t, before);
  } finally {
    t.end();
    await sink.close();
  }
});
