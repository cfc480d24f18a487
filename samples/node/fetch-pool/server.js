'use strict';
// io-bound, cause connection-pool, through fetch (undici): the upstream is
// fast (~10 ms) but fetch goes through an undici Agent of 2 connections per
// origin, so requests queue in undici's pool while the loop sits idle. (Real
// case: `connections` copied from an example, as small-pool's maxSockets.)
//
// Node 20 and 22 do not export the undici their fetch is built on, so its
// Agent class is taken from the global dispatcher it installs when it loads
// (touching one of its globals loads it): undici keeps that dispatcher under
// Symbol.for('undici.globalDispatcher.1') so that copies of undici share it,
// and fetch(url, { dispatcher }) is Node's documented way to pass another
// one. With the npm package it would be `new (require('undici').Agent)(...)`;
// both publish the same diagnostics_channel messages.
const http = require('http');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 10;
const POOL_CONNECTIONS = 2;

void globalThis.Response;
const BundledAgent = globalThis[Symbol.for('undici.globalDispatcher.1')].constructor;
const dispatcher = new BundledAgent({ connections: POOL_CONNECTIONS });

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const url = `http://127.0.0.1:${upstreamPort}/`;
  const server = http.createServer(async (req, res) => {
    try {
      const up = await fetch(url + req.url.slice(1), { dispatcher });
      const body = await up.text();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    } catch (_) {
      res.writeHead(502);
      res.end();
    }
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`fetch-pool listening on 127.0.0.1:${server.address().port}`);
  });
});
