'use strict';
// The probe's cause lines (agent/probes/node/lib/outbound.js, threadpool.js):
// their parts driven directly, against a real local server and a real
// threadpool, with a fake state and a clock of their own.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const http = require('http');
const crypto = require('crypto');
// Loaded before any outbound view is installed, as a driver loaded at the
// application's start-up loads it: install() then wraps tls.connect at once
// (the lazy paths are the fresh-process test's).
const tls = require('tls');
const { performance } = require('perf_hooks');

const LIB = path.resolve(__dirname, '..', '..', '..', '..', 'agent', 'probes', 'node', 'lib');
const { createOutbound, MAX_DESTINATIONS } = require(path.join(LIB, 'outbound.js'));
const { createThreadpool, poolSize } = require(path.join(LIB, 'threadpool.js'));

const sampling = () => ({ sampling: true, connected: true, finished: false });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function listen(handler) {
  return new Promise((resolve) => {
    const s = http.createServer(handler).listen(0, '127.0.0.1', () => resolve(s));
  });
}

test('outbound: calls to a pool of 2 show 2 sockets, requests waiting, the limit and the latency', { timeout: 20000 }, async () => {
  const server = await listen((q, r) => setTimeout(() => r.end('ok'), 40));
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const get = () => new Promise((res) => http.get({ host: '127.0.0.1', port, agent }, (r) => { r.resume(); r.on('end', res); }));
  const all = Promise.all(Array.from({ length: 10 }, get));
  await sleep(20);
  out.poll();
  await all;
  await sleep(20);  // 'http.client.response.finish' is published after the response's 'end'
  const line = JSON.parse(out.take(1000, 1000));
  assert.equal(line.type, 'outbound');
  const d = line.destinations.find((x) => x.client === 'http');
  assert.equal(d.dest, `127.0.0.1:${port}`);
  assert.equal(d.calls, 10);
  // The time on the wire, not the wait for the pool: ~40 ms each.
  assert.ok(d.latency_ms.p50 >= 35 && d.latency_ms.p50 < 1000, `p50 ${d.latency_ms.p50}`);
  assert.equal(d.sockets.max, 2);
  assert.ok(d.waiting.max >= 6, `waiting ${d.waiting.max}`);
  assert.equal(d.pool_max, 2);
  // Its sockets came through 'net.client.socket' too: left to the http channels.
  assert.equal(line.destinations.filter((x) => x.client === 'net').length, 0, JSON.stringify(line));
  // Nothing happened since: no line, and the destination is forgotten.
  assert.equal(out.take(2000, 1000), '');
  agent.destroy();
  server.close();
});

