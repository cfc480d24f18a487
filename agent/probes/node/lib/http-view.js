'use strict';
// The server's own view: requests started and finished, in flight and their
// response time (diagnostics_channel, Node >= 18), and the ports it listens
// on (the 'net.server.listen' tracing channel where Node publishes it, else a
// hook on net.Server.prototype.listen).
//
// onRequestStart and onResponseFinish run on every request, so they do as
// little as possible: counters and one map lookup each (the connection's
// box), plus a clock read for the requests that are timed. Nothing is written
// onto the application's objects (a new property would change the hidden
// class of every ServerResponse and slow Node's own code down), and no
// response is held past its 'finish' (held ones would survive young-GC
// scavenges and be copied, which under load cost more than the rest).
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
  let requests = 0, responses = 0;
  // In flight: started, not finished, their connection alive. A request
  // whose connection dies never gets 'finish', so requests are counted per
  // connection (keep-alive sockets live anyway; holding them costs nothing)
  // and a dead connection's unfinished ones leave the count at the sample.
  // The connection's box also holds the start of its timed request: HTTP/1.1
  // answers a connection's requests in order, so a request timed only when
  // its connection had nothing else unfinished is the one the connection's
  // next 'finish' belongs to. (A map from response to start time cost a set
  // and a delete per timed request, and the map's rehashing as it grew and
  // shrank was an eighth of the view's cost under load.) Pipelined requests
  // are therefore never timed; they are rare, and counted all the same.
  const perSocket = new Map();  // net.Socket -> { n: started, not finished; t: timed start or -1 }
  let inflight = 0;
  // Latency of the timed requests only (every one at low rates).
  let timedResponses = 0, latencySum = 0, latencyMax = 0, lastMean = 0;
  let stride = 1;   // time 1 request in `stride` (a power of two)
  let seq = 0;

  function onRequestStart(msg) {
    try {
      if (!state.sampling) return;  // not sampling: keep nothing alive
      requests++;
      const s = msg.socket;
      if (!s) return;
      let box = perSocket.get(s);
      if (box === undefined) perSocket.set(s, box = { n: 0, t: -1 });
      if ((seq++ & (stride - 1)) === 0 && box.n === 0) box.t = performance.now();
      box.n++;
      inflight++;
    } catch (_) { /* never throw */ }
  }

  function onResponseFinish(msg) {
    try {
      if (!state.sampling) return;
      responses++;
      const s = msg.socket;
      const box = s ? perSocket.get(s) : undefined;
      if (box === undefined || box.n === 0) return;
      box.n--;
      inflight--;
      if (box.t < 0) return;
      const ms = performance.now() - box.t;
      box.t = -1;
      timedResponses++;
      latencySum += ms;
      if (ms > latencyMax) latencyMax = ms;
    } catch (_) { /* never throw */ }
  }

  // Forgets dead connections: their unfinished requests were aborted, and
  // the map must not outlive its sockets.
  function sweep() {
    for (const [s, box] of perSocket) {
      if (s.destroyed) {
        inflight -= box.n;
        perSocket.delete(s);
      }
    }
  }

  // The sample's "http" object for the interval just ended; starts the next.
  // `timed` says how many responses the latency figures come from.
  function takeJson() {
    sweep();
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
    requests = responses = timedResponses = latencySum = latencyMax = 0;
  }

  // Sampling stopped: hold nothing of the application's.
  function clear() {
    perSocket.clear();
    inflight = 0;
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
    if (dc && typeof dc.subscribe === 'function') {
      dc.subscribe('http.server.request.start', onRequestStart);
      dc.subscribe('http.server.response.finish', onResponseFinish);
    } else if (dc && typeof dc.channel === 'function') {
      dc.channel('http.server.request.start').subscribe(onRequestStart);
      dc.channel('http.server.response.finish').subscribe(onResponseFinish);
    }
  }

  function install() {
    hookListen();
    subscribe();
  }

  return { install, takeJson, reset, clear };
}

module.exports = { createHttpView };
