'use strict';
// The server's own view: requests started and finished, in flight and their
// response time (diagnostics_channel, Node >= 18), and the ports it listens
// on (a hook on net.Server.prototype.listen). onRequestStart and
// onResponseFinish run on every request: they allocate nothing of their own.
const net = require('net');
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');

let dc;
try { dc = require('diagnostics_channel'); } catch (_) { dc = null; }

function createHttpView(state, send) {
  const { now } = state;
  let requests = 0, responses = 0, latencySum = 0, latencyMax = 0;
  const inflight = new Map();  // ServerResponse -> start time (performance.now)

  function onRequestStart(msg) {
    try {
      if (!state.sampling) return;  // not sampling: keep nothing alive
      const res = msg.response;
      requests++;
      if (res) inflight.set(res, performance.now());
    } catch (_) { /* never throw */ }
  }

  function onResponseFinish(msg) {
    try {
      const res = msg.response;
      const start = res ? inflight.get(res) : undefined;
      if (start === undefined) return;
      inflight.delete(res);
      const ms = performance.now() - start;
      responses++;
      latencySum += ms;
      if (ms > latencyMax) latencyMax = ms;
    } catch (_) { /* never throw */ }
  }

  function sweepInflight() {
    // A request whose connection died never gets 'finish': forget it.
    for (const res of inflight.keys()) {
      const s = res.socket;
      if (res.destroyed || !s || s.destroyed) inflight.delete(res);
    }
  }

  // The sample's "http" object for the interval just ended; starts the next.
  function takeJson() {
    if (inflight.size > 0) sweepInflight();
    const latMean = responses > 0 ? latencySum / responses : 0;
    const s = '{"requests":' + requests + ',"responses":' + responses +
      ',"inflight":' + inflight.size + ',"latency_mean_ms":' + r3(latMean) +
      ',"latency_max_ms":' + r3(latencyMax) + '}';
    reset();
    return s;
  }

  function reset() {
    requests = responses = latencySum = latencyMax = 0;
  }

  // Sampling stopped: hold no response objects.
  function clear() {
    inflight.clear();
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

  function hookListen() {
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