test('outbound: a raw TCP client (a driver\'s protocol) is timed from each write to the next read', { timeout: 20000 }, async () => {
  const net = require('net');
  // A line protocol: each line answered after 30 ms.
  const server = await new Promise((resolve) => {
    const s = net.createServer((c) => c.on('data', (d) => setTimeout(() => c.write('+' + d), 30)))
      .listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  const sock = net.connect(port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const ask = (q) => new Promise((res) => { sock.once('data', res); sock.write(q + '\n'); });
  for (let i = 0; i < 5; i++) await ask('GET k' + i);
  out.poll();
  const line = JSON.parse(out.take(1000, 1000));
  const d = line.destinations.find((x) => x.client === 'net');
  assert.ok(d, JSON.stringify(line));
  assert.equal(d.dest, `127.0.0.1:${port}`);
  // The first answer is the one that tells the socket from an HTTP client's:
  // every call is timed, that one included.
  assert.equal(d.calls, 5);
  assert.ok(d.latency_ms.p50 >= 25 && d.latency_ms.p50 < 1000, `p50 ${d.latency_ms.p50}`);
  assert.equal(d.sockets.max, 1);
  assert.equal(d.waiting, undefined, 'a driver\'s own queue is not visible');
  // The socket still works as the application wrote it.
  assert.equal(String(await ask('PING')), '+PING\n');
  sock.destroy();
  server.close();
});

// A self-signed certificate for localhost (valid to 2126), for TLS servers.
const TLS_OPTS = {
  key: require('fs').readFileSync(path.join(__dirname, 'fixtures', 'tls-key.pem')),
  cert: require('fs').readFileSync(path.join(__dirname, 'fixtures', 'tls-cert.pem')),
};

// A line protocol over a socket: each line answered '+line' after 30 ms.
function answerLines(c) {
  c.on('data', (d) => setTimeout(() => { if (!c.destroyed) c.write('+' + d); }, 30));
  c.on('error', () => {});
}

const askOn = (sock) => (q) => new Promise((res) => { sock.once('data', res); sock.write(q + '\n'); });

test('outbound: a TLS client (tls.connect) is timed as client tls, the wrapper transparent', { timeout: 20000 }, async () => {
  const server = await new Promise((resolve) => {
    const s = tls.createServer(TLS_OPTS, answerLines).listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  assert.equal(tls.connect.length, 0, 'tls.connect keeps its length');
  // connect(port, host, options, cb): the signature with a port first.
  const sock = tls.connect(port, '127.0.0.1', { rejectUnauthorized: false });
  assert.ok(sock instanceof tls.TLSSocket, 'the wrapper returns the socket');
  await new Promise((r) => sock.once('secureConnect', r));
  const ask = askOn(sock);
  for (let i = 0; i < 5; i++) await ask('GET k' + i);
  out.poll();
  const line = JSON.parse(out.take(1000, 1000));
  const d = line.destinations.find((x) => x.client === 'tls');
  assert.ok(d, JSON.stringify(line));
  assert.equal(d.dest, `127.0.0.1:${port}`);
  // Once: Node 22's tls.connect() also publishes the socket as a plain one.
  assert.equal(line.destinations.filter((x) => x.dest === d.dest).length, 1, JSON.stringify(line));
  assert.equal(d.calls, 5);
  assert.ok(d.latency_ms.p50 >= 25 && d.latency_ms.p50 < 1000, `p50 ${d.latency_ms.p50}`);
  assert.deepEqual(d.sockets, { mean: 1, max: 1 });
  assert.equal(d.waiting, undefined, 'a driver\'s own queue is not visible');
  assert.equal(String(await ask('PING')), '+PING\n', 'the socket works as the application wrote it');
  sock.destroy();
  server.close();
});

test('outbound: a plain connection upgraded to TLS (STARTTLS) is timed as tls from the upgrade', { timeout: 20000 }, async () => {
  const net = require('net');
  // pg's and mysql2's way: one exchange in clear, then TLS on the same socket.
  const server = await new Promise((resolve) => {
    const s = net.createServer((c) => {
      c.once('data', () => {
        c.write('+OK\n');
        answerLines(new tls.TLSSocket(c, Object.assign({ isServer: true }, TLS_OPTS)));
      });
    }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  const plain = net.connect(port, '127.0.0.1');
  await new Promise((r) => plain.once('connect', r));
  assert.equal(String(await askOn(plain)('STARTTLS')), '+OK\n');
  const sock = tls.connect({ socket: plain, rejectUnauthorized: false });
  await new Promise((r) => sock.once('secureConnect', r));
  const ask = askOn(sock);
  for (let i = 0; i < 4; i++) await ask('GET k' + i);
  out.poll();
  const line = JSON.parse(out.take(1000, 1000));
  const d = line.destinations.find((x) => x.client === 'tls');
  assert.ok(d, JSON.stringify(line));
  assert.equal(d.calls, 4);
  assert.deepEqual(d.sockets, { mean: 1, max: 1 });
  const clear = line.destinations.find((x) => x.client === 'net');
  assert.ok(!clear || (clear.calls <= 1 && clear.sockets.max === 0),
    `the plain socket stops counting at the upgrade: ${JSON.stringify(clear)}`);
  sock.destroy();
  server.close();
});

test('outbound: tls is not loaded for a target that does not use it; once required it is wrapped', { timeout: 20000 }, () => {
  const { execFileSync } = require('child_process');
  // A fresh process: this file has loaded tls already.
  const script = `
    const { createOutbound } = require(${JSON.stringify(path.join(LIB, 'outbound.js'))});
    const out = createOutbound({ sampling: true, connected: true, finished: false });
    out.install();
    const before = process.moduleLoadList.includes('NativeModule tls');
    const tls = require('node:tls');
    const wrapped = () => /tlsListeners/.test(String(tls.connect));
    const atRequire = wrapped();
    out.poll();  // the slow tick's look
    console.log(JSON.stringify({ before, atRequire, atTick: wrapped() }));`;
  const seen = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  // Node 22 publishes its requires: wrapped as require('tls') returns.
  const published = Number(process.versions.node.split('.')[0]) >= 22;
  assert.deepEqual(seen, { before: false, atRequire: published, atTick: true });
});

test('outbound: an https client\'s TLS sockets are left to the http channels', { timeout: 20000 }, async () => {
  const https = require('https');
  const server = await new Promise((resolve) => {
    const s = https.createServer(TLS_OPTS, (q, r) => setTimeout(() => r.end('ok'), 20))
      .listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
  const get = () => new Promise((res) => https.get({ host: '127.0.0.1', port, agent }, (r) => { r.resume(); r.on('end', res); }));
  for (let i = 0; i < 3; i++) await get();
  await sleep(20);
  out.poll();
  const line = JSON.parse(out.take(1000, 1000));
  assert.equal(line.destinations.find((x) => x.client === 'http').calls, 3, JSON.stringify(line));
  assert.equal(line.destinations.filter((x) => x.client === 'tls' || x.client === 'net').length, 0, JSON.stringify(line));
  agent.destroy();
  server.closeAllConnections();
  server.close();
});

// fetch's own undici: Node does not export it; its Agent class is that of
// the global dispatcher undici installs when it loads (as samples/node/lib/bundled-undici.js).
function undiciAgent(opts) {
  void globalThis.Response;  // loads the bundled undici
  return new (globalThis[Symbol.for('undici.globalDispatcher.1')].constructor)(opts);
}

// Also when an assertion failed: kept-alive connections would keep the test alive.
async function closeBoth(dispatcher, server) {
  await dispatcher.destroy();
  server.closeAllConnections();
  server.close();
}

test('outbound: fetch through a pool of 2 shows its 2 connections and the requests that waited', { timeout: 20000 }, async (t) => {
  const server = await listen((q, r) => setTimeout(() => r.end('ok'), 40));
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  const dispatcher = undiciAgent({ connections: 2 });
  t.after(() => closeBoth(dispatcher, server));
  const t0 = performance.now();
  const all = Promise.all(Array.from({ length: 10 }, async () =>
    (await fetch(`http://127.0.0.1:${port}/`, { dispatcher })).text()));
  await sleep(20);
  out.poll();
  await all;
  await sleep(20);  // resource timing entries reach observers after the fetch
  out.poll();
  const interval = performance.now() - t0;
  const line = JSON.parse(out.take(1000, interval));
  const d = line.destinations.find((x) => x.client === 'undici');
  assert.equal(line.destinations.filter((x) => x.client === 'net').length, 0, 'undici\'s sockets are left to its channels');
  assert.equal(d.dest, `127.0.0.1:${port}`);
  assert.equal(d.calls, 10);
  // The time on the wire, not the wait for the pool: ~40 ms each, where the
  // last pair waited for four before them (~160 ms).
  assert.ok(d.latency_ms.p50 >= 35 && d.latency_ms.p50 < 120, `p50 ${d.latency_ms.p50}`);
  assert.deepEqual(d.sockets, { mean: 2, max: 2 });
  // Waited: 2 pairs x ~40 ms, 2 x ~80, ... 2 x ~160 = ~800 ms over a ~220 ms run.
  assert.ok(d.waiting.mean >= 2, `waiting mean ${d.waiting.mean} over ${interval} ms`);
  assert.ok(d.waiting.max >= 8, `waiting max ${d.waiting.max}`);
  assert.equal(d.pool_max, undefined);  // undici's `connections` is not visible
  assert.equal(out.take(2000, 1000), '');
  // The destination was forgotten after a quiet second, its kept-alive
  // connections were not: calls on them still count both.
  await Promise.all([1, 2].map(async () => (await fetch(`http://127.0.0.1:${port}/`, { dispatcher })).text()));
  await sleep(20);
  out.poll();
  const again = JSON.parse(out.take(3000, 1000)).destinations.find((x) => x.client === 'undici');
  assert.deepEqual(again.sockets, { mean: 2, max: 2 });
});

test('outbound: fetch with no limit opens a connection per call and hardly waits', { timeout: 20000 }, async (t) => {
  const server = await listen((q, r) => setTimeout(() => r.end('ok'), 100));
  const port = server.address().port;
  const out = createOutbound(sampling());
  out.install();
  const dispatcher = undiciAgent({});
  t.after(() => closeBoth(dispatcher, server));
  const t0 = performance.now();
  const all = Promise.all(Array.from({ length: 6 }, async () =>
    (await fetch(`http://127.0.0.1:${port}/`, { dispatcher })).text()));
  await sleep(50);
  out.poll();
  await all;
  await sleep(20);
  const interval = performance.now() - t0;
  const line = JSON.parse(out.take(1000, interval));
  const d = line.destinations.find((x) => x.client === 'undici');
  assert.equal(line.destinations.filter((x) => x.client === 'net').length, 0, 'undici\'s sockets are left to its channels');
  assert.equal(d.calls, 6);
  assert.ok(d.latency_ms.p50 >= 95, `p50 ${d.latency_ms.p50}`);
  assert.equal(d.sockets.max, 6);
  // Each waited only to connect on loopback (a few ms, ~20 on a busy
  // machine), not a call's time on the wire as in a pool of 2.
  const waitPerCall = (d.waiting.mean * interval) / d.calls;
  assert.ok(waitPerCall < d.latency_ms.p50 / 2, `waited ${waitPerCall} ms a call`);
});

test('outbound: at most MAX_DESTINATIONS a line, the rest counted', { timeout: 20000 }, async () => {
  const state = sampling();
  const out = createOutbound(state);
  // Through the channel's own message shape: 40 destinations, one call each.
  const dc = require('diagnostics_channel');
  out.install();
  for (let i = 0; i < 40; i++) {
    const request = { host: '10.0.0.1', socket: { remotePort: 1000 + i }, agent: null, getHeader: () => undefined };
    dc.channel('http.client.request.start').publish({ request });
    dc.channel('http.client.response.finish').publish({ request, response: {} });
  }
  const line = JSON.parse(out.take(1000, 1000));
  assert.equal(line.destinations.length, MAX_DESTINATIONS);
  assert.equal(line.destinations_dropped, 40 - MAX_DESTINATIONS);
});

test('threadpool: the pool size is UV_THREADPOOL_SIZE or 4', () => {
  assert.equal(poolSize({}), 4);
  assert.equal(poolSize({ UV_THREADPOOL_SIZE: '16' }), 16);
  assert.equal(poolSize({ UV_THREADPOOL_SIZE: 'x' }), 4);
  assert.equal(poolSize({ UV_THREADPOOL_SIZE: '5000' }), 1024);
});

test('threadpool: a job waits behind a pool held by slow work, and not on an idle pool', { timeout: 20000 }, async () => {
  const tp = createThreadpool(sampling(), {});
  const PERIOD_MS = 100;  // the slow tick's fast period (causes.js)
  tp.poll(PERIOD_MS);  // the first job starts the pool's threads
  await sleep(150);
  tp.take(500, 500);
  tp.poll(PERIOD_MS);
  await sleep(150);
  const idle = JSON.parse(tp.take(1000, 1000));
  assert.equal(idle.size, 4);
  // Hold all 4 threads (and queue 4 more jobs) with pbkdf2 of ~100+ ms each.
  let left = 8;
  const done = new Promise((res) => {
    for (let i = 0; i < 8; i++) crypto.pbkdf2('a', 'b', 300000, 32, 'sha256', () => { if (--left === 0) res(); });
  });
  tp.poll(PERIOD_MS);
  await done;
  await sleep(20);
  const busy = JSON.parse(tp.take(2000, 1000));
  assert.ok(busy.wait_ms.max > idle.wait_ms.max + 50, `busy wait ${busy.wait_ms.max}, idle ${idle.wait_ms.max}`);
});
