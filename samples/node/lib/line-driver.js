'use strict';
// Shared by the samples that talk to lib/raw-upstream.js over plain TCP
// (raw-upstream, db-pool); not a sample itself (no label). A small driver
// in the shape of pg's or mysql2's pool: connections opened up to `max`,
// each carrying one command at a time, kept for the next; a command that
// finds every connection busy waits in the pool's own queue, in JS, where
// no diagnostics channel sees it.
const net = require('net');

function createClient(port, { max = Infinity } = {}) {
  const idle = [];
  const waiting = [];
  let open = 0;

  function release(conn) {
    const next = waiting.shift();
    if (next) send(conn, next.cmd, next.cb);
    else idle.push(conn);
  }

  function connect() {
    const conn = { sock: net.connect(port, '127.0.0.1'), cb: null };
    open++;
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
      release(conn);
      cb(null, line.slice(1));
    });
    conn.sock.on('error', (e) => { if (conn.cb) conn.cb(e); conn.cb = null; });
    conn.sock.on('close', () => { open--; });
    return conn;
  }

  function send(conn, cmd, cb) {
    conn.cb = cb;
    conn.sock.write(`${cmd}\n`);
  }

  return {
    get(key, cb) {
      let conn = idle.pop();
      while (conn && conn.sock.destroyed) conn = idle.pop();
      if (!conn && open < max) conn = connect();
      if (conn) send(conn, `GET ${key}`, cb);
      else waiting.push({ cmd: `GET ${key}`, cb });
    },
  };
}

module.exports = { createClient };
