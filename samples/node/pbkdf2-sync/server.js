'use strict';
// blocked-loop: a login endpoint that hashes the password with the
// synchronous pbkdf2Sync on every request. Each hash holds the event loop for
// ~10 ms, so 50 concurrent clients queue behind each other. (The fix is
// crypto.pbkdf2 — async, on the libuv thread pool.)
const http = require('http');
const crypto = require('crypto');

const ITERATIONS = 30000;  // ~11 ms per hash with sha512 here (2026-12), ~30 ms on a slower core
const KEY_BYTES = 64;
const salt = crypto.randomBytes(16);
const storedHash = crypto.pbkdf2Sync('correct horse', salt, ITERATIONS, KEY_BYTES, 'sha512');

const server = http.createServer((req, res) => {
  const password = `user-password-${req.url}`;
  const hash = crypto.pbkdf2Sync(password, salt, ITERATIONS, KEY_BYTES, 'sha512');
  const ok = crypto.timingSafeEqual(hash, storedHash);
  res.writeHead(200, { 'content-type': 'application/json' });  // not 401: a wrong password on purpose
  res.end(JSON.stringify({ authenticated: ok }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`pbkdf2-sync listening on 127.0.0.1:${server.address().port}`);
});
