'use strict';
// Outbound calls, per destination (host:port): how many finished in the
// interval, how long they took on the wire (request sent -> response
// finished), and the pool behind them: connections open to the destination
// and requests waiting for one. Sources, all of them published by Node
// whether or not anyone listens:
// - Node's http client, on diagnostics_channel: 'http.client.request.start'
//   once the request has a socket (after any wait for the pool) and
//   'http.client.response.finish'; its http.Agent's gauges (sockets, queued
//   requests, maxSockets) are read every SLOW_REFRESH_MS.
// - undici (fetch; Node's bundled copy and the npm package publish the same
//   channels): 'undici:client:sendHeaders' (request written on a connection)
//   and 'undici:request:trailers' (body finished) time the wire;
//   'undici:client:connected' hands over each new connection, counted while
//   it is not destroyed. undici's pool queue publishes nothing: a request
//   waiting for a connection is only created (`undici:request:create`) when
//   a connection takes it. fetch's resource timing entry does carry that
//   wait (startTime -> requestStart: the pool's queue, DNS, connecting), so
//   a PerformanceObserver sums it; by Little's law the mean number waiting
//   is the time waited in the interval over its length.
// - Raw TCP clients (a database's or cache's driver: pg, mysql2, ioredis),
//   on 'net.client.socket', and TLS clients, from tls.connect(): see
//   createNetCalls (net-calls.js) and watchTls. A driver's own pool (pg's
//   Pool) adds its queue and size to its destination: driver-pools.js.
// Nothing is written on the http client's or undici's objects: a WeakMap
// holds each call's start, so an aborted call is simply forgotten.
const { performance, PerformanceObserver } = require('perf_hooks');
const { r3 } = require('./state.js');
const { createNetCalls } = require('./net-calls.js');
const { createDriverPools } = require('./driver-pools.js');

let dc;
try { dc = require('diagnostics_channel'); } catch (_) { dc = null; }

// Destinations reported per interval: a server calls a handful; one that
// calls thousands (a crawler) must not make a line the collector refuses
// (agent/protocol/message_check.cc holds the same bound). The busiest win.
const MAX_DESTINATIONS = 32;
// Latencies kept per destination per interval for the percentiles; past it
// every call still counts, in the mean and the max.
const MAX_LATENCIES = 256;
// undici connections handed over between two counts before the destroyed
// ones are dropped anyway: bounds what a process that is not sampling (so
// not counting) holds on to.
const PRUNE_AFTER_CONNECTIONS = 256;

// The port a request goes to: a new socket has no remotePort until it
// connects, so the Host header (which carries any non-default port) first.
function portOf(req) {
  try {
    const h = req.getHeader('host');
    const m = typeof h === 'string' && /:(\d+)$/.exec(h);
    if (m) return Number(m[1]);
  } catch (_) { /* no headers */ }
  if (req.socket && typeof req.socket.remotePort === 'number') return req.socket.remotePort;
  return req.agent && req.agent.defaultPort ? req.agent.defaultPort : 80;
}

// "host:port" as undici names a destination (request.origin, a connection's
// connectParams.host: no scheme, no default port), from an origin or a URL.
function hostOf(url) {
  const from = url.indexOf('//') + 2;
  let end = from;
  for (; end < url.length; end++) {
    const c = url.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break;  // '/', '?', '#'
  }
  const at = url.lastIndexOf('@', end);  // user:password@ is not the host
  return url.slice(at >= from ? at + 1 : from, end);
}

// The most waits that overlapped: w holds [start, end, start, end, ...].
function maxOverlap(w) {
  const n = w.length / 2;
  const s = new Float64Array(n);
  const e = new Float64Array(n);
  for (let i = 0; i < n; i++) { s[i] = w[2 * i]; e[i] = w[2 * i + 1]; }
  s.sort();
  e.sort();
  let max = 0;
  for (let i = 0, j = 0, cur = 0; i < n;) {
    if (s[i] < e[j]) { if (++cur > max) max = cur; i++; } else { cur--; j++; }
  }
  return max;
}

