'use strict';
// io-bound (light): a thin proxy in front of a slow upstream (~150 ms per
// call) reached through a small keep-alive pool of UPSTREAM_SOCKETS
// connections. The server itself does almost nothing — its loop is busy
// about 1 % of the time at a few dozen requests per second — yet every
// client waits seconds: requests queue for the pool and then for the
// upstream. An idle loop with requests in flight and slow responses is
// waiting on I/O, not "too lightly loaded to judge". (Real case: a BFF in
// front of a slow internal API with a default-sized pool.)
const http = require('http');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 150;
const UPSTREAM_SOCKETS = 4;
const agent = new http.Agent({ keepAlive: true, maxSockets: UPSTREAM_SOCKETS });

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const server = http.createServer((req, res) => {
    const up = http.get({ host: '127.0.0.1', port: upstreamPort, path: req.url, agent }, (ur) => {
      const chunks = [];
      ur.on('data', (c) => chunks.push(c));
      ur.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.concat(chunks));
      });
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`slow-upstream-light listening on 127.0.0.1:${server.address().port}`);
  });
});
