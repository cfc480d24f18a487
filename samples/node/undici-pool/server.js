'use strict';
// io-bound, cause connection-pool, through undici without fetch: the
// upstream is fast (~10 ms) but the server calls it with an undici Agent
// of 2 connections per origin and its `request()` API, as code using the
// npm undici package does (`undici.request(url, { dispatcher })`). Requests
// queue in undici's pool, which publishes nothing, and no fetch timing
// entry carries the wait: the probe sees the 2 connections busy all the
// time and the requests in flight at the server.
//
// The Agent class is the one Node's fetch is built on (lib/bundled-undici.js
// says how it is found); the npm package's `Agent` has the same `request()`.
const { BundledAgent } = require('../lib/bundled-undici');
const { startProxy } = require('../lib/fetch-proxy');

const UPSTREAM_DELAY_MS = 10;
const POOL_CONNECTIONS = 2;

const dispatcher = new BundledAgent({ connections: POOL_CONNECTIONS });

// undici's request() API, no fetch: the proxy of lib/fetch-proxy.js with
// another call.
startProxy('undici-pool', UPSTREAM_DELAY_MS, async (origin, path) =>
  (await dispatcher.request({ origin, path, method: 'GET' })).body.text());