// A client's connections by destination ("host:port"), kept apart from
// the destinations (which forget a quiet one) as a kept-alive connection
// outlives quiet seconds. Destroyed ones are dropped when counted, or every
// PRUNE_AFTER_CONNECTIONS new ones while nothing counts them.
function createConns() {
  const byHost = new Map();
  let connectedSincePrune = 0;

  function liveConns(set) {
    let n = 0;
    for (const sock of set) if (sock.destroyed) set.delete(sock); else n++;
    return n;
  }

  function prune() {
    connectedSincePrune = 0;
    for (const [host, set] of byHost) if (liveConns(set) === 0) byHost.delete(host);
  }

  // Per connection, not per call: counted whether or not sampling, as a
  // connection opened before sampling still serves calls after.
  function add(host, socket) {
    let set = byHost.get(host);
    if (set === undefined) byHost.set(host, set = new Set());
    set.add(socket);
    if (++connectedSincePrune >= PRUNE_AFTER_CONNECTIONS) prune();
  }

  function drop(host, socket) {
    const set = byHost.get(host);
    if (set !== undefined) set.delete(socket);
  }

  // Connections open to host, or -1 when none was ever seen (a proxy's, or
  // opened before the probe): then its pool is not known.
  function count(host) {
    const set = byHost.get(host);
    return set === undefined ? -1 : liveConns(set);
  }

  return { add, drop, count };
}

// tls.connect() publishes nothing on diagnostics_channel (Node 20-24), so
// the TLS sockets it returns are handed to createNetCalls by a wrapper on
// the tls module's export: every caller reads it at call time (drivers,
// https' agent, undici's connector: the last two are told apart at their
// first answer, as on the plain channel), and ESM importers get it through
// syncBuiltinESMExports. The wrapper calls the original with the same
// `this` and arguments and returns what it returns; a listener never
// throws. It goes on when the application loads tls, not before: loading
// tls costs a process 10-19 ms and 3 MB (measured here, Node 20), which a
// server without TLS must not pay. Where Node publishes its requires
// ('tracing:module.require:end', Node 22) a require('tls') is wrapped as it
// returns, so a driver's first connection is timed. Elsewhere (Node 20; an
// ESM import) the wrapper goes on when the probe next looks: at install, at
// each plain client socket (a STARTTLS driver's connection comes first in
// clear) and at each slow tick (checkTls, process.moduleLoadList);
// connections opened before that are not timed. (A hook on Module._load
// would see every require, but its frame would sit in every stack the
// application's start-up throws.) Once per process; each createOutbound
// adds a listener, and the wrapper goes with the last one.
const tlsListeners = [];
let tlsWrapped = false;
let tlsRestore = null;  // puts tls.connect back (the last listener went)
const REQUIRE_END = 'tracing:module.require:end';

function tlsLoaded() {
  try { return process.moduleLoadList.includes('NativeModule tls'); } catch (_) { return false; }
}

function onRequireEnd(msg) {
  if (!tlsWrapped && msg && (msg.id === 'tls' || msg.id === 'node:tls')) wrapTls();
}

function wrapTls() {
  tlsWrapped = true;
  try { if (dc) dc.unsubscribe(REQUIRE_END, onRequireEnd); } catch (_) { /* not subscribed */ }
  let tls;
  try { tls = require('tls'); } catch (_) { return; }
  const orig = tls.connect;
  if (typeof orig !== 'function') return;
  const connect = function connect() {
    const sock = orig.apply(this, arguments);
    // connect(options[, cb]) or connect(port[, host][, options][, cb])
    let options = null;
    for (let i = 0; i < arguments.length && options === null; i++)
      if (arguments[i] !== null && typeof arguments[i] === 'object') options = arguments[i];
    for (const f of tlsListeners) {
      try { f(sock, options); } catch (_) { /* never throw */ }
    }
    return sock;
  };
  Object.defineProperty(connect, 'length', { value: orig.length });
  tls.connect = connect;
  syncEsm();
  tlsRestore = () => {
    if (tls.connect !== connect) return;  // wrapped again since: left as it is
    tls.connect = orig;
    syncEsm();
  };
}

function syncEsm() {
  try { require('module').syncBuiltinESMExports(); } catch (_) { /* CJS callers still see it */ }
}

// Adds a listener for every TLS socket tls.connect() returns; returns its
// removal, which puts tls.connect back when it was the last.
function watchTls(onTls) {
  tlsListeners.push(onTls);
  if (tlsListeners.length === 1 && !tlsWrapped) {
    if (tlsLoaded()) wrapTls();
    else try { if (dc) dc.subscribe(REQUIRE_END, onRequireEnd); } catch (_) { /* checkTls still wraps it */ }
  }
  return () => {
    const i = tlsListeners.indexOf(onTls);
    if (i >= 0) tlsListeners.splice(i, 1);
    if (tlsListeners.length > 0) return;
    if (tlsWrapped) {
      if (tlsRestore !== null) tlsRestore();
      tlsRestore = null;
      tlsWrapped = false;
    } else {
      try { if (dc) dc.unsubscribe(REQUIRE_END, onRequireEnd); } catch (_) { /* not subscribed */ }
    }
  };
}

function checkTls() {
  if (!tlsWrapped && tlsListeners.length > 0 && tlsLoaded()) wrapTls();
}

