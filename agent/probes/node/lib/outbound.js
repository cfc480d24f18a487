'use strict';
// Outbound calls, per destination (host:port): how many finished in the
// interval, how long they took on the wire (request sent -> response
// finished), and for Node's http.Agent the pool behind them: sockets open to
// the destination, requests waiting for one, and the pool's limit. Sources:
// diagnostics_channel, which Node 20 publishes for its http client
// ('http.client.request.start' once the request has a socket, i.e. after any
// wait for the pool; 'http.client.response.finish') and its bundled undici
// (fetch: 'undici:request:create', 'undici:request:trailers' at the end of
// the body). Nothing is written on the application's objects: a WeakMap
// holds each call's start, so an aborted call is simply forgotten.
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');

let dc;
try { dc = require('diagnostics_channel'); } catch (_) { dc = null; }

// Destinations reported per interval: a server calls a handful; one that
// calls thousands (a crawler) must not make a line the collector refuses
// (agent/protocol/message_check.cc holds the same bound). The busiest win.
const MAX_DESTINATIONS = 32;
// Latencies kept per destination per interval for the percentiles; past it
// every call still counts, in the mean and the max.
const MAX_LATENCIES = 256;

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

function createOutbound(state) {
  const starts = new WeakMap();  // request -> { t, d }
  // "http host:port" -> per-interval figures: the two clients keep apart,
  // as only http's pool is visible.
  const dests = new Map();

  function dest(client, name) {
    const key = client + ' ' + name;
    let d = dests.get(key);
    if (d === undefined) {
      d = { key, name, client, calls: 0, sum: 0, max: 0, lat: [], agent: null, agentKey: '',
        polls: 0, socketsSum: 0, socketsMax: 0, waitingSum: 0, waitingMax: 0 };
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

  function onUndiciCreate(msg) {
    try {
      if (!state.sampling) return;
      const req = msg.request;
      if (!req || typeof req.origin !== 'string') return;
      const d = dest('undici', req.origin.replace(/^[a-z]+:\/\//, ''));
      starts.set(req, { t: performance.now(), d });
    } catch (_) { /* never throw */ }
  }

  function onEnd(msg) {
    try {
      const req = msg.request;
      const st = req && starts.get(req);
      if (st === undefined) return;
      starts.delete(req);
      const ms = performance.now() - st.t;
      const d = st.d;
      d.calls++;
      d.sum += ms;
      if (ms > d.max) d.max = ms;
      if (d.lat.length < MAX_LATENCIES) d.lat.push(ms);
    } catch (_) { /* never throw */ }
  }

  // The pool's gauges, read every SLOW_REFRESH_MS: sockets open (busy and
  // free) and requests queued in the agent for a socket.
  function poll() {
    for (const d of dests.values()) {
      const a = d.agent;
      if (a === null) continue;
      const busy = (a.sockets[d.agentKey] || []).length;
      const free = (a.freeSockets[d.agentKey] || []).length;
      const waiting = (a.requests[d.agentKey] || []).length;
      d.polls++;
      d.socketsSum += busy + free;
      if (busy + free > d.socketsMax) d.socketsMax = busy + free;
      d.waitingSum += waiting;
      if (waiting > d.waitingMax) d.waitingMax = waiting;
    }
  }

  function pct(sorted, p) {
    return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  }

  function destJson(d) {
    const sorted = Float64Array.from(d.lat).sort();
    let s = '{"dest":' + JSON.stringify(d.name) + ',"client":"' + d.client + '","calls":' + d.calls +
      ',"latency_ms":{"mean":' + r3(d.calls ? d.sum / d.calls : 0) + ',"p50":' + r3(pct(sorted, 50)) +
      ',"p90":' + r3(pct(sorted, 90)) + ',"max":' + r3(d.max) + '}';
    if (d.agent !== null && d.polls > 0) {
      const limit = d.agent.maxSockets;
      s += ',"sockets":{"mean":' + r3(d.socketsSum / d.polls) + ',"max":' + d.socketsMax + '}' +
        ',"waiting":{"mean":' + r3(d.waitingSum / d.polls) + ',"max":' + d.waitingMax + '}' +
        (Number.isFinite(limit) ? ',"pool_max":' + limit : '');
    }
    return s + '}';
  }

  // The interval's line, or '' when no call went out; starts the next.
  function take(t, intervalMs) {
    const active = [];
    for (const d of dests.values()) if (d.calls > 0 || d.waitingMax > 0) active.push(d);
    let line = '';
    if (active.length > 0) {
      active.sort((a, b) => b.calls - a.calls);
      const shown = active.slice(0, MAX_DESTINATIONS);
      line = '{"type":"outbound","t":' + r3(t) + ',"interval_ms":' + r3(intervalMs) +
        ',"destinations":[' + shown.map(destJson).join(',') + ']' +
        (active.length > shown.length ? ',"destinations_dropped":' + (active.length - shown.length) : '') + '}\n';
    }
    for (const d of dests.values()) {
      d.calls = d.sum = d.max = d.polls = d.socketsSum = d.socketsMax = d.waitingSum = d.waitingMax = 0;
      d.lat.length = 0;
    }
    // Destinations quiet for a whole interval are forgotten, with their agent.
    const keep = new Set(active);
    for (const d of [...dests.values()]) if (!keep.has(d)) dests.delete(d.key);
    return line;
  }

  function install() {
    if (!dc || typeof dc.subscribe !== 'function') return;
    dc.subscribe('http.client.request.start', onHttpStart);
    dc.subscribe('http.client.response.finish', onEnd);
    dc.subscribe('undici:request:create', onUndiciCreate);
    dc.subscribe('undici:request:trailers', onEnd);
  }

  return { install, poll, take };
}

module.exports = { createOutbound, MAX_DESTINATIONS };
