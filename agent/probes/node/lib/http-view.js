'use strict';
// The server's own view: requests started, finished and in flight, and the
// response time of a sample of them (diagnostics_channel, Node >= 18), and
// the ports it listens on (the 'net.server.listen' tracing channel where
// Node publishes it, else a hook on net.Server.prototype.listen).
//
// One channel, 'http.server.request.start', runs on every request, so its
// subscriber is a counter and a countdown, and nothing else: one that also
// looked the request's socket up in a set, timed inline and caught errors
// cost a saturated hello-world ~1 % more of its req/s than a bare counter
// (bench/probe-overhead, two runs of 10 sets, 2026-12-05; perf showed Node's
// own calls in parserOnIncoming, where V8 inlines the subscriber, no longer
// inlined). Whatever else the view tells is read at the sample, once a
// handover:
// - in flight: the servers' own connection lists (the http.Server's
//   'http.server.connections' symbol, which server.closeAllConnections()
//   reads too; a server is learnt from the first request it starts): a
//   socket's `_httpMessage` is the response it is answering, from the
//   request until that response's 'finish' (every HTTP/1 server; the probe
//   tests check it on Node 20 and 22). A server without such a list (older
//   Node) has the sockets of its requests kept in a set instead, per
//   request, as this view did before;
// - responses: requests started minus the growth of in flight, less the
//   requests whose connection died unanswered (a socket in flight at a
//   sample and destroyed, its response unfinished, at the next);
// - latency: 1 request in `stride` is timed by a 'finish' listener.
// The subscription stays for the whole run: listening in windows at high
// rates (10 ms in every 40, the rest estimated) was tried and measured
// worse. Each subscribe and unsubscribe swaps the channel's prototype, on
// which Node's optimized parserOnIncoming depends: 22 deoptimizations and
// 12 aborted recompiles of it in a 4 s wrk run, the windows' requests ~5 %
// slower than the gaps', and a plain server with a no-op subscriber
// toggled so lost 14.5 % of its req/s (subscribed whole: 0.1-0.6 %). Its
// twin 'http.server.response.finish' is not subscribed: a subscriber makes
// Node build and publish a message for every request (the pair cost 1.6 %,
// no-op). Nothing is written onto the application's objects (a new
// property would change the hidden class of every ServerResponse and slow
// Node's own code down), and no response is held (held ones would survive
// young-GC scavenges and be copied, which under load cost more than the
// rest).
const net = require('net');
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');
const { TIMED_REQUESTS_PER_INTERVAL } = require('./config.js');

let dc;
try { dc = require('diagnostics_channel'); } catch (_) { dc = null; }

const REQUEST_START = 'http.server.request.start';
const LISTEN_END = 'tracing:net.server.listen:asyncEnd';

// The smallest power of two that keeps about TIMED_REQUESTS_PER_INTERVAL of
// `n` requests timed.
function strideFor(n) {
  let k = 1;
  while (n / k > TIMED_REQUESTS_PER_INTERVAL * 2 && k < (1 << 20)) k *= 2;
  return k;
}

// The list Node keeps of an http.Server's connections (Node >= 18.0: an
// object whose all() returns their parsers, each with its .socket), or null.
const CONNECTIONS = 'http.server.connections';
function connectionsOf(server) {
  try {
    const sym = Object.getOwnPropertySymbols(server).find((s) => s.description === CONNECTIONS);
    const list = sym === undefined ? null : server[sym];
    return list && typeof list.all === 'function' ? list : null;
  } catch (_) { return null; }
}

