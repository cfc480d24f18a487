'use strict';
// CPU work offloaded to a saturated pool: the main thread only
// forwards each request as a job to a hand-made pool of POOL_SIZE worker
// threads and answers when the job is done; jobs wait in an unbounded queue
// for a free worker. Each job (a password hash) takes ~100 ms of a worker;
// 20 connections bring more jobs than two workers can run, so every worker
// is busy all the time and the queue, and the response time, grow with the
// load. The main thread's loop stays free: it waits on the workers.
const http = require('http');
const path = require('path');
const { Worker } = require('worker_threads');

const POOL_SIZE = 2;
const workers = [];
const queue = [];  // jobs no worker has taken yet: unbounded
const pending = new Map();
let nextId = 1;

function dispatch(w) {
  const job = queue.shift();
  if (!job) { w.busy = false; return; }
  w.busy = true;
  w.postMessage(job);
}

for (let i = 0; i < POOL_SIZE; i++) {
  const w = new Worker(path.join(__dirname, 'hash-worker.js'));
  w.busy = false;
  w.on('message', ({ id, hash }) => {
    const res = pending.get(id);
    pending.delete(id);
    if (res) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ hash, queued: queue.length }));
    }
    dispatch(w);
  });
  workers.push(w);
}

const server = http.createServer((req, res) => {
  const id = nextId++;
  pending.set(id, res);
  queue.push({ id, password: `user-${id}${req.url}` });
  const idle = workers.find((w) => !w.busy);
  if (idle) dispatch(idle);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`offload-saturated listening on 127.0.0.1:${server.address().port}`);
});
