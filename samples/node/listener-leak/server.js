'use strict';
// blocked-loop: each request subscribes a metrics listener to a long-lived
// emitter and never unsubscribes; the emitter fires on every request, so the
// n-th request runs n listeners and the server gets slower with every request.
// (Real case: `bus.on('config-changed', ...)` inside a request handler.)
const http = require('http');
const { EventEmitter } = require('events');

const bus = new EventEmitter();
bus.setMaxListeners(0);  // someone silenced the MaxListenersExceededWarning
let seq = 0;
const API_ROUTE = /^\/api\/v(\d+)\//;
let lastAudit = '';

const server = http.createServer((req, res) => {
  const route = req.url;
  const started = Date.now();
  bus.on('request', (info) => {
    // An audit hook meant for this one request: formats a line about it.
    // Cheap once; but it stays subscribed and runs for every later request.
    lastAudit = JSON.stringify({ route, started, api: API_ROUTE.test(route), seq: info.seq, at: new Date(started).toISOString() });
  });
  bus.emit('request', { seq: ++seq });
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`listeners: ${bus.listenerCount('request')} ${lastAudit.length}\n`);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`listener-leak listening on 127.0.0.1:${server.address().port}`);
});
