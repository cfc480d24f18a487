'use strict';
// A cluster (not labelled): the primary forks two workers and
// does nothing else; each worker hashes the password of every request with
// the synchronous pbkdf2Sync (~10 ms of its loop). The primary's loop is
// idle: a probe that sees only the first process calls this healthy.
const cluster = require('cluster');
const http = require('http');
const crypto = require('crypto');

const WORKERS = 2;
const ITERATIONS = 30000;  // ~11 ms per hash with sha512 here (2026-12), ~30 ms on a slower core

if (cluster.isPrimary) {
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  let listening = 0;
  cluster.on('listening', (w, address) => {
    if (++listening === WORKERS) console.log(`cluster-blocked listening on 127.0.0.1:${address.port}`);
  });
} else {
  const salt = crypto.randomBytes(16);
  const server = http.createServer((req, res) => {
    const hash = crypto.pbkdf2Sync(`user-password-${req.url}`, salt, ITERATIONS, 64, 'sha512');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ worker: cluster.worker.id, hash: hash.toString('hex', 0, 8) }));
  });
  // Workers share the port the primary binds; PORT pins it, 0 lets the
  // primary pick one for all of them.
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1');
}
