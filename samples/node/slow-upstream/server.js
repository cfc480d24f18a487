'use strict';
// io-bound: every request waits on a slow upstream service (~100 ms). The
// loop is idle while requests pile up in flight: adding CPU will not help,
// the upstream (or caching, or a timeout) is the lever.
const http = require('http');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 200;
const agent = new http.Agent({ keepAlive: true });  // unlimited sockets

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
    console.log(`slow-upstream listening on 127.0.0.1:${server.address().port}`);
  });
});
