'use strict';
// io-bound, upstream over a raw socket: every request asks a slow cache
// server (~200 ms an answer) over plain TCP in its own line protocol, the
// way a Redis, Postgres or MySQL driver talks to its server: no HTTP
// client and no fetch, so neither of their diagnostics channels sees the
// call. A small driver: a connection per call in flight, kept for the next
// (the pool grows to what the load needs), one command at a time on each.
// The loop is idle while requests wait; the upstream is the lever.
const http = require('http');
const net = require('net');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 200;

// The driver: idle connections, each with the callback of the command it
// carries.
function createClient(port) {
  const idle = [];
  function connect() {
    const conn = { sock: net.connect(port, '127.0.0.1'), cb: null };
    conn.sock.setNoDelay(true);
    conn.sock.setEncoding('utf8');
    let buf = '';
    conn.sock.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const cb = conn.cb;
      conn.cb = null;
      idle.push(conn);
      cb(null, line.slice(1));
    });
    conn.sock.on('error', (e) => { if (conn.cb) conn.cb(e); conn.cb = null; });
    return conn;
  }
  return {
    get(key, cb) {
      let conn = idle.pop();
      while (conn && conn.sock.destroyed) conn = idle.pop();
      if (!conn) conn = connect();
      conn.cb = cb;
      conn.sock.write(`GET ${key}\n`);
    },
  };
}

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const cache = createClient(upstreamPort);
  const server = http.createServer((req, res) => {
    cache.get(req.url, (err, value) => {
      if (err) { res.writeHead(502); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value }));
    });
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`raw-upstream listening on 127.0.0.1:${server.address().port}`);
  });
}, 'raw-upstream.js');
