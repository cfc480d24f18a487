'use strict';
// The upstream service the sample server calls, run as its own process so its
// work never shows on the sample's event loop. It answers every request after
// UPSTREAM_DELAY_MS (argv[2]), prints its port on stdout, and exits when its
// stdin closes — i.e. when the parent dies, however it dies.
const http = require('http');
const { exitWithParent } = require('./exit-with-parent');

const delayMs = Number(process.argv[2]) || 100;
const server = http.createServer((req, res) => {
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"upstream":"ok"}');
  }, delayMs);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
exitWithParent();
