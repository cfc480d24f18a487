'use strict';
// io-bound, upstream over a raw socket: every request asks a slow cache
// server (~200 ms an answer) over plain TCP in its own line protocol, the
// way a Redis, Postgres or MySQL driver talks to its server: no HTTP
// client and no fetch, so neither of their diagnostics channels sees the
// call. A small driver (lib/line-driver.js) without a limit: a connection
// per call in flight, kept for the next (the pool grows to what the load
// needs), one command at a time on each.
// The loop is idle while requests wait; the upstream is the lever.
const http = require('http');
const { createClient } = require('../lib/line-driver');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 200;

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const cache = createClient(upstreamPort);
  const server = http.createServer((req, res) => {
    cache.get(req.url, (err, value) => {
      if (err) { res.writeHead(502); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value }));
    });
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`raw-upstream listening on 127.0.0.1:${server.address().port}`);
  });
}, 'raw-upstream.js');
