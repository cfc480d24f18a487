'use strict';
// A cache or database server the raw-upstream sample talks to over plain TCP
// in a protocol of its own (as Redis' or Postgres' wire protocols: no HTTP),
// run as its own process so its work never shows on the sample's loop. Each
// line "GET <key>" is answered "+<value>" after UPSTREAM_DELAY_MS (argv[2]),
// lines of one connection in order. Prints its port on stdout, and exits
// when its stdin closes (the parent died).
const net = require('net');
const { exitWithParent } = require('./exit-with-parent');

const delayMs = Number(process.argv[2]) || 100;
const server = net.createServer((conn) => {
  conn.setNoDelay(true);
  let buf = '';
  conn.setEncoding('utf8');
  conn.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const key = buf.slice(0, nl).replace(/^GET /, '');
      buf = buf.slice(nl + 1);
      setTimeout(() => { if (!conn.destroyed) conn.write(`+value-of-${key}\n`); }, delayMs);
    }
  });
  conn.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
exitWithParent();
