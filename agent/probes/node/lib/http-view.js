'use strict';
// The server's own view: requests started, finished and in flight, and the
// response time of a sample of them (diagnostics_channel, Node >= 18), and
// the ports it listens on (the 'net.server.listen' tracing channel where
// Node publishes it, else a hook on net.Server.prototype.listen).
//
// One channel, 'http.server.request.start', runs on every request, so its
// subscriber does as little as possible: a counter and a set lookup, plus a
// clock read and a 'finish' listener for the requests that are timed. Its
// twin 'http.server.response.finish' is not subscribed: a subscriber makes
// Node build and publish a message for every request, and the pair cost a
// saturated hello-world 1.6 % of its req/s (one alone 0.6 %; bench, no-op
// subscribers), most of the native probe's whole cost. What it told is read
// at the sample instead: a server socket's `_httpMessage` is the response it
// is answering, from the request until that response's 'finish' (every
// HTTP/1 server; the probe tests check it on Node 20 and 22), so in flight
// is the number of live sockets that hold one, and responses are requests
// started minus the growth of in flight, less the requests whose connection
// died unanswered. The subscription stays for the whole run: listening in
// windows at high rates (10 ms in every 40, the rest estimated) was tried
// and measured worse. Each subscribe and unsubscribe swaps the channel's
// prototype, on which Node's optimized parserOnIncoming depends: 22
// deoptimizations and 12 aborted recompiles of it in a 4 s wrk run, the
// windows' requests ~5 % slower than the gaps', and a plain server with a
// no-op subscriber toggled so lost 14.5 % of its req/s (subscribed whole:
// 0.1-0.6 %). Nothing is written
// onto the application's objects (a new property would change the hidden
// class of every ServerResponse and slow Node's own code down), and no
// response is held (held ones would survive young-GC scavenges and be
// copied, which under load cost more than the rest).
const net = require('net');
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');
const { TIMED_REQUESTS_PER_INTERVAL } = require('./config.js');

let dc;
try { dc = require('diagnostics_channel'); } catch (_) { dc = null; }

// The smallest power of two that keeps about TIMED_REQUESTS_PER_INTERVAL of
// `n` requests timed.
function strideFor(n) {
  let k = 1;
  while (n / k > TIMED_REQUESTS_PER_INTERVAL * 2 && k < (1 << 20)) k *= 2;
  return k;
}

function createHttpView(state, send) {
  const { now } = state;
  let requests = 0, aborted = 0;
  // The server sockets a request was seen on while sampling (keep-alive
  // sockets live anyway; holding them costs nothing); dead ones are
  // forgotten at the sample, so the set never outlives its sockets.
  const sockets = new Set();
  let inflightBefore = 0;  // in flight at the last sample
  // Latency of the timed requests only (every one at low rates): each timed
  // response gets a 'finish' listener of its own, so a pipelined request's
  // time includes its wait behind the ones before it.
  let timedResponses = 0, latencySum = 0, latencyMax = 0, lastMean = 0;
  let stride = 1;   // time 1 request in `stride` (a power of two)
  let seq = 0;

  function onRequestStart(msg) {
    try {
      if (!state.sampling) return;
      requests++;
      const s = msg.socket;
      if (s && !sockets.has(s)) sockets.add(s);
      if ((seq++ & (stride - 1)) === 0 && msg.response) time(msg.response);
    } catch (_) { /* never throw */ }
  }

  function time(res) {
    const t0 = performance.now();
    res.once('finish', () => {
      if (!state.sampling) return;
      const ms = performance.now() - t0;
      timedResponses++;
      latencySum += ms;
      if (ms > latencyMax) latencyMax = ms;
    });
  }

  // Requests in flight now: a live socket holds its unfinished response
  // until 'finish' (pipelined ones queue behind it and count once). A dead
  // socket that still holds one lost it: counted as aborted, not answered.
  function inflightNow() {
    let n = 0;
    for (const s of sockets) {
      if (s.destroyed) {
        if (s._httpMessage) aborted++;
        sockets.delete(s);
      } else if (s._httpMessage) {
        n++;
      }
    }
    return n;
  }

  // The sample's "http" object for the interval just ended; starts the next.
  // `timed` says how many responses the latency figures come from.
  function takeJson() {
    const inflight = inflightNow();
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
    reset();
    return s;
  }

  function reset() {
    requests = aborted = timedResponses = latencySum = latencyMax = 0;
  }

  // Sampling stopped: hold nothing of the application's.
  function clear() {
    sockets.clear();
    inflightBefore = 0;
    stride = 1;
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
  // else would tell us the port.
  function hookListen() {
    if (listenChannelPublished()) {
      dc.subscribe('tracing:net.server.listen:asyncEnd', onListenEnd);
      return;
    }
    const proto = net.Server.prototype;
    const original = proto.listen;
    if (typeof original !== 'function' || original.__loopdoctor) return;
    const wrapped = function listen(...args) {
      try { if (!state.finished) this.once('listening', onListening); } catch (_) { /* ignore */ }
      return original.apply(this, args);
    };
    Object.defineProperty(wrapped, '__loopdoctor', { value: true });
    Object.defineProperty(wrapped, 'length', { value: original.length });
    proto.listen = wrapped;
  }

  function subscribe() {
    if (dc && typeof dc.subscribe === 'function') dc.subscribe('http.server.request.start', onRequestStart);
    else if (dc && typeof dc.channel === 'function') dc.channel('http.server.request.start').subscribe(onRequestStart);
  }

  function install() {
    hookListen();
    subscribe();
  }

  return { install, takeJson, reset, clear };
}

module.exports = { createHttpView };