function pct(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function poolJson(d, intervalMs) {
  if (d.polls === 0) return '';
  const sockets = ',"sockets":{"mean":' + r3(d.socketsSum / d.polls) + ',"max":' + d.socketsMax + '}';
  if (d.client === 'net' || d.client === 'tls') {
    // A driver's own queue, when its pool was found (driver-pools.js).
    if (d.driver === '') return sockets;
    return sockets + ',"waiting":{"mean":' + r3(d.waitingSum / d.polls) + ',"max":' + d.waitingMax + '}' +
      (d.poolMax > 0 ? ',"pool_max":' + d.poolMax : '') + ',"driver":' + JSON.stringify(d.driver);
  }
  if (d.agent === null) {
    // Little's law: the mean number waiting is the time waited over the interval.
    const mean = intervalMs > 0 ? d.waitMs / intervalMs : 0;
    return sockets + ',"waiting":{"mean":' + r3(mean) + ',"max":' + maxOverlap(d.waits) + '}';
  }
  const limit = d.agent.maxSockets;
  return sockets + ',"waiting":{"mean":' + r3(d.waitingSum / d.polls) + ',"max":' + d.waitingMax + '}' +
    (Number.isFinite(limit) ? ',"pool_max":' + limit : '');
}

function destJson(d, intervalMs) {
  const sorted = Float64Array.from(d.lat).sort();
  return '{"dest":' + JSON.stringify(d.name) + ',"client":"' + d.client + '","calls":' + d.calls +
    ',"latency_ms":{"mean":' + r3(d.calls ? d.sum / d.calls : 0) + ',"p50":' + r3(pct(sorted, 50)) +
    ',"p90":' + r3(pct(sorted, 90)) + ',"max":' + r3(d.max) + '}' + poolJson(d, intervalMs) + '}';
}

function createOutbound(state) {
  const starts = new WeakMap();  // request -> { t, d }
  // "http host:port" -> per-interval figures: the clients keep apart, as
  // their pools are read differently.
  const dests = new Map();
  const undiciConns = createConns();
  const undiciSockets = new WeakSet();
  const rawConns = { net: createConns(), tls: createConns() };
  const driverPools = createDriverPools((socket, client) => net.onSocket({ socket }, client));
  const net = createNetCalls(state, (sock) => undiciSockets.has(sock),
    (client, name, ms) => addCall(dest(client, name), ms), rawConns);

  function dest(client, name) {
    const key = client + ' ' + name;
    let d = dests.get(key);
    if (d === undefined) {
      d = { key, name, client, calls: 0, sum: 0, max: 0, lat: [], agent: null, agentKey: '',
        polls: 0, socketsSum: 0, socketsMax: 0, waitingSum: 0, waitingMax: 0,
        waitMs: 0, waits: [], driver: '', poolMax: 0 };
      dests.set(key, d);
    }
    return d;
  }

  function onHttpStart(msg) {
    try {
      if (!state.sampling) return;
      const req = msg.request;
      if (!req || typeof req.host !== 'string') return;
      const port = portOf(req);
      const d = dest('http', req.host + ':' + port);
      const agent = req.agent;
      if (agent && typeof agent.getName === 'function' && d.agent !== agent) {
        d.agent = agent;
        d.agentKey = agent.getName({ host: req.host, port });
      }
      starts.set(req, { t: performance.now(), d });
    } catch (_) { /* never throw */ }
  }

  // The request is on a connection: any wait for the pool is behind it.
  function onUndiciSend(msg) {
    try {
      if (!state.sampling) return;
      const req = msg.request;
      if (!req || typeof req.origin !== 'string') return;
      starts.set(req, { t: performance.now(), d: dest('undici', hostOf(req.origin)) });
    } catch (_) { /* never throw */ }
  }

  function addCall(d, ms) {
    d.calls++;
    d.sum += ms;
    if (ms > d.max) d.max = ms;
    if (d.lat.length < MAX_LATENCIES) d.lat.push(ms);
  }

  function onEnd(msg) {
    try {
      const req = msg.request;
      const st = req && starts.get(req);
      if (st === undefined) return;
      starts.delete(req);
      addCall(st.d, performance.now() - st.t);
    } catch (_) { /* never throw */ }
  }

  function onUndiciConnected(msg) {
    try {
      const host = msg.connectParams && msg.connectParams.host;
      if (typeof host !== 'string' || !msg.socket) return;
      undiciSockets.add(msg.socket);
      undiciConns.add(host, msg.socket);
    } catch (_) { /* never throw */ }
  }

  // fetch's resource timing entries, one per finished fetch: the time from
  // fetch() to the request's start on a connection was spent waiting.
  function onResource(list) {
    try {
      if (!state.sampling) return;
      for (const e of list.getEntries()) {
        const wait = e.requestStart - e.startTime;
        if (!(wait > 0)) continue;
        const d = dest('undici', hostOf(e.name));
        d.waitMs += wait;
        if (d.waits.length < 2 * MAX_LATENCIES) d.waits.push(e.startTime, e.requestStart);
      }
    } catch (_) { /* never throw */ }
  }

  function addPoll(d, sockets, waiting) {
    d.polls++;
    d.socketsSum += sockets;
    if (sockets > d.socketsMax) d.socketsMax = sockets;
    d.waitingSum += waiting;
    if (waiting > d.waitingMax) d.waitingMax = waiting;
  }

  // Whether a destination was called in this interval: its pool's gauges
  // are then read every SLOW_REFRESH_MS (causes.js).
  function busy() { return dests.size > 0; }

  // The pools' gauges, read at each slow tick: an http.Agent's sockets
  // open (busy and free) and requests queued in it for a socket; undici's
  // connections open (its waits come from the resource entries).
  function poll() {
    checkTls();
    const pools = driverPools.poll(performance.now());
    for (const d of dests.values()) {
      const a = d.agent;
      if (a !== null) {
        const busy = (a.sockets[d.agentKey] || []).length;
        const free = (a.freeSockets[d.agentKey] || []).length;
        addPoll(d, busy + free, (a.requests[d.agentKey] || []).length);
      } else if (d.client !== 'http') {
        const n = (d.client === 'undici' ? undiciConns : rawConns[d.client]).count(d.name);
        const p = d.client === 'undici' ? undefined : pools.get(d.name);
        if (p !== undefined) d.driver = p.driver, d.poolMax = p.max;
        if (n >= 0) addPoll(d, n, p !== undefined ? p.waiting : 0);
      }
    }
  }

  // The interval's line, or '' when no call went out; starts the next.
  function take(t, intervalMs) {
    const active = [];
    for (const d of dests.values()) if (d.calls > 0 || d.waitingMax > 0 || d.waitMs > 0) active.push(d);
    let line = '';
    if (active.length > 0) {
      active.sort((a, b) => b.calls - a.calls);
      const shown = active.slice(0, MAX_DESTINATIONS);
      line = '{"type":"outbound","t":' + r3(t) + ',"interval_ms":' + r3(intervalMs) +
        ',"destinations":[' + shown.map((d) => destJson(d, intervalMs)).join(',') + ']' +
        (active.length > shown.length ? ',"destinations_dropped":' + (active.length - shown.length) : '') + '}\n';
    }
    for (const d of dests.values()) {
      d.calls = d.sum = d.max = d.polls = d.socketsSum = d.socketsMax = d.waitingSum = d.waitingMax = d.waitMs = 0;
      d.lat.length = 0;
      d.waits.length = 0;
    }
    // Destinations quiet for a whole interval are forgotten, with their agent.
    const keep = new Set(active);
    for (const d of [...dests.values()]) if (!keep.has(d)) dests.delete(d.key);
    return line;
  }

  // Returns the removal of every hook (a detaching probe).
  function install() {
    if (!dc || typeof dc.subscribe !== 'function') return () => {};
    const channels = {
      'http.client.request.start': onHttpStart,
      'http.client.response.finish': onEnd,
      'undici:client:sendHeaders': onUndiciSend,
      'undici:request:trailers': onEnd,
      'undici:client:connected': onUndiciConnected,
      'net.client.socket': (msg) => { checkTls(); net.onSocket(msg); },
    };
    for (const name of Object.keys(channels)) dc.subscribe(name, channels[name]);
    const unwatchTls = watchTls((sock, options) => {
      if (options && typeof options === 'object' && options.socket) net.onUpgrade(options.socket);
      net.onSocket({ socket: sock }, 'tls');
    });
    let observer = null;
    try {
      observer = new PerformanceObserver(onResource);
      observer.observe({ entryTypes: ['resource'] });
    } catch (_) { observer = null; /* no resource timing in this Node: no undici waits */ }
    return () => {
      for (const name of Object.keys(channels)) {
        try { dc.unsubscribe(name, channels[name]); } catch (_) { /* never throw */ }
      }
      try { unwatchTls(); } catch (_) { /* never throw */ }
      if (observer !== null) { try { observer.disconnect(); } catch (_) { /* gone */ } }
      net.stop();
      driverPools.stop();
      dests.clear();
    };
  }

  return { install, poll, take, busy };
}

module.exports = { createOutbound, MAX_DESTINATIONS };
