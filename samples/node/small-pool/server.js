'use strict';
// io-bound: the upstream is fast (~10 ms) but the HTTP agent allows only 2
// sockets to it, so requests queue for the pool: response times grow with
// concurrency while the loop sits idle. (Real case: maxSockets copied from a
// tutorial, or a DB pool of size 2.)
const http = require('http');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 10;
const POOL_SOCKETS = 2;
const agent = new http.Agent({ keepAlive: true, maxSockets: POOL_SOCKETS });

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
    console.log(`small-pool listening on 127.0.0.1:${server.address().port}`);
  });
});