function createHttpView(state, send) {
  const { now } = state;
  let requests = 0, aborted = 0;
  let requestsEver = 0;  // since the probe started: never reset (requestCount)
  // Servers seen starting a request while sampling, with their connection
  // lists (null: none, their requests' sockets go to `sockets`).
  const servers = new Map();
  let lastServer = null;
  let perRequestSockets = false;
  const sockets = new Set();
  // The sockets in flight at the last sample: one destroyed by the next
  // with its response unfinished lost it (aborted, not answered).
  let inflightSockets = new Set();
  let inflightBefore = 0;  // in flight at the last sample
  // Latency of the timed requests only (every one at low rates): each timed
  // response gets a 'finish' listener of its own, so a pipelined request's
  // time includes its wait behind the ones before it.
  let timedResponses = 0, latencySum = 0, latencyMax = 0, lastMean = 0;
  let stride = 1;     // time 1 request in `stride` (a power of two)
  let countdown = 1;  // requests until the next timed one

  // The hot path: see the header. Nothing here throws (a subscriber's
  // exception would reach the application as an uncaught one).
  function onRequestStart(msg) {
    if (!state.sampling || !msg) return;
    requests++;
    requestsEver++;
    if (msg.server !== lastServer || perRequestSockets) learn(msg);
    if (--countdown === 0) timeOne(msg);
  }

  function learn(msg) {
    try {
      const server = msg.server;
      lastServer = server;
      if (server && !servers.has(server)) {
        const list = connectionsOf(server);
        servers.set(server, list);
        if (list === null) perRequestSockets = true;
      }
      if (perRequestSockets && servers.get(server) === null && msg.socket && !sockets.has(msg.socket)) sockets.add(msg.socket);
    } catch (_) { /* never throw */ }
  }

  function timeOne(msg) {
    countdown = stride;
    try {
      const res = msg.response;
      if (!res) return;
      const t0 = performance.now();
      res.once('finish', () => {
        if (!state.sampling) return;
        const ms = performance.now() - t0;
        timedResponses++;
        latencySum += ms;
        if (ms > latencyMax) latencyMax = ms;
      });
    } catch (_) { /* never throw */ }
  }

  // A socket answering a request, alive: one in flight (pipelined requests
  // queue behind its response and count once).
  function count(s, into) {
    if (!s || s.destroyed || !s._httpMessage) return 0;
    into.add(s);
    return 1;
  }

  // Requests in flight now, from the servers' lists (and the per-request
  // sockets of servers without one, forgotten once dead).
  function inflightNow() {
    for (const s of inflightSockets) if (s.destroyed && s._httpMessage) aborted++;
    const current = new Set();
    let n = 0;
    for (const [server, list] of servers) {
      if (list === null) continue;
      const parsers = list.all();
      for (let i = 0; i < parsers.length; i++) n += count(parsers[i].socket, current);
      if (parsers.length === 0 && !server.listening) {
        servers.delete(server);
        if (lastServer === server) lastServer = null;
      }
    }
    for (const s of sockets) {
      if (s.destroyed) sockets.delete(s);
      else n += count(s, current);
    }
    inflightSockets = current;
    return n;
  }

  // The sample's "http" object for the interval just ended; starts the next.
  // `timed` says how many responses the latency figures come from.
  function takeJson() {
    let inflight = 0;
    try { inflight = inflightNow(); } catch (_) { /* a server's list changed shape: none */ }
    // Never fewer than were timed finishing: a pipelined burst answered
    // within the interval shows as one in flight at most.
    const responses = Math.max(requests - (inflight - inflightBefore) - aborted, timedResponses, 0);
    inflightBefore = inflight;
    let mean = lastMean;
    if (timedResponses > 0) mean = lastMean = latencySum / timedResponses;
    else if (responses === 0) mean = 0;
    // else: responses finished but none was timed (the rate fell sharply
    // while 1 in N was timed): the last measured mean stands for them.
    const s = '{"requests":' + requests + ',"responses":' + responses +
      ',"inflight":' + inflight + ',"latency_mean_ms":' + r3(mean) +
      ',"latency_max_ms":' + r3(latencyMax) + ',"timed":' + timedResponses + '}';
    stride = strideFor(requests);
    if (countdown > stride) countdown = stride;
    reset();
    return s;
  }

  function reset() {
    requests = aborted = timedResponses = latencySum = latencyMax = 0;
  }

  // Sampling stopped: hold nothing of the application's.
  function clear() {
    servers.clear();
    sockets.clear();
    inflightSockets = new Set();
    lastServer = null;
    perRequestSockets = false;
    inflightBefore = 0;
    stride = countdown = 1;
    lastMean = 0;
  }

  function onListening() {
    try {
      const a = this.address();
      if (!a || typeof a !== 'object' || typeof a.port !== 'number') return;  // pipe
      const msg = { type: 'listen', address: a.address, port: a.port };
      state.listens.push(msg);
      if (state.connected) send(JSON.stringify(Object.assign({ t: r3(now()) }, msg)) + '\n');
    } catch (_) { /* never throw */ }
  }

  // Node publishes a finished listen() on this tracing channel (22.3, and
  // back-ported to 20.x). A subscriber adds no frame to the application's
  // stacks, where a wrapped listen() showed up in every listen error
  // ("Server.listen (.../http-view.js)" under an EADDRINUSE). Whether this
  // Node publishes it is read from listen's own source, which names the
  // channel; a version table would be wrong for some back-port.
  function listenChannelPublished() {
    try {
      return !!(dc && typeof dc.tracingChannel === 'function' &&
        /netServerListen/.test(Function.prototype.toString.call(net.Server.prototype.listen)));
    } catch (_) { return false; }
  }

  function onListenEnd(msg) {
    if (state.finished || !msg || !msg.server) return;
    onListening.call(msg.server);
  }

  // Older Node: wrap listen(). Its frame then shows in listen errors; nothing
  // else would tell us the port. Returns the hook's removal.
  function hookListen() {
    if (listenChannelPublished()) {
      dc.subscribe(LISTEN_END, onListenEnd);
      return () => dc.unsubscribe(LISTEN_END, onListenEnd);
    }
    const proto = net.Server.prototype;
    const original = proto.listen;
    if (typeof original !== 'function' || original.__loopdoctor) return () => {};
    const wrapped = function listen(...args) {
      try { if (!state.finished) this.once('listening', onListening); } catch (_) { /* ignore */ }
      return original.apply(this, args);
    };
    Object.defineProperty(wrapped, '__loopdoctor', { value: true });
    Object.defineProperty(wrapped, 'length', { value: original.length });
    proto.listen = wrapped;
    // A later wrapper on top of ours stays, and so does ours under it.
    return () => { if (proto.listen === wrapped) proto.listen = original; };
  }

  function subscribe() {
    if (dc && typeof dc.subscribe === 'function') {
      dc.subscribe(REQUEST_START, onRequestStart);
      return () => dc.unsubscribe(REQUEST_START, onRequestStart);
    }
    if (dc && typeof dc.channel === 'function') {
      const ch = dc.channel(REQUEST_START);
      ch.subscribe(onRequestStart);
      return () => ch.unsubscribe(onRequestStart);
    }
    return () => {};
  }

  // Returns the view's removal (a detaching probe): hooks off, nothing of
  // the application's held.
  function install() {
    const unhook = hookListen();
    const unsubscribe = subscribe();
    return () => {
      unsubscribe();
      unhook();
      clear();
    };
  }

  // Attach mode: the TCP servers listening already (the ones whose handle
  // keeps the loop alive, as every server's does unless unref()'d) get
  // their listen lines, sent right after hello.
  function addListening() {
    let handles;
    try { handles = process._getActiveHandles(); } catch (_) { return; }
    for (const h of handles) {
      try {
        if (h instanceof net.Server && h.listening) onListening.call(h);
      } catch (_) { /* never throw */ }
    }
  }

  return { install, addListening, takeJson, reset, clear, requestCount: () => requestsEver };
}

module.exports = { createHttpView };
