'use strict';
// A cluster of two workers sharing one port: worker 1 hashes every request's
// password with the synchronous pbkdf2Sync (~4 ms of its loop each), worker 2
// answers at once. Under load the fast sibling takes most of the requests and
// most of the machine; worker 1's loop is busy all the time with medium
// blocks, none long on its own: a blocked loop, though the whole cluster's
// throughput looks fine (rules.cc: saturated by its requests' synchronous
// work, ~4 ms of CPU each, callbacks waiting p99 ~45 ms behind them).
const cluster = require('cluster');
const http = require('http');
const crypto = require('crypto');

const ITERATIONS = 6000;  // ~4 ms per hash with sha512 here (2026-12)

if (cluster.isPrimary) {
  cluster.fork({ SLOW_WORKER: '1' });
  cluster.fork({ SLOW_WORKER: '0' });
  let listening = 0;
  cluster.on('listening', (w, address) => {
    if (++listening === 2) console.log(`cluster-mixed listening on 127.0.0.1:${address.port}`);
  });
} else {
  const slow = process.env.SLOW_WORKER === '1';
  const salt = crypto.randomBytes(16);
  function hashPassword(url) {
    return crypto.pbkdf2Sync(`user-password-${url}`, salt, ITERATIONS, 64, 'sha512');
  }
  const server = http.createServer((req, res) => {
    const body = slow ? hashPassword(req.url).toString('hex', 0, 8) : 'ok';
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1');
}
