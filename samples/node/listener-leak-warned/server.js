'use strict';
// blocked-loop, cause listener-leak: modelled on a well-known performance
// tutorial's restify app. Every request attaches an `after` listener to the
// long-lived app (meant to set this response's ETag) and never removes it:
// the n-th request runs n listeners, each hashing a body, so the server
// slows down with every request served. Unlike ../listener-leak, the limit
// is left at its default, so Node prints a MaxListenersExceededWarning once
// the eleventh listener is added; loopdoctor records it and names the line.
const http = require('http');
const { EventEmitter } = require('events');
const { bodyHash } = require('./util.js');

class App extends EventEmitter {}
const app = new App();

const ITEMS = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item-${i}` }));

const server = http.createServer((req, res) => {
  const body = JSON.stringify({ route: req.url, items: ITEMS });
  app.on('after', (done) => { done.etag = bodyHash(body); });
  const done = {};
  app.emit('after', done);
  res.writeHead(200, { 'content-type': 'application/json', etag: done.etag });
  res.end(body);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`listener-leak-warned listening on 127.0.0.1:${server.address().port}`);
});
