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
const http = require('http');
const { BundledAgent } = require('../lib/bundled-undici');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 10;
const POOL_CONNECTIONS = 2;

const dispatcher = new BundledAgent({ connections: POOL_CONNECTIONS });

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const origin = `http://127.0.0.1:${upstreamPort}`;
  const server = http.createServer(async (req, res) => {
    try {
      const up = await dispatcher.request({ origin, path: req.url, method: 'GET' });
      const body = await up.body.text();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    } catch (_) {
      res.writeHead(502);
      res.end();
    }
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`undici-pool listening on 127.0.0.1:${server.address().port}`);
  });
});
