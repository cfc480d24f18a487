'use strict';
// gc-pressure: a per-request cache (keyed by a request id that never repeats)
// that never evicts. The heap grows by hundreds of MB under load, and every
// major GC has to mark the whole, ever larger, object graph.
const http = require('http');

const OBJECTS_PER_ENTRY = 1000;
const cache = new Map();
let nextId = 0;

function buildSession(id, url) {
  const events = [];
  for (let i = 0; i < OBJECTS_PER_ENTRY; i++) {
    events.push({ seq: i, at: id * 1000 + i, path: url, meta: { id, i } });
  }
  return { id, url, created: Date.now(), events };
}

const server = http.createServer((req, res) => {
  const id = nextId++;
  cache.set(`session-${id}`, buildSession(id, req.url));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`{"session":${id},"cached":${cache.size}}`);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`unbounded-cache listening on 127.0.0.1:${server.address().port}`);
});
