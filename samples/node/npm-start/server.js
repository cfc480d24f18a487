'use strict';
// Started by `npm start` (package.json), or `sh -c 'node server.js'` (issue
// 13, not labelled yet): the process loopdoctor spawns is npm (or a shell);
// the server, a child of a child, blocks its loop ~10 ms per request with
// the synchronous pbkdf2Sync.
const http = require('http');
const crypto = require('crypto');

const ITERATIONS = 10000;
const salt = crypto.randomBytes(16);

const server = http.createServer((req, res) => {
  const hash = crypto.pbkdf2Sync(`user-password-${req.url}`, salt, ITERATIONS, 64, 'sha512');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ hash: hash.toString('hex', 0, 8) }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`npm-start listening on 127.0.0.1:${server.address().port}`);
});
