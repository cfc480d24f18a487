'use strict';
// A server that answers from a worker thread (not labelled):
// every request is posted to one worker, which replies; the worker's own
// loop also runs a housekeeping job that spins ~300 ms every 500 ms, so a
// request that arrives during it waits up to 300 ms. The main thread only
// forwards and stays idle: a probe that sees the main thread alone calls
// this server healthy.
const http = require('http');
const path = require('path');
const { Worker } = require('worker_threads');

const worker = new Worker(path.join(__dirname, 'stall-worker.js'));
const pending = new Map();
let nextId = 1;
worker.on('message', ({ id, body }) => {
  const res = pending.get(id);
  if (!res) return;
  pending.delete(id);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});

const server = http.createServer((req, res) => {
  const id = nextId++;
  pending.set(id, res);
  worker.postMessage({ id, url: req.url });
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`worker-stall listening on 127.0.0.1:${server.address().port}`);
});
