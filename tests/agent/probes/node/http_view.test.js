'use strict';
// lib/http-view.js on its own, driven through the channel Node publishes
// on: in flight from the servers' own connection lists or, for a server
// without one (older Node), from its requests' sockets; a request whose
// connection dies unanswered is not counted as answered.
const test = require('node:test');
const assert = require('node:assert');
const dc = require('diagnostics_channel');
const http = require('http');
const net = require('net');
const path = require('path');

const LIB = path.resolve(__dirname, '..', '..', '..', '..', 'agent', 'probes', 'node', 'lib');
const { createHttpView } = require(path.join(LIB, 'http-view.js'));

function view() {
  const state = { now: () => 0, sampling: true, listens: [], connected: false, finished: false };
  const v = createHttpView(state, () => {});
  v.install();
  return { v, take: () => JSON.parse(v.takeJson()) };
}

test('a server without a connection list: its requests\' sockets, and aborted ones', () => {
  const { v, take } = view();
  const start = dc.channel('http.server.request.start');
  const server = {};  // no 'http.server.connections' symbol
  const sockets = [1, 2].map(() => ({ destroyed: false, _httpMessage: {} }));
  for (const socket of sockets) start.publish({ server, socket, response: null, request: null });
  assert.deepStrictEqual([take().requests, take().inflight], [2, 2]);
  sockets[0]._httpMessage = null;       // answered
  sockets[1].destroyed = true;          // its client went away unanswered
  const t = take();
  assert.deepStrictEqual([t.requests, t.inflight, t.responses], [0, 0, 1]);
  v.clear();
});

test('an http.Server: in flight from its connection list; a dropped one is not answered', async () => {
  const { v, take } = view();
  const hold = [];
  const server = http.createServer((req, res) => { if (req.url === '/hang') hold.push(res); else res.end('ok'); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  try {
    take();
    const clients = [1, 2, 3].map(() => net.connect(port, '127.0.0.1', function () { this.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n'); }));
    while (hold.length < 3) await new Promise((r) => setTimeout(r, 10));
    let t = take();
    assert.deepStrictEqual([t.requests, t.inflight, t.responses], [3, 3, 0]);
    hold[0].end('late');  // one answered...
    clients[1].destroy(); // ...one dropped by its client
    await new Promise((r) => setTimeout(r, 100));
    t = take();
    assert.deepStrictEqual([t.requests, t.inflight, t.responses], [0, 1, 1]);
    clients.forEach((c) => c.destroy());
  } finally {
    v.clear();
    server.close();
    server.closeAllConnections();
  }
});
