'use strict';
// The upstream service the sample server calls, run as its own process so its
// work never shows on the sample's event loop. It answers every request after
// UPSTREAM_DELAY_MS (argv[2]; "mean:spread" spreads each answer uniformly
// over mean +- spread ms, as a real service's times vary), prints its port on
// stdout, and exits when its stdin closes — i.e. when the parent dies,
// however it dies.
const http = require('http');
const { exitWithParent } = require('./exit-with-parent');

const [meanMs, spreadMs] = String(process.argv[2] || '').split(':').map(Number);
const delayMs = meanMs || 100;
const spread = spreadMs || 0;
const server = http.createServer((req, res) => {
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"upstream":"ok"}');
  }, delayMs + (Math.random() * 2 - 1) * spread);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
exitWithParent();
