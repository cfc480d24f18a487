'use strict';
// The worker of worker-stall/server.js: answers each request at once, and
// every STALL_EVERY_MS runs a synchronous job of STALL_MS (a cache rebuild
// written as a busy loop) that holds this thread's loop.
const { parentPort } = require('worker_threads');

const STALL_MS = 300;
const STALL_EVERY_MS = 500;

function rebuildCache() {
  const end = Date.now() + STALL_MS;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  return x;
}

setInterval(rebuildCache, STALL_EVERY_MS);
parentPort.on('message', ({ id, url }) => {
  parentPort.postMessage({ id, body: JSON.stringify({ url, at: Date.now() }) });
});
